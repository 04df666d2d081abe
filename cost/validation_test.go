package cost

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

var validate = flag.Bool("validate", false, "TestValidation: print the out-of-sample distribution on fixtures/validation")

// TestValidation measures how close the projection lands on the
// validation set, fixtures/validation: real public sessions nothing in
// ctxbench is fitted on. Each session of 20 calls or more is fitted on
// its first half, and its later calls priced without their bill. The
// README quotes the total's median, p90 and worst, and fails to say
// otherwise; with -validate (make validate) each session's error and
// the distribution of the total's and each component's over $0.01 are
// printed.
func TestValidation(t *testing.T) {
	total, parts, names := outOfSample(t, "../fixtures/validation")
	p := MeasureProjectionError(total)
	want := fmt.Sprintf("over %d public sessions nothing is fitted on, the total lands %.1f%% from the bill at the median, %.1f%% at p90 and %.1f%% at worst",
		p.Sessions, p.MedianPct, p.P90Pct, p.WorstPct)
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), want) {
		t.Errorf("README.md does not say %q", want)
	}
	if !*validate {
		return
	}
	order := make([]int, len(total))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmpAbs(total[a], total[b]) })
	for _, i := range order {
		fmt.Printf("%+8.1f%%  %s\n", total[i], strings.TrimPrefix(names[i], "../fixtures/validation/"))
	}
	fmt.Println(distribution("total", total))
	for _, k := range []string{"input", "cache read", "cache write", "output"} {
		fmt.Println(distribution(k, parts[k]))
	}
}

func cmpAbs(a, b float64) int {
	switch a, b := math.Abs(a), math.Abs(b); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// distribution formats the median, p90 and worst of v's absolute values.
func distribution(name string, v []float64) string {
	if len(v) == 0 {
		return fmt.Sprintf("%-12s no session", name)
	}
	p := MeasureProjectionError(v)
	return fmt.Sprintf("%-12s %2d sessions: median %5.1f%%, p90 %5.1f%%, worst %5.1f%%", name, p.Sessions, p.MedianPct, p.P90Pct, p.WorstPct)
}
