package engine

import (
	"fmt"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// TestHeldCodesFitIdentical fits screened Ising nodes on rows given as bits
// at radii where their working sets pass half of the variables, so that
// every fit falls back to the full problem (fitScreened), whose margins
// passes read the codes of all rows: streamed from the bits on every pass
// (gc.held nil, as before issue 33) and held as bytes (heldCodes), with
// the rows split among 1 and 2 workers or not, cold and warm. The
// solutions and Stats must be the same bits; the test fails if no fit fell
// back or if the held codes were never made, and checks the held codes
// against the 16-bit codes of encodeBlockRows (less their offsets).
func TestHeldCodesFitIdentical(t *testing.T) {
	s := treeRows(90, 2100, 11)
	bits := &Rows{N: s.N, K: 2, Count: s.Count, Bits: PackBits(s)}
	splits := []struct {
		split   Split
		workers int
	}{{DefaultSplit, 1}, {Split{Min: 1000, Chunk: 300}, 1}, {Split{Min: 1000, Chunk: 300}, 2}}
	for _, sp := range splits {
		t.Run(fmt.Sprintf("chunk=%d/workers=%d", sp.split.Chunk, sp.workers), func(t *testing.T) {
			if sp.workers == 1 {
				skipUnderRace(t)
			}
			mk := func(held bool) *Driver {
				b := Backend{Fast: true}
				d := NewData(bits, b, true, sp.workers, sp.split)
				d.SetScreen(1)
				if d.gc.held == nil {
					t.Fatal("a bit layout of eight spins a group holds no codes")
				}
				if !held {
					d.gc.held = nil
				}
				return &Driver{Backend: b, Data: d, Settings: solve.Settings{Tol: 1e-8, MaxIter: 20000}, Work: new(Work)}
			}
			es, eh := mk(false), mk(true)
			defer es.Data.Stop()
			defer eh.Data.Stop()
			nodes := []int{0, 45, 89}
			if raceEnabled {
				nodes = nodes[:1]
			}
			for _, i := range nodes {
				var ws, wh []float64
				// Radii past the unconstrained solution's norm: dense
				// solutions, working sets past screenDense.
				for _, radius := range []float64{40, 60} {
					var ss, sh solve.Stats
					ws, ss = fitNode(t, es, i, radius, ws, nil)
					wh, sh = fitNode(t, eh, i, radius, wh, nil)
					if ss != sh {
						t.Fatalf("node %d, radius %v: stats %+v held, %+v streamed", i, radius, sh, ss)
					}
					for j := range ws {
						if ws[j] != wh[j] {
							t.Fatalf("node %d, radius %v, coordinate %d: %v held, %v streamed", i, radius, j, wh[j], ws[j])
						}
					}
				}
			}
			if eh.Work.scr.stats.whole == 0 || es.Work.scr.stats.whole != eh.Work.scr.stats.whole {
				t.Fatalf("fits that fell back to the full problem: %d held, %d streamed; want the same, more than 0",
					eh.Work.scr.stats.whole, es.Work.scr.stats.whole)
			}
			gc := eh.Data.gc
			if gc.held.codes8 == nil {
				t.Fatal("the held codes were never made")
			}
			c16 := make([]uint16, gc.rows*gc.groups)
			encodeBlockRows(c16, gc.blocks, gc, 0, gc.rows)
			for x, c := range c16 {
				if g := x % gc.groups; int(c)-gc.off[g] != int(gc.held.codes8[x]) {
					t.Fatalf("row %d, group %d: held code %d, streamed %d", x/gc.groups, g, gc.held.codes8[x], int(c)-gc.off[g])
				}
			}
		})
	}
}
