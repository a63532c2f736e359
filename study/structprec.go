package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// structprecUsage is the help of "structprec".
const structprecUsage = `Usage: go run . structprec prep [flags] ALIGNMENT      (from study/)
       go run . structprec depth -n N [-seed S] [-o OUT] ALIGNMENT
       go run . structprec score [flags] SCORES...
       go run . structprec neff [-theta T] ALIGNMENT
       go run . structprec dropx [-o OUT] ALIGNMENT

Contact precision against a solved structure, for docs/contacts.

prep writes the alignment as FASTA with the focus sequence first and only
the columns where it has an uppercase residue (insert states of A2M/A3M,
lowercase and '.', dropped; the focus sequence's gaps dropped), so that
column c (1-based) of the output is residue c of the focus sequence for
every program that reads it. ALIGNMENT is FASTA/A2M or PSICOV's .aln (one
sequence a line, no names). The focus is -focus NAME, or -row N (1-based),
or the sequence most similar to -match SEQ (a structure's sequence).

depth writes a shallow family made from a deep one: the first sequence
(prep's focus) and N - 1 others drawn uniformly without replacement
(seeded by -seed), in their order in the alignment, the columns as they
are. It assembles families as shallow as those on which plmc leads
(a few hundred sequences) from families with solved structures.

neff prints "N L Neff" of an alignment as pairwise contacts reads and
reweights it (identity -theta, 0.8 by default): the effective number of
sequences without the fit, for a ridge that follows Neff.

dropx writes the alignment without the sequences, other than the first,
that hold a letter outside the twenty amino acids and the gap ('-' or
'.', either case), as plmc drops them; pairwise contacts reads such a
letter (X, B, Z, ...) as a gap and keeps the sequence.

score reads one or more score files of the prepared alignment's L columns
(pairwise contacts CSV: i,j,score with names colN or residue numbers; or
plmc's couplings file: I AI J AJ 0 SCORE) and prints the precision of the
top L/5, L/2 and L pairs with |i - j| >= -min-sep among the pairs whose
truth is known. The truth is either
  -pdb FILE -chain A   a contact is a Cβ–Cβ distance below -cutoff Å (Cα
                       for glycine and for a residue without Cβ); the focus
                       sequence (-fasta, the prepared alignment) is aligned
                       to the chain's ATOM residues (global alignment, end
                       gaps free) and the identity of the mapping printed
  -dist FILE           a precomputed map: lines "i j x d" with the distance
                       d of columns i, j in the 4th field (the layout of
                       ArDCA's *_struct.dat); a contact is d < -cutoff

Examples:
  go run . structprec prep -match $(...) -o 1atz.fasta 1atzA.aln
  go run . structprec score -pdb 1atz.pdb -chain A -fasta 1atz.fasta ours.csv plmc.ec
  go run . structprec score -dist PF00014_struct.dat -L 53 ours.csv plmc.ec
`

// runStructprec is the structprec command.
func runStructprec(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, structprecUsage)
		return errors.New("want prep, depth, neff, dropx or score")
	}
	switch args[0] {
	case "prep":
		return runStructprecPrep(args[1:], stdout, stderr)
	case "score":
		return runStructprecScore(args[1:], stdout, stderr)
	case "depth":
		return runStructprecDepth(args[1:], stdout, stderr)
	case "neff":
		return runStructprecNeff(args[1:], stdout, stderr)
	case "dropx":
		return runStructprecDropX(args[1:], stdout, stderr)
	case "-h", "-help", "--help":
		fmt.Fprint(stderr, structprecUsage) // help goes where every command's goes
		return nil
	}
	fmt.Fprint(stderr, structprecUsage)
	return fmt.Errorf("unknown structprec command %q: want prep, depth, neff, dropx or score", args[0])
}

// seqRecord is one aligned sequence.
type seqRecord struct{ name, seq string }

// readAlignedSeqs reads FASTA/A2M or a PSICOV .aln (no '>' lines); lines
// starting with '#' before the first sequence are comments.
func readAlignedSeqs(r io.Reader) ([]seqRecord, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var recs []seqRecord
	var b strings.Builder
	fasta := false
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || (len(recs) == 0 && strings.HasPrefix(t, "#")) {
			continue // blank, or a comment before the first sequence (ColabFold's A3M starts with "#lengths\tcounts")
		}
		if strings.HasPrefix(t, ">") {
			if !fasta && len(recs) > 0 {
				return nil, fmt.Errorf("line %d: a FASTA header after unnamed sequences", line)
			}
			if fasta {
				recs[len(recs)-1].seq = b.String()
			}
			fasta = true
			b.Reset()
			recs = append(recs, seqRecord{name: strings.Fields(t[1:] + " x")[0]})
			continue
		}
		if !fasta {
			recs = append(recs, seqRecord{name: fmt.Sprintf("seq%d", len(recs)+1), seq: t})
			continue
		}
		b.WriteString(t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if fasta && len(recs) > 0 {
		recs[len(recs)-1].seq = b.String()
	}
	if len(recs) == 0 {
		return nil, errors.New("no sequences")
	}
	return recs, nil
}

// matchColumns drops the insert states (lowercase, '.') of every sequence;
// it returns an error if the match columns are ragged.
func matchColumns(recs []seqRecord) error {
	L := -1
	for i := range recs {
		var b strings.Builder
		for _, c := range recs[i].seq {
			if c == '.' || unicode.IsLower(c) {
				continue
			}
			b.WriteRune(c)
		}
		recs[i].seq = b.String()
		if L < 0 {
			L = len(recs[i].seq)
		} else if len(recs[i].seq) != L {
			return fmt.Errorf("sequence %d (%s): %d match columns, the first has %d", i+1, recs[i].name, len(recs[i].seq), L)
		}
	}
	return nil
}

// focusColumns returns the alignment restricted to the columns where
// recs[f] has a residue (not '-'), recs[f] first.
func focusColumns(recs []seqRecord, f int) []seqRecord {
	var keep []int
	for c, r := range recs[f].seq {
		if r != '-' {
			keep = append(keep, c)
		}
	}
	out := make([]seqRecord, 0, len(recs))
	order := append([]int{f}, make([]int, 0, len(recs)-1)...)
	for i := range recs {
		if i != f {
			order = append(order, i)
		}
	}
	for _, i := range order {
		b := make([]byte, len(keep))
		for x, c := range keep {
			b[x] = recs[i].seq[c]
		}
		out = append(out, seqRecord{recs[i].name, string(b)})
	}
	return out
}

func runStructprecPrep(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("structprec prep", structprecUsage, stderr)
	focus := fs.String("focus", "", "name of the focus sequence")
	row := fs.Int("row", 0, "1-based row of the focus sequence (when no -focus)")
	match := fs.String("match", "", "choose as focus the sequence whose residues best match this sequence")
	out := fs.String("o", "", "output FASTA (standard output when empty)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one ALIGNMENT, got %d arguments", fs.NArg())
	}
	recs, err := readAlignmentFile(fs.Arg(0))
	if err != nil {
		return err
	}
	if err := matchColumns(recs); err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	fi := -1
	switch {
	case *focus != "":
		for i, r := range recs {
			if r.name == *focus {
				fi = i
				break
			}
		}
		if fi < 0 {
			return fmt.Errorf("%s: no sequence named %q", fs.Arg(0), *focus)
		}
	case *row > 0:
		if *row > len(recs) {
			return fmt.Errorf("-row %d: the alignment has %d sequences", *row, len(recs))
		}
		fi = *row - 1
	case *match != "":
		best := -1
		for i, r := range recs {
			s := strings.ReplaceAll(r.seq, "-", "")
			a := alignSeqs(s, strings.ToUpper(*match))
			if a.identical > best {
				best, fi = a.identical, i
			}
		}
		a := alignSeqs(strings.ReplaceAll(recs[fi].seq, "-", ""), strings.ToUpper(*match))
		fmt.Fprintf(stderr, "focus: row %d (%s), %d residues, %d identical to the -match sequence over %d aligned\n",
			fi+1, recs[fi].name, len(strings.ReplaceAll(recs[fi].seq, "-", "")), a.identical, a.aligned)
	default:
		return errors.New("want -focus, -row or -match")
	}
	cols := focusColumns(recs, fi)
	w, closeOut, err := outputFile(*out, stdout)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, r := range cols {
		fmt.Fprintf(bw, ">%s\n%s\n", r.name, r.seq)
	}
	if err := errors.Join(bw.Flush(), closeOut()); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d sequences, %d focus columns\n", len(cols), len(cols[0].seq))
	return nil
}

// runStructprecDepth is "structprec depth".
func runStructprecDepth(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("structprec depth", structprecUsage, stderr)
	n := fs.Int("n", 0, "number of sequences to keep, the first among them")
	seed := fs.Uint64("seed", 1, "seed of the draw")
	out := fs.String("o", "", "output FASTA (standard output when empty)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one ALIGNMENT, got %d arguments", fs.NArg())
	}
	if *n < 2 {
		return fmt.Errorf("-n %d: want at least 2 sequences", *n)
	}
	recs, err := readAlignmentFile(fs.Arg(0))
	if err != nil {
		return err
	}
	if len(recs) < *n {
		return fmt.Errorf("%s: %d sequences, fewer than -n %d", fs.Arg(0), len(recs), *n)
	}
	keep := shallowRows(len(recs), *n, *seed)
	if err := writeFastaRows(*out, stdout, recs, keep); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d of %d sequences kept\n", len(keep), len(recs))
	return nil
}

// writeFastaRows writes the rows keep of recs as FASTA to the file out,
// or to stdout when out is empty; a record without a name is named
// seqI, I its place in recs counting from 1.
func writeFastaRows(out string, stdout io.Writer, recs []seqRecord, keep []int) error {
	w, closeOut, err := outputFile(out, stdout)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, i := range keep {
		name := recs[i].name
		if name == "" {
			name = "seq" + strconv.Itoa(i+1)
		}
		fmt.Fprintf(bw, ">%s\n%s\n", name, recs[i].seq)
	}
	return errors.Join(bw.Flush(), closeOut())
}

// runStructprecDropX is "structprec dropx".
func runStructprecDropX(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("structprec dropx", structprecUsage, stderr)
	out := fs.String("o", "", "output FASTA (standard output when empty)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one ALIGNMENT, got %d arguments", fs.NArg())
	}
	recs, err := readAlignmentFile(fs.Arg(0))
	if err != nil {
		return err
	}
	keep := inAlphabetRows(recs)
	if err := writeFastaRows(*out, stdout, recs, keep); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d of %d sequences kept (the others hold a letter outside the amino acids and the gap)\n", len(keep), len(recs))
	return nil
}

// inAlphabetRows returns the rows of recs whose letters are all among the
// twenty amino acids and the gap ('-', '.'), in either case, and row 0
// (the focus) whatever it holds: the sequences plmc keeps.
func inAlphabetRows(recs []seqRecord) []int {
	var keep []int
	for i, r := range recs {
		ok := true
		for _, c := range []byte(r.seq) {
			if c != '-' && c != '.' && !strings.ContainsRune("ACDEFGHIKLMNPQRSTVWY", rune(c&^0x20)) {
				ok = false
				break
			}
		}
		if ok || i == 0 {
			keep = append(keep, i)
		}
	}
	return keep
}

// readAlignmentFile reads the aligned sequences of the file at path
// (readAlignedSeqs), its errors naming the file.
func readAlignmentFile(path string) ([]seqRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := readAlignedSeqs(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// outputFile returns the file named by -o (created), or stdout when the
// name is empty or "-", and a function that closes it and returns the
// close's error (a full disk may only show there).
func outputFile(name string, stdout io.Writer) (io.Writer, func() error, error) {
	if name == "" || name == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// shallowRows returns row 0 and n − 1 of rows 1..total−1 drawn uniformly
// without replacement by a PCG seeded (seed, 32), increasing.
func shallowRows(total, n int, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, 32))
	perm := r.Perm(total - 1)[:n-1]
	keep := make([]int, 0, n)
	keep = append(keep, 0)
	for _, p := range perm {
		keep = append(keep, p+1)
	}
	sort.Ints(keep)
	return keep
}

// alignment of two sequences: for each position of a, the position of b
// it is aligned to (or -1).
type seqAlignment struct {
	toB                []int
	aligned, identical int
}

// alignSeqs aligns a to b globally with free end gaps (match +2, mismatch
// -1, gap -2), the mapping of a focus sequence onto a structure's residues.
func alignSeqs(a, b string) seqAlignment {
	const match, mismatch, gap = 2, -1, -2
	n, m := len(a), len(b)
	score := make([][]int, n+1)
	for i := range score {
		score[i] = make([]int, m+1)
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			s := mismatch
			if a[i-1] == b[j-1] {
				s = match
			}
			best := score[i-1][j-1] + s
			if v := score[i-1][j] + gap; v > best {
				best = v
			}
			if v := score[i][j-1] + gap; v > best {
				best = v
			}
			score[i][j] = best
		}
	}
	// Free end gaps: start the traceback at the best cell of the last row
	// or column.
	bi, bj := n, m
	for j := 0; j <= m; j++ {
		if score[n][j] > score[bi][bj] {
			bi, bj = n, j
		}
	}
	for i := 0; i <= n; i++ {
		if score[i][m] > score[bi][bj] {
			bi, bj = i, m
		}
	}
	res := seqAlignment{toB: make([]int, n)}
	for i := range res.toB {
		res.toB[i] = -1
	}
	i, j := bi, bj
	for i > 0 && j > 0 {
		s := mismatch
		if a[i-1] == b[j-1] {
			s = match
		}
		switch {
		case score[i][j] == score[i-1][j-1]+s:
			res.toB[i-1] = j - 1
			res.aligned++
			if s == match {
				res.identical++
			}
			i, j = i-1, j-1
		case score[i][j] == score[i-1][j]+gap:
			i--
		default:
			j--
		}
	}
	return res
}

// residue is one residue of a structure: its one-letter code and the
// coordinates of its Cβ (Cα for glycine or when Cβ is missing).
type residue struct {
	aa      byte
	x, y, z float64
	hasCB   bool
}

var threeToOne = map[string]byte{
	"ALA": 'A', "ARG": 'R', "ASN": 'N', "ASP": 'D', "CYS": 'C', "GLN": 'Q', "GLU": 'E', "GLY": 'G',
	"HIS": 'H', "ILE": 'I', "LEU": 'L', "LYS": 'K', "MET": 'M', "PHE": 'F', "PRO": 'P', "SER": 'S',
	"THR": 'T', "TRP": 'W', "TYR": 'Y', "VAL": 'V', "MSE": 'M', "HID": 'H', "HIE": 'H', "HIP": 'H',
	"CYX": 'C', "SEC": 'U',
}

// readPDBChain returns the residues of chain (its first model) in file
// order, with the Cβ (or Cα) coordinates.
func readPDBChain(r io.Reader, chain string) ([]residue, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var res []residue
	type key struct{ seq, ins string }
	index := map[key]int{}
	hasCA := map[int]bool{}
	for sc.Scan() {
		t := sc.Text()
		if strings.HasPrefix(t, "ENDMDL") {
			break
		}
		if !(strings.HasPrefix(t, "ATOM  ") || strings.HasPrefix(t, "HETATM")) || len(t) < 54 {
			continue
		}
		if ch := strings.TrimSpace(t[21:22]); chain != "" && ch != chain && !(ch == "" && chain == "_") {
			continue
		}
		if alt := t[16]; alt != ' ' && alt != 'A' && alt != '1' {
			continue
		}
		name := strings.TrimSpace(t[17:20])
		aa, ok := threeToOne[name]
		if !ok {
			continue
		}
		k := key{strings.TrimSpace(t[22:26]), t[26:27]}
		i, seen := index[k]
		if !seen {
			i = len(res)
			index[k] = i
			res = append(res, residue{aa: aa})
		}
		atom := strings.TrimSpace(t[12:16])
		if atom != "CA" && atom != "CB" {
			continue
		}
		x, err1 := strconv.ParseFloat(strings.TrimSpace(t[30:38]), 64)
		y, err2 := strconv.ParseFloat(strings.TrimSpace(t[38:46]), 64)
		z, err3 := strconv.ParseFloat(strings.TrimSpace(t[46:54]), 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("coordinates of %q: %w", t, err)
		}
		switch {
		case atom == "CB":
			res[i].x, res[i].y, res[i].z, res[i].hasCB = x, y, z, true
		case !res[i].hasCB:
			res[i].x, res[i].y, res[i].z = x, y, z
			hasCA[i] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// Residues with neither atom carry no coordinates: drop them.
	out := res[:0]
	for i, r := range res {
		if r.hasCB || hasCA[i] {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no residues with Cα or Cβ in chain %q", chain)
	}
	return out, nil
}

// truthMap says, for columns i < j (0-based) of the focus sequence,
// whether they are in contact; known reports whether the truth is known.
type truthMap struct {
	L       int
	contact map[[2]int]bool
	known   func(i, j int) bool
}

// pdbTruth maps the focus sequence onto the structure and returns the
// contacts (Cβ–Cβ < cutoff) of its columns.
func pdbTruth(focus string, res []residue, cutoff float64, stderr io.Writer) truthMap {
	b := make([]byte, len(res))
	noCB := 0
	for i, r := range res {
		b[i] = r.aa
		if !r.hasCB && r.aa != 'G' {
			noCB++
		}
	}
	a := alignSeqs(focus, string(b))
	fmt.Fprintf(stderr, "structure: %d residues (%d non-glycine without Cβ, Cα used); focus: %d residues, %d aligned to the structure, %d identical\n",
		len(res), noCB, len(focus), a.aligned, a.identical)
	t := truthMap{L: len(focus), contact: map[[2]int]bool{}}
	for i := 0; i < len(focus); i++ {
		for j := i + 1; j < len(focus); j++ {
			p, q := a.toB[i], a.toB[j]
			if p < 0 || q < 0 {
				continue
			}
			dx, dy, dz := res[p].x-res[q].x, res[p].y-res[q].y, res[p].z-res[q].z
			t.contact[[2]int{i, j}] = math.Sqrt(dx*dx+dy*dy+dz*dz) < cutoff
		}
	}
	t.known = func(i, j int) bool { _, ok := t.contact[[2]int{i, j}]; return ok }
	return t
}

// distTruth reads a precomputed distance file: lines "i j x d", 1-based
// columns, the distance in the 4th field.
func distTruth(r io.Reader, L int, cutoff float64) (truthMap, error) {
	t := truthMap{L: L, contact: map[[2]int]bool{}}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 3 {
			return t, fmt.Errorf("line %d: want 3 or 4 fields, got %d", line, len(f))
		}
		d := f[2] // i j d, or ArDCAData's i j x d
		if len(f) >= 4 {
			d = f[3]
		}
		var v [3]float64
		for x, s := range []string{f[0], f[1], d} {
			var err error
			if v[x], err = strconv.ParseFloat(s, 64); err != nil {
				return t, fmt.Errorf("line %d: %w", line, err)
			}
		}
		i, j := int(v[0])-1, int(v[1])-1
		if i > j {
			i, j = j, i
		}
		if i < 0 || j >= L || i == j {
			return t, fmt.Errorf("line %d: columns %d, %d outside 1..%d", line, i+1, j+1, L)
		}
		t.contact[[2]int{i, j}] = v[2] < cutoff
	}
	t.known = func(i, j int) bool { _, ok := t.contact[[2]int{i, j}]; return ok }
	return t, sc.Err()
}

// scoredPair is one ranked pair of 0-based columns.
type scoredPair struct {
	i, j  int
	score float64
}

// colIndex reads a column name: a number, or letters then a number (col12).
func colIndex(s string) (int, error) {
	d := strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsDigit(r) && r != '-' })
	return strconv.Atoi(d)
}

// readScores reads a pairwise contacts CSV (header i,j,score) or a plmc
// couplings file (6 fields a line), 1-based columns shifted by -offset.
func readScores(r io.Reader, offset int) ([]scoredPair, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var out []scoredPair
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || (line == 1 && strings.HasPrefix(t, "i,j")) {
			continue
		}
		var si, sj, ss string
		if strings.Contains(t, ",") {
			f := strings.Split(t, ",")
			if len(f) != 3 {
				return nil, fmt.Errorf("line %d: want i,j,score", line)
			}
			si, sj, ss = f[0], f[1], f[2]
		} else {
			f := strings.Fields(t)
			if len(f) != 6 {
				return nil, fmt.Errorf("line %d: want 6 fields (plmc) or i,j,score", line)
			}
			si, sj, ss = f[0], f[2], f[5]
		}
		i, err1 := colIndex(si)
		j, err2 := colIndex(sj)
		s, err3 := strconv.ParseFloat(ss, 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		i, j = i-1-offset, j-1-offset
		if i > j {
			i, j = j, i
		}
		out = append(out, scoredPair{i, j, s})
	}
	return out, sc.Err()
}

// precisionAt returns the fraction of contacts among the top n pairs with
// |i-j| >= minSep whose truth is known (ties broken by column order).
func precisionAt(pairs []scoredPair, t truthMap, minSep int, ns []int) ([]float64, error) {
	var ok []scoredPair
	for _, p := range pairs {
		if p.j-p.i < minSep {
			continue
		}
		if p.i < 0 || p.j >= t.L {
			return nil, fmt.Errorf("pair (%d, %d) outside columns 1..%d", p.i+1, p.j+1, t.L)
		}
		if t.known(p.i, p.j) {
			ok = append(ok, p)
		}
	}
	sort.SliceStable(ok, func(a, b int) bool {
		if ok[a].score != ok[b].score {
			return ok[a].score > ok[b].score
		}
		if ok[a].i != ok[b].i {
			return ok[a].i < ok[b].i
		}
		return ok[a].j < ok[b].j
	})
	out := make([]float64, len(ns))
	for x, n := range ns {
		if n > len(ok) {
			return nil, fmt.Errorf("top %d: only %d pairs with known truth", n, len(ok))
		}
		hit := 0
		for _, p := range ok[:n] {
			if t.contact[[2]int{p.i, p.j}] {
				hit++
			}
		}
		out[x] = float64(hit) / float64(n)
	}
	return out, nil
}

func runStructprecScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("structprec score", structprecUsage, stderr)
	pdb := fs.String("pdb", "", "structure (PDB format)")
	chain := fs.String("chain", "A", "chain of -pdb")
	fasta := fs.String("fasta", "", "the prepared alignment (its first sequence is the focus); with -pdb")
	dist := fs.String("dist", "", "precomputed distances in alignment columns from 1: lines i j d, or i j x d (the last field is the distance; instead of -pdb)")
	L := fs.Int("L", 0, "number of columns (with -dist; else the focus length)")
	cutoff := fs.Float64("cutoff", 8, "contact distance, Å")
	minSep := fs.Int("min-sep", 6, "smallest |i - j| ranked")
	offset := fs.Int("offset", 0, "subtract this from the score files' column numbers before 1-based indexing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("want one or more score files")
	}
	var t truthMap
	switch {
	case *pdb != "" && *fasta != "":
		recs, err := readAlignmentFile(*fasta)
		if err != nil {
			return err
		}
		if strings.Contains(recs[0].seq, "-") {
			return fmt.Errorf("%s: the first sequence has gaps: prepare the alignment with structprec prep", *fasta)
		}
		p, err := os.Open(*pdb)
		if err != nil {
			return err
		}
		res, err := readPDBChain(p, *chain)
		p.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *pdb, err)
		}
		t = pdbTruth(strings.ToUpper(recs[0].seq), res, *cutoff, stderr)
	case *dist != "" && *L > 0:
		f, err := os.Open(*dist)
		if err != nil {
			return err
		}
		t, err = distTruth(f, *L, *cutoff)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *dist, err)
		}
	default:
		return errors.New("want -pdb with -fasta, or -dist with -L")
	}
	nc := 0
	for p, c := range t.contact {
		if c && p[1]-p[0] >= *minSep {
			nc++
		}
	}
	ns := []int{max(1, t.L/5), max(1, t.L/2), t.L}
	fmt.Fprintf(stdout, "# L = %d, %d contacts at separation >= %d; top %d, %d, %d\n", t.L, nc, *minSep, ns[0], ns[1], ns[2])
	fmt.Fprintln(stdout, "file\tP(L/5)\tP(L/2)\tP(L)")
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		pairs, err := readScores(f, *offset)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		pr, err := precisionAt(pairs, t, *minSep, ns)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(stdout, "%s\t%.3f\t%.3f\t%.3f\n", name, pr[0], pr[1], pr[2])
	}
	return nil
}
