package engine

import (
	"sync"
	"sync/atomic"
)

// Row splitting. With many rows, the learners' fast paths (LearnIsing with
// or without λ and η, LearnPairwise with them) solve the nodes one after
// another and split every pass over the rows among the workers instead
// (rowTeam), so that one node's row buffers are held at a time rather than
// one set a worker: with N = 10⁶ rows those buffers are 64 bytes a row on
// the Ising path, more than half the size of the samples of 100 binary
// variables. The rows of a regression are cut into a number of chunks that
// depends on its number of rows alone; sums over rows (histograms, bounds,
// losses) are formed per chunk and added in chunk order, so that the
// results do not depend on the number of workers.

// Chunks of the row-split kernels: at least the Split's Chunk rows, at
// most maxRowChunks chunks (each needs a histogram of its own).
const maxRowChunks = 16

// rowChunks returns the rows a chunk and the number of chunks for rows, in
// chunks of at least chunk rows.
func rowChunks(rows, chunk int) (size, count int) {
	size = max(chunk, (rows+maxRowChunks-1)/maxRowChunks)
	count = max(1, (rows+size-1)/size)
	return size, count
}

// rowTeam runs the chunks of a pass over the rows on the calling goroutine
// and a fixed set of helper goroutines. Its run calls must not overlap
// until stop.
type rowTeam struct {
	wake  []chan struct{} // one a helper; closed by stop
	done  sync.WaitGroup
	next  atomic.Int64
	count int
	f     func(chunk int)
	chunk int // the least rows a chunk
}

// newRowTeam starts a team of workers goroutines in all, the caller's
// included (workers − 1 helpers). stop ends the helpers.
func newRowTeam(workers, chunk int) *rowTeam {
	t := &rowTeam{wake: make([]chan struct{}, max(workers-1, 0)), chunk: chunk}
	for h := range t.wake {
		t.wake[h] = make(chan struct{})
		go t.help(t.wake[h])
	}
	return t
}

func (t *rowTeam) help(wake chan struct{}) {
	for range wake {
		t.work()
		t.done.Done()
	}
}

// work runs chunks until none is left.
func (t *rowTeam) work() {
	for {
		c := int(t.next.Add(1)) - 1
		if c >= t.count {
			return
		}
		t.f(c)
	}
}

// run calls f(c) for c = 0..count-1, spread over the team, and returns when
// all calls have returned.
func (t *rowTeam) run(count int, f func(chunk int)) {
	h := min(len(t.wake), count-1)
	if h <= 0 {
		for c := range count {
			f(c)
		}
		return
	}
	t.f, t.count = f, count
	t.next.Store(0)
	t.done.Add(h)
	for _, w := range t.wake[:h] {
		w <- struct{}{}
	}
	t.work()
	t.done.Wait()
	t.f = nil
}

// stop ends the helper goroutines. The team then runs the same chunks in
// order on each caller, so that passes made after the fits (the sparse
// edge test's, Tuning's accessors) give the same bits, from any number of
// goroutines at once.
func (t *rowTeam) stop() {
	for _, w := range t.wake {
		close(w)
	}
	t.wake = nil
}

// Chunking returns how a pass over the rows of x is cut: count chunks of
// size rows (the last may be shorter); one chunk of all rows unless x is a
// coded design whose rows are split among the workers.
func Chunking(x Design, rows int) (size, count int) {
	if cd, ok := x.(*codedDesign); ok && cd.team != nil {
		return cd.chunkRows, cd.chunks
	}
	return rows, 1
}

// RunChunks runs f(c) for every chunk c of Chunking(x, ·): on the workers
// that split x's rows, or in order on the caller. Sums over the chunks must
// be added in chunk order afterwards, so that the results do not depend on
// the number of workers.
func RunChunks(x Design, count int, f func(c int)) {
	if cd, ok := x.(*codedDesign); ok && cd.team != nil {
		cd.team.run(count, f)
		return
	}
	for c := range count {
		f(c)
	}
}
