package cpu

import "sync"

// DefaultSeed is the seed of PyTorch's default CPU generator.
const DefaultSeed = 67280421310721

// Generator is PyTorch's CPU random generator: a 32-bit Mersenne Twister
// (mt19937) and the cached second samples of Box-Muller pairs. With the
// same seed it draws the same numbers PyTorch's does. It implements
// kernel.Random; random kernels hold its lock while they draw. The zero
// Generator is ready to use: Lock seeds it with DefaultSeed, as PyTorch's
// torch.Generator() starts.
type Generator struct {
	mu      sync.Mutex
	seeded  bool // Seed was called (or SetState gave a seeded state)
	seed    uint64
	state   [624]uint32
	next    int
	normalF float64
	hasF    bool
	normalD float64
	hasD    bool
	philox  map[int]uint64 // the devices' counter offsets (PhiloxInputs)
}

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed uint64) *Generator {
	g := &Generator{}
	g.Seed(seed)
	return g
}

// Seed restarts the sequence from seed (only its low 32 bits seed the
// twister, as in PyTorch), drops cached normal samples and restarts every
// device's counter-based stream at offset 0 (torch.manual_seed seeds every
// device's generator).
func (g *Generator) Seed(seed uint64) {
	g.seeded, g.seed, g.philox = true, seed, nil
	g.state[0] = uint32(seed)
	for j := 1; j < len(g.state); j++ {
		p := g.state[j-1]
		g.state[j] = 1812433253*(p^(p>>30)) + uint32(j)
	}
	g.next = len(g.state)
	g.hasF, g.hasD = false, false
}

// InitialSeed is the seed last set (DefaultSeed for a zero Generator).
func (g *Generator) InitialSeed() uint64 {
	if !g.seeded {
		return DefaultSeed
	}
	return g.seed
}

func (g *Generator) twist() {
	const n, m = 624, 397
	s := &g.state
	// The three ranges of the standard twist, where i+1 and i+m wrap at
	// known places (no modulo per element).
	for i := 0; i < n-m; i++ {
		s[i] = twisted(s[i], s[i+1], s[i+m])
	}
	for i := n - m; i < n-1; i++ {
		s[i] = twisted(s[i], s[i+1], s[i+m-n])
	}
	s[n-1] = twisted(s[n-1], s[0], s[m-1])
	g.next = 0
}

// twisted is one step of mt19937's recurrence: the new value of a word
// from it, the next word and the word m ahead.
func twisted(cur, next, ahead uint32) uint32 {
	const upper, lower, matrix = 0x80000000, 0x7fffffff, 0x9908b0df
	y := cur&upper | next&lower
	v := ahead ^ y>>1
	if y&1 != 0 {
		v ^= matrix
	}
	return v
}

// Uint32 is the next 32 random bits.
func (g *Generator) Uint32() uint32 {
	if g.next >= len(g.state) {
		g.twist()
	}
	y := g.state[g.next]
	g.next++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Uint64 is two draws, the first one high, as PyTorch's random64.
func (g *Generator) Uint64() uint64 {
	hi := g.Uint32()
	lo := g.Uint32()
	return uint64(hi)<<32 | uint64(lo)
}

// NextNormal returns and clears the cached normal sample of the precision.
func (g *Generator) NextNormal(double bool) (float64, bool) {
	if double {
		v, ok := g.normalD, g.hasD
		g.hasD = false
		return v, ok
	}
	v, ok := g.normalF, g.hasF
	g.hasF = false
	return v, ok
}

// SetNextNormal caches the second sample of a Box-Muller pair.
func (g *Generator) SetNextNormal(double bool, v float64) {
	if double {
		g.normalD, g.hasD = v, true
	} else {
		g.normalF, g.hasF = v, true
	}
}

// Lock serialises the use of the generator; it seeds a zero Generator
// with DefaultSeed, so that draws under the lock are PyTorch's.
func (g *Generator) Lock() {
	g.mu.Lock()
	if !g.seeded {
		g.Seed(DefaultSeed)
	}
}

// Unlock ends a Lock.
func (g *Generator) Unlock() { g.mu.Unlock() }

// PhiloxInputs implements kernel.Philox: the generator's seed (all 64 bits,
// as the NPU generator keeps it) and the offset of device's stream, which
// it advances by increment rounded up to a multiple of 4. The caller holds
// the lock.
func (g *Generator) PhiloxInputs(device int, increment uint64) (seed, offset uint64) {
	if g.philox == nil {
		g.philox = make(map[int]uint64)
	}
	offset = g.philox[device]
	g.philox[device] = offset + (increment+3)/4*4
	return g.InitialSeed(), offset
}

// State returns a copy of the generator's state, for GetState/SetState:
// the CPU stream's, as torch.get_rng_state (the devices' offsets stay).
func (g *Generator) State() Generator {
	g.Lock()
	defer g.Unlock()
	return Generator{seeded: g.seeded, seed: g.seed, state: g.state, next: g.next, normalF: g.normalF, hasF: g.hasF, normalD: g.normalD, hasD: g.hasD}
}

// SetState restores a state taken by State.
func (g *Generator) SetState(s *Generator) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seeded, g.seed, g.state, g.next = s.seeded, s.seed, s.state, s.next
	g.normalF, g.hasF, g.normalD, g.hasD = s.normalF, s.hasF, s.normalD, s.hasD
}
