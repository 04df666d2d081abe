package window

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSpecsDocumented holds every registered policy to an exported
// constant whose value is its name and whose doc is its specification:
// what `go doc ./window/internal/prune Prune` shows, or `go doc ./window
// Recorded` for the policies window holds itself.
func TestSpecsDocumented(t *testing.T) {
	// The constants are this package's and its rooms' (window/internal/*).
	rooms, err := filepath.Glob("internal/*")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{} // policy name → the doc of its constant
	consts := map[string]string{}
	for _, dir := range append([]string{"."}, rooms...) {
		fset := token.NewFileSet()
		var files []*ast.File
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if len(files) == 0 {
			continue
		}
		p, err := doc.NewFromFiles(fset, files, "github.com/ctxbench/ctxbench/window/"+dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range p.Consts {
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				if len(vs.Names) != 1 || len(vs.Values) != 1 || !vs.Names[0].IsExported() {
					continue
				}
				lit, ok := vs.Values[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				name, _ := strconv.Unquote(lit.Value)
				d := v.Doc // a constant of a group has its own
				if vs.Doc != nil {
					d = vs.Doc.Text()
				}
				docs[name], consts[name] = d, vs.Names[0].Name
			}
		}
	}
	for _, s := range Specs() {
		d, ok := docs[s.Name]
		switch {
		case !ok:
			t.Errorf("%s: no exported constant names it", s.Name)
		case !strings.HasPrefix(d, consts[s.Name]+" names "):
			t.Errorf("%s: the doc of %s does not start with %q", s.Name, consts[s.Name], consts[s.Name]+" names ")
		case s.Source != "-" && s.Source != "the transcript" && len(d) < 300:
			t.Errorf("%s: the doc of %s is %d bytes, not a specification", s.Name, consts[s.Name], len(d))
		}
	}
}
