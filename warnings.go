package pairwise

import (
	"fmt"
	"math"
	"strings"

	"github.com/mrfkit/pairwise/internal/selection"
)

// valueWeights returns, for every variable i, the total weight of the rows
// where z_i = a, laid out as w[i][a]; missing values count for no a.
//
// Bit samples are read a row at a time into one buffer, not unpacked
// whole: at n = 5,000 and N = 10^5 the bytes would be 500 MB, eight times
// the samples, at the end of a learner that held them as bits.
func valueWeights(s *Samples) [][]float64 {
	n, k := s.n, s.k
	flat := make([]float64, n*k)
	row := func(m int) []uint8 { return s.states8()[m*n : (m+1)*n] }
	if s.b8 == nil && s.bits != nil {
		buf := make([]uint8, n)
		row = func(m int) []uint8 {
			s.bitRow(buf, m)
			return buf
		}
	}
	for m := 0; m < s.rows; m++ {
		c := s.Weight(m)
		if c == 0 {
			continue
		}
		for i, z := range row(m) {
			if int(z) < k { // not a missing value (stored as k)
				flat[i*k+int(z)] += c
			}
		}
	}
	w := make([][]float64, n)
	for i := range w {
		w[i] = flat[i*k : (i+1)*k]
	}
	return w
}

// sampleWarnings returns the warnings of a learner's result on s: the
// variables whose regressions fail the events rule (selection.EnoughEvents), the
// pairs that fail it or Cochran's rule, and the constant variables. The
// rules depend on the value weights only, so they are the ones the edge
// test applied (selection.WaldSpins, selection.WaldOneHot, WaldTest.run); tested says whether
// it ran.
//
// coefs, when not nil, is each node's number of coefficients in the
// support model of the Ising edge test (more than
// selection.WaldDenseMax spins): the events rule counts those, not n.
func sampleWarnings(s *Samples, nodes []NodeFit, tested, ordinal bool, coefs []float64) []Warning {
	n, k := s.n, s.k
	if ordinal {
		return append(ordinalSampleWarnings(s, nodes, tested), constantWarnings(n, nodes)...)
	}
	if k > 2 {
		return append(nominalSampleWarnings(s, nodes, tested), constantWarnings(n, nodes)...)
	}
	counts := valueWeights(s)
	total := s.TotalWeight()
	p := float64(n) // coefficients of a regression: Ising path
	coef := func(i int) float64 {
		if coefs != nil && coefs[i] > 0 {
			return coefs[i]
		}
		return float64(n)
	}
	if coefs != nil {
		p = 0 // the largest of the short nodes', below
	}
	var warns []Warning
	// short[i]: some regression of node i has too few of its rarer label.
	short := make([]bool, n)
	var shortNodes []int
	for i := 0; i < n; i++ {
		if nodes[i].Constant {
			continue
		}
		// The rarest value present is the rarer label of some regression
		// (its pair with any other value), and of the pairs that hold
		// value a the worst is its pair with the rarest.
		rarest := math.Inf(1)
		for _, c := range counts[i] {
			if c > 0 {
				rarest = math.Min(rarest, c)
			}
		}
		if !math.IsInf(rarest, 1) && !selection.EnoughEvents(rarest, coef(i)) {
			short[i] = true
			shortNodes = append(shortNodes, i)
			p = math.Max(p, coef(i))
		}
	}
	isConst := func(i int) bool { return nodes[i].Constant }
	small, sparse := 0, 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch {
			case isConst(i) || isConst(j):
			case short[i] && short[j]:
				small++
			case !selection.CochranOK(counts[i], counts[j], total):
				sparse++
				small++
			case short[i] || short[j]:
				// An averaged entry takes the fewer degrees of
				// freedom of its two nodes: one short node is
				// enough.
				small++
			}
		}
	}
	if small > 0 {
		what := untestedPairs(tested)
		if tested {
			what += " (the EBIC graph stage may still add them, untested)"
		}
		need := math.Max(4*p, selection.CochranHigh*4)
		regression := "a regression"
		if coefs != nil {
			regression = "the largest of those nodes' regressions in the support model of their statistics"
		}
		warns = append(warns, Warning{
			Kind:  SmallSample,
			Nodes: shortNodes,
			Pairs: small,
			Message: fmt.Sprintf("small sample: %d of the %d pairs %s (N = %.4g for n = %d variables, k = %d: %d variables have a value seen in fewer than %g rows, %g for each of the %g coefficients of %s, and %d more pairs have a table with expected counts below Cochran's rule; with evenly spread values the edge test needs about N ≥ %.0f)",
				small, n*(n-1)/2, what, total, n, k, len(shortNodes), selection.MinEventsPerCoefficient*p, selection.MinEventsPerCoefficient, p, regression, sparse, need),
		})
	}
	return append(warns, constantWarnings(n, nodes)...)
}

// constantWarnings returns the ConstantVariable warning of the nodes
// that take one value, if any.
func constantWarnings(n int, nodes []NodeFit) []Warning {
	var constant []int
	for i := range nodes {
		if nodes[i].Constant {
			constant = append(constant, i)
		}
	}
	if len(constant) == 0 {
		return nil
	}
	c := len(constant)
	pairs := c*(c-1)/2 + c*(n-c)
	return []Warning{{
		Kind:  ConstantVariable,
		Nodes: constant,
		Pairs: pairs,
		Message: fmt.Sprintf("constant variables: %d of the %d variables take one value in every row (%s); they have no edge, and their %d pairs say nothing",
			c, n, listNodes(constant, 10), pairs),
	}}
}

// nominalSampleWarnings is the SmallSample warning of Algorithm 2's blocks
// (k > 2). The edge test admits coefficients, not variables: node i's
// value pair (α, β) enters only when its rarer value has
// MinEventsPerCoefficient rows for each of the regression's D =
// (n − 1)(k − 1) + 1 coefficients, and the entry (a, b) of a pair's block
// only when both values are in such a pair and its expected count
// N_a·N_b/N reaches Cochran's CochranHigh. With the grouped statistic
// (selection.BlockOK) a pair is untested when the values of its contrasts
// (selection.BlockValues, less those in no such value pair) leave fewer
// than two rows or two columns; otherwise when no entry is admitted. When
// every pair is tested but some variables' rarer values enter no value
// pair, the warning says so: those values' coefficients are not tested,
// which lowers the test's power on their pairs.
func nominalSampleWarnings(s *Samples, nodes []NodeFit, tested bool) []Warning {
	n, k := s.n, s.k
	counts := valueWeights(s)
	total := s.TotalWeight()
	p := float64((n-1)*(k-1) + 1)
	block := selection.BlockOK(n, k)
	// usable[i][a]: value a of node i is in some pair the test uses.
	usable := make([][]bool, n)
	var shortNodes []int
	for i := 0; i < n; i++ {
		usable[i] = make([]bool, k)
		enough := 0
		for _, c := range counts[i] {
			if selection.EnoughEvents(c, p) {
				enough++
			}
		}
		rare := false
		for a, c := range counts[i] {
			usable[i][a] = enough >= 2 && selection.EnoughEvents(c, p)
			rare = rare || (c > 0 && !usable[i][a])
		}
		if rare && !nodes[i].Constant {
			shortNodes = append(shortNodes, i)
		}
	}
	small := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if nodes[i].Constant || nodes[j].Constant {
				continue
			}
			admitted := false
			if block {
				rows, cols := selection.BlockValues(counts[i], counts[j], total)
				nr, nc := 0, 0
				for a := range rows {
					if rows[a] && usable[i][a] {
						nr++
					}
					if cols[a] && usable[j][a] {
						nc++
					}
				}
				admitted = nr >= 2 && nc >= 2
			} else {
				for a, ca := range counts[i] {
					for b, cb := range counts[j] {
						if usable[i][a] && usable[j][b] && selection.CochranEntry(ca, cb, total) {
							admitted = true
						}
					}
				}
			}
			if !admitted {
				small++
			}
		}
	}
	if small == 0 && len(shortNodes) == 0 {
		return nil
	}
	if small == 0 {
		return []Warning{{
			Kind:  SmallSample,
			Nodes: shortNodes,
			Message: fmt.Sprintf("small sample: the rarer values of %d of the %d variables (%s) enter no test (N = %.4g for n = %d variables, k = %d: a value enters the test in the value pairs whose rarer value has %g rows for each of a regression's %g coefficients); their pairs are tested on the other values, with less power; -scale ordinal needs far fewer rows",
				len(shortNodes), n, listNodes(shortNodes, 10), total, n, k, selection.MinEventsPerCoefficient, p),
		}}
	}
	what := untestedPairs(tested)
	return []Warning{{
		Kind:  SmallSample,
		Nodes: shortNodes,
		Pairs: small,
		Message: fmt.Sprintf("small sample: %d of the %d pairs %s (N = %.4g for n = %d variables, k = %d: a value enters the test in the value pairs whose rarer value has %g rows for each of a regression's %g coefficients, and %d variables have values that do not; a rare value leaves out its own pairs and its rows and columns of the blocks; -scale ordinal needs far fewer rows)",
			small, n*(n-1)/2, what, total, n, k, selection.MinEventsPerCoefficient, p, len(shortNodes)),
	}}
}

// ordinalSampleWarnings is the SmallSample warning of the ordinal model
// (WithScale): its edge test refits each node's law on all rows, one field
// for each answer but the first and one coupling for each other variable,
// and a node with fewer than MinEventsPerCoefficient rows a parameter is
// short; a pair is untested when either node is. Rare answers cost
// nothing here: they are fields of the softmax.
func ordinalSampleWarnings(s *Samples, nodes []NodeFit, tested bool) []Warning {
	n := s.n
	counts := valueWeights(s)
	total := s.TotalWeight()
	short := make([]bool, n)
	var shortNodes []int
	most := 0.0
	for i := 0; i < n; i++ {
		if nodes[i].Constant {
			continue
		}
		values := 0
		for _, c := range counts[i] {
			if c > 0 {
				values++
			}
		}
		p := float64(values - 1 + n - 1)
		most = math.Max(most, p)
		if !selection.EnoughEvents(total, p) {
			short[i] = true
			shortNodes = append(shortNodes, i)
		}
	}
	small := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if !nodes[i].Constant && !nodes[j].Constant && (short[i] || short[j]) {
				small++
			}
		}
	}
	if small == 0 {
		return nil
	}
	what := untestedPairs(tested)
	return []Warning{{
		Kind:  SmallSample,
		Nodes: shortNodes,
		Pairs: small,
		Message: fmt.Sprintf("small sample: %d of the %d pairs %s (N = %.4g for n = %d variables on the ordinal scale: each variable's law has up to %g parameters, and its test needs %g rows for each; %d variables have fewer)",
			small, n*(n-1)/2, what, total, n, most, selection.MinEventsPerCoefficient, len(shortNodes)),
	}}
}

// convergenceWarning returns the NotConverged warning of the nodes' fits
// to the tolerance tol (0 when unknown, as in a merge of partials), and
// false when every regression certified it. solver is WithSolver's
// backend (nil for the default), for the remedy the message suggests.
func convergenceWarning(nodes []NodeFit, tol float64, solver Solver) (Warning, bool) {
	var stopped []int
	gap := 0.0
	for _, f := range nodes {
		if !f.Converged {
			stopped = append(stopped, f.Node)
			gap = math.Max(gap, f.Gap)
		}
	}
	if len(stopped) == 0 {
		return Warning{}, false
	}
	tolerance := "the tolerance"
	if tol > 0 {
		tolerance = fmt.Sprintf("the tolerance %g", tol)
	}
	why := "give more iterations (WithMaxIterations)"
	switch b := solver.(type) {
	case Sparsitron:
		why = "Sparsitron makes one pass over the rows and has no stopping rule"
	case EntropicMirror, GroupMirror:
		why = fmt.Sprintf("give more iterations (WithMaxIterations, or the Paper schedule's T) or use the default solver, Accelerated, which is much faster than %v", b)
	}
	return Warning{
		Kind:  NotConverged,
		Nodes: stopped,
		Message: fmt.Sprintf("not converged: the regressions of %d of the %d nodes (%s) stopped before the duality gap certified %s (the largest gap is %.3g), so their estimates are not the estimator's to that tolerance; %s",
			len(stopped), len(nodes), listNodes(stopped, 10), tolerance, gap, why),
	}, true
}

// listNodes returns up to max of the variables, "and m more" for the rest.
func listNodes(nodes []int, max int) string {
	var b strings.Builder
	for x, i := range nodes {
		if x == max {
			fmt.Fprintf(&b, " and %d more", len(nodes)-max)
			break
		}
		if x > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", i)
	}
	return b.String()
}

// untestedPairs says what the pairs of a SmallSample warning are: not
// tested, when the edge test ran, or too thinly estimated, when η was given.
func untestedPairs(tested bool) string {
	if !tested {
		return "rest on too little data for their estimates to mean much"
	}
	return "were not tested: the Wald test does not call them edges, whatever their dependence"
}

// ridgeWarning says which variables' laws the mixed model refitted with
// its ridge (selection.MixedRidge), nil when none: their values are
// separated by the others, so that a coupling's maximum likelihood
// estimate is infinite, and the ridge shrinks it.
func ridgeWarning(ridged []int) []Warning {
	if len(ridged) == 0 {
		return nil
	}
	return []Warning{{
		Kind:  SmallSample,
		Nodes: ridged,
		Message: fmt.Sprintf("small sample: %d variables have values that the others separate (a coupling's estimate would be infinite); their laws were refitted with a ridge of one row's weight on the couplings, which shrinks those estimates (NodeFit; WithNominalVariables, WithScale)",
			len(ridged)),
	}}
}
