package pairwise

import (
	"fmt"

	"github.com/mrfkit/pairwise/internal/estimates"
)

// prepareMissing prepares incomplete samples for the learner called as fn
// by their MissingRule (WithMissing, or missingRule's default) and returns
// the samples to fit with the report of what was done: the samples as they
// are for AvailableCase (binary data on the Ising path, each node on the
// rows that observe it), the complete rows for ListwiseDeletion, and for
// MissingAsState the samples on k+1 states, the missing value the state k,
// which the learner fits with Algorithm 2 and restrictStates brings back to
// the k real states.
func prepareMissing(fn string, s *Samples, opts []Option) (*Samples, *MissingReport, error) {
	cfg, err := prepare(fn, s, opts)
	if err != nil {
		return nil, nil, err
	}
	if fn == "LearnIsing" && s.k != 2 {
		return nil, nil, &AlphabetError{Func: fn, K: s.k, Min: 2, Max: 2}
	}
	rule := cfg.missingRule(fn == "LearnPairwise", s.k)
	if cfg.ordinal && fn == "Learn" && s.k > 2 {
		// A missing answer has no score (WithScale).
		switch {
		case !cfg.missingSet:
			rule = ListwiseDeletion
		case rule == MissingAsState:
			return nil, nil, &OptionError{Func: fn, Option: "WithMissing", Value: rule, Reason: "on the ordinal scale a missing answer has no score to be a state: use ListwiseDeletion (its default), or WithScale(Nominal)"}
		}
	}
	rep := missingReport(s, rule)
	switch rule {
	case AvailableCase:
		switch {
		case s.k != 2:
			return nil, nil, fmt.Errorf("pairwise: %s: WithMissing(AvailableCase) takes binary data (k = 2), not k = %d: use MissingAsState or ListwiseDeletion", fn, s.k)
		case fn == "LearnPairwise":
			return nil, nil, fmt.Errorf("pairwise: %s: WithMissing(AvailableCase) runs the Ising path (Algorithm 1): use Learn or LearnIsing, or MissingAsState", fn)
		}
		return s, rep, nil
	case ListwiseDeletion:
		c, _, err := s.DropIncomplete()
		if err != nil {
			return nil, nil, fmt.Errorf("pairwise: %s: with ListwiseDeletion: %w", fn, err)
		}
		rep.Dropped = rep.Rows
		return c, rep, nil
	}
	if s.k+1 > MaxLearnAlphabet {
		return nil, nil, fmt.Errorf("pairwise: %s: k = %d states and a missing state need %d states, more than the learners' %d: use WithMissing(ListwiseDeletion)", fn, s.k, s.k+1, MaxLearnAlphabet)
	}
	return s.withMissingState(), rep, nil
}

// missingRule returns the rule of WithMissing, or when it was not given
// the default for incomplete samples with k states: AvailableCase for
// binary data, unless the learner runs Algorithm 2 (algorithm2:
// LearnPairwise), and MissingAsState for k > 2 (docs/missing has the
// measurements).
func (c *config) missingRule(algorithm2 bool, k int) MissingRule {
	switch {
	case c.missingSet:
		return c.missing
	case k == 2 && !algorithm2:
		return AvailableCase
	}
	return MissingAsState
}

// restrictStates returns the result aug of a fit on the alphabet 0..k
// (state k the missing state) restricted to the states 0..k-1: every
// estimate and coupling keeps its k×k block, centred again, and every
// field its first k entries, centred. The edges are aug's; their weights
// are those of the restricted couplings. Tuning, when set, is aug's and
// describes the test on the k+1 states.
func restrictStates(aug *Result, k int) *Result {
	n, ka := aug.n, aug.k
	kk := k * k
	res := *aug
	res.n, res.k = n, k
	res.est = make([]*estimates.Node, n)
	restrict := func(src []float64) []float64 {
		dst := make([]float64, kk)
		for a := 0; a < k; a++ {
			copy(dst[a*k:(a+1)*k], src[a*ka:a*ka+k])
		}
		estimates.CentreBlock(dst, k)
		return dst
	}
	for i, ae := range aug.est {
		if ae == nil {
			continue
		}
		// Every unlisted block is aug's fill, so restricting the fill
		// once gives each of them.
		e := estimates.New(k, restrict(ae.Fill))
		for _, j := range ae.At {
			e.Push(int(j), restrict(ae.Block(int(j))))
		}
		res.est[i] = e
	}
	m, _ := NewModel(n, k)
	m.names = aug.Model.names
	for i := 0; i < n; i++ {
		f := aug.Model.theta[i*ka : i*ka+k]
		mean := 0.0
		for _, v := range f {
			mean += v
		}
		mean /= float64(k)
		for a, v := range f {
			m.theta[i*k+a] = v - mean
		}
	}
	res.Edges = make([]Edge, 0, len(aug.Edges))
	for _, e := range aug.Edges {
		src := aug.Model.coupling(e.I, e.J)
		w := make([]float64, kk)
		for a := 0; a < k; a++ {
			copy(w[a*k:(a+1)*k], src[a*ka:a*ka+k])
		}
		estimates.CentreBlock(w, k)
		weight := estimates.MaxAbs(w)
		if !(weight > 0) {
			continue
		}
		m.setCoupling(e.I, e.J, w)
		res.Edges = append(res.Edges, Edge{I: e.I, J: e.J, Weight: weight})
	}
	res.Model = m
	return &res
}
