// Command ebicstage measures how often the default learner's small-sample
// stage (the EBIC graph, pairwise.Tuning.EBICGraph) chooses the graph on
// truths shaped like a real binary questionnaire: the model the default
// learns from the questionnaire's complete answers is the truth, and sets
// of N rows are drawn from it by Gibbs sampling.
//
//	go run ./scripts/ebicstage -states 1,2 -sets 10 -n 250,500,1000 epi.csv
//
// prints, for each N, in how many sets the stage chose the graph and the
// mean edge F1 against the truth's edges. psychTools' epi (57 yes/no
// items, written by R as 1/2 with NA) is the file of docs/learning.md.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise"
)

func main() {
	states := flag.String("states", "", "the answers' `list` as written, comma-separated (pairwise.CSVOptions.States)")
	sets := flag.Int("sets", 10, "data `sets` a size")
	sizes := flag.String("n", "250,500,1000", "the `sizes` N, comma-separated")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: ebicstage [-states LIST] [-sets S] [-n N1,N2] FILE")
	}
	fh, err := os.Open(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	o := pairwise.CSVOptions{Missing: []string{"NA", ""}}
	if *states != "" {
		o.States = strings.Split(*states, ",")
	}
	s, err := pairwise.ReadCSVWith(fh, o)
	fh.Close()
	if err != nil {
		log.Fatal(err)
	}
	if s.Incomplete() {
		if s, _, err = s.DropIncomplete(); err != nil {
			log.Fatal(err)
		}
	}
	truth, err := pairwise.Learn(s)
	if err != nil {
		log.Fatal(err)
	}
	want := map[[2]int]bool{}
	for _, e := range truth.Model.Edges() {
		want[[2]int{e.I, e.J}] = true
	}
	fmt.Printf("truth: %d variables, %d edges, learned from %v complete rows\n", s.Vars(), len(want), s.TotalWeight())
	g, err := pairwise.NewGibbsSampler(truth.Model)
	if err != nil {
		log.Fatal(err)
	}
	for _, field := range strings.Split(*sizes, ",") {
		N, err := strconv.Atoi(field)
		if err != nil {
			log.Fatal(err)
		}
		chosen, f1 := 0, 0.0
		for seed := 0; seed < *sets; seed++ {
			d, err := g.Sample(rand.NewPCG(uint64(seed), uint64(N)), N)
			if err != nil {
				log.Fatal(err)
			}
			res, err := pairwise.Learn(d)
			if err != nil {
				log.Fatal(err)
			}
			if res.Tuning.EBICGraph {
				chosen++
			}
			tp := 0
			for _, e := range res.Edges {
				if want[[2]int{e.I, e.J}] {
					tp++
				}
			}
			if tp > 0 {
				p, r := float64(tp)/float64(len(res.Edges)), float64(tp)/float64(len(want))
				f1 += 2 * p * r / (p + r)
			}
		}
		fmt.Printf("N = %d: the stage chose the graph in %d of %d sets; mean F1 %.3f\n", N, chosen, *sets, f1/float64(*sets))
	}
}
