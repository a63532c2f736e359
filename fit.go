package pairwise

import (
	"context"
	"fmt"
	"slices"
)

// learnWith is the one path of the learners, called as fn ("Learn",
// "LearnIsing" or "LearnPairwise", the call its errors name). Samples with
// missing values are first prepared by their MissingRule (prepareMissing:
// the incomplete rows dropped, the missing value made a state of its own,
// or kept for the available cases); then Algorithm 1 fits binary samples
// under Learn and LearnIsing and Algorithm 2 every other, the stages after
// the fits assemble the result, and a missing state is restricted away.
// On the ordinal scale (WithScale, chosen by resolveScale), Learn fits the
// ordinal model to k > 2 (ordinal.go); on the nominal scale its
// tuning-free default fits the node-wise multinomial model where
// multinomialDefault allows (multinomial.go), Algorithm 2 elsewhere.
func learnWith(ctx context.Context, fn string, s *Samples, opts []Option) (*Result, error) {
	if ctx == nil {
		return nil, nilContext(fn + "Context")
	}
	if s == nil {
		return nil, fmt.Errorf("pairwise: %s: nil samples", fn)
	}
	k := s.k // the alphabet of the result
	scale, check := Nominal, (*scaleCheck)(nil)
	multinomial := false
	if fn == "Learn" && s.k > 2 {
		if scale, check = resolveScale(s, opts, true); scale == Ordinal {
			opts = append(slices.Clip(opts), ordinalChosen())
			if check != nil && len(check.found) > 0 {
				opts = append(opts, WithNominalVariables(unionVars(opts, check.found)...))
			}
		} else if cfg := applied(opts); len(cfg.errs) == 0 && multinomialDefault(s, &cfg) {
			// The nominal scale's tuning-free default: the node-wise
			// multinomial model (multinomial.go).
			opts, multinomial = append(slices.Clip(opts), multinomialChosen()), true
		}
	}
	var rep *MissingReport
	if s.incomplete {
		var err error
		if s, rep, err = prepareMissing(fn, s, opts); err != nil {
			return nil, err
		}
	}
	var (
		f   *fitted
		err error
	)
	switch {
	case fn == "LearnIsing" && s.k == k || fn == "Learn" && s.k == 2:
		f, err = fitIsing(ctx, fn, s, opts, nil) // ising.go
	case scale == Ordinal || multinomial:
		f, err = fitOrdinal(ctx, fn, s, opts, nil) // ordinal.go, multinomial.go
	default:
		f, err = fitPairwise(ctx, fn, s, opts, nil) // pairwise.go
	}
	if err != nil {
		return nil, err
	}
	res, err := f.r.assemble(ctx, f.k, f.est, f.fields, f.nodes, f.radius)
	if err != nil {
		return nil, err
	}
	if s.k != k {
		res = restrictStates(res, k)
	}
	if rep != nil {
		res.Missing = rep
	}
	res.Scale, res.scaleCheck = scale, check
	if f.r.mixed != nil && !multinomial {
		for j, nom := range f.r.mixed.Nominal {
			if nom {
				res.Nominal = append(res.Nominal, j)
			}
		}
	}
	return res, nil
}

// applied returns the config of opts over the defaults (nil options
// skipped; prepare reports them).
func applied(opts []Option) config {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	return cfg
}

// unionVars returns the variables declared in opts (WithNominalVariables)
// and found, in increasing order.
func unionVars(opts []Option, found []int) []int {
	cfg := applied(opts)
	vars := append(slices.Clone(cfg.nominalVars), found...)
	slices.Sort(vars)
	return slices.Compact(vars)
}
