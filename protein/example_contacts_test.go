package protein_test

import (
	"fmt"
	"log"
	"math/rand/v2"
	"strings"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/protein"
)

// Predict contacts from an RNA alignment (RNAAlphabet): read it, reweight
// the sequences, learn the coupling scores with pairwise.LearnContacts, and
// rank the pairs. The alignment is made up here: in each sequence, columns
// 2 and 7 pair as Watson–Crick partners most of the time, and so do
// columns 4 and 9; the other columns are random. With a real family, read
// the file with ReadAlignmentFile (FASTA, A2M/A3M or Stockholm) and give
// the focus sequence with AlignFocus.
func Example_rna() {
	r := rand.New(rand.NewPCG(1, 2))
	pair := map[byte]byte{'A': 'U', 'U': 'A', 'G': 'C', 'C': 'G'}
	var fasta strings.Builder
	for s := 0; s < 300; s++ {
		row := []byte("ACGUACGUAC")
		for i := range row {
			row[i] = "ACGU"[r.IntN(4)]
		}
		for _, p := range [][2]int{{1, 6}, {3, 8}} { // columns 2–7 and 4–9
			if r.Float64() < 0.9 {
				row[p[1]] = pair[row[p[0]]]
			}
		}
		fmt.Fprintf(&fasta, ">seq%d\n%s\n", s, row)
	}

	a, err := protein.ReadAlignment(strings.NewReader(fasta.String()), protein.AlignAlphabet(protein.RNAAlphabet))
	if err != nil {
		log.Fatal(err)
	}
	w, err := protein.Reweight(a) // 1/(neighbours at ≥ 80% identity)
	if err != nil {
		log.Fatal(err)
	}
	s, err := a.Samples(w.Weights)
	if err != nil {
		log.Fatal(err)
	}
	cm, err := pairwise.LearnContacts(s) // the alignment defaults
	if err != nil {
		log.Fatal(err)
	}
	names := a.VarNames()
	for _, c := range protein.RankContacts(cm.Scores, 1)[:3] {
		fmt.Printf("%s %s %.2f\n", names[c.I], names[c.J], c.Score)
	}
	// Output:
	// col4 col9 1.94
	// col2 col7 1.83
	// col1 col3 0.21
}
