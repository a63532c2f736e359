package protein

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// DefaultIdentity is the default identity threshold θ of Reweight: two
// sequences are neighbours when at least 80% of their columns are
// identical, plmc's default (its -t 0.2 is the divergence 1 - θ) and
// EVcouplings'.
const DefaultIdentity = 0.8

// ReweightOption configures Reweight. Options are applied in order; where an
// option is repeated, the last one wins. Invalid values are reported as
// errors by Reweight, naming the option.
type ReweightOption interface {
	applyReweight(*reweightConfig)
}

type reweightOptionFunc func(*reweightConfig)

func (f reweightOptionFunc) applyReweight(c *reweightConfig) { f(c) }

type reweightConfig struct {
	theta    float64
	workers  int
	progress func(done, total int)
	errs     []error
}

// ReweightIdentity sets the identity threshold θ in [0, 1]: sequences s and t
// are neighbours when they are identical in at least θ·L of the L columns.
// θ = 0 makes every pair neighbours (all weights 1/N); θ = 1 only identical
// sequences. The default is DefaultIdentity.
func ReweightIdentity(theta float64) ReweightOption {
	return reweightOptionFunc(func(c *reweightConfig) {
		if !(theta >= 0 && theta <= 1) {
			c.errs = append(c.errs, fmt.Errorf("ReweightIdentity(%v): want a fraction in [0, 1]", theta))
			return
		}
		c.theta = theta
	})
}

// ReweightWorkers sets the number of goroutines that count neighbours. The
// weights do not depend on p. p must be at least 1; the default is
// runtime.GOMAXPROCS(0).
func ReweightWorkers(p int) ReweightOption {
	return reweightOptionFunc(func(c *reweightConfig) {
		if p < 1 {
			c.errs = append(c.errs, fmt.Errorf("ReweightWorkers(%d): want at least 1 worker", p))
			return
		}
		c.workers = p
	})
}

// ReweightProgress sets a function called after each block of sequences is
// compared with all later ones, with the number of pairs compared so far
// and the total N(N-1)/2. Calls are serialised, with done increasing, and
// the last has done == total. The default is no progress report.
func ReweightProgress(f func(done, total int)) ReweightOption {
	return reweightOptionFunc(func(c *reweightConfig) { c.progress = f })
}

// SequenceWeights are the weights of the sequences of an alignment: the
// inverse sizes of their neighbourhoods at identity θ.
type SequenceWeights struct {
	// Weights[s] = 1 / Neighbors[s].
	Weights []float64
	// Neighbors[s] is the number of sequences t (s itself included) that
	// are identical to s in at least MinIdentical columns.
	Neighbors []int
	// Neff = Σ_s Weights[s], the effective number of sequences.
	Neff float64
	// Identity is θ.
	Identity float64
	// MinIdentical = ⌈θ·L⌉, the identical columns two neighbours share.
	MinIdentical int
}

// Reweight is ReweightContext without cancellation.
func Reweight(a *Alignment, opts ...ReweightOption) (*SequenceWeights, error) {
	return ReweightContext(context.Background(), a, opts...)
}

// ReweightContext returns the sequence weights of a at identity threshold θ
// (ReweightIdentity, DefaultIdentity by default):
//
//	w_s = 1 / |{t : id(s, t) ≥ θ}|,   id(s, t) = (1/L) Σ_i [a_si = a_ti],
//
// the neighbourhood counting s itself, and Neff = Σ_s w_s. The identity is
// plmc's (weights.c): the fraction of the L columns where the two sequences
// have the same state, a gap facing a gap counting as identical and a gap
// facing a residue as different, over the whole length L, not over the
// columns where either has a residue. The threshold is the integer
// MinIdentical = ⌈θL⌉, computed as ⌈θL − 1e-9⌉ so that θ = 0.8 and L = 100
// need 80 columns; plmc compares the count with the float (1 - t)·L and can
// differ from this by one column when θL is within rounding of an integer.
// Pass the weights to Alignment.Samples for weighted samples.
//
// The count is exact: every pair is compared. Each sequence is packed as
// bit-planes of its states (5 planes for k ≤ 32, ⌈log2 k⌉ beyond; 64
// columns a word) with the most variable columns first, so that most pairs
// are rejected after one word once they have more than L - MinIdentical
// differences; the pairs s < t are split into blocks of rows shared by the
// workers (ReweightWorkers). The cost is about N²/2 word comparisons for a
// diverse family and up to N²/2·⌈L/64⌉ when most pairs are neighbours;
// memory is about N·⌈L/64⌉·40 bytes plus N counters a worker.
// BenchmarkReweight measures it on synthetic families.
//
// ReweightContext returns an error for a nil ctx, a nil alignment or an
// invalid option, and ctx.Err() (wrapped) if ctx is cancelled; it checks
// ctx between blocks of rows.
func ReweightContext(ctx context.Context, a *Alignment, opts ...ReweightOption) (*SequenceWeights, error) {
	const fn = "Reweight"
	if ctx == nil {
		return nil, errors.New("protein: ReweightContext: nil context (pass context.Background() for none)")
	}
	if a == nil {
		return nil, errors.New("protein: Reweight: nil alignment")
	}
	cfg := reweightConfig{theta: DefaultIdentity, workers: runtime.GOMAXPROCS(0)}
	for x, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("protein: %s: option %d is nil", fn, x)
		}
		o.applyReweight(&cfg)
	}
	if len(cfg.errs) > 0 {
		return nil, fmt.Errorf("protein: %s: %w", fn, errors.Join(cfg.errs...))
	}
	minID := int(math.Ceil(cfg.theta*float64(a.l) - 1e-9))
	if minID < 0 {
		minID = 0
	}
	counts, err := countNeighbors(ctx, a.codes, a.n, a.l, len(a.alphabet), minID, cfg.workers, cfg.progress)
	if err != nil {
		return nil, fmt.Errorf("protein: %s: %w", fn, err)
	}
	w := &SequenceWeights{
		Weights:      make([]float64, a.n),
		Neighbors:    counts,
		Identity:     cfg.theta,
		MinIdentical: minID,
	}
	for s, c := range counts {
		w.Weights[s] = 1 / float64(c)
		w.Neff += w.Weights[s]
	}
	return w, nil
}

// bitPlanes packs an alignment for fast pairwise comparison: the states of
// column order[i] are at bit i%64 of word i/64, split into planes (bit b of
// the state in plane b). Sequence t's planes of word w are
// data[(w*n+t)*planes : (w*n+t+1)*planes], so that the first word of all
// sequences, which decides most pairs, is contiguous.
type bitPlanes struct {
	n, words, planes int
	data             []uint64    // planes != 5
	p5               [][5]uint64 // planes == 5: p5[w*n+t] = data[(w*n+t)*5:][:5]
}

// newBitPlanes packs codes (n×l, states < k), the most variable columns
// (largest 1 - Σ_a p_a², the chance that two random sequences differ)
// first.
func newBitPlanes(codes []uint8, n, l, k int) *bitPlanes {
	// Up to 32 states are packed as 5 planes, the unused ones zero, so that
	// proteins and nucleotides share the unrolled kernel.
	planes := bits.Len(uint(k - 1))
	if planes <= 5 {
		planes = 5
	}
	freq := make([]int, l*k)
	for s := 0; s < n; s++ {
		for i, v := range codes[s*l : (s+1)*l] {
			freq[i*k+int(v)]++
		}
	}
	order := make([]int, l)
	diff := make([]float64, l)
	for i := range order {
		order[i] = i
		sq := 0.0
		for _, c := range freq[i*k : (i+1)*k] {
			p := float64(c) / float64(n)
			sq += p * p
		}
		diff[i] = 1 - sq
	}
	sort.SliceStable(order, func(x, y int) bool { return diff[order[x]] > diff[order[y]] })
	bp := &bitPlanes{n: n, words: (l + 63) / 64, planes: planes}
	data := make([]uint64, bp.words*n*planes)
	for s := 0; s < n; s++ {
		row := codes[s*l : (s+1)*l]
		for x, i := range order {
			v := uint64(row[i])
			w := x / 64
			bit := uint(x % 64)
			base := (w*n + s) * planes
			for b := 0; b < planes; b++ {
				data[base+b] |= (v >> uint(b) & 1) << bit
			}
		}
	}
	if planes != 5 {
		bp.data = data
		return bp
	}
	bp.p5 = make([][5]uint64, bp.words*n)
	for x := range bp.p5 {
		copy(bp.p5[x][:], data[x*5:])
	}
	return bp
}

// countNeighbors returns, for each of the n sequences, the number of
// sequences (itself included) identical to it in at least minID of the l
// columns.
func countNeighbors(ctx context.Context, codes []uint8, n, l, k, minID, workers int, progress func(done, total int)) ([]int, error) {
	maxDiff := l - minID
	counts := make([]int, n)
	if n == 0 {
		return counts, nil
	}
	if maxDiff >= l {
		// Every pair is within the threshold.
		for s := range counts {
			counts[s] = n
		}
		if progress != nil {
			progress(n*(n-1)/2, n*(n-1)/2)
		}
		return counts, nil
	}
	bp := newBitPlanes(codes, n, l, k)

	// Row blocks: block b compares rows [b*rowBlock, ...) with all later
	// rows. Blocks are handed out in order, the longest first.
	const rowBlock = 32
	blocks := (n + rowBlock - 1) / rowBlock
	total := n * (n - 1) / 2
	if workers > blocks {
		workers = blocks
	}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		done    int
		wg      sync.WaitGroup
		stopped atomic.Bool
	)
	local := make([][]int32, workers)
	for w := range local {
		local[w] = make([]int32, n)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(cnt []int32) {
			defer wg.Done()
			for {
				if stopped.Load() {
					return
				}
				if ctx.Err() != nil {
					stopped.Store(true)
					return
				}
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				lo := b * rowBlock
				hi := min(lo+rowBlock, n)
				bp.compareBlock(cnt, lo, hi, maxDiff)
				if progress != nil {
					pairs := 0
					for s := lo; s < hi; s++ {
						pairs += n - 1 - s
					}
					mu.Lock()
					done += pairs
					progress(done, total)
					mu.Unlock()
				}
			}
		}(local[w])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for s := range counts {
		c := 1 // itself
		for _, cnt := range local {
			c += int(cnt[s])
		}
		counts[s] = c
	}
	return counts, nil
}

// compareBlock counts, into cnt, the neighbour pairs (s, t) with s in
// [lo, hi) and t > s: pairs with at most maxDiff differing columns. The
// later rows are visited in tiles that stay in cache while the block's rows
// are compared with them.
func (bp *bitPlanes) compareBlock(cnt []int32, lo, hi, maxDiff int) {
	const tile = 1024
	n := bp.n
	for t0 := lo + 1; t0 < n; t0 += tile {
		t1 := min(t0+tile, n)
		if bp.p5 == nil {
			for s := lo; s < hi; s++ {
				if start := max(t0, s+1); start < t1 {
					bp.compareRow(cnt, s, start, t1, maxDiff)
				}
			}
			continue
		}
		// Two rows at a time share the loads of the later rows.
		s := lo
		for ; s+1 < hi; s += 2 {
			if t0 <= s+1 && s+1 < t1 {
				bp.compare5(cnt, s, s+1, maxDiff)
			}
			if start := max(t0, s+2); start < t1 {
				bp.compareRows5(cnt, s, start, t1, maxDiff)
			}
		}
		if s < hi {
			if start := max(t0, s+1); start < t1 {
				for t := start; t < t1; t++ {
					bp.compare5(cnt, s, t, maxDiff)
				}
			}
		}
	}
}

// compareRow compares sequence s with sequences [t0, t1), any number of
// planes (k > 32).
func (bp *bitPlanes) compareRow(cnt []int32, s, t0, t1, maxDiff int) {
	n, planes, words := bp.n, bp.planes, bp.words
	data := bp.data
	found := int32(0)
	for t := t0; t < t1; t++ {
		diff := 0
		for w := 0; w < words; w++ {
			sw := data[(w*n+s)*planes : (w*n+s+1)*planes]
			tw := data[(w*n+t)*planes : (w*n+t+1)*planes]
			var x uint64
			for b, v := range sw {
				x |= v ^ tw[b]
			}
			diff += bits.OnesCount64(x)
			if diff > maxDiff {
				break
			}
		}
		if diff <= maxDiff {
			found++
			cnt[t]++
		}
	}
	cnt[s] += found
}

// diff5 counts the columns of one word where two 5-plane sequences differ.
func diff5(a, b *[5]uint64) int {
	return bits.OnesCount64((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) | (a[4] ^ b[4]))
}

// rest5 adds the differences of s and t in words 1.. to diff, stopping
// once it exceeds maxDiff.
func (bp *bitPlanes) rest5(s, t, diff, maxDiff int) int {
	n := bp.n
	for w := 1; w < bp.words && diff <= maxDiff; w++ {
		diff += diff5(&bp.p5[w*n+s], &bp.p5[w*n+t])
	}
	return diff
}

// compare5 compares sequences s and t, 5 planes.
func (bp *bitPlanes) compare5(cnt []int32, s, t, maxDiff int) {
	if bp.rest5(s, t, diff5(&bp.p5[s], &bp.p5[t]), maxDiff) <= maxDiff {
		cnt[s]++
		cnt[t]++
	}
}

// compareRows5 compares sequences s and s+1 with sequences [t0, t1), 5
// planes (k ≤ 32: proteins and nucleotides). Most pairs are decided by their first
// word.
func (bp *bitPlanes) compareRows5(cnt []int32, s, t0, t1, maxDiff int) {
	a, b := bp.p5[s], bp.p5[s+1]
	cand := bp.p5[t0:t1]
	var foundA, foundB int32
	for x := range cand {
		c := &cand[x]
		dA := bits.OnesCount64((a[0] ^ c[0]) | (a[1] ^ c[1]) | (a[2] ^ c[2]) | (a[3] ^ c[3]) | (a[4] ^ c[4]))
		dB := bits.OnesCount64((b[0] ^ c[0]) | (b[1] ^ c[1]) | (b[2] ^ c[2]) | (b[3] ^ c[3]) | (b[4] ^ c[4]))
		if dA > maxDiff && dB > maxDiff {
			continue
		}
		t := t0 + x
		if dA <= maxDiff && bp.rest5(s, t, dA, maxDiff) <= maxDiff {
			foundA++
			cnt[t]++
		}
		if dB <= maxDiff && bp.rest5(s+1, t, dB, maxDiff) <= maxDiff {
			foundB++
			cnt[t]++
		}
	}
	cnt[s] += foundA
	cnt[s+1] += foundB
}
