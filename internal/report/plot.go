package report

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/tempfile"
)

// Plot size and resolution.
const (
	plotW   = 8 * vg.Inch
	plotH   = 5.5 * vg.Inch
	plotDPI = 120
)

// palette are ten distinguishable colours (Tableau 10), in series
// order; none is black, which marks the reference line.
var palette = []color.Color{
	color.RGBA{R: 0x4e, G: 0x79, B: 0xa7, A: 0xff}, // blue
	color.RGBA{R: 0xf2, G: 0x8e, B: 0x2b, A: 0xff}, // orange
	color.RGBA{R: 0xe1, G: 0x57, B: 0x59, A: 0xff}, // red
	color.RGBA{R: 0x76, G: 0xb7, B: 0xb2, A: 0xff}, // teal
	color.RGBA{R: 0x59, G: 0xa1, B: 0x4f, A: 0xff}, // green
	color.RGBA{R: 0xed, G: 0xc9, B: 0x48, A: 0xff}, // yellow
	color.RGBA{R: 0xb0, G: 0x7a, B: 0xa1, A: 0xff}, // purple
	color.RGBA{R: 0xff, G: 0x9d, B: 0xa7, A: 0xff}, // pink
	color.RGBA{R: 0x9c, G: 0x75, B: 0x5f, A: 0xff}, // brown
	color.RGBA{R: 0x79, G: 0x70, B: 0x6e, A: 0xff}, // grey
}

func newPlot(title, x, y string) *plot.Plot {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// svgFonts is the SVGs' font: Liberation Sans (the plots' metrics), else
// a font with the same metrics.
const svgFonts = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"

// savePlot writes p as name.png and name.svg (fonts named, not embedded: a browser draws them with its own sans-serif) in dir, each
// atomically, and returns the paths.
func savePlot(p *plot.Plot, dir, name string) ([]string, error) {
	return saveDrawing(dir, name, func(c draw.Canvas) { drawPlot(p, c) })
}

// saveDrawing writes what draw draws on a plot-sized canvas, as savePlot
// writes a plot.
func saveDrawing(dir, name string, drawOn func(draw.Canvas)) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, ext := range []string{"png", "svg"} {
		path := filepath.Join(dir, name+"."+ext)
		err := WriteFile(path, func(w *bufio.Writer) error {
			if ext == "png" {
				c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(plotW, plotH), vgimg.UseDPI(plotDPI))}
				drawOn(draw.New(c))
				_, err := c.WriteTo(w)
				return err
			}
			c := vgsvg.NewWith(vgsvg.UseWH(plotW, plotH), vgsvg.EmbedFonts(false))
			drawOn(draw.New(c))
			var b bytes.Buffer
			if _, err := c.WriteTo(&b); err != nil {
				return err
			}
			// Liberation Sans has Arial's metrics, which placed the text:
			// a browser without it draws Arial, Helvetica or its sans.
			_, err := w.Write(bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), []byte(svgFonts)))
			return err
		})
		if err != nil {
			return out, fmt.Errorf("plotting %s: %w", path, err)
		}
		out = append(out, path)
	}
	return out, nil
}

// EstimatePlots writes two plots of the estimators' accuracy into dir:
// estimate-scatter (each heuristic's count against the exact count, per
// message, on log axes, with the line y = x) and estimate-error (the
// distribution of the per-message relative error). It returns the files
// written.
func EstimatePlots(dir string, cs []*estimate.Counts, heuristics []string, exact string) ([]string, error) {
	if len(cs) == 0 {
		return nil, fmt.Errorf("plotting: no transcripts")
	}
	pc := NewPlotCounts(exact, heuristics)
	defer pc.Close()
	for _, c := range cs {
		if err := pc.Add(c); err != nil {
			return nil, err
		}
	}
	return pc.Plot(dir)
}

// PlotCounts are what the estimator plots read of transcripts' counts:
// each message's exact count and each heuristic's, and no more. Past
// spillAt counts they are kept in a temporary file, so that the counts
// of thousands of sessions take no memory; Close lets it go.
type PlotCounts struct {
	exact      string
	heuristics []string
	rows       []int // per message: the exact count, then the heuristics'; those not spilled
	added      int   // transcripts
	spill      *os.File
	spillW     *bufio.Writer
	buf        []byte
}

// spillAt is the counts PlotCounts keeps in memory before it writes them
// out.
var spillAt = 1 << 16

// NewPlotCounts returns empty counts of exact and heuristics.
func NewPlotCounts(exact string, heuristics []string) *PlotCounts {
	return &PlotCounts{exact: exact, heuristics: heuristics}
}

// Add adds the messages' counts of c, which must count exact and every
// heuristic.
func (pc *PlotCounts) Add(c *estimate.Counts) error {
	rows, err := pc.rowsOf(c)
	if err != nil {
		return err
	}
	return pc.addRows(rows)
}

// rowsOf returns the rows Add adds of c: each message's exact count,
// then the heuristics'.
func (pc *PlotCounts) rowsOf(c *estimate.Counts) ([]int, error) {
	return pc.pick(c.Rows(), c.Estimators)
}

// pick returns the rows Add adds of counts, each message's counts by the
// estimators named, in that order.
func (pc *PlotCounts) pick(counts []int, names []string) ([]int, error) {
	cols, err := pc.columns(names)
	if err != nil {
		return nil, err
	}
	if len(counts)%len(names) != 0 {
		return nil, fmt.Errorf("plotting: %d counts, not rows of %d", len(counts), len(names))
	}
	rows := make([]int, 0, len(counts)/len(names)*len(cols))
	for m := 0; m < len(counts); m += len(names) {
		for _, k := range cols {
			rows = append(rows, counts[m+k])
		}
	}
	return rows, nil
}

// columns returns where the exact estimator and each heuristic are
// among names.
func (pc *PlotCounts) columns(names []string) ([]int, error) {
	col := map[string]int{}
	for k, n := range names {
		col[n] = k
	}
	cols := make([]int, 0, 1+len(pc.heuristics))
	for _, n := range append([]string{pc.exact}, pc.heuristics...) {
		k, ok := col[n]
		if !ok {
			return nil, fmt.Errorf("plotting: no counts for %s", n)
		}
		cols = append(cols, k)
	}
	return cols, nil
}

// addRows adds a transcript's rows ([PlotCounts.rowsOf]).
func (pc *PlotCounts) addRows(rows []int) error {
	if len(rows)%(1+len(pc.heuristics)) != 0 {
		return fmt.Errorf("plotting: %d counts, not rows of %d", len(rows), 1+len(pc.heuristics))
	}
	for len(rows) > 0 {
		n := min(len(rows), max(spillAt-len(pc.rows), 1+len(pc.heuristics)))
		n -= n % (1 + len(pc.heuristics))
		pc.rows = append(pc.rows, rows[:n]...)
		rows = rows[n:]
		if len(pc.rows) >= spillAt {
			if err := pc.spillRows(); err != nil {
				return err
			}
		}
	}
	pc.added++
	return nil
}

// spillRows writes the rows in memory to the spill file, as varints.
func (pc *PlotCounts) spillRows() error {
	if pc.spill == nil {
		f, err := tempfile.Unlinked("ctxbench-report-counts-*.bin")
		if err != nil {
			return err
		}
		pc.spill, pc.spillW = f, bufio.NewWriter(f)
	}
	for _, n := range pc.rows {
		pc.buf = binary.AppendVarint(pc.buf[:0], int64(n))
		if _, err := pc.spillW.Write(pc.buf); err != nil {
			return err
		}
	}
	pc.rows = pc.rows[:0]
	return nil
}

// each calls f with every message's row, in the order added: its exact
// count, then the heuristics'.
func (pc *PlotCounts) each(f func(row []int)) error {
	width := 1 + len(pc.heuristics)
	if pc.spill != nil {
		if err := pc.spillW.Flush(); err != nil {
			return err
		}
		end, err := pc.spill.Seek(0, io.SeekCurrent)
		if err != nil {
			return err
		}
		rd := bufio.NewReader(io.NewSectionReader(pc.spill, 0, end))
		row := make([]int, width)
		for {
			for k := range row {
				n, err := binary.ReadVarint(rd)
				if err == io.EOF && k == 0 {
					goto memory
				}
				if err != nil {
					return fmt.Errorf("reading the counts back: %w", err)
				}
				row[k] = int(n)
			}
			f(row)
		}
	}
memory:
	for r := 0; r+width <= len(pc.rows); r += width {
		f(pc.rows[r : r+width])
	}
	return nil
}

// Close lets go of the counts' spill file.
func (pc *PlotCounts) Close() error {
	if pc.spill == nil {
		return nil
	}
	err := pc.spill.Close()
	pc.spill, pc.spillW = nil, nil
	return err
}

// Plot writes the plots (see [EstimatePlots]). It reads the counts twice:
// once for the error's distribution and the scatter's extent, once for
// the points the scatter draws.
func (pc *PlotCounts) Plot(dir string) ([]string, error) {
	heuristics, exact := pc.heuristics, pc.exact
	// The error distribution as frequency polygons over 10-point bins,
	// clipped to [-100%, +200%] (the edges collect what lies beyond).
	const binW, minE, maxE = 10.0, -100.0, 200.0
	nb := int((maxE - minE) / binW)
	lo, hi := math.Inf(1), 0.0
	points := make([]int, len(heuristics)) // the scatter's, per heuristic
	bins := make([][]float64, len(heuristics))
	errs := make([]int, len(heuristics)) // messages binned
	for i := range bins {
		bins[i] = make([]float64, nb)
	}
	err := pc.each(func(row []int) {
		ex := float64(row[0])
		if ex <= 0 {
			return
		}
		for i := range heuristics {
			est := float64(row[1+i])
			e := (est - ex) / ex * 100
			bins[i][int((math.Max(minE, math.Min(maxE-1e-9, e))-minE)/binW)]++
			errs[i]++
			if est <= 0 {
				continue
			}
			points[i]++
			lo, hi = math.Min(lo, math.Min(ex, est)), math.Max(hi, math.Max(ex, est))
		}
	})
	if err != nil {
		return nil, err
	}
	// The scatter's points: maxScatterPoints of each heuristic's at most,
	// evenly spaced in their order (the same ones on every run).
	drawn := make([]plotter.XYs, len(heuristics))
	seen := make([]int, len(heuristics))
	err = pc.each(func(row []int) {
		ex := float64(row[0])
		if ex <= 0 {
			return
		}
		for i := range heuristics {
			est := float64(row[1+i])
			if est <= 0 {
				continue
			}
			n, m := points[i], min(points[i], maxScatterPoints)
			if j := len(drawn[i]); j < m && seen[i] == j*n/m {
				drawn[i] = append(drawn[i], plotter.XY{X: ex, Y: est})
			}
			seen[i]++
		}
	})
	if err != nil {
		return nil, err
	}

	scatter := newPlot("Token estimates against exact counts, per message", exact+" tokens (log scale)", "estimated tokens (log scale)")
	scatter.X.Scale, scatter.Y.Scale = plot.LogScale{}, plot.LogScale{}
	scatter.X.Tick.Marker, scatter.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	for i, h := range heuristics {
		s, err := plotter.NewScatter(drawable(scatter, drawn[i]))
		if err != nil {
			return nil, fmt.Errorf("plotting %s: %w", h, err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: withAlpha(palette[i%len(palette)], 0x90), Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
		scatter.Add(s)
		label := fmt.Sprintf("%s (%d messages)", h, points[i])
		if points[i] > maxScatterPoints {
			label = fmt.Sprintf("%s (%d messages, %d drawn evenly)", h, points[i], maxScatterPoints)
		}
		scatter.Legend.Add(label, s)
	}
	scatter.X.Min, scatter.Y.Min = lo, lo
	scatter.X.Max, scatter.Y.Max = hi, hi
	fitAxis(&scatter.X) // the diagonal spans the axes drawn
	fitAxis(&scatter.Y)
	scatter.Legend.Top, scatter.Legend.Left = false, false // the corner below the diagonal's far end is empty
	scatter.Legend.XOffs, scatter.Legend.YOffs = -vg.Points(8), vg.Points(8)
	if hi > 0 {
		diag, err := plotter.NewLine(plotter.XYs{{X: scatter.X.Min, Y: scatter.Y.Min}, {X: scatter.X.Max, Y: scatter.Y.Max}})
		if err != nil {
			return nil, err
		}
		diag.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		scatter.Add(diag)
		scatter.Legend.Add("y = x (exact)", diag)
	}
	files, err := savePlot(scatter, dir, "estimate-scatter")
	if err != nil {
		return files, err
	}

	hist := newPlot("Relative error of token estimates, per message", "(estimate - "+exact+") / "+exact+" (%; beyond +200% counted at +200%)", "share of messages (%)")
	var ticks []plot.Tick
	for v := minE; v <= maxE; v += 50 {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%+.0f%%", v)})
	}
	hist.X.Tick.Marker = plot.ConstantTicks(ticks)
	hist.X.Min, hist.X.Max = minE, maxE
	top := 0.0
	for i, h := range heuristics {
		if errs[i] == 0 {
			continue
		}
		pts := make(plotter.XYs, nb)
		for b := range bins[i] {
			pts[b] = plotter.XY{X: minE + (float64(b)+0.5)*binW, Y: bins[i][b] / float64(errs[i]) * 100}
			top = math.Max(top, pts[b].Y)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return files, err
		}
		l.LineStyle = draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.5)}
		hist.Add(l)
		hist.Legend.Add(h, l)
	}
	hist.Y.Min, hist.Y.Max = 0, top*1.3 // room for the legend above the curves
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 0, Y: hist.Y.Max}})
	if err == nil && top > 0 {
		zero.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}}
		hist.Add(zero)
	}
	hist.Legend.Left = false
	more, err := savePlot(hist, dir, "estimate-error")
	return append(files, more...), err
}

// maxScatterPoints bounds the points a scatter plot draws: more only
// cover the same area, in a file that grows with them.
const maxScatterPoints = 5000

// thin returns n of pts, evenly spaced in their order (the same ones on
// every run), or pts when it has at most n.
func thin(pts plotter.XYs, n int) plotter.XYs {
	if len(pts) <= n {
		return pts
	}
	out := make(plotter.XYs, n)
	for i := range out {
		out[i] = pts[i*len(pts)/n]
	}
	return out
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}
