package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Series is one line of a chart: y values by call (x = 1, 2, …).
type Series struct {
	Label string
	// Key is the series' policy's place in the report's list: its
	// style (colour and dashes) in every plot, whichever lines a plot
	// merges or leaves out.
	Key int
	Y   []float64
	// Reference marks the line the others are read against (the bill):
	// drawn black and thicker, whatever its place.
	Reference bool
	// Marks are the calls (0-based) marked on the line with a cross, and
	// MarkLabel what the legend calls them: the bill's cache misses.
	Marks     []int
	MarkLabel string
}

// A Level is a horizontal line drawn across a chart (a cap): in the
// colour of the series named Of, when there is one.
type Level struct {
	Label string
	Y     float64
	Of    string
}

// A style is a line's colour and dashes: ten colours, then the same ten
// dashed, then dotted, so no two lines of a plot look alike.
func style(i int) draw.LineStyle {
	ls := draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.6)}
	switch (i / len(palette)) % 3 {
	case 1:
		ls.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		ls.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	}
	return ls
}

// mergeSeries joins the series whose values are all equal into one, its
// label the labels joined by " = ": policies that behave alike on a
// session are one line and one legend entry, not lines drawn over each
// other. The order is that of each group's first series.
func mergeSeries(series []Series) []Series {
	var out []Series
	for _, s := range series {
		merged := false
		for k := range out {
			if out[k].Reference == s.Reference && slices.Equal(out[k].Y, s.Y) && slices.Equal(out[k].Marks, s.Marks) {
				out[k].Label += " = " + s.Label
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, s)
		}
	}
	return out
}

// markColor draws the marks on a line: red, apart from every line's.
var markColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}

// LineChart draws series against the call number, with dashed lines at the
// levels, into dir/name.png and .svg, and returns the files. Series with
// the same values are drawn once, labelled together; each line has a
// style of its own, a level the colour of its series.
func LineChart(dir, name, title, ylabel string, series []Series, levels []Level) ([]string, error) {
	p := newPlot(fitTitle(title), "API call (1 = first)", ylabel)
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Tick.Marker = intTicks{}
	p.Y.Tick.Marker = numberTicks{usd: strings.HasPrefix(ylabel, "USD")}
	maxY, maxX := 0.0, 0
	styles := map[string]draw.LineStyle{}
	merged := mergeSeries(series)
	for _, s := range merged {
		pts := make(plotter.XYs, len(s.Y))
		for j, y := range s.Y {
			pts[j] = plotter.XY{X: float64(j + 1), Y: y}
		}
		if pts = drawable(p, pts); len(pts) == 0 {
			continue
		}
		for _, pt := range pts {
			maxY = math.Max(maxY, pt.Y)
		}
		maxX = max(maxX, len(s.Y))
		l, err := plotter.NewLine(decimate(pts, maxPlotPoints))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Label, err)
		}
		if s.Reference {
			l.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(2.4)}
		} else {
			l.LineStyle = style(s.Key)
		}
		for _, lb := range strings.Split(s.Label, " = ") {
			styles[lb] = l.LineStyle
		}
		p.Add(l)
		p.Legend.Add(wrapLabel(s.Label, 60), l)
		var marks plotter.XYs
		for _, j := range s.Marks {
			if j >= 0 && j < len(s.Y) {
				marks = append(marks, plotter.XY{X: float64(j + 1), Y: s.Y[j]})
			}
		}
		if marks = drawable(p, marks); len(marks) > 0 {
			sc, err := plotter.NewScatter(thin(marks, maxPlotPoints))
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: markColor, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
			p.Add(sc)
			p.Legend.Add(s.MarkLabel, sc)
		}
	}
	for _, lv := range levels {
		if maxX == 0 {
			break
		}
		if !shows(&p.Y, lv.Y) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: lv.Y}, {X: float64(maxX), Y: lv.Y}})
		if err != nil {
			return nil, err
		}
		c := color.Color(color.Gray{Y: 0x50})
		if st, ok := styles[lv.Of]; ok {
			c = st.Color
		}
		l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(4)}}
		p.Add(l)
		p.Legend.Add(lv.Label, l)
		maxY = math.Max(maxY, lv.Y)
	}
	// Room above the lines for the legend, which sits top left.
	p.Y.Min, p.Y.Max = 0, maxY*(1.15+0.06*float64(len(merged)+len(levels)))
	if p.Y.Max == 0 {
		p.Y.Max = 1
	}
	p.X.Min, p.X.Max = 1, math.Max(2, float64(maxX))
	return savePlot(p, dir, name)
}

// wrapLabel breaks a merged legend label ("a = b = c") into lines of at
// most about n characters, at its " = ".
func wrapLabel(label string, n int) string {
	parts := strings.Split(label, " = ")
	var lines []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = p
		case len(line)+3+len(p) > n:
			lines = append(lines, line+" =")
			line = p
		default:
			line += " = " + p
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// fitTitle cuts a title to what a plot's width holds.
func fitTitle(t string) string {
	const most = 80
	if r := []rune(t); len(r) > most {
		return string(r[:most-1]) + "…"
	}
	return t
}

// intTicks are ticks at whole numbers only, labelled with thousands
// separators: calls, messages, tokens.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			continue
		}
		if t.Label != "" {
			t.Label = Int(int64(t.Value))
		}
		out = append(out, t)
	}
	return out
}

// numberTicks label values with thousands separators, as dollars when usd.
type numberTicks struct{ usd bool }

func (n numberTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := (plot.DefaultTicks{}).Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label == "" {
			continue
		}
		switch v := ts[i].Value; {
		case n.usd:
			ts[i].Label = "$" + strconv.FormatFloat(v, 'f', -1, 64)
		case v == math.Trunc(v):
			ts[i].Label = Int(int64(v))
		}
	}
	return ts
}

// maxPlotPoints bounds the points a line is drawn with: about twice the
// pixels of a plot's width, so a long session's lines look the same and
// cost what a short one's do.
const maxPlotPoints = 2000

// decimate returns pts (in increasing x) drawn with at most about n
// points: split into n/2 runs of consecutive points, each run keeps its
// lowest and its highest point, in their order, and the last point is
// kept; the line's envelope — every peak and trough — is the same at a
// plot's resolution. pts with at most n points are returned as they are.
func decimate(pts plotter.XYs, n int) plotter.XYs {
	if len(pts) <= n || n < 4 {
		return pts
	}
	runs := n / 2
	size := (len(pts) + runs - 1) / runs
	out := make(plotter.XYs, 0, 2*runs+1)
	for start := 0; start < len(pts); start += size {
		run := pts[start:min(start+size, len(pts))]
		lo, hi := 0, 0
		for j, p := range run {
			if p.Y < run[lo].Y {
				lo = j
			}
			if p.Y > run[hi].Y {
				hi = j
			}
		}
		out = append(out, run[min(lo, hi)])
		if lo != hi {
			out = append(out, run[max(lo, hi)])
		}
	}
	if last := pts[len(pts)-1]; out[len(out)-1] != last {
		out = append(out, last)
	}
	return out
}

// A Point is one policy or grid point in the cost-probe score plane.
type Point struct {
	Label string
	Cost  float64 // USD
	Score float64 // the probe score, 0..1
}

// ParetoFront returns the points no other point beats on both cost (lower)
// and probe score (higher), by increasing cost.
func ParetoFront(pts []Point) []Point {
	s := append([]Point(nil), pts...)
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Cost != s[j].Cost {
			return s[i].Cost < s[j].Cost
		}
		return s[i].Score > s[j].Score
	})
	var front []Point
	best := -1.0
	for _, p := range s {
		if p.Score > best {
			front = append(front, p)
			best = p.Score
		}
	}
	return front
}

// ParetoChart plots cost against probe score, one labelled point per
// policy, the Pareto front joined by a line.
func ParetoChart(dir, name string, pts []Point) ([]string, error) {
	p := newPlot("Cost against probe score, per policy (cost: mean per session)", "cost per session (USD)", "probes not lost (%)")
	p.Legend.Top, p.Legend.Left = false, false
	pts = slices.DeleteFunc(slices.Clone(pts), func(pt Point) bool { return !shows(&p.X, pt.Cost) || !shows(&p.Y, pt.Score*100) })
	// Policies that land on the same point share one label.
	var xy plotter.XYs
	var labels []string
	for _, pt := range pts {
		x := plotter.XY{X: pt.Cost, Y: pt.Score * 100}
		merged := false
		for i := range xy {
			if math.Abs(xy[i].X-x.X) < 1e-9 && math.Abs(xy[i].Y-x.Y) < 1e-9 {
				labels[i] += ", " + pt.Label
				merged = true
			}
		}
		if !merged {
			xy = append(xy, x)
			labels = append(labels, pt.Label)
		}
	}
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: palette[0], Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
	p.Add(s)
	// Each point is numbered, and the legend names the policies of each
	// number: long names never run into each other or off the plot.
	nums := make([]string, len(labels))
	for i := range labels {
		nums[i] = strconv.Itoa(i + 1)
		p.Legend.Add(nums[i] + ": " + wrapLabel(strings.ReplaceAll(labels[i], ", ", " = "), 60))
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: nums})
	if err != nil {
		return nil, err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].Font = font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(10)}
		lab.TextStyle[i].XAlign = draw.XLeft
	}
	lab.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
	p.Add(lab)
	front := ParetoFront(pts)
	fxy := make(plotter.XYs, len(front))
	for i, f := range front {
		fxy[i] = plotter.XY{X: f.Cost, Y: f.Score * 100}
	}
	if len(fxy) > 0 {
		l, err := plotter.NewLine(fxy)
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: palette[1], Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}
		p.Add(l)
		p.Legend.Add("Pareto front", l)
	}
	// The legend inside, bottom right: expensive and forgetful, the
	// corner no policy worth keeping reaches.
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(10), vg.Points(10)
	minX, maxX := math.Inf(1), 0.0 // fitAxis bounds them when pts is empty
	for _, pt := range pts {
		minX, maxX = math.Min(minX, pt.Cost), math.Max(maxX, pt.Cost)
	}
	pad := (maxX - minX) * 0.3
	if pad == 0 {
		pad = maxX*0.3 + 0.001
	}
	p.X.Min, p.X.Max = math.Max(0, minX-pad*0.3), maxX+pad
	p.Y.Min, p.Y.Max = 0, 105
	return savePlot(p, dir, name)
}

// grid is a plotter.GridXYZ over a sweep's two keys, on categorical
// axes: column c at x = c, row r at y = r, so every cell is the same size
// whatever the keys' values.
type grid struct {
	z [][]float64 // z[row=y][col=x]
}

func (g grid) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g grid) Z(c, r int) float64 { return g.z[r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// sequential is a palette from light to dark blue: darker is more.
type sequential int

func (n sequential) Colors() []color.Color {
	lo, hi := [3]float64{0xf0, 0xf6, 0xfc}, [3]float64{0x08, 0x30, 0x6b}
	out := make([]color.Color, n)
	for i := range out {
		f := float64(i) / float64(max(1, int(n)-1))
		var c [3]uint8
		for k := range c {
			c[k] = uint8(math.Round(lo[k] + (hi[k]-lo[k])*f))
		}
		out[i] = color.RGBA{R: c[0], G: c[1], B: c[2], A: 0xff}
	}
	return out
}

// Heatmap draws z over two keys, each value of each key a column or row
// of equal size labelled with the value: xs and ys in increasing order,
// z[i][j] the value at ys[i], xs[j]. Each cell shows its value; the
// colour runs from light (lowest) to dark (highest), with a colour bar:
// darker is more (for retention, better).
func Heatmap(dir, name, title, xlabel, ylabel, zlabel string, xs, ys []float64, z [][]float64) ([]string, error) {
	return heatmap(dir, name, title, xlabel, ylabel, zlabel, xs, ys, z, heatOptions{mark: [2]int{-1, -1}, prec: 1})
}

// heatOptions are a heatmap's: the cell outlined (row, column; -1: none)
// and the decimals each cell shows.
type heatOptions struct {
	mark [2]int
	prec int
}

// heatmap is [Heatmap] with its options.
func heatmap(dir, name, title, xlabel, ylabel, zlabel string, xs, ys []float64, z [][]float64, opt heatOptions) ([]string, error) {
	if len(xs) < 2 || len(ys) < 2 {
		return nil, fmt.Errorf("heatmap: need two values of each key")
	}
	if len(z) != len(ys) || slices.ContainsFunc(z, func(row []float64) bool { return len(row) != len(xs) }) {
		return nil, fmt.Errorf("heatmap: values are not %d rows of %d", len(ys), len(xs))
	}
	// A value no scale shows is no cell, as NaN is.
	z = slices.Clone(z)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, row := range z {
		z[i] = slices.Clone(row)
		for j, v := range row {
			if !showable(v) {
				z[i][j] = math.NaN()
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	switch {
	case lo > hi: // no cell
		lo, hi = 0, 1
	case hi == lo:
		hi = lo + 1
	}
	const shades = 64
	p := newPlot(fitTitle(title), xlabel, ylabel)
	p.Title.Text += "\n" + zlabel + " in each cell; darker is more"
	h := plotter.NewHeatMap(grid{z}, sequential(shades))
	h.Min, h.Max = lo, hi
	p.Add(h)
	// The value in each cell, white on the darker half.
	var dark, light plotter.XYLabels
	for r, row := range z {
		for c, v := range row {
			if math.IsNaN(v) {
				continue
			}
			l := &light
			if (v-lo)/(hi-lo) > 0.5 {
				l = &dark
			}
			l.XYs = append(l.XYs, plotter.XY{X: float64(c), Y: float64(r)})
			l.Labels = append(l.Labels, strconv.FormatFloat(v, 'f', opt.prec, 64))
		}
	}
	for _, set := range []struct {
		l plotter.XYLabels
		c color.Color
	}{{light, color.Black}, {dark, color.White}} {
		if len(set.l.XYs) == 0 {
			continue
		}
		labels, err := plotter.NewLabels(set.l)
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Font = p.X.Tick.Label.Font
			labels.TextStyle[i].Color = set.c
			labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		}
		p.Add(labels)
	}
	if r, c := opt.mark[0], opt.mark[1]; r >= 0 && c >= 0 {
		// The marked cell's outline, inside its edges.
		x, y, d := float64(c), float64(r), 0.46
		outline, err := plotter.NewLine(plotter.XYs{{X: x - d, Y: y - d}, {X: x + d, Y: y - d}, {X: x + d, Y: y + d}, {X: x - d, Y: y + d}, {X: x - d, Y: y - d}})
		if err != nil {
			return nil, err
		}
		outline.Color, outline.Width = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, vg.Points(3)
		p.Add(outline)
		p.Title.Text += "; the recommended cell outlined"
	}
	p.X.Tick.Marker = categoryTicks(xs)
	p.Y.Tick.Marker = categoryTicks(ys)
	p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(ys))-0.5

	// The colour bar, at the right.
	bar := newPlot("", "", zlabel)
	bar.Title.Text = " "
	cb := plotter.NewHeatMap(grid{barValues(lo, hi, shades)}, sequential(shades))
	cb.Min, cb.Max = lo, hi
	bar.Add(cb)
	bar.X.Tick.Marker = plot.ConstantTicks(nil)
	bar.X.Min, bar.X.Max = -0.5, 0.5
	bar.Y.Min, bar.Y.Max = -0.5, shades-0.5
	bar.Y.Tick.Marker = barTicks{lo: lo, hi: hi, n: shades}
	return saveDrawing(dir, name, func(c draw.Canvas) {
		w := c.Max.X - c.Min.X
		drawPlot(p, draw.Crop(c, 0, -w*0.16, 0, 0))
		drawPlot(bar, draw.Crop(c, w*0.86, -w*0.01, 0, 0))
	})
}

// barValues is a colour bar's grid: one column of n shades from lo to hi.
func barValues(lo, hi float64, n int) [][]float64 {
	z := make([][]float64, n)
	for i := range z {
		z[i] = []float64{lo + (hi-lo)*float64(i)/float64(n-1)}
	}
	return z
}

// barTicks label a colour bar's rows with the values they stand for.
type barTicks struct {
	lo, hi float64
	n      int
}

func (b barTicks) Ticks(_, _ float64) []plot.Tick {
	var out []plot.Tick
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		v := b.lo + (b.hi-b.lo)*f
		out = append(out, plot.Tick{Value: f * float64(b.n-1), Label: strconv.FormatFloat(v, 'f', 1, 64)})
	}
	return out
}

// categoryTicks label positions 0, 1, … with the values.
func categoryTicks(vs []float64) plot.ConstantTicks {
	out := make(plot.ConstantTicks, len(vs))
	for i, v := range vs {
		out[i] = plot.Tick{Value: float64(i), Label: strconv.FormatFloat(v, 'f', -1, 64)}
	}
	return out
}

// A CacheSeries is one policy's cache traffic per call: the tokens read
// from and written to the provider's cache, the calls (0-based) at which
// the policy changed what was sent before (Events) and those at which
// that broke the cache (Breaks).
type CacheSeries struct {
	Label string
	// Key is the policy's place in the report's list, as [Series.Key].
	Key           int
	Read, Write   []int64
	Events, Break []int
}

// CacheChart draws, per policy, the cache writes per call (solid) and
// reads (dashed) in one colour, the policy's events as open triangles on
// its writes line and its cache breaks as filled ones: what each event
// cost is the jump in writes at its mark. The legend names each policy
// once; the axis labels say which line and mark is which.
func CacheChart(dir, name, title string, series []CacheSeries) ([]string, error) {
	p := newPlot(fitTitle(title), "API call (1 = first); filled triangle: cache break, open: other policy event", "tokens: cache writes (solid), reads (dashed)")
	p.X.Tick.Marker, p.Y.Tick.Marker = intTicks{}, numberTicks{}
	maxY := 0.0
	for _, s := range series {
		c := style(s.Key).Color
		for _, line := range []struct {
			v    []int64
			dash bool
		}{{s.Write, false}, {s.Read, true}} {
			if len(line.v) == 0 {
				continue
			}
			pts := make(plotter.XYs, len(line.v))
			for j, y := range line.v {
				pts[j] = plotter.XY{X: float64(j + 1), Y: float64(y)}
				maxY = math.Max(maxY, float64(y))
			}
			l, err := plotter.NewLine(decimate(pts, maxPlotPoints))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.Label, err)
			}
			l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.2)}
			if line.dash {
				l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			}
			p.Add(l)
			if !line.dash {
				p.Legend.Add(s.Label, l)
			}
		}
		for _, m := range []struct {
			calls []int
			glyph draw.GlyphDrawer
		}{{s.Events, draw.TriangleGlyph{}}, {s.Break, draw.PyramidGlyph{}}} {
			var pts plotter.XYs
			for _, j := range m.calls {
				if j < len(s.Write) {
					pts = append(pts, plotter.XY{X: float64(j + 1), Y: float64(s.Write[j])})
				}
			}
			if len(pts) == 0 {
				continue
			}
			// Marks closer than a pixel apart draw one: at most as many
			// as a line has points.
			sc, err := plotter.NewScatter(thin(pts, maxPlotPoints))
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: m.glyph}
			p.Add(sc)
		}
	}
	p.Y.Min, p.Y.Max = 0, maxY*(1.15+0.06*float64(len(series)))
	if p.Y.Max == 0 {
		p.Y.Max = 1
	}
	return savePlot(p, dir, name)
}
