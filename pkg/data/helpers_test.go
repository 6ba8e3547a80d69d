package data

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// rangeDataset is the dataset of 0, 1, ..., n-1.
type rangeDataset int

func (r rangeDataset) Len() int { return int(r) }

func (r rangeDataset) Get(i int) (int, error) {
	if i < 0 || i >= int(r) {
		return 0, indexError("rangeDataset.Get", i, int(r))
	}
	return i, nil
}

// arangeDataset is TensorDataset(arange(n), arange(n) * 10).
func arangeDataset(t *testing.T, n int) *TensorDataset {
	t.Helper()
	a := torch.Arange(n)
	ds, err := NewTensorDataset(a, a.MulScalar(10))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// ints reads an integer tensor.
func ints(t *testing.T, x *torch.Tensor) []int {
	t.Helper()
	v, err := torch.ToSlice[int64](x)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, len(v))
	for i, e := range v {
		out[i] = int(e)
	}
	return out
}
