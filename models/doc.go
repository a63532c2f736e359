// Package models builds the models of the paper's experiments (Wu,
// Sanghavi and Dimakis, "Sparse Logistic Regression Learns All Discrete
// Pairwise Graphical Models", NeurIPS 2019, Section 6) and measures the
// incoherence condition they were chosen to break.
//
//   - NewDiamond is the Ising model of Figure 1: two hubs joined to every
//     other node, all couplings A_ij = a. Its incoherence value at a hub
//     passes 1 as n and a grow, so the condition that l1-regularised
//     logistic regression was known to need fails, and Algorithm 1 still
//     learns the graph.
//   - NewGridPotts is the k-ary grid of Figure 2, the checkerboard coupling
//     ±θ(-1)^{a+b} on every grid edge: width θ times the degree, minimum
//     edge weight θ, centred for even k.
//   - Incoherence computes the incoherence value of any Ising model of up
//     to MaxIncoherenceVars variables exactly, by enumeration;
//     DiamondIncoherence gives the diamond's in closed form at any size.
//
// The models are ordinary *pairwise.Model values: sample them with
// pairwise.NewExactSampler or pairwise.NewGibbsSampler and learn them back
// with pairwise.Learn, as the study module's 'reproduce' command does for
// the paper's figures.
package models
