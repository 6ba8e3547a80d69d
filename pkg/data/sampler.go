package data

import (
	"errors"
	"fmt"
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Sampler chooses the indices of one epoch, as torch.utils.data.Sampler.
// Each call of Indices is a new epoch: a random sampler draws again.
type Sampler interface {
	// Len is the number of indices an epoch has.
	Len() int
	// Indices returns the indices of the next epoch.
	Indices() ([]int, error)
}

// SequentialSampler is torch.utils.data.SequentialSampler: 0, 1, ..., N-1.
type SequentialSampler struct {
	N int // the number of items
}

// Len is N (0 for a nil sampler or a negative N).
func (s *SequentialSampler) Len() int {
	if s == nil || s.N < 0 {
		return 0
	}
	return s.N
}

// Indices returns 0 to N-1.
func (s *SequentialSampler) Indices() ([]int, error) {
	if s == nil {
		return nil, errors.New("data.SequentialSampler.Indices: nil sampler")
	}
	if s.N < 0 {
		return nil, fmt.Errorf("data.SequentialSampler.Indices: negative length %d", s.N)
	}
	out := make([]int, s.N)
	for i := range out {
		out[i] = i
	}
	return out, nil
}

// RandomOptions are the options of a RandomSampler.
type RandomOptions struct {
	// Replacement draws indices independently, as torch.randint, instead
	// of permutations.
	Replacement bool
	// NumSamples is the number of indices an epoch has; 0 means the number
	// of items.
	NumSamples int
	// Generator is the source of the draws. When nil, each epoch seeds a
	// new generator from the default generator, as PyTorch does.
	Generator *torch.Generator
}

// RandomSampler is torch.utils.data.RandomSampler: without replacement, a
// torch.randperm per N items (the last one cut to the number of samples
// left); with replacement, torch.randint draws in chunks of 32.
type RandomSampler struct {
	n   int
	opt RandomOptions
}

// NewRandomSampler makes a random sampler of n items.
func NewRandomSampler(n int, opt RandomOptions) (*RandomSampler, error) {
	const op = "data.NewRandomSampler"
	if n < 0 {
		return nil, fmt.Errorf("%s: negative length %d", op, n)
	}
	if opt.NumSamples < 0 {
		return nil, fmt.Errorf("%s: num_samples should be a positive integer value, but got num_samples=%d", op, opt.NumSamples)
	}
	if opt.NumSamples == 0 {
		opt.NumSamples = n
	}
	if opt.NumSamples == 0 {
		return nil, fmt.Errorf("%s: num_samples should be a positive integer value, but got num_samples=0 (no items)", op)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: cannot sample %d indices from no items", op, opt.NumSamples)
	}
	if int64(n) >= 1<<32 {
		return nil, fmt.Errorf("%s: %d items are more than 2^32-1", op, n)
	}
	return &RandomSampler{n: n, opt: opt}, nil
}

// Len is the number of samples.
func (s *RandomSampler) Len() int {
	if s == nil {
		return 0
	}
	return s.opt.NumSamples
}

// Indices draws the indices of an epoch.
func (s *RandomSampler) Indices() ([]int, error) {
	const op = "data.RandomSampler.Indices"
	if s == nil || s.n <= 0 {
		return nil, errors.New(op + ": nil sampler")
	}
	g := s.opt.Generator
	if g == nil {
		seed, err := drawSeed(op, nil)
		if err != nil {
			return nil, err
		}
		g = torch.NewGenerator(seed)
	}
	num := s.opt.NumSamples
	out := make([]int, 0, num)
	if s.opt.Replacement {
		for range num / 32 {
			v, err := randint(op, g, s.n, 32)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
		}
		v, err := randint(op, g, s.n, num%32)
		if err != nil {
			return nil, err
		}
		return append(out, v...), nil
	}
	for range num / s.n {
		p, err := randperm(op, s.n, g)
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	p, err := randperm(op, s.n, g)
	if err != nil {
		return nil, err
	}
	return append(out, p[:num%s.n]...), nil
}

// WeightedRandomSampler is torch.utils.data.WeightedRandomSampler: index i
// is drawn with probability proportional to weight i, by
// torch.multinomial's algorithms.
type WeightedRandomSampler struct {
	weights     []float64
	numSamples  int
	replacement bool
	gen         *torch.Generator
}

// NewWeightedRandomSampler makes a sampler of numSamples indices (at most
// len(weights) without replacement) drawn with the given weights, which
// must be finite, non-negative and not all zero. A nil g is the default
// generator.
func NewWeightedRandomSampler(weights []float64, numSamples int, replacement bool, g *torch.Generator) (*WeightedRandomSampler, error) {
	const op = "data.NewWeightedRandomSampler"
	if numSamples <= 0 {
		return nil, fmt.Errorf("%s: num_samples should be a positive integer value, but got num_samples=%d", op, numSamples)
	}
	if !replacement && numSamples > len(weights) {
		return nil, fmt.Errorf("%s: cannot sample %d > %d weights without replacement", op, numSamples, len(weights))
	}
	sum := 0.0
	for i, w := range weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("%s: weight %d is %g: weights must be finite and non-negative", op, i, w)
		}
		sum += w
	}
	if !(sum > 0) {
		return nil, fmt.Errorf("%s: the weights sum to %g: at least one must be positive", op, sum)
	}
	return &WeightedRandomSampler{weights: append([]float64(nil), weights...), numSamples: numSamples, replacement: replacement, gen: g}, nil
}

// Len is the number of samples.
func (s *WeightedRandomSampler) Len() int {
	if s == nil {
		return 0
	}
	return s.numSamples
}

// Indices draws the indices of an epoch.
func (s *WeightedRandomSampler) Indices() ([]int, error) {
	if s == nil || len(s.weights) == 0 {
		return nil, errors.New("data.WeightedRandomSampler.Indices: nil sampler")
	}
	return multinomial("data.WeightedRandomSampler.Indices", s.weights, s.numSamples, s.replacement, s.gen)
}

// BatchSampler is torch.utils.data.BatchSampler: the sampler's indices in
// batches of a size, the last batch smaller or dropped.
type BatchSampler struct {
	sampler   Sampler
	batchSize int
	dropLast  bool
}

// NewBatchSampler groups the indices of s in batches of batchSize (at
// least 1); dropLast drops a last, smaller batch.
func NewBatchSampler(s Sampler, batchSize int, dropLast bool) (*BatchSampler, error) {
	if s == nil {
		return nil, errors.New("data.NewBatchSampler: nil sampler")
	}
	if batchSize <= 0 {
		return nil, fmt.Errorf("data.NewBatchSampler: batch_size should be a positive integer value, but got batch_size=%d", batchSize)
	}
	return &BatchSampler{sampler: s, batchSize: batchSize, dropLast: dropLast}, nil
}

// Len is the number of batches of an epoch.
func (b *BatchSampler) Len() int {
	if b == nil || b.sampler == nil || b.batchSize <= 0 {
		return 0
	}
	n := max(b.sampler.Len(), 0)
	if b.dropLast {
		return n / b.batchSize
	}
	return (n + b.batchSize - 1) / b.batchSize
}

// Batches returns the batches of the next epoch.
func (b *BatchSampler) Batches() ([][]int, error) {
	if b == nil || b.sampler == nil || b.batchSize <= 0 {
		return nil, errors.New("data.BatchSampler.Batches: nil sampler")
	}
	idx, err := b.sampler.Indices()
	if err != nil {
		return nil, err
	}
	var out [][]int
	for at := 0; at < len(idx); at += b.batchSize {
		end := min(at+b.batchSize, len(idx))
		if end-at < b.batchSize && b.dropLast {
			break
		}
		out = append(out, idx[at:end:end])
	}
	return out, nil
}
