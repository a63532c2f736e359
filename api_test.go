package pairwise_test

import (
	"context"
	"io"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// The public contract of ../shared/API.md, checked by the compiler: every
// name with its exact signature. A change that breaks a caller breaks this
// file first.
var (
	_ func(n, k int) (*pairwise.Model, error)                         = pairwise.NewModel
	_ func(a mat.Symmetric, theta []float64) (*pairwise.Model, error) = pairwise.NewIsing

	_ func(*pairwise.Model) int                               = (*pairwise.Model).Vars
	_ func(*pairwise.Model) int                               = (*pairwise.Model).Alphabet
	_ func(m *pairwise.Model, i, j int, w mat.Matrix) error   = (*pairwise.Model).SetCoupling
	_ func(m *pairwise.Model, i, j int) *mat.Dense            = (*pairwise.Model).Coupling
	_ func(m *pairwise.Model, i int, theta []float64) error   = (*pairwise.Model).SetField
	_ func(m *pairwise.Model, i int) []float64                = (*pairwise.Model).Field
	_ func(*pairwise.Model) float64                           = (*pairwise.Model).Width
	_ func(*pairwise.Model) float64                           = (*pairwise.Model).MinEdgeWeight
	_ func(*pairwise.Model) []pairwise.Edge                   = (*pairwise.Model).Edges
	_ func(*pairwise.Model) *pairwise.Model                   = (*pairwise.Model).Centered
	_ func(m *pairwise.Model, z []int) float64                = (*pairwise.Model).LogWeight
	_ func(*pairwise.Model) (*mat.SymDense, []float64, error) = (*pairwise.Model).Ising
	_                                                         = pairwise.Edge{I: 0, J: 1, Weight: 0.5}

	_ func(k int, rows [][]int) (*pairwise.Samples, error)                    = pairwise.NewSamples
	_ func(rows [][]int) (*pairwise.Samples, error)                           = pairwise.NewSpinSamples
	_ func(k int, rows [][]int, weights []float64) (*pairwise.Samples, error) = pairwise.NewWeightedSamples
	_ func(r io.Reader) (*pairwise.Samples, error)                            = pairwise.ReadCSV
	_ func(r io.Reader) (*pairwise.Samples, error)                            = pairwise.ReadHistogramCSV
	_ func(s *pairwise.Samples, w io.Writer) error                            = (*pairwise.Samples).WriteCSV
	_ func(*pairwise.Samples) int                                             = (*pairwise.Samples).Len
	_ func(*pairwise.Samples) float64                                         = (*pairwise.Samples).TotalWeight
	_ func(s *pairwise.Samples, m int) float64                                = (*pairwise.Samples).Weight
	_ func(*pairwise.Samples) int                                             = (*pairwise.Samples).Vars
	_ func(*pairwise.Samples) int                                             = (*pairwise.Samples).Alphabet
	_ func(s *pairwise.Samples, m, i int) int                                 = (*pairwise.Samples).At

	_ pairwise.Sampler                                                                      = (*pairwise.ExactSampler)(nil)
	_ pairwise.Sampler                                                                      = (*pairwise.GibbsSampler)(nil)
	_ func(s pairwise.Sampler, src rand.Source, count int) (*pairwise.Samples, error)       = pairwise.Sampler.Sample
	_ func(m *pairwise.Model) (*pairwise.ExactSampler, error)                               = pairwise.NewExactSampler
	_ func(m *pairwise.Model, opts ...pairwise.GibbsOption) (*pairwise.GibbsSampler, error) = pairwise.NewGibbsSampler

	_ func(s *pairwise.Samples, opts ...pairwise.Option) (*pairwise.Result, error)                      = pairwise.Learn
	_ func(s *pairwise.Samples, opts ...pairwise.Option) (*pairwise.Result, error)                      = pairwise.LearnIsing
	_ func(s *pairwise.Samples, opts ...pairwise.Option) (*pairwise.Result, error)                      = pairwise.LearnPairwise
	_ func(ctx context.Context, s *pairwise.Samples, opts ...pairwise.Option) (*pairwise.Result, error) = pairwise.LearnContext
	_ func(ctx context.Context, s *pairwise.Samples, opts ...pairwise.Option) (*pairwise.Result, error) = pairwise.LearnIsingContext
	_ func(ctx context.Context, s *pairwise.Samples, opts ...pairwise.Option) (*pairwise.Result, error) = pairwise.LearnPairwiseContext

	_ func(lambda float64) pairwise.Option          = pairwise.WithWidth
	_ func(eta float64) pairwise.Option             = pairwise.WithMinEdgeWeight
	_ func(p int) pairwise.Option                   = pairwise.WithWorkers
	_ func(f func(done, total int)) pairwise.Option = pairwise.WithProgress
	_ func(s pairwise.Solver) pairwise.Option       = pairwise.WithSolver
	_                                               = pairwise.Result{Model: (*pairwise.Model)(nil), Edges: []pairwise.Edge(nil)}
	_ pairwise.Solver                               = pairwise.EntropicMirror{}
	_ pairwise.Solver                               = pairwise.GroupMirror{}
)
