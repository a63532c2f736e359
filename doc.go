// Package pairwise learns discrete pairwise graphical models (Ising models
// and k-ary Markov random fields, "Potts models") from samples: the
// dependency graph and the coupling weights. It implements Wu, Sanghavi and
// Dimakis, "Sparse Logistic Regression Learns All Discrete Pairwise
// Graphical Models" (NeurIPS 2019), which proves that constrained logistic
// regression, one regression per node, recovers every such model from a
// number of samples logarithmic in n, with no incoherence assumption.
//
// This package is the paper's face: the model, the samples, the samplers,
// the paper's four algorithms and the data-driven choice of what the paper
// takes as known. The workflows of particular users are packages above it,
// which use only what it exports:
//
//   - github.com/mrfkit/pairwise/psych: networks of questionnaire items
//     (R's IsingFit rule, centrality, the bootstrap and case dropping, the
//     comparison of two groups);
//   - github.com/mrfkit/pairwise/protein: sequence families (alignments,
//     sequence weights, contact scores, plmc's couplings file, mutation
//     effects);
//   - github.com/mrfkit/pairwise/models: the models of the paper's
//     experiments (the grid Potts model, the diamond graph) and the
//     incoherence value;
//   - github.com/mrfkit/pairwise/solve: the regression problem and the
//     generic Solver interface, for callers who bring their own solver.
//
// # The model and the samples
//
// A Model is the distribution of Definition 2,
//
//	P(Z = z) ∝ exp(Σ_{i<j} W_ij(z_i, z_j) + Σ_i θ_i(z_i)),   z ∈ {0..k-1}^n,
//
// with couplings W_ij (k×k, W_ji = W_ij^T) and fields θ_i. Its width
// λ = max_{i,a} Σ_j max_b |W_ij(a,b)| + |θ_i(a)| bounds how strongly a node is
// pulled by the rest, and its minimum edge weight η is the weakest coupling
// that must be seen. NewIsing builds the k = 2 case from a symmetric A and θ
// (Definition 1); Centered gives the canonical parametrisation the paper
// assumes (rows and columns of every W_ij sum to zero); Conditional is
// Facts 1 and 2.
//
// Samples holds observations compactly (one byte a value for k ≤ 256, one
// bit for large binary files read by the CSV readers), optionally weighted
// by counts or probabilities, with missing values if any (Missing,
// WithMissing). ReadCSV and ReadHistogramCSV read them; NewSamples,
// NewSpinSamples and NewWeightedSamples build them from slices, and
// NewSamplesBytes from row-major state bytes.
//
// ExactSampler draws exact i.i.d. samples from models of small treewidth
// (variable elimination), GibbsSampler from any model (a Markov chain); both
// take the caller's math/rand/v2 Source so that results are reproducible.
//
// # The paper's algorithms
//
// The names follow the paper. LearnIsing is Algorithm 1: for each node i,
// the l1-constrained logistic regression of z_i on [z_-i, 1] with radius
// 2λ, Â_ij = ŵ_j/2, and the edges with |Â_ij| ≥ η/2. LearnPairwise is
// Algorithm 2: for each node i and each value pair α < β, the
// l2,1-constrained regression on one-hot features with radius 2λ√k, centred
// and averaged over β into Ŵ_ij (equation 9), and the edges with
// max |Ŵ_ij| ≥ η/2. Learn picks the path by k. EntropicMirror and
// GroupMirror are Algorithms 3 and 4, the mirror descents that solve those
// regressions. The paper's guarantees need WithWidth(λ) with λ at least the
// true width and WithMinEdgeWeight(η) with η at most the true minimum edge
// weight; with both given, the learners are the paper's algorithms.
//
// Every learner has a Context form (LearnContext, ...) that stops promptly
// on cancellation; it reports progress (WithProgress) and runs nodes in
// parallel (WithWorkers, all cores by default), with results that do not
// depend on the number of workers. Result holds the learned model and graph
// and, per node, how its regressions ended (Result.Nodes).
//
// # Learning without λ and η
//
// Users rarely know λ and η. Without WithWidth, each node's width λ_i is
// chosen from the data by a Selection: EBIC over a path of radii with warm
// starts (the default, EBIC{Gamma: 0.25}, as IsingFit does over a glmnet
// path) or K-fold cross-validated conditional log-likelihood
// (CrossValidation). Without WithMinEdgeWeight, the graph keeps the pairs
// that a Wald test on debiased estimates finds nonzero at a false-edge rate
// (WaldTest, chosen with WithEdgeTest: Bonferroni over the pairs at the
// false-edge rate α). On Ising data the pairs whose statistic passes a loose
// screen are tested again after each node is refit, without constraint, on
// them alone, and the statistics are cut where a two-group mixture fitted
// to them (half-normal nulls, lognormal edges; EdgeMixture) says an edge is
// more likely than not, once five pairs reach z*(α) to place the fit. On
// k-ary data, and on sparse Ising data with fewer such pairs, the test keeps
// the pairs that stand above the widest gap in the statistics just below
// z*(α). On Ising data with too few observations for the test to find most
// of the pairs that both nodes' EBIC fits keep nonzero, those pairs join
// the test's graph when a global test of independence rejects at α/2 and
// the test found nothing or BIC prefers the union (the EBIC graph; WaldTest
// says when). WaldTest's fields turn each stage off. Result.Tuning reports
// what was chosen. These rules are ours, not the paper's; docs/tuning in
// the repository measures them against the oracle that knows λ and η, and
// package psych gives the options of R's IsingFit rule instead, for users
// who must match a published analysis. For k > 2 the test keeps an inverse
// Hessian for each of a node's k(k-1)/2 value pairs; where that would pass
// 4 GB a worker (k = 21 with n ≥ 79), or its dense arrays would pass
// MaxLearnEntries, Learn returns an error asking for WithMinEdgeWeight
// instead, which lifts the limit (it matches ErrEdgeTestTooLarge). On
// complete binary samples (Learn, LearnIsing, and their shards with the
// default backend) the test keeps only the pairs that can matter and has
// no such limit.
//
// # Solvers and the engine
//
// Every regression of the learners — a node of Algorithm 1, a value pair of
// Algorithm 2, each width a Selection tries, each fold, the edge test's
// refit — is solved by one driver, the per-node engine of the internal
// package internal/engine, and reported in Result.Nodes (iterations, final
// loss, the duality-gap certificate and a solve.Status). The backend is
// chosen with WithSolver:
//
//   - Accelerated (the default, for every k): accelerated projected
//     gradient with the Euclidean map, Newton steps on the face of the ball
//     and, on the learners' path, the engine's table kernels, merged rows
//     and starts. Beyond the paper, which runs a fixed number of iterations
//     T from its proof, it stops when the certificate proves that the loss
//     is within WithTolerance of the optimum.
//   - EntropicMirror (Algorithm 3, the entropic map on the doubled simplex;
//     k = 2 only, an OptionError on the pairwise path) and GroupMirror
//     (Algorithm 4, the group p-norm map): the paper's mirror maps, with
//     adaptive steps and the same certificate by default, and the paper's
//     fixed schedule as Schedule Paper.
//   - Sparsitron (Klivans and Meka 2017), the paper's baseline in Figure 2.
//   - Custom: a caller's own solve.Solver for either layout; see package
//     solve and the example.
//
// A fit whose regressions stopped before their certificate proved the
// tolerance (WithMaxIterations, the Paper schedule) says so in
// Result.Warnings, a NotConverged warning naming the nodes.
//
// # Degenerate data and sizes
//
// Degenerate data are legal data, on every path (λ and η given or not, every
// Selection, symmetrisation and backend). A variable that takes one value in
// every row of positive weight (a question everyone answered alike, a
// conserved column, every column when all rows are identical) has no edge
// and zero couplings, and its field is at the boundary of the constraint;
// NodeFit.Constant says so (see there). One variable gives an empty graph.
// A value that occurs once, value pairs without rows and rows of weight
// zero are handled as LearnPairwise documents. An edge-test statistic whose
// standard error is zero, which only a handful of rows can give, counts as
// no evidence (Tuning.Score). What a learner cannot do is an error, never a
// panic: CrossValidation with fewer observations than folds, EntropicMirror
// on k > 2, Sparsitron on weights other than 0 and 1. Sizes that would
// exhaust memory are errors before anything is allocated: MaxModelEntries
// for the model constructors, MaxSampleValues for one call of a sampler,
// MaxLearnEntries for the learners' dense arrays (without η, but for the
// Ising path on complete samples, in one process or in shards).
//
// # Files and graphs
//
// ReadCSV reads one sample a line (states 0..k-1 or spins ±1, an optional
// header of names); ReadHistogramCSV reads count,z_1,...,z_n lines;
// ReadCSVCompact streams large files and merges identical rows as it reads.
// ReadModel and (*Model).WriteModel read and write the model JSON format
// (n, k, names, nonzero couplings, fields); *Model also implements
// json.Marshaler and json.Unmarshaler. A Result writes its edges as CSV
// (WriteEdgesCSV) or JSON (WriteEdgesJSON) and its graph for Graphviz
// (WriteDOT); (*Result).Graph gives the learned graph as a gonum weighted
// undirected graph, and SignedEdges one signed number a coupling block.
// The command github.com/mrfkit/pairwise/cmd/pairwise, a module of its own,
// wraps all of this and the packages above (learn, sample, merge, contacts,
// network, bootstrap, compare-groups, demo). The paper's figures and the
// studies (reproduce, tuning, compare, scaling) are in the repository's
// study/ folder, a module of its own.
//
// # Beyond one process, and related fits
//
// Every node's regressions read the samples and nothing else, so
// LearnShard (or LearnNodes) learns a share of the nodes into a Partial,
// which WritePartial and ReadPartial carry between machines, and
// MergePartials assembles the parts into the Result one process would have
// given, bit for bit. On complete binary samples without η the shards run
// the sparse edge test's first pass for their nodes and the merge, given
// the samples, its global stage, so neither holds an n × n array. WithKeepSolutions keeps every regression's solution
// in a Result and WithWarmStart starts a fit on related data (a bootstrap's
// resample) from them.
//
// LearnContacts learns contact scores at the scale of a sequence
// alignment, node by node, without building a model or running the edge
// test: by default one softmax (multinomial) regression a node over its
// states with ridges on couplings and fields (WithSoftmax, asymmetric
// pseudo-likelihood, beyond the paper), or Algorithm 2's value-pair
// regressions with a ridge term (WithRidge) beside the constraint
// (WithSoftmax(false)), the gap ignored; package protein reads the
// alignments, weighs the sequences and ranks the scores.
//
// # Errors
//
// Anything a caller can get wrong is a returned error, never a panic, and
// every message starts with "pairwise: " and names the function called. A
// nil context and a nil io.Reader are errors; Model.LogWeight returns NaN
// for a z that is no state of the model. The kinds a program may act on
// are typed: an invalid option is an *OptionError (the option's name, the
// value, the reason); a problem at a place in a CSV or model file is a
// *ParseError (line, column, the offending text; set its File to have the
// message name the file); an alphabet a function does not take is an
// *AlphabetError; and errors.Is matches ErrNoSamples for input without a
// sample and ErrEdgeTestTooLarge for an edge test beyond its memory. Match
// them with errors.As and errors.Is, not by their text.
//
// # Where this goes beyond the paper
//
//   - The stopping rule (a duality-gap certificate) and the adaptive step
//     schedule; the paper's T = O(λ² e^{12λ} ln n / ε⁴) is a proof device.
//   - Weighted samples, for histograms and exact-probability tests.
//   - A ridge term beside the constraint (WithRidge), the default of
//     LearnContacts only: it keeps the couplings of rare states small.
//   - The fields θ̂_i are estimated as well as the couplings.
//   - Result.Model is symmetrised, (Ŵ_ij + Ŵ_ji^T)/2; the paper keeps node
//     i's estimate for i < j. The raw per-node estimates stay available
//     through Result.Estimate.
//   - Value pairs without samples, or with only one of the two values, are
//     handled as LearnPairwise documents.
//   - WithRadius sets the constraint radius directly (the paper's 2λ√k
//     shrinks little at k ≥ 4; see docs/reproduce in the repository); then
//     Result.Width is NaN.
//   - Data-driven λ and η (Selection, the Wald edge test), described above.
//   - Speed and memory: with the default backend the regressions run on
//     table kernels over byte codes of the samples, with identical rows
//     merged, a majorise–minimise start and Newton steps, to the same
//     certificate, on every path (λ and η given or chosen). WithWorkers
//     goroutines (all cores by default) solve nodes in parallel, or, from
//     2^18 rows, split the rows of each regression so that one set of row
//     buffers is held; results do not depend on the number of workers.
//     BENCHMARKS.md in the repository measures both against glmnet and
//     scikit-learn.
//
// # Notebooks
//
// Every call a notebook needs (constructors, samplers, Learn*, options,
// backends, Result fields) is an ordinary non-generic function or type, so
// gophernotes can import the package. The generic Solver interface for
// callers who bring their own solver lives in the subpackage solve.
package pairwise

// The source files follow the paper, for a reader with it open (go doc
// shows exported names, not files, so this map is not part of the package
// documentation):
//
//   - learn.go: the entry points, Learn, LearnIsing, LearnPairwise and their
//     Context forms, with what each option's absence chooses.
//   - fit.go: the one path every entry point takes (learnWith): missing
//     values prepared by their rule, then Algorithm 1 or 2, then the stages
//     that look at all nodes.
//   - ising.go: Algorithm 1, node by node (fitIsing): radius 2λ,
//     Â_ij = ŵ_j/2, θ̂_i = ŵ_bias/2 (Fact 1).
//   - pairwise.go: Algorithm 2, node by node (fitPairwise): the value-pair
//     regressions, radius 2λ√k, the centring and the average of equation 9.
//   - mirror.go: the Solver interface and the schedules; mirror_entropic.go
//     and mirror_group.go: Algorithms 3 and 4 with their mirror maps;
//     mirror_adaptive.go: their adaptive steps and certificate;
//     accelerated.go: the default backend and Custom; sparsitron.go: the
//     baseline.
//   - run.go: the per-node run (learnRun): the options checked and the
//     sizes refused up front (prepare, checkLearnSize, checkDenseTest), the nodes spread
//     over the workers, a node's regressions through the engine (fitNode,
//     with the width path when λ is not given), and the assembly
//     (symmetrisation, the threshold η/2 or the edge test, the warnings).
//   - selection.go and edgetest.go: the data-driven choice, the public face
//     (Selection, EBIC, CrossValidation, WaldTest, EdgeMixture, Tuning) and
//     the run of the Wald test over the pairs; the stages themselves (the
//     width path, the Wald statistics, the refit, the mixture, the EBIC
//     graph, the small-sample rules) are in internal/selection.
//   - internal/engine: the driver every regression goes through;
//     internal/estimates: the per-node estimates before symmetrisation.
//   - model.go, modeljson.go, samples.go (with compact.go, missing.go,
//     states.go, names.go), csv.go and csvparse.go, sampler.go: the model,
//     the samples, their files and the samplers; result.go,
//     result_write.go, warnings.go, signed.go, graph.go: the result;
//     shard.go and shard_json.go: the partial results; contacts_learn.go:
//     LearnContacts; options.go, limits.go, errors.go: options, the Max*
//     limits, the typed errors.
