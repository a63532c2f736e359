package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The figures of the reproduce command, drawn with gonum.org/v1/plot.

// reproStyle is the look of one series.
type reproStyle struct {
	color  color.Color
	dashes []vg.Length
	shape  draw.GlyphDrawer
}

var reproPalette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
}

func styleOf(x int) reproStyle {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PyramidGlyph{}, draw.PlusGlyph{}}
	var dashes []vg.Length
	if x%2 == 1 {
		dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return reproStyle{color: reproPalette[x%len(reproPalette)], dashes: dashes, shape: shapes[x%len(shapes)]}
}

// methodLabel is the legend name of a grid method.
func methodLabel(m string) string {
	if m == "sparsitron" {
		return "Sparsitron (Klivans–Meka)"
	}
	return "ours (LearnPairwise)"
}

// errorSeries is a line with symmetric error bars.
type errorSeries struct {
	plotter.XYs
	plotter.YErrors
}

// addSeries adds a line with points (and error bars when se is not nil) to p
// and to its legend.
func addSeries(p *plot.Plot, name string, st reproStyle, xs, ys, se []float64) error {
	xy := make(plotter.XYs, len(xs))
	for i := range xs {
		xy[i].X, xy[i].Y = xs[i], ys[i]
	}
	line, points, err := plotter.NewLinePoints(xy)
	if err != nil {
		return err
	}
	line.Color = st.color
	line.Width = vg.Points(1.5)
	line.Dashes = st.dashes
	points.Color = st.color
	points.Shape = st.shape
	points.Radius = vg.Points(2.5)
	p.Add(line, points)
	if se != nil {
		errs := errorSeries{XYs: xy, YErrors: make(plotter.YErrors, len(xs))}
		for i, s := range se {
			errs.YErrors[i].Low, errs.YErrors[i].High = s, s
		}
		bars, err := plotter.NewYErrorBars(errs)
		if err != nil {
			return err
		}
		bars.Color = st.color
		bars.CapWidth = vg.Points(4)
		p.Add(bars)
	}
	p.Legend.Add(name, line, points)
	return nil
}

// logTicks marks a log axis at 1, 2 and 5 times the powers of ten, with
// unlabelled minor ticks in between.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// newPlot returns a plot with the common settings: title, axis labels, a
// log scale on x when logX, and the legend at the top left.
func newPlot(title, xLabel, yLabel string, logX bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.ThumbnailWidth = vg.Points(25)
	p.Add(plotter.NewGrid())
	return p
}

// fractionAxis sets the y axis of a recovery plot to [0, 1], with the
// level the summary reports as a dotted line.
func fractionAxis(p *plot.Plot) {
	p.Y.Min, p.Y.Max = -0.03, 1.03
	level := plotter.NewFunction(func(float64) float64 { return recoveryLevel })
	level.Color = color.Gray{Y: 0x80}
	level.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
	p.Add(level)
}

// writePNG draws the plots, rows×cols, on one PNG of the given size.
func (r *reproReport) writePNG(w io.Writer, plots [][]*plot.Plot, width, height vg.Length) error {
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(r.dpi), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	tiles := draw.Tiles{
		Rows: len(plots), Cols: len(plots[0]),
		PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3,
	}
	canvases := plot.Align(plots, tiles, dc)
	for j := range plots {
		for i, p := range plots[j] {
			p.Draw(canvases[j][i])
		}
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// plotIncoherence draws Figure 1 (middle).
func (r *reproReport) plotIncoherence(w io.Writer) error {
	p := newPlot("Figure 1 (middle): incoherence max_j ‖Q*_jS (Q*_SS)^-1‖_1 at node 1 of the diamond", "number of nodes n", "incoherence value at node 1", false)
	var ticks []plot.Tick
	for n := slices.Min(r.settings.incN); n <= slices.Max(r.settings.incN); n++ {
		t := plot.Tick{Value: float64(n)}
		if n%2 == 0 {
			t.Label = strconv.Itoa(n)
		}
		ticks = append(ticks, t)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for x, a := range r.settings.incA {
		var xs, ys []float64
		for _, row := range r.incoherence {
			if row.a == a {
				xs = append(xs, float64(row.n))
				ys = append(ys, row.value)
			}
		}
		if err := addSeries(p, fmt.Sprintf("a = %g", a), styleOf(x), xs, ys, nil); err != nil {
			return err
		}
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Color = color.Black
	one.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	p.Add(one)
	p.Legend.Add("1: incoherence fails above", one)
	p.Y.Min = 0
	return r.writePNG(w, [][]*plot.Plot{{p}}, 7*vg.Inch, 4.5*vg.Inch)
}

// plotDiamond draws Figure 1 (right).
func (r *reproReport) plotDiamond(w io.Writer) error {
	set := r.settings
	p := newPlot(fmt.Sprintf("Figure 1 (right): diamond, a = %g, LearnIsing, %d runs a point", set.diamondA, set.runs), "number of samples N", "fraction of runs recovering the graph", true)
	fractionAxis(p)
	p.Legend.Left = false
	p.Legend.Top = false
	p.Legend.XOffs, p.Legend.YOffs = -vg.Millimeter*2, vg.Inch*0.9 // right, a third of the way up: the curves are low on the left and high on the right
	for x, n := range set.diamondSizes {
		s := r.series(expDiamond, n, "ours")
		xs, ys, se := make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s))
		for i, pt := range s {
			xs[i], ys[i], se[i] = float64(pt.n), pt.fraction(), pt.seFraction()
		}
		if err := addSeries(p, fmt.Sprintf("n = %d (λ = %.1f)", n, float64(n-2)*set.diamondA), styleOf(x), xs, ys, se); err != nil {
			return err
		}
	}
	return r.writePNG(w, [][]*plot.Plot{{p}}, 7*vg.Inch, 4.5*vg.Inch)
}

// gridPanel returns the recovery (or, with errorPanel, the estimation error)
// plot of one k of the grid experiment.
func (r *reproReport) gridPanel(k int, errorPanel bool) (*plot.Plot, error) {
	var p *plot.Plot
	if errorPanel {
		p = newPlot(fmt.Sprintf("3×3 grid, k = %d: estimation error", k), "number of samples N", "mean of max_ij ‖W_ij − Ŵ_ij‖∞", true)
		p.Legend.Left = false
		p.Y.Min = 0
	} else {
		p = newPlot(fmt.Sprintf("3×3 grid, k = %d: exact recovery", k), "number of samples N", "fraction of runs recovering the graph", true)
		fractionAxis(p)
		p.Legend.Top = false
		p.Legend.Left = false
		p.Legend.YOffs = vg.Inch * 0.8 // a third of the way up, where the curves have already risen
	}
	for x, m := range gridMethods {
		s := r.series(expGrid, k, m)
		xs, ys, se := make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s))
		for i, pt := range s {
			xs[i] = float64(pt.n)
			if errorPanel {
				ys[i], se[i] = pt.meanErr(), pt.seErr()
			} else {
				ys[i], se[i] = pt.fraction(), pt.seFraction()
			}
		}
		if err := addSeries(p, methodLabel(m), styleOf(x), xs, ys, se); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// plotGridRecovery draws Figure 2 (middle and right): exact recovery against
// N for the k > 2 of the run (every k when there is none).
func (r *reproReport) plotGridRecovery(w io.Writer) error {
	var ks []int
	for _, k := range r.settings.gridK {
		if k > 2 {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		ks = r.settings.gridK
	}
	row := make([]*plot.Plot, len(ks))
	for i, k := range ks {
		p, err := r.gridPanel(k, false)
		if err != nil {
			return err
		}
		row[i] = p
	}
	return r.writePNG(w, [][]*plot.Plot{row}, vg.Length(len(ks))*5*vg.Inch, 4*vg.Inch)
}

// plotGridAppendix draws the appendix figure: estimation error (top) and
// exact recovery (bottom) against N, one column per k.
func (r *reproReport) plotGridAppendix(w io.Writer) error {
	ks := r.settings.gridK
	rows := [][]*plot.Plot{make([]*plot.Plot, len(ks)), make([]*plot.Plot, len(ks))}
	for i, k := range ks {
		var err error
		if rows[0][i], err = r.gridPanel(k, true); err != nil {
			return err
		}
		if rows[1][i], err = r.gridPanel(k, false); err != nil {
			return err
		}
	}
	return r.writePNG(w, rows, vg.Length(len(ks))*5*vg.Inch, 8*vg.Inch)
}
