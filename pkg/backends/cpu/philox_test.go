package cpu

import "testing"

// TestPhiloxInputs: each device's offset starts at 0 and advances by the
// increment rounded up to a multiple of 4; devices are independent; Seed
// restarts them all and the seed is all 64 bits of the generator's.
func TestPhiloxInputs(t *testing.T) {
	g := new(Generator)
	g.Lock()
	defer g.Unlock()
	for _, c := range []struct {
		dev       int
		inc, want uint64
	}{{0, 10, 0}, {0, 4, 12}, {1, 1, 0}, {0, 0, 16}, {1, 8, 4}, {0, 5, 16}} {
		seed, off := g.PhiloxInputs(c.dev, c.inc)
		if seed != DefaultSeed || off != c.want {
			t.Errorf("device %d, increment %d: seed %d offset %d, want %d and %d", c.dev, c.inc, seed, off, uint64(DefaultSeed), c.want)
		}
	}
	g.Seed(1<<40 + 3)
	if seed, off := g.PhiloxInputs(0, 4); seed != 1<<40+3 || off != 0 {
		t.Errorf("after Seed: seed %d offset %d", seed, off)
	}
	s := g.state
	if _, off := g.PhiloxInputs(0, 4); off != 4 || g.state != s {
		t.Errorf("the device stream moved the CPU's or did not advance (offset %d)", off)
	}
}
