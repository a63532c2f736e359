// Package psych is the workflow of psychological networks on top of the
// learners of package pairwise: a network of items (symptoms, attitudes,
// personality items) estimated from people's answers, its centrality
// indices, how far the bootstrap says it can be trusted, and whether two
// groups of people have the same network. It follows R's IsingFit, qgraph,
// bootnet and NetworkComparisonTest step by step, and each function's doc
// says where it differs from them. The repository's docs/psych page
// measures the estimation modes at sample sizes from 100 to 2500 people.
//
// # Learn a network from answers
//
// Answers are pairwise.Samples: one person a row, each item's answer a
// state 0..k-1 (binary items k = 2, Likert items k > 2), read with
// pairwise.ReadCSV or built with pairwise.NewSamples. pairwise.Learn
// estimates the network with nothing to tune: each item's width λ_i is
// chosen by EBIC, and a pair is an edge when a Wald test of its debiased
// estimate rejects zero at a family-wise false-edge rate (pairwise.WaldTest).
// To match a published analysis, IsingFit returns the options of R's
// IsingFit rule instead:
//
//	res, err := pairwise.Learn(s)                      // the default: the edge test
//	res, err := pairwise.Learn(s, psych.IsingFit()...) // IsingFit's rule
//
// The network's weights are signed (pairwise.Result.SignedEdges): the
// Ising coupling Â_ij for binary items, a quarter of IsingFit's weight on
// 0/1 answers, and for k > 2 the linear-by-linear summary of each k×k
// block (pairwise.SignedWeight), positive when higher answers on one item
// go with higher answers on the other.
//
// # Centrality
//
// CentralityOf computes qgraph's indices of the learned network: strength,
// expected influence, closeness and betweenness, with edge lengths 1/|w|.
// NewCentrality computes them for any list of edges.
//
// # Stability: the bootstrap and case dropping
//
// Bootstrap refits the network on resamples of the people, as bootnet
// does: with replacement for percentile intervals of every edge weight and
// centrality index (BootstrapResult.Edges and Nodes), and on subsets that
// drop a share of the people for the correlation-stability coefficient CS
// of each statistic (BootstrapResult.CaseDrop, CorrelationStability).
// Epskamp, Borsboom and Fried advise CS ≥ 0.25 at the least, and
// preferably ≥ 0.5, before interpreting an order of centrality.
// BootstrapOptions.FixTuning keeps the widths of the full data for every
// resample, which is faster but leaves their variability out.
//
// # Comparing two groups
//
// CompareGroups is NetworkComparisonTest's permutation test: it learns each
// group's network, then relabels the people at random to test the largest
// edge difference, the difference of global strength and every edge (with
// Holm's correction by default, CompareOptions.Correction).
//
// # Randomness and errors
//
// Bootstrap and CompareGroups take a math/rand/v2 Source: the same source
// state gives the same result on any number of workers. They take
// cancellation through a context, and return errors, never panic, for
// invalid input: nil or incomplete samples (drop the rows with missing
// values first), weights that are not whole numbers of people, and invalid
// options. Errors of this package begin "psych: "; an error of the learner
// on a resample is passed on as the learner gave it ("pairwise: ").
package psych
