package main

// The scaling subcommand turns the output of the learner benchmarks into the
// scaling figure of BENCHMARKS.md: it reads `go test -bench` output, writes
// the LearnIsing and LearnPairwise lines as CSV, fits the exponents of time
// against N (at fixed n), against n (at fixed N) and against k (the 3×3
// grid at fixed N) by least squares on log-log axes, prints them, and draws
// the three panels into a PNG with gonum.org/v1/plot. From the repository's
// root:
//
//	go test -run XXX -bench 'Learn(Ising|Pairwise)' -benchtime 1x . | tee bench.txt
//	cd study && go run . scaling -in ../bench.txt -csv ../docs/scaling.csv -png ../docs/scaling.png

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/mrfkit/pairwise/cmd/cli"
)

// point is one benchmark line.
type point struct {
	family        string // "ising" or "pairwise"
	n, k, N, p    int
	sec           float64 // seconds per learn
	bytesPerOp    float64
	bytesPerSampl float64
}

var (
	lineRE = regexp.MustCompile(`^BenchmarkLearn(Ising|Pairwise)/(\S+?)-\d+\s+\d+\s+([\d.]+) ns/op(.*)$`)
	gridRE = regexp.MustCompile(`grid=(\d+)x(\d+)`)
	fieldR = regexp.MustCompile(`(k|N|workers)=(\d+)`)
	bytesR = regexp.MustCompile(`([\d.]+) B/op`)
)

func parse(path string) ([]point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pts []point
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		p := point{family: strings.ToLower(m[1]), k: 2, p: 1}
		g := gridRE.FindStringSubmatch(m[2])
		if g == nil {
			continue
		}
		r, _ := strconv.Atoi(g[1])
		c, _ := strconv.Atoi(g[2])
		p.n = r * c
		for _, f := range fieldR.FindAllStringSubmatch(m[2], -1) {
			v, _ := strconv.Atoi(f[2])
			switch f[1] {
			case "k":
				p.k = v
			case "N":
				p.N = v
			case "workers":
				p.p = v
			}
		}
		ns, _ := strconv.ParseFloat(m[3], 64)
		p.sec = ns / 1e9
		if b := bytesR.FindStringSubmatch(m[4]); b != nil {
			p.bytesPerOp, _ = strconv.ParseFloat(b[1], 64)
			p.bytesPerSampl = p.bytesPerOp / float64(p.N)
		}
		pts = append(pts, p)
	}
	return pts, sc.Err()
}

// slope fits log t = a + b log x and returns b.
func slope(x, t []float64) float64 {
	lx, lt := make([]float64, len(x)), make([]float64, len(t))
	for i := range x {
		lx[i], lt[i] = math.Log(x[i]), math.Log(t[i])
	}
	_, b := stat.LinearRegression(lx, lt, nil, false)
	return b
}

type series struct {
	label string
	x, t  []float64
}

func panel(title, xlabel string, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "seconds per learn (1 worker)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	// Ticks at the measured x values (decades alone leave n and k bare).
	var ticks []plot.Tick
	seen := map[float64]bool{}
	for _, s := range ss {
		for _, x := range s.x {
			if !seen[x] {
				seen[x] = true
				ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)})
			}
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Legend.Top, p.Legend.Left = true, true
	for i, s := range ss {
		xy := make(plotter.XYs, len(s.x))
		for j := range s.x {
			xy[j].X, xy[j].Y = s.x[j], s.t[j]
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		c := plotColors[i%len(plotColors)]
		l.Color, pts.Color = c, c
		pts.Shape = draw.CircleGlyph{}
		p.Add(l, pts)
		p.Legend.Add(s.label, l, pts)
	}
	return p, nil
}

var plotColors = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
}

// scalingUsage is the help of "scaling".
const scalingUsage = `Usage: go run . scaling [flags]   (from study/)

Reads the output of the learner benchmarks (go test -bench), writes their
LearnIsing and LearnPairwise lines as CSV, prints the exponents of time against
N, n and k (least squares on log-log axes, one worker) and draws the three
panels into a PNG.

Example, from the repository's root:
  go test -run XXX -bench 'Learn(Ising|Pairwise)' -benchtime 1x . | tee bench.txt
  cd study && go run . scaling -in ../bench.txt -csv ../docs/scaling.csv -png ../docs/scaling.png
`

// runScaling is the scaling subcommand.
func runScaling(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("scaling", scalingUsage, stderr)
	in := fs.String("in", "bench.txt", "go test -bench output")
	csvPath := fs.String("csv", "../docs/scaling.csv", "CSV to write (by default in the repository's docs/, seen from study/)")
	pngPath := fs.String("png", "../docs/scaling.png", "figure to write (by default in the repository's docs/, seen from study/)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	pts, err := parse(*in)
	if err != nil {
		return err
	}
	if len(pts) == 0 {
		return fmt.Errorf("%s: no BenchmarkLearnIsing or BenchmarkLearnPairwise lines", *in)
	}
	if err := cli.WriteFile(*csvPath, stdout, func(out io.Writer) error {
		fmt.Fprintln(out, "family,n,k,N,workers,seconds,bytes_per_op,bytes_per_sample")
		for _, p := range pts {
			fmt.Fprintf(out, "%s,%d,%d,%d,%d,%.6g,%.6g,%.6g\n", p.family, p.n, p.k, p.N, p.p, p.sec, p.bytesPerOp, p.bytesPerSampl)
		}
		return nil
	}); err != nil {
		return err
	}

	// Ising, one worker: time against N for each n, and against n for each N.
	byN := map[int]*series{}
	byn := map[int]*series{}
	for _, p := range pts {
		if p.family != "ising" || p.p != 1 {
			continue
		}
		if byN[p.n] == nil {
			byN[p.n] = &series{label: "n = " + strconv.Itoa(p.n)}
		}
		byN[p.n].x, byN[p.n].t = append(byN[p.n].x, float64(p.N)), append(byN[p.n].t, p.sec)
		if byn[p.N] == nil {
			byn[p.N] = &series{label: "N = " + strconv.Itoa(p.N)}
		}
		byn[p.N].x, byn[p.N].t = append(byn[p.N].x, float64(p.n)), append(byn[p.N].t, p.sec)
	}
	// Pairwise, 3×3 grid, one worker: time against k for each N.
	byK := map[int]*series{}
	for _, p := range pts {
		if p.family != "pairwise" || p.p != 1 || p.n != 9 {
			continue
		}
		if byK[p.N] == nil {
			byK[p.N] = &series{label: "3×3 grid, N = " + strconv.Itoa(p.N)}
		}
		byK[p.N].x, byK[p.N].t = append(byK[p.N].x, float64(p.k)), append(byK[p.N].t, p.sec)
	}
	collect := func(m map[int]*series, what string) []series {
		keys := make([]int, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		var ss []series
		for _, k := range keys {
			s := *m[k]
			if len(s.x) >= 2 {
				b := slope(s.x, s.t)
				s.label += fmt.Sprintf(" (slope %.2f)", b)
				fmt.Fprintf(stdout, "%s, %s: time ∝ %s^%.2f\n", what, m[k].label, strings.Fields(what)[2], b)
			}
			ss = append(ss, s)
		}
		return ss
	}
	panels := []struct {
		title, xlabel string
		ss            []series
	}{
		{"LearnIsing: time against N", "N (samples)", collect(byN, "Ising, against N")},
		{"LearnIsing: time against n", "n (variables)", collect(byn, "Ising, against n")},
		{"LearnPairwise: time against k", "k (alphabet size)", collect(byK, "pairwise, against k")},
	}
	const w, h = 6 * vg.Inch, 4.5 * vg.Inch
	img := vgimg.New(3*w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 3}
	for i, pn := range panels {
		if len(pn.ss) == 0 {
			continue // no lines of this family: a log axis with no values cannot be drawn
		}
		p, err := panel(pn.title, pn.xlabel, pn.ss)
		if err != nil {
			return err
		}
		p.Draw(tiles.At(dc, i, 0))
	}
	if err := cli.WriteFile(*pngPath, stdout, func(w io.Writer) error {
		_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
		return err
	}); err != nil {
		return err
	}
	// Memory per sample: the largest allocation per op over rows and nodes.
	for _, p := range pts {
		if p.family == "ising" && p.p == 1 && p.N == 100000 {
			fmt.Fprintf(stdout, "Ising n = %d, N = %d: %.0f bytes allocated per sample\n", p.n, p.N, p.bytesPerSampl)
		}
	}
	return nil
}
