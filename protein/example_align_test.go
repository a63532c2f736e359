package protein_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/protein"
)

// Read a small A3M alignment with a focus sequence: lowercase letters are
// insert states, removed; the columns where the focus has a gap are
// dropped; the rest are numbered by the focus residues, from the 5 of its
// name. X is not an amino acid: it is read as a gap and reported.
func ExampleReadAlignment() {
	const a3m = `>QUERY/5-13 the focus
MKV-LATGD
>hit1
MKVALsATGD
>hit2
MRIAVATGN
>hit3
-KV-LXTGD
`
	a, err := protein.ReadAlignment(strings.NewReader(a3m), protein.AlignFocus("QUERY"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Len(), "sequences,", a.Vars(), "columns")
	fmt.Println(a.Columns())
	fmt.Println(a.VarNames())
	for s := 0; s < a.Len(); s++ {
		fmt.Printf("%-10s %s\n", strings.Fields(a.Name(s))[0], a.Sequence(s))
	}
	fmt.Println(a.Report())

	// Errors name the line and the sequence.
	_, err = protein.ReadAlignment(strings.NewReader(">a\nMKV\n>b\nMK\n"))
	fmt.Println(err)
	// Output:
	// 4 sequences, 8 columns
	// [5 6 7 8 9 10 11 12]
	// [M5 K6 V7 L8 A9 T10 G11 D12]
	// QUERY/5-13 MKVLATGD
	// hit1       MKVLATGD
	// hit2       MRIVATGN
	// hit3       -KVL-TGD
	// A2M/A3M: 4 sequences, 9 columns read; 1 insert letters removed; unknown letters X×1 in 1 sequences; focus QUERY/5-13 the focus (line 1): 1 columns dropped
	// protein: ReadAlignment: line 3: sequence "b": ragged alignment: 2 letters, want 3 as sequence "a" (line 1)
}

// Weight sequences by the inverse size of their neighbourhood at 80%
// identity: the three close relatives share one unit of weight, the
// distant sequence keeps its own.
func ExampleReweight() {
	const fasta = `>s1
MKVLATGDEH
>s2
MKVLATGDEY
>s3
MKVLSTGDEH
>s4
MRIAVSGNKW
`
	a, err := protein.ReadAlignment(strings.NewReader(fasta))
	if err != nil {
		log.Fatal(err)
	}
	w, err := protein.Reweight(a, protein.ReweightIdentity(0.8))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("neighbours:", w.Neighbors, "need", w.MinIdentical, "identical columns")
	fmt.Printf("weights: %.3f\nNeff: %.2f\n", w.Weights, w.Neff)

	// The weights go with the sequences into weighted samples.
	s, err := a.Samples(w.Weights)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d rows of %d variables, total weight %.2f\n", s.Len(), s.Vars(), s.TotalWeight())
	// Output:
	// neighbours: [3 3 3 1] need 8 identical columns
	// weights: [0.333 0.333 0.333 1.000]
	// Neff: 2.00
	// 4 rows of 10 variables, total weight 2.00
}

// Score the pairs of a small model as contacts: the Frobenius norm of each
// coupling block in the zero-sum gauge, without the gap state, and the
// average product correction; then rank them and measure the precision of
// the top pairs against known contacts.
func ExampleContactScores() {
	m, err := pairwise.NewModel(5, 3)
	if err != nil {
		log.Fatal(err)
	}
	couple := func(i, j int, c float64) {
		w := mat.NewDense(3, 3, []float64{
			0, 0, 0,
			0, c, -c,
			0, -c, c,
		})
		if err := m.SetCoupling(i, j, w); err != nil {
			log.Fatal(err)
		}
	}
	// Each block is 2c on states 1, 2 and zero on the gap: already centred,
	// of norm 2c without the gap. APC then subtracts S_i· S_j· / S_··,
	// e.g. 3 - 0.9·0.75/0.56 = 1.795 for the pair 0-4.
	couple(0, 4, 1.5)
	couple(1, 3, 1.0)
	couple(0, 2, 0.3)
	s, err := protein.ContactScores(m, protein.ContactIgnoreGap(true))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.3f\n", mat.Formatted(s, mat.Squeeze()))

	ranked := protein.RankContacts(s, 2) // pairs at least 2 apart
	for _, c := range ranked[:3] {
		fmt.Printf("%d-%d %.3f\n", c.I, c.J, c.Score)
	}
	truth := map[[2]int]bool{{0, 4}: true, {1, 3}: true}
	isContact := func(i, j int) bool { return truth[[2]int{i, j}] }
	fmt.Println("top-2 precision:", protein.ContactPrecision(ranked, 2, isContact))
	// Output:
	// ⎡ 0.000  -0.804   0.359  -0.804   1.795⎤
	// ⎢-0.804   0.000  -0.134   1.554  -0.670⎥
	// ⎢ 0.359  -0.134   0.000  -0.134  -0.201⎥
	// ⎢-0.804   1.554  -0.134   0.000  -0.670⎥
	// ⎣ 1.795  -0.670  -0.201  -0.670   0.000⎦
	// 0-4 1.795
	// 1-3 1.554
	// 0-2 0.359
	// top-2 precision: 1
}

// The effect of every single substitution of a sequence under a model: the
// change in log-weight, the log-odds of the mutant against the original.
func ExampleMutationEffects() {
	m, err := pairwise.NewModel(2, 3)
	if err != nil {
		log.Fatal(err)
	}
	// State 1 at variable 0 likes state 2 at variable 1.
	if err := m.SetCoupling(0, 1, mat.NewDense(3, 3, []float64{0, 0, 0, 0, 0, 2, 0, 0, 0})); err != nil {
		log.Fatal(err)
	}
	if err := m.SetField(0, []float64{0, 0.5, 0}); err != nil {
		log.Fatal(err)
	}
	e, err := protein.MutationEffects(m, []int{1, 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.1f\n", mat.Formatted(e))
	// Output:
	// ⎡-2.5   0.0  -2.5⎤
	// ⎣-2.0  -2.0   0.0⎦
}

// Write scores in plmc's couplings-file layout, numbered by the focus
// sequence's residues (here from the 5 of its name) with its letters; a
// NaN score is written 0.
func ExampleWritePlmcCouplings() {
	const fasta = ">QUERY/5-8\nMKVL\n>hit\nMRVL\n"
	a, err := protein.ReadAlignment(strings.NewReader(fasta), protein.AlignFocus("QUERY"))
	if err != nil {
		log.Fatal(err)
	}
	scores := mat.NewSymDense(4, []float64{
		0, 0.5, 0.25, 0,
		0.5, 0, math.NaN(), 0.125,
		0.25, math.NaN(), 0, 1,
		0, 0.125, 1, 0,
	})
	if err := protein.WritePlmcCouplings(os.Stdout, a, scores); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 5 M 6 K 0 0.500000
	// 5 M 7 V 0 0.250000
	// 5 M 8 L 0 0.000000
	// 6 K 7 V 0 0.000000
	// 6 K 8 L 0 0.125000
	// 7 V 8 L 0 1.000000
}
