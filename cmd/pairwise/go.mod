module github.com/mrfkit/pairwise/cmd/pairwise

go 1.24.0

require (
	github.com/mrfkit/pairwise v0.0.0
	gonum.org/v1/gonum v0.17.0
)

replace github.com/mrfkit/pairwise => ../..
