module github.com/mrfkit/pairwise/scripts/openblas

go 1.24.0

require (
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20190313105609-8cb42192e0e0
)

require golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 // indirect
