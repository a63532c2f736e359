package pairwise_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mrfkit/pairwise"
)

// A program with its own names for the options, such as a command's flags,
// restates an invalid option in those names with errors.As, without
// reading the message.
func ExampleOptionError() {
	flags := map[string]string{"WithWidth": "-lambda", "WithMinEdgeWeight": "-eta"}

	s, err := pairwise.NewSpinSamples([][]int{{1, -1}, {-1, -1}, {1, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = pairwise.Learn(s, pairwise.WithWidth(-1), pairwise.WithMinEdgeWeight(0.2))
	fmt.Println(err)

	var oe *pairwise.OptionError
	if errors.As(err, &oe) {
		fmt.Printf("%s %v: %s\n", flags[oe.Option], oe.Value, oe.Reason)
	}
	// Output:
	// pairwise: WithWidth(-1): the width bound λ must be a finite positive number
	// -lambda -1: the width bound λ must be a finite positive number
}

// A caller that knows the file's name adds it to a ParseError, whose
// message then names the file, the line and the column; the fields give
// the place and the offending text to a program.
func ExampleParseError() {
	const data = "smoker,cough\n0,1\n1,yes\n"
	_, err := pairwise.ReadCSV(strings.NewReader(data))
	fmt.Println(err)

	var pe *pairwise.ParseError
	if errors.As(err, &pe) {
		pe.File = "survey.csv"
		fmt.Println(pe)
		fmt.Printf("line %d, column %d, value %q\n", pe.Line, pe.Column, pe.Value)
	}
	// Output:
	// pairwise: ReadCSV: line 3, column 2: "yes" is not an integer (a missing value is written "NA" or "")
	// survey.csv: line 3, column 2: "yes" is not an integer (a missing value is written "NA" or "")
	// line 3, column 2, value "yes"
}

// The learner a caller chose may not take the samples' alphabet; the
// AlphabetError says which sizes it takes, and ErrNoSamples marks input
// without a single sample.
func ExampleAlphabetError() {
	s, err := pairwise.NewSamples(3, [][]int{{0, 2}, {1, 0}, {2, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = pairwise.LearnIsing(s, pairwise.WithWidth(1), pairwise.WithMinEdgeWeight(0.2))
	var ae *pairwise.AlphabetError
	if errors.As(err, &ae) {
		fmt.Printf("%s takes k = %d to %d, not %d\n", ae.Func, ae.Min, ae.Max, ae.K)
	}

	_, err = pairwise.ReadCSV(strings.NewReader("a,b\n"))
	fmt.Println(errors.Is(err, pairwise.ErrNoSamples), err)
	// Output:
	// LearnIsing takes k = 2 to 2, not 3
	// true pairwise: ReadCSV: no samples in input, only a header line
}
