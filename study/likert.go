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
  mixed-Q     (with -families mixed) the ordinal truth's rows with the codes
              of its 3 items of most edges scrambled into unordered
              categories (the permutation nearest zero rank correlation):
              the same graph, couplings not monotone in those items' codes
  ordinal-Q   the linear-by-linear pairwise model on the answers,
              W_ij(a,b) = w_ij s(a) s(b) with s(a) = 2a/(k-1) - 1, on the
              same graph, fitted by pseudo-likelihood to 50000 rows of the
              latent truth, its fields then refined by moment matching to
              the real answer proportions; sampled by Gibbs
Each truth's folder holds truth.json (names, k, edges, the parameters) and
the data sets N<N>-s<SEED>.csv: a header of item names, answers 0..k-1.

learn runs our learner's configurations on every data set under DATADIR and
prints one CSV line a (truth, N, seed, configuration):
  family,questionnaire,N,seed,method,p,truth_edges,edges,tp,fp,fn,f1,precision,recall,seconds
(the lines of ../scripts/likert_peers.R; precision NA for an empty graph;
seconds is the learner alone, not reading the file). Configurations:
  default        pairwise.Learn on the k-ary answers, no option (the data
                 choose the scale: WithScale(AutoScale))
  categorical    pairwise.Learn with WithScale(Nominal): the node-wise
                 multinomial model where its size rule allows (issue 32),
                 else Algorithm 2's k×k blocks (the library default before
                 issue 31)
  dichotomised   pairwise.Learn on the answers split at each item's median
                 (1 for answers ≥ c, with c the cut nearest a 50/50 split,
                 the smallest on ties; the split of likert_peers.R)
  ordinal        pairwise.Learn with WithScale(Ordinal)
  multinomial    pairwise.Learn with every item declared unordered (the
                 mixed model with no ordered item: one multinomial
                 regression a node, refitted without constraint)
  valuepairs     pairwise.LearnPairwise: Algorithm 2's k×k blocks,
                 tuning-free (WithScale(Nominal) before issue 32)
  declared       pairwise.Learn with the truth's unordered items declared
                 (WithNominalVariables: the mixed model); the default on
                 truths without such items

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
	Scale    float64     `json:"scale,omitempty"` // the factor applied to the pseudo-likelihood weights
	Fields   [][]float64 `json:"fields,omitempty"`
	Props    [][]float64 `json:"props,omitempty"`
	Achieved [][]float64 `json:"achieved,omitempty"`
	// Mixed: the items whose answer codes were scrambled into unordered
	// categories, and each one's permutation (code a of the ordinal truth
	// is written Perm[x][a]).
	Nominal []int   `json:"nominal,omitempty"`
	Perm    [][]int `json:"perm,omitempty"`
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
			case "mixed":
				truth, sample, err = likertMixed(spec)
			default:
				return fmt.Errorf("likert gen: unknown family %q: want latent, ordinal or mixed", fam)
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
					stream := fam
					if fam == "mixed" {
						stream = "ordinal" // the ordinal truth's rows, relabelled
					}
					rows, err := sample(rand.NewPCG(likertSeed(spec.Name, stream), uint64(N)<<20|uint64(seed)), N)
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

// likertGibbs are the sampler settings of the ordinal truths: 10 chains,
// 1000 burn-in sweeps (the library's default) and 20 sweeps between kept
// rows, twice the psych study's thinning: k-ary items mix more slowly
// than binary ones.
func likertGibbs(m *pairwise.Model) (*pairwise.GibbsSampler, error) {
	return pairwise.NewGibbsSampler(m, pairwise.GibbsChains(10), pairwise.GibbsBurnIn(1000), pairwise.GibbsThin(20), pairwise.GibbsWorkers(1))
}

// likertOrdinalRows is the number of latent rows the ordinal truths are
// fitted to; the Monte Carlo error of a weight is then about 1/sqrt(5·10^4)
// of its scale, far below the smallest weights.
const likertOrdinalRows = 50000

// likertOrdinal is the ordinal truth of spec and its sampler: the
// linear-by-linear model W_ij(a,b) = w_ij s(a) s(b) on the latent truth's
// graph, fitted by unpenalised pseudo-likelihood to likertOrdinalRows rows
// of the latent truth (node-wise multinomial regressions, w_ij the mean
// of node i's and node j's estimates), so that it is the discrete model
// nearest the latent one; its fields are then refined by moment matching
// towards the real answer proportions (likertFitFields), the weights
// scaled down when that fails (likertShrink). truth.json stores the scale
// and the proportions the model reaches beside the aimed ones.
func likertOrdinal(spec *likertSpec, seed uint64) (*likertTruth, func(rand.Source, int) ([][]int, error), error) {
	_, latent, err := likertLatent(spec)
	if err != nil {
		return nil, nil, err
	}
	x, err := latent(rand.NewPCG(seed, 1), likertOrdinalRows)
	if err != nil {
		return nil, nil, err
	}
	p, k := len(spec.Items), spec.K
	edges := likertPcorEdges(spec.Pcor)
	nb := make([][]int, p)
	for _, e := range edges {
		nb[e.I] = append(nb[e.I], e.J)
		nb[e.J] = append(nb[e.J], e.I)
	}
	w := make([][]float64, p)
	for i := range w {
		w[i] = make([]float64, p)
	}
	theta := make([][]float64, p)
	for i := range p {
		th, wi, err := likertNodePL(x, i, nb[i], k)
		if err != nil {
			return nil, nil, fmt.Errorf("item %s: %v", spec.Items[i], err)
		}
		theta[i] = th
		for c, j := range nb[i] {
			w[i][j] += wi[c] / 2
			w[j][i] += wi[c] / 2
		}
	}
	plTheta := theta
	var m *pairwise.Model
	var truth *likertTruth
	var got [][]float64
	for try := 0; ; try++ {
		scale := math.Pow(likertShrink, float64(try))
		theta = make([][]float64, p)
		for i := range p {
			theta[i] = slices.Clone(plTheta[i])
		}
		m, got, err = likertFitFields(spec, edges, w, scale, theta, seed)
		if err != nil {
			return nil, nil, err
		}
		if likertGap(spec.Props, got) <= likertMaxGap || try == 10 {
			truth = &likertTruth{Family: "ordinal", Questionnaire: spec.Name, Names: spec.Items, K: k, Props: spec.Props, Scale: scale}
			break
		}
	}
	truth.W = make([][]float64, p)
	for i := range p {
		truth.W[i] = make([]float64, p)
		for j := range p {
			truth.W[i][j] = w[i][j] * truth.Scale
		}
	}
	for _, e := range edges {
		truth.Edges = append(truth.Edges, likertEdge{I: e.I, J: e.J, Weight: truth.W[e.I][e.J]})
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

// likertMixedItems is the number of items of a mixed truth whose codes
// are scrambled.
const likertMixedItems = 3

// likertMixed returns the mixed truth of spec: the ordinal truth with the
// likertMixedItems items of most edges (the first on ties) turned into
// unordered categories by a permutation of their codes, the one of k!
// (or of 2000 random ones for k > 6) whose Spearman correlation with the
// identity is nearest 0. Its rows are the ordinal truth's, relabelled; its
// graph is the same. An item's couplings become w_ij·s_i(π⁻¹(a))·s_j(b):
// linear in the other item's score, not monotone in its own code, which
// is what an unordered category (a region, a diagnosis) looks like to
// the ordinal model.
func likertMixed(spec *likertSpec) (*likertTruth, func(rand.Source, int) ([][]int, error), error) {
	truth, sample, err := likertOrdinal(spec, likertSeed(spec.Name, "ordinal"))
	if err != nil {
		return nil, nil, err
	}
	p, k := len(truth.Names), truth.K
	deg := make([]int, p)
	for _, e := range truth.Edges {
		deg[e.I]++
		deg[e.J]++
	}
	order := make([]int, p)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return deg[order[a]] > deg[order[b]] })
	truth.Family = "mixed"
	truth.Nominal = slices.Clone(order[:min(likertMixedItems, p)])
	sort.Ints(truth.Nominal)
	r := rand.New(rand.NewPCG(likertSeed(spec.Name, "mixed"), 1))
	for range truth.Nominal {
		truth.Perm = append(truth.Perm, unorderedPerm(k, r))
	}
	relabel := func(src rand.Source, N int) ([][]int, error) {
		rows, err := sample(src, N)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			for x, i := range truth.Nominal {
				row[i] = truth.Perm[x][row[i]]
			}
		}
		return rows, nil
	}
	return truth, relabel, nil
}

// unorderedPerm returns a permutation of 0..k-1 whose Spearman correlation
// with the identity is nearest 0: drawn from r among all such for k ≤ 6
// (so that the items do not all share one), the best of 2000 drawn for
// larger k.
func unorderedPerm(k int, r *rand.Rand) []int {
	rho := func(pi []int) float64 {
		d2 := 0
		for a, b := range pi {
			d2 += (a - b) * (a - b)
		}
		return math.Abs(1 - 6*float64(d2)/float64(k*(k*k-1)))
	}
	var cands [][]int
	if k > 6 {
		for range 2000 {
			cands = append(cands, r.Perm(k))
		}
	} else {
		var walk func(pi []int, used []bool)
		walk = func(pi []int, used []bool) {
			if len(pi) == k {
				cands = append(cands, slices.Clone(pi))
				return
			}
			for a := 0; a < k; a++ {
				if !used[a] {
					used[a] = true
					walk(append(pi, a), used)
					used[a] = false
				}
			}
		}
		walk(nil, make([]bool, k))
	}
	best := math.Inf(1)
	for _, pi := range cands {
		best = math.Min(best, rho(pi))
	}
	var ties [][]int
	for _, pi := range cands {
		if rho(pi) == best {
			ties = append(ties, pi)
		}
	}
	if k > 6 {
		return ties[0]
	}
	return ties[r.IntN(len(ties))]
}

// likertShrink and likertMaxGap: when moment matching leaves an answer
// proportion more than 0.02 from the real one, the pseudo-likelihood
// weights put the model in a phase of its own (all items high together)
// that the real data do not have; the weights are then scaled by 0.85 and
// the fields refitted, until the gap is at most 0.02 (0.02 is about the
// sampling error of a proportion of 0.5 at N = 625, below what the study's
// smaller data sets can tell apart).
const (
	likertShrink = 0.85
	likertMaxGap = 0.02
)

// likertGap is the largest difference of two tables of proportions.
func likertGap(a, b [][]float64) float64 {
	var g float64
	for i := range a {
		for c := range a[i] {
			g = max(g, math.Abs(a[i][c]-b[i][c]))
		}
	}
	return g
}

// likertFitFields builds the linear-by-linear model with weights scale·w
// on edges and refines the fields theta (in place) by moment matching: 8
// rounds of 2·10^4 Gibbs rows, each adding half the log ratio of the aimed
// and drawn proportions. It returns the model and its proportions in 5·10^4
// further rows.
func likertFitFields(spec *likertSpec, edges []likertEdge, w [][]float64, scale float64, theta [][]float64, seed uint64) (*pairwise.Model, [][]float64, error) {
	p, k := len(spec.Items), spec.K
	s := likertScores(k)
	m, err := pairwise.NewModel(p, k)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range edges {
		c := mat.NewDense(k, k, nil)
		for a := range k {
			for b := range k {
				c.Set(a, b, scale*w[e.I][e.J]*s[a]*s[b])
			}
		}
		if err := m.SetCoupling(e.I, e.J, c); err != nil {
			return nil, nil, err
		}
	}
	const floor = 1e-4 // a proportion never seen is aimed at 1e-4, not 0 (log 0)
	const rounds, draws = 8, 20000
	var got [][]float64
	for round := 0; round <= rounds; round++ {
		for i := range p {
			if err := m.SetField(i, theta[i]); err != nil {
				return nil, nil, err
			}
		}
		n := draws
		if round == rounds {
			n = 50000 // the last round only measures
		}
		g, err := likertGibbs(m)
		if err != nil {
			return nil, nil, err
		}
		smp, err := g.Sample(rand.NewPCG(seed, uint64(round)+2), n)
		if err != nil {
			return nil, nil, err
		}
		got = likertMarginals(smp, p, k)
		if round == rounds {
			break
		}
		for i := range p {
			for a := range k {
				theta[i][a] += 0.5 * (math.Log(max(spec.Props[i][a], floor)) - math.Log(max(got[i][a], floor)))
			}
		}
	}
	return m, got, nil
}

// likertNodePL fits node i's conditional distribution under the
// linear-by-linear model by maximum likelihood: P(x_i = a | rest) ∝
// exp(θ(a) + s(a) Σ_j w_j s(x_j)) over the neighbours nb, with θ(0) = 0,
// by Newton's method with step halving. It returns θ (length k) and w (one
// a neighbour).
func likertNodePL(x [][]int, i int, nb []int, k int) (theta, w []float64, err error) {
	s := likertScores(k)
	d := k - 1 + len(nb) // parameters: θ(1..k-1), then w
	beta := make([]float64, d)
	u := make([]float64, len(nb))
	prob := make([]float64, k)
	loglik := func(b []float64, grad []float64, hess *mat.SymDense) float64 {
		var ll float64
		if grad != nil {
			clear(grad)
			hess.Zero()
		}
		for _, row := range x {
			var h float64 // Σ_j w_j s(x_j)
			for c, j := range nb {
				u[c] = s[row[j]]
				h += b[k-1+c] * u[c]
			}
			mx := math.Inf(-1)
			for a := range k {
				prob[a] = s[a] * h
				if a > 0 {
					prob[a] += b[a-1]
				}
				mx = max(mx, prob[a])
			}
			var z float64
			for a := range k {
				prob[a] = math.Exp(prob[a] - mx)
				z += prob[a]
			}
			y := row[i]
			ll += math.Log(prob[y] / z)
			if grad == nil {
				continue
			}
			var es, es2 float64 // E[s(a)], E[s(a)²]
			for a := range k {
				prob[a] /= z
				es += prob[a] * s[a]
				es2 += prob[a] * s[a] * s[a]
			}
			// The features of category a are (e_a, s(a) u): the gradient is
			// f_y - E f, the negative Hessian Cov f.
			for a := 1; a < k; a++ {
				if y == a {
					grad[a-1]++
				}
				grad[a-1] -= prob[a]
				for b2 := a; b2 < k; b2++ {
					v := -prob[a] * prob[b2]
					if a == b2 {
						v += prob[a]
					}
					hess.SetSym(a-1, b2-1, hess.At(a-1, b2-1)+v)
				}
				for c := range nb { // Cov(e_a, s u_c) = p_a (s(a) - E s) u_c
					hess.SetSym(a-1, k-1+c, hess.At(a-1, k-1+c)+prob[a]*(s[a]-es)*u[c])
				}
			}
			vs := es2 - es*es
			for c := range nb {
				grad[k-1+c] += (s[y] - es) * u[c]
				for c2 := c; c2 < len(nb); c2++ {
					hess.SetSym(k-1+c, k-1+c2, hess.At(k-1+c, k-1+c2)+vs*u[c]*u[c2])
				}
			}
		}
		return ll
	}
	grad := make([]float64, d)
	hess := mat.NewSymDense(d, nil)
	next := make([]float64, d)
	ll := loglik(beta, grad, hess)
	for iter := 0; iter < 100; iter++ {
		for a := range d { // a tiny ridge keeps the factorisation safe when a category is empty
			hess.SetSym(a, a, hess.At(a, a)+1e-9*float64(len(x)))
		}
		var ch mat.Cholesky
		if !ch.Factorize(hess) {
			return nil, nil, errors.New("pseudo-likelihood Hessian not positive definite")
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, mat.NewVecDense(d, grad)); err != nil {
			return nil, nil, err
		}
		t := 1.0
		var nll float64
		for half := 0; half < 30; half++ {
			for a := range d {
				next[a] = beta[a] + t*step.AtVec(a)
			}
			if nll = loglik(next, nil, nil); nll >= ll-1e-9*math.Abs(ll) {
				break
			}
			t /= 2
		}
		copy(beta, next)
		if mat.Norm(&step, math.Inf(1))*t < 1e-8 {
			break
		}
		ll = loglik(beta, grad, hess)
	}
	theta = make([]float64, k)
	copy(theta[1:], beta[:k-1])
	return theta, slices.Clone(beta[k-1:]), nil
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
	// declare: the truth's nominal items (a mixed truth's) are declared
	// with WithNominalVariables; on other truths this is the default.
	// all: every item declared (the mixed model with no ordered item: one
	// multinomial regression a node on all the others' indicators).
	declare, all bool
	// valuePairs: LearnPairwise in place of Learn (Algorithm 2).
	valuePairs bool
}

// likertConfigs returns the named configurations, in the order asked.
func likertConfigs(names string) ([]likertConfig, error) {
	var cs []likertConfig
	for _, n := range strings.Split(names, ",") {
		switch n = strings.TrimSpace(n); n {
		case "default":
			cs = append(cs, likertConfig{name: n})
		case "categorical":
			cs = append(cs, likertConfig{name: n, opts: []pairwise.Option{pairwise.WithScale(pairwise.Nominal)}})
		case "dichotomised":
			cs = append(cs, likertConfig{name: n, prepare: dichotomise})
		case "ordinal":
			cs = append(cs, likertConfig{name: n, opts: []pairwise.Option{pairwise.WithScale(pairwise.Ordinal)}})
		case "declared":
			cs = append(cs, likertConfig{name: n, declare: true})
		case "multinomial":
			cs = append(cs, likertConfig{name: n, all: true})
		case "valuepairs":
			cs = append(cs, likertConfig{name: n, valuePairs: true})
		default:
			return nil, fmt.Errorf("likert learn: unknown configuration %q: want default, categorical, dichotomised, ordinal, declared, multinomial or valuepairs", n)
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
	configs := fs.String("configs", "default,dichotomised", "our configurations, comma-separated: default, categorical, dichotomised, ordinal, declared, multinomial, valuepairs")
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
				if c.declare && len(truth.Nominal) > 0 {
					c.opts = []pairwise.Option{pairwise.WithNominalVariables(truth.Nominal...)}
				}
				if c.all {
					every := make([]int, len(truth.Names))
					for j := range every {
						every[j] = j
					}
					c.opts = []pairwise.Option{pairwise.WithScale(pairwise.Ordinal), pairwise.WithNominalVariables(every...)}
				}
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
	learn := pairwise.Learn
	if c.valuePairs {
		learn = pairwise.LearnPairwise
	}
	res, err := learn(s, opts...)
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
