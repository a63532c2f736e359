package pairwise

import (
	"fmt"
	"slices"

	"github.com/mrfkit/pairwise/internal/estimates"
	"gonum.org/v1/gonum/mat"
)

// Result is what a learner returns: the learned model, the learned graph Ĝ
// and per-node diagnostics.
type Result struct {
	// Model holds the learned couplings of the edges in Edges, symmetrised
	// as (Ŵ_ij + Ŵ_ji^T)/2 (the average of node i's and node j's
	// estimates), and the learned fields, centred. Pairs that are not in
	// Edges have no coupling. For k = 2 the couplings have the Ising form
	// [[Â, -Â], [-Â, Â]].
	Model *Model
	// Edges is the learned graph Ĝ: the pairs I < J whose symmetrised
	// estimate has weight max_{a,b} |Ŵ_IJ(a, b)| ≥ η/2 (see
	// WithSymmetrization for the And and Or rules), sorted by (I, J).
	Edges []Edge
	// Width and MinEdgeWeight are the λ and η the learner used (Width is
	// NaN when WithRadius replaced it, even when WithWidth was given too;
	// with widths per node it is the largest λ_i; 0 when no width was
	// searched: the tuning-free defaults of the ordinal scale and of the
	// nominal scale's multinomial model, see WithScale).
	Width, MinEdgeWeight float64
	// Radius is the constraint radius of the regressions: 2λ (Ising
	// path), 2λ√k (pairwise path), or the one given by WithRadius; NaN
	// when a Selection chose a width λ_i per node (NodeFit.Width).
	Radius float64
	// Nodes holds one entry per node i: how its regressions ended.
	Nodes []NodeFit
	// Tuning reports the widths and the edge test chosen from the data
	// when WithWidth or WithMinEdgeWeight was not given; nil otherwise.
	Tuning *Tuning
	// Missing says how the missing values of the samples were handled
	// (see Missing and WithMissing); nil for complete samples.
	Missing *MissingReport
	// Scale is the model Learn fitted to k > 2 states (WithScale): Ordinal
	// or Nominal; Nominal for k = 2 and for LearnPairwise and LearnIsing.
	// ScaleCheck gives the evidence AutoScale chose it on.
	Scale Scale
	// Nominal lists, in increasing order, the variables fitted as nominal
	// on the ordinal scale (the mixed model): those declared with
	// WithNominalVariables and those AutoScale found unordered
	// (NominalFound); nil when every variable is on the scale Scale says.
	Nominal []int
	// Warnings says what the data could not support: too few samples for
	// some pairs to be tested (SmallSample; the tuning-free edge test
	// then reports no edge for them, docs/tuning/small-samples.md),
	// constant variables (ConstantVariable), regressions that stopped
	// before their certificate proved the tolerance (NotConverged). Empty
	// when there is nothing to say; the graph of a result with warnings is
	// to be read with them.
	Warnings []Warning

	scaleCheck *scaleCheck // AutoScale's evidence; nil when it did not run

	n, k int
	est  []*estimates.Node // est[i].Block(j)[a*k + b] = Ŵ_ij(a, b) from node i's regressions, sparse (internal/estimates)
	// solutions holds each node's regression solutions when
	// WithKeepSolutions was given, for WithWarmStart; nil otherwise.
	solutions [][]taskSolution
}

// Estimate returns Ŵ_ij as estimated from node i's regressions alone, before
// symmetrisation and thresholding (for k = 2 the Ising form
// [[Â_ij, -Â_ij], [-Â_ij, Â_ij]]). It returns a zero matrix for i == j and
// panics if i or j is out of range.
func (r *Result) Estimate(i, j int) *mat.Dense {
	if i < 0 || i >= r.n || j < 0 || j >= r.n {
		panic(fmt.Sprintf("pairwise: Estimate(%d, %d) out of range [0, %d)", i, j, r.n))
	}
	d := mat.NewDense(r.k, r.k, nil)
	copy(d.RawMatrix().Data, r.est[i].Block(j))
	return d
}

// symmetrise builds the Result from the per-node estimates: every pair's
// two estimates averaged, (Ŵ_ij + Ŵ_ji^T)/2, and kept as an edge when the
// rule sym finds it at least η/2 (eta is η). fields[i*k+a] holds θ̂_i(a).
// Only the pairs listed by node i or node j are looked at when every
// node's fill is zero: the others average two zero blocks, of weight 0,
// which no rule keeps.
func symmetrise(n, k int, est []*estimates.Node, fields []float64, nodes []NodeFit, eta float64, sym Symmetrization) *Result {
	m, _ := NewModel(n, k)
	copy(m.theta, fields)
	res := &Result{
		Model:         m,
		MinEdgeWeight: eta,
		Nodes:         nodes,
		n:             n,
		k:             k,
		est:           est,
	}
	half := eta / 2
	var bi, bj [4]float64 // the blocks of the Ising form (estimates.BlockTo)
	pair := func(i, j int) {
		avg, weight, keep := symmetricBlock(est[i].BlockTo(bi[:0], j), est[j].BlockTo(bj[:0], i), k, half, sym)
		if keep {
			m.setCoupling(i, j, avg)
			res.Edges = append(res.Edges, Edge{I: i, J: j, Weight: weight})
		}
	}
	sparse := true
	for _, e := range est {
		sparse = sparse && e.FillZero()
	}
	if !sparse {
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				pair(i, j)
			}
		}
		return res
	}
	// below[i] lists the nodes j > i whose estimates list i, increasing.
	below := make([][]int32, n)
	for j, e := range est {
		for _, i := range e.At {
			if int(i) < j {
				below[i] = append(below[i], int32(j))
			}
		}
	}
	for i := 0; i < n; i++ {
		mine := est[i].At
		x, _ := slices.BinarySearch(mine, int32(i+1))
		mine, theirs := mine[x:], below[i]
		for len(mine) > 0 || len(theirs) > 0 {
			var j int32
			switch {
			case len(theirs) == 0 || (len(mine) > 0 && mine[0] < theirs[0]):
				j, mine = mine[0], mine[1:]
			case len(mine) == 0 || theirs[0] < mine[0]:
				j, theirs = theirs[0], theirs[1:]
			default:
				j, mine, theirs = mine[0], mine[1:], theirs[1:]
			}
			pair(i, int(j))
		}
		below[i] = nil
	}
	return res
}

// symmetricBlock returns the symmetrised block of the pair (i, j), the
// average of Â_ij and Â_jiᵀ (wij and wji, k×k), its weight max |avg|, and
// whether the pair is an edge under sym with threshold half = η/2: And and
// Or apply it to both one-sided estimates, the default to the average; a
// zero block is never an edge.
func symmetricBlock(wij, wji []float64, k int, half float64, sym Symmetrization) (avg []float64, weight float64, keep bool) {
	avg = make([]float64, k*k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			avg[a*k+b] = (wij[a*k+b] + wji[b*k+a]) / 2
		}
	}
	weight = estimates.MaxAbs(avg)
	switch sym {
	case And:
		keep = estimates.MaxAbs(wij) >= half && estimates.MaxAbs(wji) >= half
	case Or:
		keep = estimates.MaxAbs(wij) >= half || estimates.MaxAbs(wji) >= half
	default:
		keep = weight >= half
	}
	return avg, weight, keep && weight > 0
}

// taskSolution is the solution w of one regression of a node: the node of
// Algorithm 1 (Alpha = Beta = 0) or the value pair (Alpha, Beta) of
// Algorithm 2.
type taskSolution struct {
	alpha, beta int
	w           []float64
}

// WarningKind classifies a Warning.
type WarningKind int

// String returns the kind's name.
func (k WarningKind) String() string {
	switch k {
	case SmallSample:
		return "small sample"
	case ConstantVariable:
		return "constant variable"
	case NotConverged:
		return "not converged"
	}
	return fmt.Sprintf("WarningKind(%d)", int(k))
}

// Warning is one thing the data could not support, or a fit that stopped
// short, found while learning (Result.Warnings).
type Warning struct {
	Kind WarningKind
	// Nodes are the variables concerned: the constant ones, those with a
	// regression too small for the edge test, or those whose regressions
	// did not converge.
	Nodes []int
	// Pairs counts the pairs (i < j) concerned: those the edge test could
	// not use (SmallSample), those of a constant variable
	// (ConstantVariable); 0 for NotConverged.
	Pairs int
	// Message says it in a sentence, for people.
	Message string
}

// String returns the message.
func (w Warning) String() string { return w.Message }

const (
	// SmallSample: for some pairs the data are too few for the edge test:
	// a regression of the pair's nodes has fewer than two observations of
	// its rarer label per coefficient, or the pair's table of values fails
	// Cochran's rule (docs/tuning/small-samples.md). The tuning-free test
	// gives those pairs the statistic 0, so the Wald test does not call
	// them edges whatever their dependence (on Ising data the EBIC graph
	// stage of WaldTest may still add them, untested); with η given
	// (WithMinEdgeWeight) their estimates stand but rest on too little
	// data to mean much.
	SmallSample WarningKind = iota + 1
	// ConstantVariable: some variables take one value in every row
	// (NodeFit.Constant); they have no edge and their fields sit at the
	// boundary of the constraint.
	ConstantVariable
	// NotConverged: the regressions of some nodes stopped before the
	// duality-gap certificate proved the tolerance (WithTolerance): at
	// the iteration cap (WithMaxIterations), at the end of the Paper
	// schedule's T steps, or after Sparsitron's one pass (NodeFit.Converged
	// false, NodeFit.Gap). Their estimates are not the constrained
	// estimator's to that tolerance, so the graph may differ from the one
	// a converged fit learns.
	NotConverged
)

// Scale is how Learn treats variables of k > 2 states: as nominal
// categories, whose pairs have the full k×k blocks of Algorithm 2, or as
// ordered answers, whose pairs have one coupling each (the ordinal model).
// Learn's default is AutoScale: the data choose. LearnPairwise always fits
// the nominal blocks (it is Algorithm 2), and k = 2 is the Ising model under
// either scale.
type Scale int

const (
	// Nominal fits the full k×k blocks W_ij(a, b): Algorithm 2, or
	// without λ and η the node-wise multinomial model (see WithScale).
	Nominal Scale = iota
	// Ordinal fits the ordinal model W_ij(a, b) = w_ij·s_i(a)·s_j(b)
	// (see WithScale).
	Ordinal
	// AutoScale lets the data choose between the two (see WithScale).
	AutoScale
)

// String returns "nominal", "ordinal" or "auto".
func (sc Scale) String() string {
	switch sc {
	case Nominal:
		return "nominal"
	case Ordinal:
		return "ordinal"
	case AutoScale:
		return "auto"
	}
	return fmt.Sprintf("Scale(%d)", int(sc))
}

// scaleCheck is the evidence on which AutoScale chose the scale (see
// Result.ScaleCheck).
type scaleCheck struct {
	association, linear, needed float64
	// found are the variables AutoScale took as unordered
	// (selection.UnorderedVariables), fitted as nominal on the ordinal
	// scale; nil when none.
	found []int
}

// ordinal reports whether the check chooses the ordinal scale.
func (c scaleCheck) ordinal() bool {
	return c.association > 0 && c.linear >= c.needed
}

// NominalFound returns the variables that AutoScale took as unordered
// categories among ordered answers and fitted as nominal on the ordinal
// scale (see WithScale; a subset of Nominal), in increasing order; nil
// when it found none, did not look, or chose the nominal scale.
func (r *Result) NominalFound() []int {
	if r.scaleCheck == nil {
		return nil
	}
	return slices.Clone(r.scaleCheck.found)
}

// ScaleCheck returns the evidence on which AutoScale chose Result.Scale,
// summed over every pair of variables' table of answers: association, its
// G² of independence less its degrees of freedom (the association the
// data show beyond chance); linear, the part of it that the
// linear-by-linear association model (one parameter on the scores, the
// ordinal model's shape) explains; and needed, the linear part the
// ordinal scale needs: for each pair, its association times
// (1 + 1/(m − 1))/2, m the fewer values of its two variables, halfway
// between the linear share of a Potts coupling δ(a, b) on m values,
// 1/(m − 1), and the ordinal model's, 1. AutoScale chose Ordinal when
// association > 0 and linear ≥ needed (with no association beyond chance
// nothing shows that the states are ordered). checked is false, and the
// numbers 0, when no check ran: the scale was given, k = 2, LearnPairwise
// or LearnIsing, or the check was skipped (see WithScale).
func (r *Result) ScaleCheck() (association, linear, needed float64, checked bool) {
	if r.scaleCheck == nil {
		return 0, 0, 0, false
	}
	c := r.scaleCheck
	return c.association, c.linear, c.needed, true
}
