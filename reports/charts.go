package reports

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Series is one line of a chart: y values by call (x = 1, 2, …).
type Series struct {
	Label string
	Y     []float64
}

// A Level is a horizontal line drawn across a chart (a cap).
type Level struct {
	Label string
	Y     float64
}

// LineChart draws series against the call number, with dashed lines at the
// levels, into dir/name.png and .svg, and returns the files.
func LineChart(dir, name, title, ylabel string, series []Series, levels []Level) ([]string, error) {
	p := newPlot(title, "API call (1 = first)", ylabel)
	p.Legend.Top, p.Legend.Left = true, true
	maxY, maxX := 0.0, 0
	for i, s := range series {
		pts := make(plotter.XYs, len(s.Y))
		for j, y := range s.Y {
			pts[j] = plotter.XY{X: float64(j + 1), Y: y}
			maxY = math.Max(maxY, y)
		}
		maxX = max(maxX, len(s.Y))
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(decimate(pts, maxPlotPoints))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Label, err)
		}
		l.LineStyle = draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.4)}
		if i >= len(palette) {
			l.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	for _, lv := range levels {
		if maxX == 0 {
			break
		}
		l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: lv.Y}, {X: float64(maxX), Y: lv.Y}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x50}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(l)
		p.Legend.Add(lv.Label, l)
		maxY = math.Max(maxY, lv.Y)
	}
	// Room above the lines for the legend, which sits top left.
	p.Y.Min, p.Y.Max = 0, maxY*(1.15+0.06*float64(len(series)+len(levels)))
	if p.Y.Max == 0 {
		p.Y.Max = 1
	}
	return savePlot(p, dir, name)
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

// A Point is one policy or grid point in the cost-retention plane.
type Point struct {
	Label     string
	Cost      float64 // USD
	Retention float64 // 0..1
}

// ParetoFront returns the points no other point beats on both cost (lower)
// and retention (higher), by increasing cost.
func ParetoFront(pts []Point) []Point {
	s := append([]Point(nil), pts...)
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Cost != s[j].Cost {
			return s[i].Cost < s[j].Cost
		}
		return s[i].Retention > s[j].Retention
	})
	var front []Point
	best := -1.0
	for _, p := range s {
		if p.Retention > best {
			front = append(front, p)
			best = p.Retention
		}
	}
	return front
}

// ParetoChart plots cost against retention, one labelled point per
// policy, the Pareto front joined by a line.
func ParetoChart(dir, name string, pts []Point) ([]string, error) {
	p := newPlot("Cost against retention, per policy (mean per session)", "cost per session (USD)", "mean retention (%)")
	p.Legend.Top, p.Legend.Left = false, false
	// Policies that land on the same point share one label.
	var xy plotter.XYs
	var labels []string
	for _, pt := range pts {
		x := plotter.XY{X: pt.Cost, Y: pt.Retention * 100}
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
	p.Legend.Add("policy", s)
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].Font = font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(8)}
		lab.TextStyle[i].XAlign = draw.XLeft
	}
	lab.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
	p.Add(lab)
	front := ParetoFront(pts)
	fxy := make(plotter.XYs, len(front))
	for i, f := range front {
		fxy[i] = plotter.XY{X: f.Cost, Y: f.Retention * 100}
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
	minX, maxX := math.Inf(1), 0.0
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

// grid is a plotter.GridXYZ over a sweep's two keys.
type grid struct {
	xs, ys []float64
	z      [][]float64 // z[row=y][col=x]
}

func (g grid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g grid) Z(c, r int) float64 { return g.z[r][c] }
func (g grid) X(c int) float64    { return g.xs[c] }
func (g grid) Y(r int) float64    { return g.ys[r] }

// Heatmap draws z over two numeric keys: xs and ys in increasing order,
// z[i][j] the value at ys[i], xs[j]. The colour scale runs from the lowest
// to the highest value and is stated in the title.
func Heatmap(dir, name, title, xlabel, ylabel, zlabel string, xs, ys []float64, z [][]float64) ([]string, error) {
	if len(xs) < 2 || len(ys) < 2 {
		return nil, fmt.Errorf("heatmap: need two values of each key")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range z {
		for _, v := range row {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi == lo {
		hi = lo + 1
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(lo)
	pal.SetMax(hi)
	p := newPlot(fmt.Sprintf("%s\n%s: %.4g (blue) to %.4g (red)", title, zlabel, lo, hi), xlabel, ylabel)
	h := plotter.NewHeatMap(grid{xs, ys, z}, pal.Palette(64))
	p.Add(h)
	p.Legend.Top = true
	return savePlot(p, dir, name)
}

// A CacheSeries is one policy's cache traffic per call: the tokens read
// from and written to the provider's cache, the calls (0-based) at which
// the policy changed what was sent before (Events) and those at which
// that broke the cache (Breaks).
type CacheSeries struct {
	Label         string
	Read, Write   []int64
	Events, Break []int
}

// CacheChart draws, per policy, the cache writes per call (solid) and
// reads (dashed) in one colour, the policy's events as open triangles on
// its writes line and its cache breaks as filled ones: what each event
// cost is the jump in writes at its mark. The legend names each policy
// once; the axis labels say which line and mark is which.
func CacheChart(dir, name, title string, series []CacheSeries) ([]string, error) {
	p := newPlot(title, "API call (1 = first); filled triangle: cache break, open: other policy event", "tokens: cache writes (solid), reads (dashed)")
	maxY := 0.0
	for i, s := range series {
		c := palette[i%len(palette)]
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
