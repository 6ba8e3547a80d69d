package data

import (
	"fmt"
	"math"
	"sort"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// pkg/torch gives no access to its generators' raw bits; these functions
// draw them through torch.Randint, whose kernel is PyTorch's random_from_to:
// one 32-bit draw modulo the range when the range fits in 32 bits, else one
// 64-bit draw (two 32-bit draws, the first in the high half) modulo the
// range. The range [-2^63, 2^63-1) has 2^64-1 values, so its draws are the
// raw 64 bits but for the one value 2^64-1, which comes back as 0: a chance
// of 2^-64 per draw.

// random64 draws k 64-bit values from g (the default generator for nil),
// as k calls of PyTorch's random64.
func random64(op string, g *torch.Generator, k int) ([]uint64, error) {
	out := make([]uint64, k)
	if k == 0 {
		return out, nil
	}
	v, err := torch.ToSlice[int64](torch.Randint(math.MinInt64, math.MaxInt64, []int{k}, torch.WithGenerator(g)))
	if err != nil {
		return nil, fmt.Errorf("%s: drawing random numbers: %w", op, err)
	}
	for i, x := range v {
		out[i] = uint64(x) ^ 1<<63 // x is the draw plus -2^63, modulo 2^64
	}
	return out, nil
}

// drawSeed is torch.empty((), dtype=torch.int64).random_(generator=g): a
// 64-bit draw modulo 2^63, the seed PyTorch's samplers and loaders take
// from a generator.
func drawSeed(op string, g *torch.Generator) (uint64, error) {
	v, err := random64(op, g, 1)
	if err != nil {
		return 0, err
	}
	return v[0] & (1<<63 - 1), nil
}

// randint is torch.randint(high=n, size=(k,), generator=g): k 32-bit draws
// modulo n (0 < n < 2^32).
func randint(op string, g *torch.Generator, n, k int) ([]int, error) {
	v, err := torch.ToSlice[int64](torch.Randint(0, int64(n), []int{k}, torch.WithGenerator(g)))
	if err != nil {
		return nil, fmt.Errorf("%s: drawing random numbers: %w", op, err)
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out, nil
}

// randperm is torch.randperm(n, generator=g) on the CPU in PyTorch 1.13:
// the identity, then for i from 0 to n-2 a swap of i with i + z, where z is
// a 32-bit draw modulo n-i. The draws come two at a time from 64-bit draws
// (the first in the high half), the last one alone when n-1 is odd, so that
// g moves by n-1 draws as PyTorch's does.
func randperm(op string, n int, g *torch.Generator) ([]int, error) {
	if n < 0 || int64(n) >= 1<<32 {
		return nil, fmt.Errorf("%s: cannot permute %d elements", op, n)
	}
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	if n < 2 {
		return p, nil
	}
	pairs, err := random64(op, g, (n-1)/2)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n-1; i++ {
		var z int
		switch {
		case i/2 < len(pairs) && i%2 == 0:
			z = int((pairs[i/2] >> 32) % uint64(n-i))
		case i/2 < len(pairs):
			z = int((pairs[i/2] & math.MaxUint32) % uint64(n-i))
		default: // the last draw when n-1 is odd: a 32-bit draw modulo n-i
			v, err := randint(op, g, n-i, 1)
			if err != nil {
				return nil, err
			}
			z = v[0]
		}
		p[i], p[i+z] = p[i+z], p[i]
	}
	return p, nil
}

// uniform draws k doubles uniformly from [0, 1): PyTorch's
// uniform_real_distribution<double>, one 64-bit draw each.
func uniform(op string, g *torch.Generator, k int) ([]float64, error) {
	if k == 0 {
		return nil, nil
	}
	v, err := torch.ToSlice[float64](torch.Rand([]int{k}, torch.WithDType(torch.Float64), torch.WithGenerator(g)))
	if err != nil {
		return nil, fmt.Errorf("%s: drawing random numbers: %w", op, err)
	}
	return v, nil
}

// multinomial is torch.multinomial(w, k, replacement, generator=g) for a
// 1-D float64 w on the CPU in PyTorch 1.13. Without replacement it takes
// the k largest w[i] / e[i] (e[i] = -log(1 - u[i]), the exponential draws
// of exponential_), in decreasing order; with replacement (even for one
// sample: 1.13 has no fast path for it), it finds each of k uniform draws
// in the normalized cumulative sums by binary search. Go's math.Log may
// differ from glibc's log in the last bit, which could reorder two
// quotients within a rounding error of each other.
func multinomial(op string, w []float64, k int, replacement bool, g *torch.Generator) ([]int, error) {
	n := len(w)
	if n == 0 {
		return nil, fmt.Errorf("%s: the weights are empty", op)
	}
	if k <= 0 {
		return nil, fmt.Errorf("%s: cannot sample %d <= 0 samples", op, k)
	}
	if n > 1<<24 {
		return nil, fmt.Errorf("%s: number of categories cannot exceed 2^24", op)
	}
	if !replacement && k > n {
		return nil, fmt.Errorf("%s: cannot sample %d > %d weights without replacement", op, k, n)
	}
	sum := 0.0
	for i, x := range w {
		if !(x >= 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("%s: weight %d is %g: weights must be finite and non-negative", op, i, x)
		}
		sum += x
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		return nil, fmt.Errorf("%s: invalid multinomial distribution (sum of weights %g)", op, sum)
	}
	if !replacement {
		u, err := uniform(op, g, n)
		if err != nil {
			return nil, err
		}
		q := make([]float64, n)
		idx := make([]int, n)
		for i := range q {
			q[i] = w[i] / -math.Log(1-u[i])
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return q[idx[a]] > q[idx[b]] })
		return idx[:k], nil
	}
	cum := make([]float64, n)
	s := 0.0
	for i, x := range w {
		s += x
		cum[i] = s
	}
	for i := range cum {
		cum[i] /= s
	}
	cum[n-1] = 1
	u, err := uniform(op, g, k)
	if err != nil {
		return nil, err
	}
	out := make([]int, k)
	for j, x := range u {
		out[j] = sort.Search(n, func(i int) bool { return !(cum[i] < x) })
	}
	return out, nil
}
