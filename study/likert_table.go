package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// likertMethodOrder is the order of the methods in the tables: the peers
// of likert_peers.R, then our configurations; others follow by name.
var likertMethodOrder = []string{"EBICglasso", "mgm", "mgmMixed", "IsingFit", "categorical", "dichotomised", "ordinal", "declared"}

// readLikertResults reads the CSV lines of likert learn and
// likert_peers.R (a header line, which may repeat, then one line a run).
func readLikertResults(r io.Reader, name string) ([]likertResult, error) {
	sc := bufio.NewScanner(r)
	var col map[string]int
	var out []likertResult
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		f := strings.Split(text, ",")
		if f[0] == "family" {
			col = map[string]int{}
			for i, h := range f {
				col[h] = i
			}
			for _, h := range strings.Split(likertHeader, ",") {
				if _, ok := col[h]; !ok {
					return nil, fmt.Errorf("%s:%d: header lacks %q", name, line, h)
				}
			}
			continue
		}
		if col == nil {
			return nil, fmt.Errorf("%s:%d: a result line before the header", name, line)
		}
		if len(f) != len(col) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", name, line, len(f), len(col))
		}
		var err error
		atoi := func(h string) int {
			v, e := strconv.Atoi(f[col[h]])
			if e != nil && err == nil {
				err = fmt.Errorf("%s:%d: %s: %v", name, line, h, e)
			}
			return v
		}
		atof := func(h string) float64 {
			s := f[col[h]]
			if s == "NA" || s == "NaN" {
				return math.NaN()
			}
			v, e := strconv.ParseFloat(s, 64)
			if e != nil && err == nil {
				err = fmt.Errorf("%s:%d: %s: %v", name, line, h, e)
			}
			return v
		}
		r := likertResult{
			family: f[col["family"]], questionnaire: f[col["questionnaire"]], method: f[col["method"]],
			N: atoi("N"), seed: atoi("seed"), p: atoi("p"), truthEdges: atoi("truth_edges"), edges: atoi("edges"),
			tp: atoi("tp"), fp: atoi("fp"), fn: atoi("fn"),
			f1: atof("f1"), precision: atof("precision"), recall: atof("recall"), seconds: atof("seconds"),
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return out, nil
}

func runLikertTable(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("likert table", likertUsage, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("likert table: want at least one result file")
	}
	var rows []likertResult
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		rs, err := readLikertResults(f, path)
		f.Close()
		if err != nil {
			return err
		}
		rows = append(rows, rs...)
	}
	fmt.Fprint(stdout, likertSummary(rows))
	return nil
}

// likertMean is the mean of the non-NaN values and their count.
func likertMean(x []float64) (float64, int) {
	var s float64
	n := 0
	for _, v := range x {
		if !math.IsNaN(v) {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return s / float64(n), n
}

func fmtMean(x []float64, prec int) string {
	m, n := likertMean(x)
	if n == 0 {
		return "–"
	}
	return strconv.FormatFloat(m, 'f', prec, 64)
}

// likertSummary is the Markdown of the results: per truth family, a table
// of N × method (means over questionnaires and seeds), then F1 per
// questionnaire.
func likertSummary(rows []likertResult) string {
	var fams, qs, methods []string
	var ns []int
	for _, r := range rows {
		if !slices.Contains(fams, r.family) {
			fams = append(fams, r.family)
		}
		if !slices.Contains(qs, r.questionnaire) {
			qs = append(qs, r.questionnaire)
		}
		if !slices.Contains(methods, r.method) {
			methods = append(methods, r.method)
		}
		if !slices.Contains(ns, r.N) {
			ns = append(ns, r.N)
		}
	}
	slices.Sort(fams)
	slices.Sort(qs)
	slices.Sort(ns)
	rank := func(m string) int {
		if i := slices.Index(likertMethodOrder, m); i >= 0 {
			return i
		}
		return len(likertMethodOrder)
	}
	slices.SortFunc(methods, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	for _, fam := range fams {
		fmt.Fprintf(&b, "### %s truths (%s)\n\n", fam, strings.Join(qs, ", "))
		b.WriteString("| N | method | runs | F1 | precision | recall | edges (truth) | empty graphs | seconds a fit |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
		for _, N := range ns {
			for _, m := range methods {
				var f1, prec, rec, sec, edges, truth []float64
				empty := 0
				for _, r := range rows {
					if r.family != fam || r.N != N || r.method != m {
						continue
					}
					f1, prec, rec, sec = append(f1, r.f1), append(prec, r.precision), append(rec, r.recall), append(sec, r.seconds)
					edges, truth = append(edges, float64(r.edges)), append(truth, float64(r.truthEdges))
					if r.edges == 0 {
						empty++
					}
				}
				if len(f1) == 0 {
					continue
				}
				fmt.Fprintf(&b, "| %d | %s | %d | %s | %s | %s | %s (%s) | %d | %s |\n", N, m, len(f1),
					fmtMean(f1, 3), fmtMean(prec, 3), fmtMean(rec, 3), fmtMean(edges, 1), fmtMean(truth, 1), empty, fmtMean(sec, 3))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("### F1 per questionnaire\n\n| truth | method |")
	for _, N := range ns {
		fmt.Fprintf(&b, " N = %d |", N)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(ns)) + "\n")
	for _, fam := range fams {
		for _, q := range qs {
			for _, m := range methods {
				cells := make([]string, len(ns))
				any := false
				for c, N := range ns {
					var f1 []float64
					for _, r := range rows {
						if r.family == fam && r.questionnaire == q && r.method == m && r.N == N {
							f1 = append(f1, r.f1)
						}
					}
					any = any || len(f1) > 0
					cells[c] = fmtMean(f1, 3)
				}
				if any {
					fmt.Fprintf(&b, "| %s-%s | %s | %s |\n", fam, q, m, strings.Join(cells, " | "))
				}
			}
		}
	}
	return b.String()
}
