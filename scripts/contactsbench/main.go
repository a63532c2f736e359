// Command contactsbench is the helper of scripts/contacts_bench.sh: it makes
// synthetic alignments with known contacts from real ones, and scores ranked
// pair lists against a truth or against each other.
//
//	contactsbench synth -alphabet A [-focus F] -seed S -out DIR/NAME ALIGNMENT
//	    learn a model from the alignment (LearnPairwise with ρ = 4, λ =
//	    DefaultContactWidth), keep the couplings of its L best-scoring
//	    pairs only (the truth, written to NAME.truth), and draw the
//	    alignment's N sequences from that model with the Gibbs sampler
//	    (NAME.fasta)
//	contactsbench score -truth T -L L FILE...
//	    precision of the top L/5, L/2 and L pairs of each ranked file
//	contactsbench overlap -L L -min-sep S A B
//	    the fraction of A's top L pairs (separation ≥ S columns) among B's
//	    top L, the columns matched by their order in each file
//
// Ranked files are either the CSV of 'pairwise contacts' (i,j,score, names
// colN or a letter and a number) or a plmc couplings file (i ai j aj 0
// score), whose pairs are ranked here by score.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/protein"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: contactsbench synth|score|overlap ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "synth":
		err = synth(os.Args[2:])
	case "score":
		err = score(os.Args[2:])
	case "overlap":
		err = overlap(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contactsbench:", err)
		os.Exit(1)
	}
}

func synth(args []string) error {
	fs := flag.NewFlagSet("synth", flag.ExitOnError)
	alphabet := fs.String("alphabet", protein.ProteinAlphabet, "alphabet, gap first")
	focus := fs.String("focus", "", "focus sequence")
	seed := fs.Uint64("seed", 1, "seed of the sampler")
	out := fs.String("out", "synth", "output prefix")
	keepGap := fs.Bool("keep-gap", false, "state 0 is a state, not a gap")
	ridge := fs.Float64("ridge", 4, "ridge ρ of the generating model's fit (docs/contacts used 4)")
	fs.Parse(args)
	var aopts []protein.AlignmentOption
	aopts = append(aopts, protein.AlignAlphabet(*alphabet))
	if *focus != "" {
		aopts = append(aopts, protein.AlignFocus(*focus))
	}
	a, err := protein.ReadAlignmentFile(fs.Arg(0), aopts...)
	if err != nil {
		return err
	}
	w, err := protein.Reweight(a)
	if err != nil {
		return err
	}
	s, err := a.Samples(w.Weights)
	if err != nil {
		return err
	}
	res, err := pairwise.LearnPairwise(s, pairwise.WithRidge(*ridge),
		pairwise.WithWidth(pairwise.DefaultContactWidth), pairwise.WithMinEdgeWeight(math.SmallestNonzeroFloat64))
	if err != nil {
		return err
	}
	n, k := a.Vars(), len(*alphabet)
	sc, err := protein.ContactScores(res.Model, protein.ContactIgnoreGap(!*keepGap), protein.ContactAPC(false))
	if err != nil {
		return err
	}
	ranked := protein.RankContacts(sc, 1)
	truth := ranked[:n]
	m, err := pairwise.NewModel(n, k)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := m.SetField(i, res.Model.Field(i)); err != nil {
			return err
		}
	}
	tf, err := os.Create(*out + ".truth")
	if err != nil {
		return err
	}
	for _, c := range truth {
		if err := m.SetCoupling(c.I, c.J, res.Model.Coupling(c.I, c.J)); err != nil {
			return err
		}
		fmt.Fprintf(tf, "%d %d\n", c.I+1, c.J+1)
	}
	tf.Close()
	g, err := pairwise.NewGibbsSampler(m)
	if err != nil {
		return err
	}
	smp, err := g.Sample(rand.NewPCG(*seed, 7), a.Len())
	if err != nil {
		return err
	}
	f, err := os.Create(*out + ".fasta")
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	row := make([]int, n)
	line := make([]byte, n)
	for r := 0; r < a.Len(); r++ {
		row = smp.Row(row, r)
		for i, v := range row {
			line[i] = (*alphabet)[v]
		}
		fmt.Fprintf(bw, ">s%d\n%s\n", r+1, line)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

var num = regexp.MustCompile(`[0-9]+$`)

// readRanked reads a ranked list (pairwise CSV, in its order) or a plmc
// couplings file (ranked by score here) as 1-based column pairs.
func readRanked(name string) ([][2]int, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	type pair struct {
		i, j int
		s    float64
	}
	var ps []pair
	plmc := false
	for x, ln := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if x == 0 && strings.HasPrefix(ln, "i,j") {
			continue
		}
		var f []string
		if strings.Contains(ln, ",") {
			f = strings.Split(ln, ",")
		} else {
			f = strings.Fields(ln)
			plmc = true
		}
		var p pair
		if plmc {
			p.i, _ = strconv.Atoi(f[0])
			p.j, _ = strconv.Atoi(f[2])
			p.s, _ = strconv.ParseFloat(f[5], 64)
		} else {
			p.i, _ = strconv.Atoi(num.FindString(f[0]))
			p.j, _ = strconv.Atoi(num.FindString(f[1]))
			p.s, _ = strconv.ParseFloat(f[2], 64)
		}
		if p.i > p.j {
			p.i, p.j = p.j, p.i
		}
		ps = append(ps, p)
	}
	if plmc {
		sort.SliceStable(ps, func(a, b int) bool { return ps[a].s > ps[b].s })
	}
	out := make([][2]int, len(ps))
	for x, p := range ps {
		out[x] = [2]int{p.i, p.j}
	}
	return out, nil
}

func score(args []string) error {
	fs := flag.NewFlagSet("score", flag.ExitOnError)
	truthFile := fs.String("truth", "", "truth pairs")
	l := fs.Int("L", 0, "L")
	fs.Parse(args)
	tr, err := readRanked2(*truthFile)
	if err != nil {
		return err
	}
	for _, name := range fs.Args() {
		r, err := readRanked(name)
		if err != nil {
			return err
		}
		var out []string
		for _, top := range []int{*l / 5, *l / 2, *l} {
			hit := 0
			for _, p := range r[:min(top, len(r))] {
				if tr[p] {
					hit++
				}
			}
			out = append(out, fmt.Sprintf("%.3f", float64(hit)/float64(top)))
		}
		fmt.Printf("%s\t%s\n", name, strings.Join(out, "\t"))
	}
	return nil
}

// readRanked2 reads a truth file of "i j" lines as a set.
func readRanked2(name string) (map[[2]int]bool, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	set := map[[2]int]bool{}
	for _, ln := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(ln)
		i, _ := strconv.Atoi(f[0])
		j, _ := strconv.Atoi(f[1])
		set[[2]int{i, j}] = true
	}
	return set, nil
}

func overlap(args []string) error {
	fs := flag.NewFlagSet("overlap", flag.ExitOnError)
	l := fs.Int("L", 0, "L")
	sep := fs.Int("min-sep", 6, "minimum separation")
	fs.Parse(args)
	top := func(name string) (map[[2]int]bool, error) {
		r, err := readRanked(name)
		if err != nil {
			return nil, err
		}
		// Number the columns 0, 1, ... in the order of the file's own
		// numbers: plmc numbers focus columns from the first column of
		// the input, pairwise by the focus residues.
		var cols []int
		seen := map[int]bool{}
		for _, p := range r {
			for _, c := range p {
				if !seen[c] {
					seen[c] = true
					cols = append(cols, c)
				}
			}
		}
		sort.Ints(cols)
		index := map[int]int{}
		for x, c := range cols {
			index[c] = x
		}
		set := map[[2]int]bool{}
		for _, p := range r {
			p = [2]int{index[p[0]], index[p[1]]}
			if p[1]-p[0] >= *sep && len(set) < *l {
				set[p] = true
			}
		}
		return set, nil
	}
	a, err := top(fs.Arg(0))
	if err != nil {
		return err
	}
	b, err := top(fs.Arg(1))
	if err != nil {
		return err
	}
	hit := 0
	for p := range a {
		if b[p] {
			hit++
		}
	}
	fmt.Printf("%.3f\n", float64(hit)/float64(*l))
	return nil
}
