package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// likertUsage is the help of "likert".
const likertUsage = `Usage: go run . likert gen [flags] SPEC...       (from study/)
       go run . likert learn [flags] DATADIR
       go run . likert table [flags] RESULTS...

The Likert study of docs/psych/likert.md (issue 31): structure recovery on
ordinal questionnaire answers (4 to 6 categories) whose truths are built
from real questionnaires other than bfi.

gen reads the questionnaire specs written by ../scripts/likert_spec.R (one
JSON a questionnaire: item names, answer proportions, and the partial
correlations of EBICglasso on the items' polychoric correlations) and writes
two truths a questionnaire into DATADIR (-out):
  latent-Q    latent normal rows with those partial correlations, each item
              cut at the real item's thresholds (its cumulative answer
              proportions) into its categories; an edge is a nonzero
              partial correlation
  ordinal-Q   the linear-by-linear pairwise model on the answers,
              W_ij(a,b) = w_ij s(a) s(b) with s(a) = 2a/(k-1) - 1, on the
              same graph: w_ij = -K_ij α_i α_j (K the latent precision, α_i
              half the span of item i's extreme categories' latent means,
              so that s_i ≈ x_i/α_i), and fields fitted by moment matching
              to the real answer proportions; sampled by Gibbs
Each truth's folder holds truth.json (names, k, edges, the parameters) and
the data sets N<N>-s<SEED>.csv: a header of item names, answers 0..k-1.

learn runs our learner's configurations on every data set under DATADIR and
prints one CSV line a (truth, N, seed, configuration):
  family,questionnaire,N,seed,method,p,truth_edges,edges,tp,fp,fn,f1,precision,recall,seconds
(the lines of ../scripts/likert_peers.R; precision NA for an empty graph;
seconds is the learner alone, not reading the file). Configurations:
  categorical    pairwise.Learn on the k-ary answers (the library default)
  dichotomised   pairwise.Learn on the answers split at each item's median
                 (1 for answers ≥ c, with c the cut nearest a 50/50 split,
                 the smallest on ties; the split of likert_peers.R)
  ordinal        pairwise.Learn with pairwise.WithOrdinal(): only in a build
                 with -tags pairwise_ordinal (likert_ordinal.go)

table reads result files of learn and likert_peers.R and prints the
Markdown summary of docs/psych/likert.md: mean F1, precision (over the runs
with an edge), recall and seconds per truth family, N and method.

Example:
  Rscript ../scripts/likert_spec.R ../docs/psych/likert
  go run . likert gen -out /tmp/likert ../docs/psych/likert/spec-*.json
  Rscript ../scripts/likert_peers.R /tmp/likert > /tmp/likert-peers.csv
  go run . likert learn /tmp/likert > /tmp/likert-ours.csv
  go run . likert table /tmp/likert-peers.csv /tmp/likert-ours.csv
`

// runLikert is the likert command.
func runLikert(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, likertUsage)
		return errors.New("want gen, learn or table")
	}
	switch args[0] {
	case "gen":
		return runLikertGen(args[1:], stdout, stderr)
	case "learn":
		return runLikertLearn(args[1:], stdout, stderr)
	case "table":
		return runLikertTable(args[1:], stdout, stderr)
	case "-h", "-help", "--help":
		fmt.Fprint(stderr, likertUsage)
		return nil
	}
	fmt.Fprint(stderr, likertUsage)
	return fmt.Errorf("unknown likert command %q: want gen, learn or table", args[0])
}

// likertSpec is one questionnaire as ../scripts/likert_spec.R writes it.
type likertSpec struct {
	Name  string      `json:"name"`
	Items []string    `json:"items"`
	K     int         `json:"k"`
	Rows  int         `json:"rows"`  // complete rows of the real data
	Props [][]float64 `json:"props"` // the real answer proportions, one row an item
	Pcor  [][]float64 `json:"pcor"`  // EBICglasso's partial correlations
}

// likertTruth is a truth.json: the graph and the parameters of one truth.
type likertTruth struct {
	Family        string       `json:"family"` // "latent" or "ordinal"
	Questionnaire string       `json:"questionnaire"`
	Names         []string     `json:"names"`
	K             int          `json:"k"`
	Edges         []likertEdge `json:"edges"`
	// Latent: the correlation matrix of the latent rows and each item's
	// thresholds on its scale.
	Cor        [][]float64 `json:"cor,omitempty"`
	Thresholds [][]float64 `json:"thresholds,omitempty"`
	// Ordinal: the linear-by-linear weights w_ij, the fields θ_i(a), the
	// answer proportions aimed at and those of 10^5 Gibbs rows of the model.
	W        [][]float64 `json:"w,omitempty"`
	Alpha    []float64   `json:"alpha,omitempty"`
	Fields   [][]float64 `json:"fields,omitempty"`
	Props    [][]float64 `json:"props,omitempty"`
	Achieved [][]float64 `json:"achieved,omitempty"`
}

// likertEdge is a true edge I < J with its weight (the partial correlation
// for latent truths, w_ij for ordinal ones).
type likertEdge struct {
	I      int     `json:"i"`
	J      int     `json:"j"`
	Weight float64 `json:"weight"`
}

func runLikertGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("likert gen", likertUsage, stderr)
	out := fs.String("out", "", "output `directory` (required)")
	sizes := fs.String("N", "250,500,1000,2500", "sample sizes, comma-separated")
	seeds := fs.Int("seeds", 10, "data sets per truth and N (seeds 1 to this)")
	families := fs.String("families", "latent,ordinal", "truth families to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return errors.New("likert gen: want -out DIR and at least one SPEC")
	}
	ns, err := parseSizes(*sizes)
	if err != nil {
		return err
	}
	for _, path := range fs.Args() {
		spec, err := readLikertSpec(path)
		if err != nil {
			return err
		}
		for _, fam := range strings.Split(*families, ",") {
			var sample func(src rand.Source, N int) ([][]int, error)
			var truth *likertTruth
			switch fam {
			case "latent":
				truth, sample, err = likertLatent(spec)
			case "ordinal":
				truth, sample, err = likertOrdinal(spec, likertSeed(spec.Name, fam))
			default:
				return fmt.Errorf("likert gen: unknown family %q: want latent or ordinal", fam)
			}
			if err != nil {
				return fmt.Errorf("%s %s: %v", spec.Name, fam, err)
			}
			dir := filepath.Join(*out, fam+"-"+spec.Name)
			if err := writeLikertTruth(dir, truth); err != nil {
				return err
			}
			for _, N := range ns {
				for seed := 1; seed <= *seeds; seed++ {
					rows, err := sample(rand.NewPCG(likertSeed(spec.Name, fam), uint64(N)<<20|uint64(seed)), N)
					if err != nil {
						return fmt.Errorf("%s %s N = %d seed %d: %v", spec.Name, fam, N, seed, err)
					}
					f := filepath.Join(dir, fmt.Sprintf("N%d-s%d.csv", N, seed))
					if err := writeAnswers(f, truth.Names, rows); err != nil {
						return err
					}
				}
			}
			fmt.Fprintf(stderr, "%s: %d items, k = %d, %d true edges\n", dir, len(truth.Names), truth.K, len(truth.Edges))
		}
	}
	return nil
}

// likertSeed is the fixed stream of a truth: a hash of its name.
func likertSeed(questionnaire, family string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, family+"/"+questionnaire)
	return h.Sum64()
}

func readLikertSpec(path string) (*likertSpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s likertSpec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	p := len(s.Items)
	if p < 2 || s.K < 2 || len(s.Props) != p || len(s.Pcor) != p {
		return nil, fmt.Errorf("%s: want at least 2 items, k ≥ 2, and props and pcor for every item", path)
	}
	for i := range p {
		if len(s.Props[i]) != s.K || len(s.Pcor[i]) != p {
			return nil, fmt.Errorf("%s: item %s: want %d proportions and %d partial correlations", path, s.Items[i], s.K, p)
		}
	}
	return &s, nil
}

// likertLatentCor returns the correlation matrix whose partial correlations
// are pcor, and its inverse K (the precision of the standardised latent
// rows). Ω = I - P is a precision with those partial correlations; its
// inverse, standardised, keeps them.
func likertLatentCor(pcor [][]float64) (r, k *mat.SymDense, err error) {
	p := len(pcor)
	omega := mat.NewSymDense(p, nil)
	for i := range p {
		for j := i; j < p; j++ {
			v := 1.0
			if i != j {
				v = -(pcor[i][j] + pcor[j][i]) / 2
			}
			omega.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(omega) {
		return nil, nil, errors.New("the partial correlations do not make a positive definite precision")
	}
	sigma := mat.NewSymDense(p, nil)
	if err := ch.InverseTo(sigma); err != nil {
		return nil, nil, err
	}
	d := make([]float64, p)
	for i := range p {
		d[i] = math.Sqrt(sigma.At(i, i))
	}
	r = mat.NewSymDense(p, nil)
	k = mat.NewSymDense(p, nil)
	for i := range p {
		for j := i; j < p; j++ {
			r.SetSym(i, j, sigma.At(i, j)/(d[i]*d[j]))
			k.SetSym(i, j, omega.At(i, j)*d[i]*d[j])
		}
	}
	return r, k, nil
}

// likertThresholds returns item thresholds on the standard normal scale:
// the quantiles of the cumulative proportions, -Inf and +Inf at the ends.
func likertThresholds(props []float64) []float64 {
	t := make([]float64, len(props)+1)
	t[0], t[len(props)] = math.Inf(-1), math.Inf(1)
	var c float64
	for a := 0; a+1 < len(props); a++ {
		c += props[a]
		t[a+1] = math.Sqrt2 * math.Erfinv(2*c-1)
	}
	return t
}

// likertLatent is the latent-normal truth of spec and its sampler.
func likertLatent(spec *likertSpec) (*likertTruth, func(rand.Source, int) ([][]int, error), error) {
	r, _, err := likertLatentCor(spec.Pcor)
	if err != nil {
		return nil, nil, err
	}
	p := len(spec.Items)
	var ch mat.Cholesky
	if !ch.Factorize(r) {
		return nil, nil, errors.New("latent correlation not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	th := make([][]float64, p)
	for i := range p {
		th[i] = likertThresholds(spec.Props[i])
	}
	truth := &likertTruth{Family: "latent", Questionnaire: spec.Name, Names: spec.Items, K: spec.K,
		Edges: likertPcorEdges(spec.Pcor), Cor: denseRows(r)}
	for i := range p { // JSON has no infinities: store the k-1 inner thresholds
		truth.Thresholds = append(truth.Thresholds, th[i][1:spec.K])
	}
	sample := func(src rand.Source, N int) ([][]int, error) {
		rng := rand.New(src)
		z, x := make([]float64, p), make([]float64, p)
		rows := make([][]int, N)
		for m := range rows {
			for i := range z {
				z[i] = rng.NormFloat64()
			}
			row := make([]int, p)
			for i := range p {
				x[i] = 0
				for j := 0; j <= i; j++ {
					x[i] += l.At(i, j) * z[j]
				}
				// the category a with t_a ≤ x < t_{a+1}
				row[i] = sort.SearchFloat64s(th[i], x[i]) - 1
				if row[i] < 0 || th[i][row[i]+1] <= x[i] {
					row[i]++ // x equal to a threshold (probability 0) goes up
				}
				row[i] = min(max(row[i], 0), spec.K-1)
			}
			rows[m] = row
		}
		return rows, nil
	}
	return truth, sample, nil
}

// likertPcorEdges lists the pairs with a nonzero partial correlation.
func likertPcorEdges(pcor [][]float64) []likertEdge {
	var e []likertEdge
	for i := range pcor {
		for j := i + 1; j < len(pcor); j++ {
			if w := (pcor[i][j] + pcor[j][i]) / 2; w != 0 {
				e = append(e, likertEdge{I: i, J: j, Weight: w})
			}
		}
	}
	return e
}

func denseRows(a mat.Matrix) [][]float64 {
	r, c := a.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = a.At(i, j)
		}
	}
	return out
}

// likertScores returns the item scores s(a) = 2a/(k-1) - 1 of k answers.
func likertScores(k int) []float64 {
	s := make([]float64, k)
	for a := range s {
		s[a] = 2*float64(a)/float64(k-1) - 1
	}
	return s
}

// likertAlpha is half the span between the latent means of an item's
// lowest and highest categories (the truncated normal means between its
// thresholds t), so that the score s ∈ [-1, 1] is about x/α.
func likertAlpha(t []float64) float64 {
	phi := func(x float64) float64 {
		if math.IsInf(x, 0) {
			return 0
		}
		return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
	}
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	mean := func(a, b float64) float64 { return (phi(a) - phi(b)) / (cdf(b) - cdf(a)) }
	k := len(t) - 1
	return (mean(t[k-1], t[k]) - mean(t[0], t[1])) / 2
}

// likertGibbs are the sampler settings of the ordinal truths: 50 chains,
// 2000 burn-in sweeps and 20 sweeps between kept rows (four times the
// default thinning of the psych study's binary truths: the couplings here are
// stronger, up to a width of about 6).
func likertGibbs(m *pairwise.Model) (*pairwise.GibbsSampler, error) {
	return pairwise.NewGibbsSampler(m, pairwise.GibbsChains(50), pairwise.GibbsBurnIn(2000), pairwise.GibbsThin(20), pairwise.GibbsWorkers(1))
}

// likertOrdinal is the ordinal truth of spec (see likertUsage) and its
// sampler. The fields are fitted by moment matching: starting from the log
// proportions, each round draws 2·10^4 Gibbs rows and adds to θ_i(a) the
// log ratio of the aimed and drawn proportions (20 rounds; the remaining
// gap is stored in truth.json as achieved against props).
func likertOrdinal(spec *likertSpec, seed uint64) (*likertTruth, func(rand.Source, int) ([][]int, error), error) {
	_, kprec, err := likertLatentCor(spec.Pcor)
	if err != nil {
		return nil, nil, err
	}
	p, k := len(spec.Items), spec.K
	alpha := make([]float64, p)
	for i := range p {
		alpha[i] = likertAlpha(likertThresholds(spec.Props[i]))
	}
	s := likertScores(k)
	m, err := pairwise.NewModel(p, k)
	if err != nil {
		return nil, nil, err
	}
	w := make([][]float64, p)
	for i := range w {
		w[i] = make([]float64, p)
	}
	truth := &likertTruth{Family: "ordinal", Questionnaire: spec.Name, Names: spec.Items, K: k, Alpha: alpha, Props: spec.Props}
	for _, e := range likertPcorEdges(spec.Pcor) {
		wij := -kprec.At(e.I, e.J) * alpha[e.I] * alpha[e.J]
		w[e.I][e.J], w[e.J][e.I] = wij, wij
		c := mat.NewDense(k, k, nil)
		for a := range k {
			for b := range k {
				c.Set(a, b, wij*s[a]*s[b])
			}
		}
		if err := m.SetCoupling(e.I, e.J, c); err != nil {
			return nil, nil, err
		}
		truth.Edges = append(truth.Edges, likertEdge{I: e.I, J: e.J, Weight: wij})
	}
	truth.W = w
	const floor = 1e-4 // a proportion never seen is aimed at 1e-4, not 0 (log 0)
	theta := make([][]float64, p)
	for i := range p {
		theta[i] = make([]float64, k)
		for a := range k {
			theta[i][a] = math.Log(max(spec.Props[i][a], floor))
		}
	}
	const rounds, draws = 20, 20000
	var got [][]float64
	for round := 0; round <= rounds; round++ {
		for i := range p {
			if err := m.SetField(i, theta[i]); err != nil {
				return nil, nil, err
			}
		}
		n := draws
		if round == rounds {
			n = 100000 // the last round only measures
		}
		g, err := likertGibbs(m)
		if err != nil {
			return nil, nil, err
		}
		smp, err := g.Sample(rand.NewPCG(seed, uint64(round)), n)
		if err != nil {
			return nil, nil, err
		}
		got = likertMarginals(smp, p, k)
		if round == rounds {
			break
		}
		for i := range p {
			for a := range k {
				theta[i][a] += math.Log(max(spec.Props[i][a], floor)) - math.Log(max(got[i][a], floor/10))
			}
		}
	}
	truth.Fields, truth.Achieved = theta, got
	sample := func(src rand.Source, N int) ([][]int, error) {
		g, err := likertGibbs(m)
		if err != nil {
			return nil, err
		}
		smp, err := g.Sample(src, N)
		if err != nil {
			return nil, err
		}
		rows := make([][]int, N)
		for r := range rows {
			rows[r] = make([]int, p)
			for i := range p {
				rows[r][i] = smp.At(r, i)
			}
		}
		return rows, nil
	}
	return truth, sample, nil
}

// likertMarginals returns the answer proportions of every variable.
func likertMarginals(s *pairwise.Samples, p, k int) [][]float64 {
	q := make([][]float64, p)
	for i := range q {
		q[i] = make([]float64, k)
	}
	for r := 0; r < s.Len(); r++ {
		for i := range p {
			q[i][s.At(r, i)]++
		}
	}
	for i := range q {
		for a := range q[i] {
			q[i][a] /= float64(s.Len())
		}
	}
	return q
}

func writeLikertTruth(dir string, t *likertTruth) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "truth.json"), append(b, '\n'), 0o644)
}

// writeAnswers writes rows as a CSV with a header of names.
func writeAnswers(path string, names []string, rows [][]int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString(strings.Join(names, ",") + "\n")
	for _, r := range rows {
		for i, v := range r {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(strconv.Itoa(v))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// likertConfig is one configuration of our learner: it may transform the
// samples (dichotomise them) and gives the options of pairwise.Learn.
type likertConfig struct {
	name    string
	prepare func(*pairwise.Samples) (*pairwise.Samples, error)
	opts    []pairwise.Option
}

// likertOrdinalOptions returns the options of the "ordinal" configuration,
// pairwise.WithOrdinal(); nil in a build without it. likert_ordinal.go sets
// it in a build with -tags pairwise_ordinal.
var likertOrdinalOptions func() []pairwise.Option

// likertConfigs returns the named configurations, in the order asked.
func likertConfigs(names string) ([]likertConfig, error) {
	var cs []likertConfig
	for _, n := range strings.Split(names, ",") {
		switch n = strings.TrimSpace(n); n {
		case "categorical":
			cs = append(cs, likertConfig{name: n})
		case "dichotomised":
			cs = append(cs, likertConfig{name: n, prepare: dichotomise})
		case "ordinal":
			if likertOrdinalOptions == nil {
				return nil, errors.New(`likert learn: "ordinal" needs pairwise.WithOrdinal: run with -tags pairwise_ordinal once the library has it`)
			}
			cs = append(cs, likertConfig{name: n, opts: likertOrdinalOptions()})
		default:
			return nil, fmt.Errorf("likert learn: unknown configuration %q: want categorical, dichotomised or ordinal", n)
		}
	}
	return cs, nil
}

// medianCut returns the cut c in 1..k-1 whose split (answers ≥ c against
// the rest) is nearest 50/50, the smallest c on ties; counts[a] is the
// number of answers a. It is 0 only for k < 2.
func medianCut(counts []int) int {
	total := 0
	for _, c := range counts {
		total += c
	}
	best, bestGap := 0, math.Inf(1)
	above := total
	for c := 1; c < len(counts); c++ {
		above -= counts[c-1]
		if gap := math.Abs(float64(above) - float64(total)/2); gap < bestGap {
			best, bestGap = c, gap
		}
	}
	return best
}

// dichotomise splits every variable of s at its medianCut: state 1 for
// answers at or above the cut.
func dichotomise(s *pairwise.Samples) (*pairwise.Samples, error) {
	n, k, N := s.Vars(), s.Alphabet(), s.Len()
	cuts := make([]int, n)
	for i := range n {
		counts := make([]int, k)
		for r := range N {
			counts[s.At(r, i)]++
		}
		cuts[i] = medianCut(counts)
	}
	rows := make([][]int, N)
	for r := range rows {
		rows[r] = make([]int, n)
		for i := range n {
			if s.At(r, i) >= cuts[i] {
				rows[r][i] = 1
			}
		}
	}
	return pairwise.NewSamples(2, rows)
}

// likertResult is one output line.
type likertResult struct {
	family, questionnaire string
	N, seed               int
	method                string
	p, truthEdges, edges  int
	tp, fp, fn            int
	f1, precision, recall float64
	seconds               float64
}

const likertHeader = "family,questionnaire,N,seed,method,p,truth_edges,edges,tp,fp,fn,f1,precision,recall,seconds"

func (r likertResult) String() string {
	prec := "NA"
	if !math.IsNaN(r.precision) {
		prec = strconv.FormatFloat(r.precision, 'f', 4, 64)
	}
	return fmt.Sprintf("%s,%s,%d,%d,%s,%d,%d,%d,%d,%d,%d,%.4f,%s,%.4f,%.4f",
		r.family, r.questionnaire, r.N, r.seed, r.method, r.p, r.truthEdges, r.edges, r.tp, r.fp, r.fn, r.f1, prec, r.recall, r.seconds)
}

// likertScore compares a learned edge list with the true one over the
// p(p-1)/2 pairs: F1 = 2TP/(2TP+FP+FN) (0 when nothing is learned and
// something is true, 1 when both are empty), precision TP/(TP+FP) (NaN for
// an empty learned graph), recall TP/(TP+FN) (NaN for an empty truth).
// Pairs are taken as unordered and counted once; a pair outside 0..p-1 or
// on the diagonal is an error.
func likertScore(p int, truth, learned [][2]int) (likertResult, error) {
	set := func(es [][2]int) (map[[2]int]bool, error) {
		m := make(map[[2]int]bool, len(es))
		for _, e := range es {
			i, j := min(e[0], e[1]), max(e[0], e[1])
			if i < 0 || j >= p || i == j {
				return nil, fmt.Errorf("edge (%d, %d) is not a pair of %d variables", e[0], e[1], p)
			}
			m[[2]int{i, j}] = true
		}
		return m, nil
	}
	t, err := set(truth)
	if err != nil {
		return likertResult{}, err
	}
	l, err := set(learned)
	if err != nil {
		return likertResult{}, err
	}
	r := likertResult{p: p, truthEdges: len(t), edges: len(l)}
	for e := range l {
		if t[e] {
			r.tp++
		} else {
			r.fp++
		}
	}
	r.fn = len(t) - r.tp
	r.precision, r.recall = math.NaN(), math.NaN()
	if r.edges > 0 {
		r.precision = float64(r.tp) / float64(r.edges)
	}
	if r.truthEdges > 0 {
		r.recall = float64(r.tp) / float64(r.truthEdges)
	}
	r.f1 = 1
	if d := 2*r.tp + r.fp + r.fn; d > 0 {
		r.f1 = 2 * float64(r.tp) / float64(d)
	}
	return r, nil
}

var likertFileRE = regexp.MustCompile(`^N(\d+)-s(\d+)\.csv$`)

// likertDataSet is one data file of a truth folder.
type likertDataSet struct {
	path    string
	N, seed int
}

// likertDataSets lists the data files of a truth folder by N, then seed.
func likertDataSets(dir string) ([]likertDataSet, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ds []likertDataSet
	for _, e := range ents {
		m := likertFileRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		N, _ := strconv.Atoi(m[1])
		seed, _ := strconv.Atoi(m[2])
		ds = append(ds, likertDataSet{filepath.Join(dir, e.Name()), N, seed})
	}
	slices.SortFunc(ds, func(a, b likertDataSet) int {
		if a.N != b.N {
			return a.N - b.N
		}
		return a.seed - b.seed
	})
	return ds, nil
}

func readLikertTruth(path string) (*likertTruth, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t likertTruth
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &t, nil
}

func runLikertLearn(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("likert learn", likertUsage, stderr)
	configs := fs.String("configs", "categorical,dichotomised", "our configurations, comma-separated: categorical, dichotomised, ordinal")
	workers := fs.Int("workers", 1, "goroutines per fit")
	sizes := fs.String("N", "", "only these sample sizes (comma-separated; all when empty)")
	maxSeed := fs.Int("seeds", 0, "only seeds 1 to this (all when 0)")
	truths := fs.String("truths", "", "only these truth folders, e.g. latent-spi,ordinal-msq (all when empty)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("likert learn: want one DATADIR")
	}
	cs, err := likertConfigs(*configs)
	if err != nil {
		return err
	}
	var keepN []int
	if *sizes != "" {
		if keepN, err = parseSizes(*sizes); err != nil {
			return err
		}
	}
	dirs, err := filepath.Glob(filepath.Join(fs.Arg(0), "*", "truth.json"))
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return fmt.Errorf("likert learn: no */truth.json under %s", fs.Arg(0))
	}
	sort.Strings(dirs)
	fmt.Fprintln(stdout, likertHeader)
	for _, tp := range dirs {
		dir := filepath.Dir(tp)
		if *truths != "" && !slices.Contains(strings.Split(*truths, ","), filepath.Base(dir)) {
			continue
		}
		truth, err := readLikertTruth(tp)
		if err != nil {
			return err
		}
		var te [][2]int
		for _, e := range truth.Edges {
			te = append(te, [2]int{e.I, e.J})
		}
		ds, err := likertDataSets(dir)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if (keepN != nil && !slices.Contains(keepN, d.N)) || (*maxSeed > 0 && d.seed > *maxSeed) {
				continue
			}
			s, err := readSamplesFile(d.path)
			if err != nil {
				return err
			}
			for _, c := range cs {
				r, err := likertRun(s, c, te, *workers)
				if err != nil {
					return fmt.Errorf("%s, %s: %v", d.path, c.name, err)
				}
				r.family, r.questionnaire, r.N, r.seed = truth.Family, truth.Questionnaire, d.N, d.seed
				fmt.Fprintln(stdout, r)
			}
		}
		fmt.Fprintf(stderr, "%s done\n", dir)
	}
	return nil
}

// likertRun learns s with configuration c and scores it against the true
// edges; seconds is the time of pairwise.Learn alone.
func likertRun(s *pairwise.Samples, c likertConfig, truth [][2]int, workers int) (likertResult, error) {
	if c.prepare != nil {
		var err error
		if s, err = c.prepare(s); err != nil {
			return likertResult{}, err
		}
	}
	opts := append(slices.Clip(c.opts), pairwise.WithWorkers(workers))
	t0 := time.Now()
	res, err := pairwise.Learn(s, opts...)
	if err != nil {
		return likertResult{}, err
	}
	sec := time.Since(t0).Seconds()
	var le [][2]int
	for _, e := range res.Edges {
		le = append(le, [2]int{e.I, e.J})
	}
	r, err := likertScore(s.Vars(), truth, le)
	if err != nil {
		return likertResult{}, err
	}
	r.method, r.seconds = c.name, sec
	return r, nil
}

func readSamplesFile(path string) (*pairwise.Samples, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := pairwise.ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}
