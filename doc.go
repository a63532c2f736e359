// Package pairwise learns discrete pairwise graphical models (Ising models
// and k-ary Markov random fields, "Potts models") from samples: the
// dependency graph and the coupling weights. It implements Wu, Sanghavi and
// Dimakis, "Sparse Logistic Regression Learns All Discrete Pairwise
// Graphical Models" (NeurIPS 2019), which proves that constrained logistic
// regression, one regression per node, recovers every such model from a
// number of samples logarithmic in n, with no incoherence assumption.
//
// # Overview
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
// assumes (rows and columns of every W_ij sum to zero).
//
// Samples holds observations compactly (one byte a value for k ≤ 256, one
// bit for large binary files read by the CSV readers), optionally weighted
// by counts or probabilities. ReadCSV and
// ReadHistogramCSV read them; NewSamples, NewSpinSamples and
// NewWeightedSamples build them from slices.
//
// ExactSampler draws exact i.i.d. samples from models of small treewidth
// (variable elimination), GibbsSampler from any model (a Markov chain); both
// take the caller's math/rand/v2 Source so that results are reproducible.
//
// # Learning
//
// LearnIsing is Algorithm 1: for each node i, the l1-constrained logistic
// regression of z_i on [z_-i, 1] with radius 2λ, Â_ij = ŵ_j/2, and the edges
// with |Â_ij| ≥ η/2. LearnPairwise is Algorithm 2: for each node i and each
// value pair α < β, the l2,1-constrained regression on one-hot features with
// radius 2λ√k, centred and averaged over β into Ŵ_ij, and the edges with
// max |Ŵ_ij| ≥ η/2. Learn picks the path by k. The paper's guarantees need
// WithWidth(λ) with λ at least the true width and WithMinEdgeWeight(η) with
// η at most the true minimum edge weight.
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
// says when). WaldTest's fields
// turn each stage off. Result.Tuning reports what was chosen. Package
// psych returns the options of R's IsingFit rule instead (EBIC γ = 0.25,
// AND rule, every nonzero coefficient an edge, no test), for users who must
// match a published analysis (docs/psych). These rules are ours, not the
// paper's; docs/tuning in the repository measures them against the oracle
// that knows λ and η. For k > 2 the test keeps an inverse Hessian
// for each of a node's k(k-1)/2 value pairs; where that would pass 4 GB a
// worker (k = 21 with n ≥ 79), Learn returns an error asking for
// WithMinEdgeWeight instead (it matches ErrEdgeTestTooLarge).
//
// Sparsitron (Klivans and Meka 2017) is available as a baseline backend,
// WithSolver(Sparsitron{}), as in the paper's Figure 2.
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
// MaxLearnEntries for the learners' dense arrays (without η).
//
// # Files and graphs
//
// ReadCSV reads one sample a line (states 0..k-1 or spins ±1, an optional
// header of names); ReadHistogramCSV reads count,z_1,...,z_n lines;
// ReadCSVCompact streams large files and merges identical rows as it reads.
// ReadModel and (*Model).WriteModel read and write the model JSON format
// (n, k, names, nonzero couplings, fields); *Model also implements
// json.Marshaler and json.Unmarshaler. (*Result).Graph gives the learned
// graph as a gonum weighted undirected graph. The command
// github.com/mrfkit/pairwise/cmd/pairwise wraps all of this: learn, sample
// and demo. The paper's figures and the studies (reproduce, tuning, compare,
// scaling) are in the repository's study/ folder, a module of its own.
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
//   - Accelerated (the default): accelerated projected gradient with the
//     Euclidean map, Newton steps on the face of the ball and, on the
//     learners' path, the engine's table kernels, merged rows and starts.
//     Beyond the paper, which runs a fixed number of iterations T from its
//     proof, it stops when the certificate proves that the loss is within
//     WithTolerance of the optimum.
//   - EntropicMirror (Algorithm 3, the entropic map on the doubled simplex)
//     and GroupMirror (Algorithm 4, the group p-norm map): the paper's
//     mirror maps, with adaptive steps and the same certificate by default,
//     and the paper's fixed schedule as Schedule Paper.
//   - Sparsitron (Klivans and Meka 2017), the paper's baseline in Figure 2.
//   - Custom: a caller's own solve.Solver for either layout; see package
//     solve and the example.
//
// The names follow the paper: Algorithm 1 is LearnIsing, Algorithm 2
// LearnPairwise, Algorithms 3 and 4 EntropicMirror and GroupMirror; the
// stages around the fits are the width search of a Selection (EBIC,
// CrossValidation) and the edge test (WaldTest); Learn runs them, and
// Result and Tuning report what they did.
//
// # Sequence alignments
//
// Package protein (github.com/mrfkit/pairwise/protein) holds the
// workflow of sequence families: protein.ReadAlignment reads a protein or
// RNA family (FASTA, A2M/A3M, Stockholm) into an Alignment whose state 0
// is the gap, with plmc's focus mode and gap filters; protein.Reweight
// gives each sequence the weight 1/(its neighbours at ≥ 80% identity),
// plmc's weights exactly, and Neff; Alignment.Samples turns both into
// weighted Samples. From a learned model, protein.ContactScores gives the
// APC-corrected Frobenius norms that rank contacts, and
// protein.MutationEffects the log-odds of every single substitution of a
// sequence. LearnContacts goes from the weighted samples
// straight to the scores at alignment scale: Algorithm 2's value-pair
// regressions with a ridge term (WithRidge) beside the constraint, the gap
// ignored, node by node, without building a model or running the edge test
// (docs/contacts compares it with plmc).
//
// # Errors
//
// Anything a caller can get wrong is a returned error, never a panic, and
// every message starts with "pairwise: ". The kinds a program may act on
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
//     shrinks little at k ≥ 4; see the README).
//   - Data-driven λ and η (Selection, the Wald edge test), described above.
//   - Speed and memory: with the default backend the regressions run on
//     table kernels over byte codes of the samples, with identical rows
//     merged, a majorise–minimise start and Newton steps, to the same
//     certificate, on every path (λ and η given or chosen). WithWorkers
//     goroutines (all cores by default) solve nodes in parallel, or, from
//     2^18 rows, split the rows of each regression so that one set of row
//     buffers is held; results do not depend on the number of workers. BENCHMARKS.md in the repository
//     measures both against glmnet and scikit-learn.
//
// # Notebooks
//
// Every call a notebook needs (constructors, samplers, Learn*, options,
// backends, Result fields) is an ordinary non-generic function or type, so
// gophernotes can import the package. The generic Solver interface for
// callers who bring their own solver lives in the subpackage solve.
package pairwise
