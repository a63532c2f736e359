package pairwise

// The limits: every constructor, reader and learner refuses, with an error
// and before allocating, an input that would pass one of them, rather than
// fail with an out-of-memory crash or overflow an index. They sit together
// so that a caller with a large problem finds them at once.

// MaxAlphabet is the largest alphabet size k that Model and Samples accept.
// Samples with k <= 256 store one byte a value; larger alphabets use two.
const MaxAlphabet = 1 << 16

// MaxModelEntries is the largest number of float64 entries that the model
// constructors (NewModel, NewIsing, ReadModel, and those of package models)
// build: the n·k fields plus 2·k² for every coupled pair (a Model stores
// W_ij and W_ji). At 8 bytes an entry that is 2 GiB. Beyond it they return
// an error before allocating, rather than fail with an out-of-memory crash:
// NewModel(1<<40, 2) is an error. SetCoupling does not check it (the
// caller's matrix is already in memory).
const MaxModelEntries = 1 << 28

// MaxSampleValues is the largest number of values, count·n, that one call of
// a sampler's Sample method returns: 4 GiB at one byte a value (k ≤ 256).
// A larger count is an error before anything is allocated; draw the samples
// in batches instead.
const MaxSampleValues = 1 << 32

// MaxLearnAlphabet is the largest alphabet size k the learners take
// (Learn, LearnPairwise), and the largest that the CSV readers read unless
// the alphabet is stated (CSVOptions.Alphabet): a value above 255 in a file
// is an error at its line and column rather than a fit that fails later.
// Samples and Model themselves hold up to MaxAlphabet states.
const MaxLearnAlphabet = 256

// MaxLearnEntries is the largest number n·n·k² of float64 entries that the
// learners' dense arrays may take, 8 GiB at the limit (n ≤ 16384 for k = 2,
// 1560 for k = 21, 128 for k = 256): without η (WithMinEdgeWeight) the
// dense edge test keeps debiased estimates and standard errors for every
// pair, and the learners that run it return an error for larger samples
// before fitting anything, rather than fail with an out-of-memory crash
// after hours of work: LearnPairwise, the k-ary and ordinal paths of
// Learn (and their shards), binary samples with missing values, and a
// shard of binary samples fitted with a backend other than the default.
// Learn and LearnIsing on complete binary samples run an edge test whose
// memory follows the graph (O(n·d) on top of the samples) and are not
// bounded by it, in one process or in shards (LearnShard, whose parts
// carry the test's first pass, and MergePartialsContext, which runs the
// rest on the samples). With η given the estimates are
// sparse (the blocks each node's fit lists), and n is bounded only as a
// Model is (MaxModelEntries) and by the samples' size: giving η lifts this
// limit everywhere. The error matches ErrEdgeTestTooLarge and says why the
// dense test runs.
const MaxLearnEntries = 1 << 30

// Limits of the exact sampler. A float64 entry takes 8 bytes, so the largest
// table takes at most 128 MiB and all tables together at most 512 MiB.
const (
	// MaxExactTable is the largest conditional table, in entries, that
	// NewExactSampler builds: eliminating a variable with a separator of s
	// variables needs a table of k^(s+1) entries.
	MaxExactTable = 1 << 24
	// MaxExactTotal bounds the entries of all conditional tables of one
	// ExactSampler together; there is one table per variable.
	MaxExactTotal = 1 << 26
)
