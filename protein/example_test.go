package protein_test

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/protein"
)

// The whole workflow on a small made-up family of 8 columns: read the
// alignment with its focus sequence, reweight at 80% identity, learn the
// coupling scores, rank the pairs with the APC, measure the precision
// against the contacts of a structure, write plmc's couplings file, and
// score the single mutants of the focus sequence.
//
// The family: every column holds one of a few amino acids; in 9 of 10
// sequences columns 2 and 6 form a salt bridge (K with E, E with K, R with
// D, D with R) and columns 3 and 8 a hydrophobic pair (L with V, V with L,
// I with F, F with I); every fifth sequence is a copy of the one before
// with one gap, which the reweighting counts with it.
func Example() {
	r := rand.New(rand.NewPCG(3, 4))
	choices := []string{"MA", "KRED", "LVIF", "ST", "GA", "KRED", "PS", "LVIF"}
	bridge := map[byte]byte{'K': 'E', 'E': 'K', 'R': 'D', 'D': 'R', 'L': 'V', 'V': 'L', 'I': 'F', 'F': 'I'}
	var fasta strings.Builder
	var rows [][]byte
	for s := 0; s < 300; s++ {
		row := make([]byte, len(choices))
		if s%5 == 4 { // a near copy of the sequence before
			copy(row, rows[s-1])
			row[r.IntN(len(row))] = '-'
		} else {
			for i, c := range choices {
				row[i] = c[r.IntN(len(c))]
			}
			for _, p := range [][2]int{{1, 5}, {2, 7}} {
				if r.Float64() < 0.9 {
					row[p[1]] = bridge[row[p[0]]]
				}
			}
		}
		rows = append(rows, row)
		name := fmt.Sprintf("seq%d", s)
		if s == 0 {
			name = "QUERY/101-108"
		}
		fmt.Fprintf(&fasta, ">%s\n%s\n", name, row)
	}

	// 1. Read: the focus numbers the columns by its residues, from 101.
	a, err := protein.ReadAlignment(strings.NewReader(fasta.String()), protein.AlignFocus("QUERY"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Report())

	// 2. Reweight at DefaultIdentity, 80%: the near copies share weight.
	w, err := protein.Reweight(a)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Neff %.1f of %d sequences\n", w.Neff, a.Len())
	s, err := a.Samples(w.Weights)
	if err != nil {
		log.Fatal(err)
	}

	// 3. Learn the scores: LearnContacts applies the APC (cm.Raw has the
	// scores before it).
	cm, err := pairwise.LearnContacts(s)
	if err != nil {
		log.Fatal(err)
	}

	// 4. Rank the pairs at least 3 columns apart, and count the top 2
	// against the structure's contacts (0-based columns).
	ranked := protein.RankContacts(cm.Scores, 3)
	names := a.VarNames()
	for _, c := range ranked[:3] {
		fmt.Printf("%s %s %.2f\n", names[c.I], names[c.J], c.Score)
	}
	structure := map[[2]int]bool{{1, 5}: true, {2, 7}: true}
	fmt.Println("top-2 precision:", protein.ContactPrecision(ranked, 2, func(i, j int) bool { return structure[[2]int{i, j}] }))

	// 5. plmc's couplings file, one line a pair in column order.
	var plmc bytes.Buffer
	if err := protein.WritePlmcCouplings(&plmc, a, cm.Scores); err != nil {
		log.Fatal(err)
	}
	lines := strings.SplitAfter(plmc.String(), "\n")
	fmt.Print(lines[0], lines[1], "... ", len(lines)-1, " lines\n")

	// 6. Mutation effects need a model: LearnPairwise with a ridge, a
	// width and no edge test, as for contacts. The model's own scores
	// (ContactScores, with the APC) rank the same pairs first.
	res, err := pairwise.LearnPairwise(s, pairwise.WithRidge(4), pairwise.WithWidth(pairwise.DefaultContactWidth),
		pairwise.WithMinEdgeWeight(math.SmallestNonzeroFloat64), pairwise.WithTolerance(pairwise.DefaultContactTolerance))
	if err != nil {
		log.Fatal(err)
	}
	sc, err := protein.ContactScores(res.Model, protein.ContactIgnoreGap(true))
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range protein.RankContacts(sc, 3)[:2] {
		fmt.Printf("model: %s %s %.2f\n", names[c.I], names[c.J], c.Score)
	}
	e, err := protein.MutationEffects(res.Model, a.Row(nil, a.Focus()))
	if err != nil {
		log.Fatal(err)
	}
	// The log-odds of each substitution at column 102 against QUERY's D,
	// whose partner at 106 is R.
	fmt.Print(names[1], ":")
	for _, l := range "KRED" {
		fmt.Printf(" %c %.2f", l, e.At(1, strings.IndexRune(a.Alphabet(), l)))
	}
	fmt.Println()
	// Output:
	// FASTA: 300 sequences, 8 columns read; focus QUERY/101-108 (line 1): 0 columns dropped
	// Neff 78.0 of 300 sequences
	// V103 F108 0.86
	// D102 R106 0.79
	// M101 T104 0.07
	// top-2 precision: 1
	// 101 M 102 D 0 -0.062803
	// 101 M 103 V 0 -0.062198
	// ... 28 lines
	// model: V103 F108 0.24
	// model: D102 R106 0.23
	// D102: K -0.20 R -0.09 E -0.16 D 0.00
}
