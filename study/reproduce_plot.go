package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
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
	switch {
	case m == "sparsitron":
		return "Sparsitron (Klivans–Meka)"
	case m == "paper":
		return "ours, Algorithm 4 as in the paper, T = ⌈eN/(3k)⌉"
	case strings.HasPrefix(m, "paper T="):
		return "ours, Algorithm 4 as in the paper, T = " + strings.TrimPrefix(m, "paper T=")
	}
	return "ours (LearnPairwise)"
}

// errorSeries is a line with symmetric error bars.
type errorSeries struct {
	plotter.XYs
	plotter.YErrors
}

// legendItem is one legend entry: a name and the thumbnails of its series.
type legendItem struct {
	name   string
	thumbs []plot.Thumbnailer
}

// addSeries adds a line with points (and error bars when se is not nil) to p
// and returns its legend entry, which the caller puts in the plot's legend
// or in the figure's header.
func addSeries(p *plot.Plot, name string, st reproStyle, xs, ys, se []float64) (legendItem, error) {
	xy := make(plotter.XYs, len(xs))
	for i := range xs {
		xy[i].X, xy[i].Y = xs[i], ys[i]
	}
	line, points, err := plotter.NewLinePoints(xy)
	if err != nil {
		return legendItem{}, err
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
			return legendItem{}, err
		}
		bars.Color = st.color
		bars.CapWidth = vg.Points(4)
		p.Add(bars)
	}
	return legendItem{name: name, thumbs: []plot.Thumbnailer{line, points}}, nil
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
// log scale on x when logX, and the legend (if the plot has one of its own)
// at the top left.
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
// level the summary reports as a dotted line, and returns the line's
// legend entry.
func fractionAxis(p *plot.Plot) legendItem {
	p.Y.Min, p.Y.Max = -0.03, 1.03
	level := plotter.NewFunction(func(float64) float64 { return recoveryLevel })
	level.Color = color.Gray{Y: 0x80}
	level.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
	p.Add(level)
	return legendItem{name: fmt.Sprintf("%.0f%% (the summary's level)", 100*recoveryLevel), thumbs: []plot.Thumbnailer{level}}
}

// binomialBars and meanBars describe the error bars in the figures'
// captions (summary.md says the same at more length).
func binomialBars(runs int) string {
	return fmt.Sprintf("±1 standard error of a binomial proportion, √(f(1 − f)/R), f the fraction of the R = %d runs", runs)
}

func meanBars(runs int) string {
	return fmt.Sprintf("±1 standard error of the mean over the R = %d runs, s/√R (s their sample standard deviation)", runs)
}

// figureHeader is the band above a figure's panels, outside every plot
// area: a title line, a caption line in smaller type, and the legend in a
// centred row (more rows when one is too narrow). The panels' data can
// never run through it.
type figureHeader struct {
	title, caption string
	legend         []legendItem
}

// The figures' widths: Figure 1's, and a grid panel's.
const (
	figure1Width = 7 * vg.Inch
	panelWidth   = 5 * vg.Inch
)

var (
	headerTitleStyle   = text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 13), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	headerCaptionStyle = text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 11), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	headerPad          = vg.Millimeter * 2
	legendGap          = vg.Millimeter * 8 // between the entries of the legend row
)

// legendOf returns a one-entry legend, to be drawn as one cell of the
// header's legend row.
func legendOf(item legendItem) plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(25)
	l.Add(item.name, item.thumbs...)
	return l
}

// lines returns the header's text lines with their styles.
func (h *figureHeader) lines() ([]string, []text.Style) {
	var ts []string
	var ss []text.Style
	if h.title != "" {
		ts, ss = append(ts, h.title), append(ss, headerTitleStyle)
	}
	if h.caption != "" {
		ts, ss = append(ts, h.caption), append(ss, headerCaptionStyle)
	}
	return ts, ss
}

// legendRows lays the legend out in rows no wider than width: the cells
// of each row and their widths.
func (h *figureHeader) legendRows(width vg.Length) (rows [][]plot.Legend, widths [][]vg.Length) {
	var used vg.Length
	for _, item := range h.legend {
		cell := legendOf(item)
		w := cell.Rectangle(draw.Canvas{}).Size().X
		if len(rows) == 0 || used+legendGap+w > width {
			rows, widths, used = append(rows, nil), append(widths, nil), -legendGap
		}
		last := len(rows) - 1
		rows[last], widths[last] = append(rows[last], cell), append(widths[last], w)
		used += legendGap + w
	}
	return rows, widths
}

// rowHeight is the height of one legend row.
func rowHeight(cell plot.Legend) vg.Length {
	return cell.Rectangle(draw.Canvas{}).Size().Y + cell.TextStyle.FontExtents().Descent
}

// height is the header's height in a figure of the given width: its text
// lines and legend rows, with padding above, between and below.
func (h *figureHeader) height(width vg.Length) vg.Length {
	if h == nil {
		return 0
	}
	ht := headerPad
	ts, ss := h.lines()
	for x, t := range ts {
		ht += ss[x].Rectangle(t).Size().Y + headerPad/2
	}
	rows, _ := h.legendRows(width - 2*headerPad)
	for _, row := range rows {
		ht += rowHeight(row[0]) + headerPad/2
	}
	return ht + headerPad/2
}

// draw draws the header into c, the band at the top of the figure.
func (h *figureHeader) draw(c draw.Canvas) {
	y := c.Max.Y - headerPad
	ts, ss := h.lines()
	for x, t := range ts {
		c.FillText(ss[x], vg.Point{X: c.Center().X, Y: y + ss[x].FontExtents().Descent}, t)
		y -= ss[x].Rectangle(t).Size().Y + headerPad/2
	}
	rows, widths := h.legendRows(c.Size().X - 2*headerPad)
	for r, row := range rows {
		total := legendGap * vg.Length(len(row)-1)
		for _, w := range widths[r] {
			total += w
		}
		left := c.Center().X - total/2
		for x, cell := range row {
			cell.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: left, Y: c.Min.Y}, Max: vg.Point{X: left + widths[r][x], Y: y}}})
			left += widths[r][x] + legendGap
		}
		y -= rowHeight(row[0]) + headerPad/2
	}
}

// writePNG draws the plots, rows×cols, on one PNG: the header (when not
// nil) in a band at the top, the panels in width × height below it.
func (r *reproReport) writePNG(w io.Writer, head *figureHeader, plots [][]*plot.Plot, width, height vg.Length) error {
	band := head.height(width)
	img := vgimg.NewWith(vgimg.UseWH(width, height+band), vgimg.UseDPI(r.dpi), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	if head != nil {
		head.draw(draw.Crop(dc, 0, 0, height, 0))
	}
	tiles := draw.Tiles{
		Rows: len(plots), Cols: len(plots[0]),
		PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3,
	}
	canvases := plot.Align(plots, tiles, draw.Crop(dc, 0, 0, 0, -band))
	for j := range plots {
		for i, p := range plots[j] {
			p.Draw(canvases[j][i])
		}
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// plotIncoherence draws Figure 1 (middle). Its legend stays in the plot, at
// the top left: the values are exact, below 0.5 at n = 3 and rising with n,
// so that corner is empty.
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
		item, err := addSeries(p, fmt.Sprintf("a = %g", a), styleOf(x), xs, ys, nil)
		if err != nil {
			return err
		}
		p.Legend.Add(item.name, item.thumbs...)
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Color = color.Black
	one.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	p.Add(one)
	p.Legend.Add("1: incoherence fails above", one)
	p.Y.Min = 0
	return r.writePNG(w, nil, [][]*plot.Plot{{p}}, figure1Width, 4.5*vg.Inch)
}

// diamondHeader, gridHeader and appendixHeader are the titles and captions
// of Figure 1 (right), Figure 2 and the appendix figure, without their
// legends.
func diamondHeader(set reproSettings) *figureHeader {
	return &figureHeader{
		title:   fmt.Sprintf("Figure 1 (right): exact recovery of the diamond, a = %g, by LearnIsing; %d runs a point", set.diamondA, set.runs),
		caption: "error bars: " + binomialBars(set.runs),
	}
}

func gridHeader(set reproSettings) *figureHeader {
	return &figureHeader{
		title:   fmt.Sprintf("Figure 2: exact recovery of the 3×3 grid (θ = %g), Algorithm 2 against Sparsitron, same samples; %s", set.gridTheta, runsText(set)),
		caption: "error bars: " + binomialBars(set.runs),
	}
}

func appendixHeader(set reproSettings) *figureHeader {
	return &figureHeader{
		title:   fmt.Sprintf("Appendix figure: the 3×3 grid (θ = %g), estimation error (top) and exact recovery (bottom); %s", set.gridTheta, runsText(set)),
		caption: "error bars: top, " + meanBars(set.runs) + "; bottom, " + binomialBars(set.runs),
	}
}

// runsText says how many runs a point of the grid figures has.
func runsText(set reproSettings) string {
	if len(set.paperNames()) == 0 || set.paperRuns >= set.runs {
		return fmt.Sprintf("%d runs a point", set.runs)
	}
	return fmt.Sprintf("%d runs a point (Algorithm 4: %d)", set.runs, set.paperRuns)
}

// runsSettings returns the settings with the run counts the report has: an
// interrupted run's points have fewer runs than asked for.
func (r *reproReport) runsSettings() reproSettings {
	set := r.settings
	if r.interrupted == 0 {
		return set
	}
	base, paper := 0, 0
	for _, p := range r.points {
		if p.exp != expGrid {
			continue
		}
		if strings.HasPrefix(p.method, "paper") {
			paper = max(paper, p.runs)
		} else {
			base = max(base, p.runs)
		}
	}
	set.runs, set.paperRuns = base, paper
	return set
}

func shrinkageHeader(set reproSettings) *figureHeader {
	return &figureHeader{
		title:   fmt.Sprintf("The 3×3 grid (θ = %g): smallest true-edge weight (top), largest non-edge weight (bottom); %s", set.gridTheta, runsText(set)),
		caption: fmt.Sprintf("means over the runs; a run recovers the graph when its top value is ≥ η/2 = %g and its bottom one is below; error bars: ±1 standard error of the mean", set.gridTheta/2),
	}
}

// plotDiamond draws Figure 1 (right), with its legend in the header.
func (r *reproReport) plotDiamond(w io.Writer) error {
	set := r.settings
	head := diamondHeader(set)
	p := newPlot("", "number of samples N", "fraction of runs recovering the graph", true)
	level := fractionAxis(p)
	for x, n := range set.diamondSizes {
		s := r.series(expDiamond, n, "ours")
		xs, ys, se := make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s))
		for i, pt := range s {
			xs[i], ys[i], se[i] = float64(pt.n), pt.fraction(), pt.seFraction()
		}
		item, err := addSeries(p, fmt.Sprintf("n = %d (λ = %.1f)", n, float64(n-2)*set.diamondA), styleOf(x), xs, ys, se)
		if err != nil {
			return err
		}
		head.legend = append(head.legend, item)
	}
	head.legend = append(head.legend, level)
	return r.writePNG(w, head, [][]*plot.Plot{{p}}, figure1Width, 4.5*vg.Inch)
}

// Metrics of a grid panel.
const (
	panelRecovery = iota
	panelError
	panelMinEdge
	panelMaxNon
)

// gridPanel returns the plot of one k of the grid experiment for one metric
// (recovery, estimation error, or the smallest true-edge and largest
// non-edge weights), and its legend entries for the figure's header (the
// plot has no legend of its own). Every method that ran at k is drawn:
// Algorithm 2 with exact solves, Sparsitron, and Algorithm 4 under the
// paper's schedule.
func (r *reproReport) gridPanel(k, metric int) (*plot.Plot, []legendItem, error) {
	var p *plot.Plot
	var level legendItem
	hasLevel := true
	switch metric {
	case panelError:
		p = newPlot(fmt.Sprintf("3×3 grid, k = %d: estimation error", k), "number of samples N", "mean of max_ij ‖W_ij − Ŵ_ij‖∞", true)
		p.Y.Min = 0
		hasLevel = false
	case panelMinEdge, panelMaxNon:
		name := "smallest true-edge weight"
		if metric == panelMaxNon {
			name = "largest non-edge weight"
		}
		p = newPlot(fmt.Sprintf("3×3 grid, k = %d: %s", k, name), "number of samples N", "mean of the "+name, true)
		p.Y.Min = 0
		half := r.settings.gridTheta / 2
		l := plotter.NewFunction(func(float64) float64 { return half })
		l.Color = color.Gray{Y: 0x80}
		l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(l)
		level = legendItem{name: fmt.Sprintf("η/2 = %g (the threshold)", half), thumbs: []plot.Thumbnailer{l}}
	default:
		p = newPlot(fmt.Sprintf("3×3 grid, k = %d: exact recovery", k), "number of samples N", "fraction of runs recovering the graph", true)
		level = fractionAxis(p)
	}
	var items []legendItem
	for x, m := range append(slices.Clone(gridMethods), r.settings.paperNames()...) {
		s := r.series(expGrid, k, m)
		if len(s) == 0 {
			continue
		}
		xs, ys, se := make([]float64, len(s)), make([]float64, len(s)), make([]float64, len(s))
		for i, pt := range s {
			xs[i] = float64(pt.n)
			switch metric {
			case panelError:
				ys[i], se[i] = pt.meanErr(), pt.seErr()
			case panelMinEdge:
				ys[i], se[i] = pt.minEdge/float64(pt.runs), r.seOf(pt, func(o outcome) float64 { return o.minEdge })
			case panelMaxNon:
				ys[i], se[i] = pt.maxNon/float64(pt.runs), r.seOf(pt, func(o outcome) float64 { return o.maxNon })
			default:
				ys[i], se[i] = pt.fraction(), pt.seFraction()
			}
		}
		item, err := addSeries(p, methodLabel(m), styleOf(x), xs, ys, se)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, item)
	}
	if hasLevel {
		items = append(items, level)
	}
	return p, items, nil
}

// mergeLegend adds to a figure's legend the entries of one more panel that
// it lacks (a method may run at one k only), keeping the level line last.
func mergeLegend(have, more []legendItem) []legendItem {
	var level []legendItem
	var out []legendItem
	for _, list := range [][]legendItem{have, more} {
		for _, it := range list {
			if strings.Contains(it.name, "level") || strings.Contains(it.name, "threshold") {
				level = []legendItem{it}
				continue
			}
			if !slices.ContainsFunc(out, func(o legendItem) bool { return o.name == it.name }) {
				out = append(out, it)
			}
		}
	}
	return append(out, level...)
}

// gridKs returns the alphabets of the grid experiment that have points (an
// interrupted run may have none at some k).
func (r *reproReport) gridKs() []int {
	var ks []int
	for _, k := range r.settings.gridK {
		if len(r.series(expGrid, k, "ours")) > 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

// plotGridRecovery draws Figure 2 (middle and right): exact recovery against
// N for the k > 2 of the run (every k when there is none).
func (r *reproReport) plotGridRecovery(w io.Writer) error {
	var ks []int
	for _, k := range r.gridKs() {
		if k > 2 {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		ks = r.gridKs()
	}
	head := gridHeader(r.runsSettings())
	row := make([]*plot.Plot, len(ks))
	for i, k := range ks {
		p, items, err := r.gridPanel(k, panelRecovery)
		if err != nil {
			return err
		}
		row[i] = p
		head.legend = mergeLegend(head.legend, items)
	}
	return r.writePNG(w, head, [][]*plot.Plot{row}, vg.Length(len(ks))*panelWidth, 4*vg.Inch)
}

// plotGridAppendix draws the appendix figure: estimation error (top) and
// exact recovery (bottom) against N, one column per k.
func (r *reproReport) plotGridAppendix(w io.Writer) error {
	ks := r.gridKs()
	head := appendixHeader(r.runsSettings())
	rows := [][]*plot.Plot{make([]*plot.Plot, len(ks)), make([]*plot.Plot, len(ks))}
	for i, k := range ks {
		var err error
		if rows[0][i], _, err = r.gridPanel(k, panelError); err != nil {
			return err
		}
		var items []legendItem
		if rows[1][i], items, err = r.gridPanel(k, panelRecovery); err != nil {
			return err
		}
		head.legend = mergeLegend(head.legend, items)
	}
	return r.writePNG(w, head, rows, vg.Length(len(ks))*panelWidth, 8*vg.Inch)
}

// plotGridShrinkage draws the weights that decide recovery: the smallest
// estimated true-edge weight (top) and the largest non-edge weight
// (bottom), against N, one column per k, with the threshold η/2.
func (r *reproReport) plotGridShrinkage(w io.Writer) error {
	ks := r.gridKs()
	head := shrinkageHeader(r.runsSettings())
	rows := [][]*plot.Plot{make([]*plot.Plot, len(ks)), make([]*plot.Plot, len(ks))}
	for i, k := range ks {
		var err error
		var items []legendItem
		if rows[0][i], items, err = r.gridPanel(k, panelMinEdge); err != nil {
			return err
		}
		head.legend = mergeLegend(head.legend, items)
		if rows[1][i], _, err = r.gridPanel(k, panelMaxNon); err != nil {
			return err
		}
	}
	return r.writePNG(w, head, rows, vg.Length(len(ks))*panelWidth, 8*vg.Inch)
}
