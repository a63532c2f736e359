package draw

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
)

// Colours of the bootstrap plots: bootnet's red for the full-data
// estimate, black for the bootstrap mean, grey for the intervals, and one
// colour a statistic of the case-dropping plot.
var (
	sampleRed = color.RGBA{0xd0, 0x1c, 0x1c, 255}
	statColor = []color.RGBA{
		{0x33, 0x33, 0x33, 255}, // edge
		{0xd5, 0x5e, 0x00, 255}, // strength
		{0x00, 0x72, 0xb2, 255}, // expected influence
		{0x00, 0x9e, 0x73, 255}, // closeness
		{0xcc, 0x79, 0xa7, 255}, // betweenness
	}
)

// rowSize is the type size of the pair names of the interval plot.
const rowSize = 9

// niceTicks returns about want tick values covering [lo, hi] at a step of
// 1, 2 or 5 times a power of ten.
func niceTicks(lo, hi float64, want int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(max(want, 1))
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var t []float64
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
		t = append(t, math.Round(v/step)*step)
	}
	return t
}

// tickLabel formats a tick value without float noise.
func tickLabel(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Interval is one pair's summary in a nonparametric bootstrap: nodes I
// and J (indices into the names), the full-data Weight, and over the
// resamples the Mean, the percentile interval [Lower, Upper] and the share
// Selected in which the pair is an edge. NaN means not available.
type Interval struct {
	I, J                       int
	Weight, Mean, Lower, Upper float64
	Selected                   float64
}

// Intervals is what the interval plot needs: the names of the nodes, one
// Interval a pair, the number of resamples and the coverage of the
// intervals (0.95 for 95%).
type Intervals struct {
	Names     []string
	Pairs     []Interval
	Resamples int
	Level     float64
}

// IntervalPlot draws bootnet's plot of the nonparametric bootstrap: one
// row a pair that is an edge in the full-data fit or in some resample
// (Weight or Selected not 0), sorted by the full-data weight (largest on
// top), with the percentile interval as a grey bar, the bootstrap mean as
// a black dot and the full-data weight as a red dot. Pair names are
// written beside the rows when there are at most 80; more rows are drawn
// thinner, unnamed, as bootnet draws them. Values that are not finite are
// left out; a pair whose nodes are outside the names is skipped.
func IntervalPlot(iv Intervals) Drawing {
	var rows []Interval
	lo, hi := 0.0, 0.0
	n := len(iv.Names)
	for _, e := range iv.Pairs {
		if e.Weight == 0 && e.Selected == 0 || e.I < 0 || e.I >= n || e.J < 0 || e.J >= n {
			continue
		}
		rows = append(rows, e)
		for _, v := range []float64{e.Weight, e.Lower, e.Upper, e.Mean} {
			if isFiniteFloat(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b Interval) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(b.Mean, a.Mean))
	})
	labels := len(rows) <= 80
	label := func(e Interval) string { return iv.Names[e.I] + "-" + iv.Names[e.J] }
	left := 20.0
	if labels {
		w := 0.0
		for _, e := range rows {
			w = math.Max(w, textWidth(label(e), rowSize))
		}
		left += w + 8
	}
	const top, bottom, plotW = 40.0, 50.0, 520.0
	rowH, bar := 12.0, 6.0
	if !labels {
		rowH, bar = 5, 3
	}
	height := int(top + bottom + rowH*float64(max(len(rows), 1)))
	width := int(left + plotW + 20)
	if hi == lo {
		hi = lo + 1
	}
	pad := (hi - lo) * 0.04
	lo, hi = lo-pad, hi+pad
	xOf := func(v float64) float64 { return left + (v-lo)/(hi-lo)*plotW }
	return Drawing{width: float64(width), height: float64(height), draw: func(c *canvas) {
		c.text(float64(width)/2, 18, fmt.Sprintf("edge weights: %d resamples, %.0f%% intervals", iv.Resamples, 100*iv.Level), smallSize+1, anchorMiddle, black)
		plotBottom := top + rowH*float64(len(rows))
		for _, t := range niceTicks(lo, hi, 6) {
			x := xOf(t)
			col := lightGrey
			if t == 0 {
				col = grey
			}
			c.line(x, top-4, x, plotBottom+4, 1, col)
			c.text(x, plotBottom+16, tickLabel(t), smallSize, anchorMiddle, black)
		}
		for r, e := range rows {
			y := top + rowH*(float64(r)+0.5)
			if isFiniteFloat(e.Lower) && isFiniteFloat(e.Upper) {
				c.rect(xOf(e.Lower), y-bar/2, math.Max(xOf(e.Upper)-xOf(e.Lower), 1), bar, color.RGBA{170, 170, 170, 255})
			}
			if isFiniteFloat(e.Mean) {
				c.circle(xOf(e.Mean), y, bar/2.4, black, black, 0)
			}
			c.circle(xOf(e.Weight), y, bar/2.4, sampleRed, sampleRed, 0)
			if labels {
				c.text(left-6, y, label(e), rowSize, anchorEnd, black)
			}
		}
		c.text(left+plotW, plotBottom+34, "weight", smallSize, anchorEnd, black)
		// Legend.
		lx := left + 6
		c.circle(lx, plotBottom+34, 3, sampleRed, sampleRed, 0)
		c.text(lx+7, plotBottom+34, "full data", smallSize, anchorStart, black)
		lx += 7 + textWidth("full data", smallSize) + 18
		c.circle(lx, plotBottom+34, 3, black, black, 0)
		c.text(lx+7, plotBottom+34, "bootstrap mean", smallSize, anchorStart, black)
	}}
}

// Stability is what the case-dropping plot needs: the names of the
// statistics (bootnet's "edge", "strength", "expectedInfluence",
// "closeness", "betweenness"), the CS coefficient of each, the
// correlation that the coefficient asks for, the shares of people dropped
// (increasing) and every resample.
type Stability struct {
	Statistics     []string
	CS             []float64
	MinCorrelation float64
	Drops          []float64
	Resamples      []StabilityResample
}

// StabilityResample is one case-dropping resample: the share of people
// dropped and the correlation of each statistic with its full-data value
// (NaN where it is not defined, left out of the plot).
type StabilityResample struct {
	Drop         float64
	Correlations []float64
}

// StabilityPlot draws bootnet's case-dropping plot: for each statistic, the
// mean correlation of the resamples' estimates with the full-data estimate
// at each share of people dropped, with a shaded band from the 2.5% to the
// 97.5% quantile, the MinCorrelation line of the CS coefficient (dashed),
// and the CS of each statistic in the legend.
func StabilityPlot(cd Stability) Drawing {
	const width, height, left, right, top, bottom = 640, 440, 60.0, 180.0, 40.0, 50.0
	plotW, plotH := width-left-right, height-top-bottom
	type point struct{ drop, mean, lo, hi float64 }
	curves := make([][]point, len(cd.Statistics))
	ylo := 0.0
	for s := range cd.Statistics {
		for _, drop := range cd.Drops {
			var v []float64
			for _, r := range cd.Resamples {
				if r.Drop == drop && s < len(r.Correlations) && !math.IsNaN(r.Correlations[s]) {
					v = append(v, r.Correlations[s])
				}
			}
			if len(v) == 0 {
				continue
			}
			slices.Sort(v)
			var sum float64
			for _, x := range v {
				sum += x
			}
			p := point{drop, sum / float64(len(v)), quantileSorted(v, 0.025), quantileSorted(v, 0.975)}
			ylo = math.Min(ylo, p.lo)
			curves[s] = append(curves[s], p)
		}
	}
	ylo = math.Max(-1, math.Floor(ylo*10)/10)
	xOf := func(d float64) float64 { return left + d/0.8*plotW }
	yOf := func(v float64) float64 { return top + (1-v)/(1-ylo)*plotH }
	return Drawing{width: float64(width), height: float64(height), draw: func(c *canvas) {
		c.text(left+plotW/2, 18, "case-dropping bootstrap: correlation with the full data", smallSize+1, anchorMiddle, black)
		for _, t := range niceTicks(ylo, 1, 5) {
			c.line(left, yOf(t), left+plotW, yOf(t), 1, lightGrey)
			c.text(left-6, yOf(t), tickLabel(t), smallSize, anchorEnd, black)
		}
		for _, t := range niceTicks(0, 0.8, 8) {
			c.line(xOf(t), top+plotH, xOf(t), top+plotH+4, 1, black)
			c.text(xOf(t), top+plotH+15, tickLabel(t), smallSize, anchorMiddle, black)
		}
		c.line(left, top+plotH, left+plotW, top+plotH, 1, black)
		c.line(left, top, left, top+plotH, 1, black)
		c.text(left+plotW/2, top+plotH+34, "share of people dropped", smallSize, anchorMiddle, black)
		// The CS coefficient's correlation, dashed.
		c.dashed(left, yOf(cd.MinCorrelation), left+plotW, yOf(cd.MinCorrelation), 1, grey, []float64{5, 5})
		for s, pts := range curves {
			col := statColor[s%len(statColor)]
			for i := 1; i < len(pts); i++ {
				q, p := pts[i-1], pts[i]
				c.polygon([][2]float64{{xOf(q.drop), yOf(q.lo)}, {xOf(p.drop), yOf(p.lo)}, {xOf(p.drop), yOf(p.hi)}, {xOf(q.drop), yOf(q.hi)}}, withAlpha(col, 0.12))
			}
		}
		for s, pts := range curves {
			col := statColor[s%len(statColor)]
			for i, p := range pts {
				if i > 0 {
					q := pts[i-1]
					c.line(xOf(q.drop), yOf(q.mean), xOf(p.drop), yOf(p.mean), 2, col)
				}
				c.circle(xOf(p.drop), yOf(p.mean), 3, col, col, 0)
			}
			ly := top + 10 + 18*float64(s)
			c.line(left+plotW+14, ly, left+plotW+34, ly, 2, col)
			cs := math.NaN()
			if s < len(cd.CS) {
				cs = cd.CS[s]
			}
			c.text(left+plotW+40, ly, fmt.Sprintf("%s CS %.2f", shortStat(cd.Statistics[s]), cs), smallSize, anchorStart, black)
		}
	}}
}

// shortStat shortens "expectedInfluence" for the legend.
func shortStat(s string) string {
	if s == "expectedInfluence" {
		return "exp.infl."
	}
	return s
}

// quantileSorted is R's type 7 quantile of sorted x.
func quantileSorted(x []float64, p float64) float64 {
	h := float64(len(x)-1) * p
	i := int(math.Floor(h))
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

func isFiniteFloat(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
