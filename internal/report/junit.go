package report

import (
	"encoding/xml"
	"io"
)

// A JUnitCase is one test case of a JUnit report: one transcript under one
// policy for ctxbench check.
type JUnitCase struct {
	Class, Name string
	// Failures are the messages of what failed (none: the case passed).
	Failures []string
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	Failure *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes cases as JUnit XML (testsuites/testsuite/testcase/
// failure), the shape CI systems display.
func WriteJUnit(w io.Writer, suite string, cases []JUnitCase) error {
	s := junitSuite{Name: suite, Tests: len(cases)}
	for _, c := range cases {
		jc := junitCase{Class: c.Class, Name: c.Name}
		if len(c.Failures) > 0 {
			s.Failures++
			text := ""
			for _, f := range c.Failures {
				text += f + "\n"
			}
			jc.Failure = &junitFailure{Message: c.Failures[0], Type: "ctxbench", Text: text}
		}
		s.Cases = append(s.Cases, jc)
	}
	doc := junitSuites{Name: "ctxbench", Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
