package selection

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestMixtureCutLeast checks the least cut: on statistics whose mixture
// cuts below PairFloor (many edges spread low, as on a small Potts grid
// where the mixture sees few pairs), the settings' Least raises the cut to
// PairFloor, and never above critical: a pair significant at the
// family-wise rate stays an edge. Without a mixture (too few statistics at
// critical) Least changes nothing.
func TestMixtureCutLeast(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 32))
	var z []float64
	for range 24 { // edges: lognormal around 2.5, from about 1 to 6
		z = append(z, math.Exp(math.Log(2.5)+0.45*r.NormFloat64()))
	}
	for range 12 { // nulls: half-normal
		z = append(z, math.Abs(r.NormFloat64()))
	}
	const critical = 3.2
	plain, fit, ok := MixtureCutSettings{Lowest: 1}.Cut(critical, z, z)
	if !ok || fit == nil {
		t.Fatal("no mixture fitted: the case needs one")
	}
	if plain >= PairFloor {
		t.Fatalf("the mixture cuts at %g, not below PairFloor = %g: the case does not test the least cut", plain, PairFloor)
	}
	least, _, ok := MixtureCutSettings{Lowest: 1, Least: PairFloor}.Cut(critical, z, z)
	if !ok || least != PairFloor {
		t.Errorf("least cut: threshold %g, decided %v; want %g and true", least, ok, PairFloor)
	}
	// A least cut above critical stops at critical.
	if got, _, _ := (MixtureCutSettings{Lowest: 1, Least: 10}).Cut(critical, z, z); got != critical {
		t.Errorf("least 10 above critical %g: threshold %g, want %g", critical, got, critical)
	}
	// NaN and zero set no least cut.
	for _, l := range []float64{0, math.NaN()} {
		if got, _, _ := (MixtureCutSettings{Lowest: 1, Least: l}).Cut(critical, z, z); got != plain {
			t.Errorf("least %g: threshold %g, want the mixture's %g", l, got, plain)
		}
	}
	// Four statistics at critical: no mixture, and the threshold is
	// critical whatever Least says.
	few := []float64{9, 8, 7, 6, 1, 0.5, 0.2}
	if got, fit, ok := (MixtureCutSettings{Least: PairFloor}).Cut(critical, few, few); ok || fit != nil || got != critical {
		t.Errorf("no mixture: threshold %g, decided %v, fit %v; want %g, false, nil", got, ok, fit, critical)
	}
}

// TestSparseFloorAt checks the sparse edge test's floor against its
// definition: SparseFloor while the null's two-sided tail there leaves
// fewer than SparseChance of the n − 1 other spins above it, and above
// that the point where exactly SparseChance are expected (the normal
// survival function, an independent computation from the quantile it is
// made with), increasing in n; the values quoted in its doc comment.
func TestSparseFloorAt(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 2, 3, 12, 300, 1000, 1007} {
		if got := SparseFloorAt(n); got != SparseFloor {
			t.Errorf("n = %d: floor %v, want SparseFloor", n, got)
		}
	}
	prev := SparseFloor
	for _, c := range []struct {
		n    int
		near float64 // the doc comment's value, to 0.005
	}{{2000, 2.734}, {3000, 2.87}, {10000, 3.23}, {100000, 3.84}, {1000000, 4.37}} {
		f := SparseFloorAt(c.n)
		chance := float64(c.n-1) * 2 * distuv.UnitNormal.Survival(f)
		if math.Abs(chance-SparseChance) > 1e-9*SparseChance {
			t.Errorf("n = %d: floor %v leaves %v spins above it by chance, want %v", c.n, f, chance, SparseChance)
		}
		if math.Abs(f-c.near) > 0.005 {
			t.Errorf("n = %d: floor %v, the doc says %v", c.n, f, c.near)
		}
		if !(f > prev) {
			t.Errorf("n = %d: floor %v not above %v", c.n, f, prev)
		}
		prev = f
	}
}
