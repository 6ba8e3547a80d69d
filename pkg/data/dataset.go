package data

import (
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Dataset is a map-style data set, as torch.utils.data.Dataset: Len items,
// read one at a time by index from 0 to Len()-1. A Loader with workers calls
// Get from several goroutines at once.
type Dataset[T any] interface {
	// Len is the number of items.
	Len() int
	// Get returns item i, or why it cannot.
	Get(i int) (T, error)
}

// IterableDataset is a stream of items, as torch.utils.data.IterableDataset:
// All yields the items in order, and an error to stop early.
type IterableDataset[T any] interface {
	All() iter.Seq2[T, error]
}

// indexError is the error of an index outside [0, n).
func indexError(op string, i, n int) error {
	return fmt.Errorf("%s: index %d is out of range for %d items", op, i, n)
}

// TensorDataset is torch.utils.data.TensorDataset: tensors that share their
// first dimension, whose item i holds the i-th row of each (views, in the
// tensors' order).
type TensorDataset struct {
	tensors []*torch.Tensor
	n       int
}

// NewTensorDataset makes the dataset of tensors, which must be valid, have
// at least one dimension and have the same size in the first.
func NewTensorDataset(tensors ...*torch.Tensor) (*TensorDataset, error) {
	if len(tensors) == 0 {
		return nil, errors.New("data.NewTensorDataset: no tensors")
	}
	n := 0
	for i, t := range tensors {
		if t == nil {
			return nil, fmt.Errorf("data.NewTensorDataset: tensor %d is nil", i)
		}
		if err := t.Err(); err != nil {
			return nil, fmt.Errorf("data.NewTensorDataset: tensor %d: %w", i, err)
		}
		if t.Dim() == 0 {
			return nil, fmt.Errorf("data.NewTensorDataset: tensor %d has no dimensions", i)
		}
		if i == 0 {
			n = t.Shape()[0]
		} else if t.Shape()[0] != n {
			return nil, fmt.Errorf("data.NewTensorDataset: size mismatch between tensors: tensor 0 has %d rows, tensor %d has %d", n, i, t.Shape()[0])
		}
	}
	return &TensorDataset{tensors: append([]*torch.Tensor(nil), tensors...), n: n}, nil
}

// Len is the size of the tensors' first dimension (0 for nil).
func (d *TensorDataset) Len() int {
	if d == nil {
		return 0
	}
	return d.n
}

// Get returns row i of each tensor.
func (d *TensorDataset) Get(i int) ([]*torch.Tensor, error) {
	if d == nil {
		return nil, errors.New("data.TensorDataset.Get: nil dataset")
	}
	if i < 0 || i >= d.n {
		return nil, indexError("data.TensorDataset.Get", i, d.n)
	}
	out := make([]*torch.Tensor, len(d.tensors))
	for j, t := range d.tensors {
		out[j] = t.Select(0, i)
		if err := out[j].Err(); err != nil {
			return nil, fmt.Errorf("data.TensorDataset.Get: tensor %d: %w", j, err)
		}
	}
	return out, nil
}

// Tensors returns the dataset's tensors.
func (d *TensorDataset) Tensors() []*torch.Tensor {
	if d == nil {
		return nil
	}
	return append([]*torch.Tensor(nil), d.tensors...)
}

// Subset is torch.utils.data.Subset: the items of Dataset at Indices, in
// that order. Indices are checked when read.
type Subset[T any] struct {
	Dataset Dataset[T]
	Indices []int
}

// Len is the number of indices.
func (s *Subset[T]) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Indices)
}

// Get returns item Indices[i] of the dataset.
func (s *Subset[T]) Get(i int) (T, error) {
	var zero T
	if s == nil || s.Dataset == nil {
		return zero, errors.New("data.Subset.Get: nil dataset")
	}
	if i < 0 || i >= len(s.Indices) {
		return zero, indexError("data.Subset.Get", i, len(s.Indices))
	}
	return s.Dataset.Get(s.Indices[i])
}

// ConcatDataset is torch.utils.data.ConcatDataset: datasets one after the
// other.
type ConcatDataset[T any] struct {
	datasets []Dataset[T]
	ends     []int // ends[k]: the items of datasets[:k+1]
}

// NewConcatDataset concatenates datasets, of which there must be at least
// one.
func NewConcatDataset[T any](datasets ...Dataset[T]) (*ConcatDataset[T], error) {
	if len(datasets) == 0 {
		return nil, errors.New("data.NewConcatDataset: datasets should not be an empty list")
	}
	c := &ConcatDataset[T]{datasets: append([]Dataset[T](nil), datasets...)}
	total := 0
	for k, d := range datasets {
		if d == nil {
			return nil, fmt.Errorf("data.NewConcatDataset: dataset %d is nil", k)
		}
		n := d.Len()
		if n < 0 || total > math.MaxInt-n {
			return nil, fmt.Errorf("data.NewConcatDataset: dataset %d has length %d", k, n)
		}
		total += n
		c.ends = append(c.ends, total)
	}
	return c, nil
}

// Len is the total number of items.
func (c *ConcatDataset[T]) Len() int {
	if c == nil || len(c.ends) == 0 {
		return 0
	}
	return c.ends[len(c.ends)-1]
}

// Get returns item i of the concatenation.
func (c *ConcatDataset[T]) Get(i int) (T, error) {
	var zero T
	if c == nil {
		return zero, errors.New("data.ConcatDataset.Get: nil dataset")
	}
	if i < 0 || i >= c.Len() {
		return zero, indexError("data.ConcatDataset.Get", i, c.Len())
	}
	start := 0
	for k, end := range c.ends {
		if i < end {
			return c.datasets[k].Get(i - start)
		}
		start = end
	}
	return zero, indexError("data.ConcatDataset.Get", i, c.Len())
}

// RandomSplit is torch.utils.data.random_split with lengths: it splits ds
// into subsets of the given lengths, which must sum to ds.Len(), taking the
// indices of torch.randperm(ds.Len(), generator=g) in turn. A nil g is the
// default generator.
func RandomSplit[T any](ds Dataset[T], lengths []int, g *torch.Generator) ([]*Subset[T], error) {
	return randomSplit("data.RandomSplit", ds, lengths, g)
}

// RandomSplitFractions is torch.utils.data.random_split with fractions,
// which must be in [0, 1] and sum to 1: each subset has
// floor(ds.Len() * fraction) items, and the items left over go one by one
// to the subsets from the first, as PyTorch's.
func RandomSplitFractions[T any](ds Dataset[T], fractions []float64, g *torch.Generator) ([]*Subset[T], error) {
	const op = "data.RandomSplitFractions"
	if ds == nil {
		return nil, errors.New(op + ": nil dataset")
	}
	if len(fractions) == 0 {
		return nil, errors.New(op + ": no fractions")
	}
	sum := 0.0
	for _, f := range fractions {
		sum += f
	}
	// math.isclose(sum, 1) and sum <= 1, as PyTorch asks.
	if !(math.Abs(sum-1) <= 1e-9*math.Max(math.Abs(sum), 1)) || sum > 1 {
		return nil, fmt.Errorf("%s: the fractions sum to %g, not 1", op, sum)
	}
	n := ds.Len()
	lengths := make([]int, len(fractions))
	left := n
	for i, f := range fractions {
		if !(f >= 0 && f <= 1) {
			return nil, fmt.Errorf("%s: fraction at index %d is not between 0 and 1", op, i)
		}
		lengths[i] = int(math.Floor(float64(n) * f))
		left -= lengths[i]
	}
	for i := 0; i < left; i++ {
		lengths[i%len(lengths)]++
	}
	return randomSplit(op, ds, lengths, g)
}

func randomSplit[T any](op string, ds Dataset[T], lengths []int, g *torch.Generator) ([]*Subset[T], error) {
	if ds == nil {
		return nil, errors.New(op + ": nil dataset")
	}
	total := 0
	for i, n := range lengths {
		if n < 0 {
			return nil, fmt.Errorf("%s: length at index %d is negative (%d)", op, i, n)
		}
		if total > math.MaxInt-n {
			return nil, fmt.Errorf("%s: the lengths overflow", op)
		}
		total += n
	}
	if total != ds.Len() {
		return nil, fmt.Errorf("%s: sum of input lengths (%d) does not equal the length of the input dataset (%d)", op, total, ds.Len())
	}
	perm, err := randperm(op, total, g)
	if err != nil {
		return nil, err
	}
	out := make([]*Subset[T], len(lengths))
	at := 0
	for i, n := range lengths {
		out[i] = &Subset[T]{Dataset: ds, Indices: perm[at : at+n : at+n]}
		at += n
	}
	return out, nil
}
