package torch_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestIndexPutInPlace checks that IndexPut_ writes into t's own storage,
// through a view or a copy of a layout it cannot view flat, and records
// the write for autograd (expected values from PyTorch 1.13).
func TestIndexPutInPlace(t *testing.T) {
	rows := torch.FromSlice([]int64{0, 2, 0})
	cols := torch.FromSlice([]int64{1, 3, 1})
	vals := torch.FromSlice([]float64{1, 2, 3})
	for _, c := range []struct {
		name string
		x    func() *torch.Tensor
	}{
		{"contiguous", func() *torch.Tensor { return torch.Zeros([]int{3, 4}, torch.WithDType(torch.Float64)) }},
		{"transposed", func() *torch.Tensor { return torch.Zeros([]int{4, 3}, torch.WithDType(torch.Float64)).T() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := c.x()
			ptr, _ := x.DataPtr()
			version := x.Version()
			if r := x.IndexPut_([]*torch.Tensor{rows, cols}, vals, true); r != x {
				t.Fatalf("IndexPut_ returned %v (err %v), not x", r, r.Err())
			}
			want := []float64{0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
			if diff := cmp.Diff(want, values(t, x)); diff != "" {
				t.Errorf("accumulate (-want +got):\n%s", diff)
			}
			if now, _ := x.DataPtr(); now != ptr || x.Version() == version {
				t.Errorf("x moved (%v) or its version stayed %d", now != ptr, version)
			}
		})
	}

	// Gradients: x's flow where nothing was written, the values' from
	// where they went.
	x := torch.Arange(12, torch.WithDType(torch.Float64)).View(3, 4).RequiresGrad_(true)
	v := torch.FromSlice([]float64{-1, -2}).RequiresGrad_(true)
	y := x.MulScalar(1)
	y.IndexPut_([]*torch.Tensor{torch.FromSlice([]int64{0, 2}), torch.FromSlice([]int64{1, 1})}, v, false)
	weights := torch.Arange(12, torch.WithDType(torch.Float64)).View(3, 4)
	if err := y.Mul(weights).Sum().Backward(); err != nil {
		t.Fatalf("Backward: %v", err)
	}
	if diff := cmp.Diff([]float64{0, 0, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11}, values(t, x.Grad())); diff != "" {
		t.Errorf("x's gradient (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 9}, values(t, v.Grad())); diff != "" {
		t.Errorf("the values' gradient (-want +got):\n%s", diff)
	}

	one := torch.Scalar(1.0, torch.WithDType(torch.Float64))
	idx := []*torch.Tensor{torch.FromSlice([]int64{0})}
	for _, c := range []struct {
		name string
		err  error
		run  func() *torch.Tensor
	}{
		{"expanded", torch.ErrArgument, func() *torch.Tensor {
			return torch.Zeros([]int{1, 4}, torch.WithDType(torch.Float64)).Expand(3, 4).IndexPut_(idx, one, false)
		}},
		{"leaf", torch.ErrAutograd, func() *torch.Tensor {
			return torch.Zeros([]int{3}, torch.WithDType(torch.Float64)).RequiresGrad_(true).IndexPut_(idx, one, false)
		}},
		{"nil index", torch.ErrArgument, func() *torch.Tensor {
			return torch.Zeros([]int{3}, torch.WithDType(torch.Float64)).IndexPut_([]*torch.Tensor{nil}, one, false)
		}},
		{"no index", torch.ErrIndex, func() *torch.Tensor {
			return torch.Zeros([]int{3}, torch.WithDType(torch.Float64)).IndexPut_(nil, one, false)
		}},
		{"float index", torch.ErrIndex, func() *torch.Tensor {
			return torch.Zeros([]int{3}, torch.WithDType(torch.Float64)).IndexPut_([]*torch.Tensor{one}, one, false)
		}},
	} {
		if err := c.run().Err(); !errors.Is(err, c.err) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
		}
	}

	meta := torch.Empty([]int{3, 4}, torch.WithDevice("meta"))
	mask := torch.Empty([]int{3}, torch.WithDevice("meta"), torch.WithDType(torch.Bool))
	if r := meta.IndexPut_([]*torch.Tensor{mask}, torch.Empty([]int{4}, torch.WithDevice("meta")), false); r != meta {
		t.Errorf("IndexPut_ on meta: %v (err %v)", r, r.Err())
	}
	bad := meta.IndexPut_([]*torch.Tensor{torch.Empty([]int{2}, torch.WithDevice("meta"), torch.WithDType(torch.Int64))},
		torch.Empty([]int{3}, torch.WithDevice("meta")), false)
	if !errors.Is(bad.Err(), torch.ErrShape) {
		t.Errorf("IndexPut_ on meta with values of the wrong shape: err = %v, want ErrShape", bad.Err())
	}
}

// TestIndexMany checks t[i, j] reading: its gradient counts how often each
// element was picked, and the meta device gives the shape.
func TestIndexMany(t *testing.T) {
	x := torch.Arange(12, torch.WithDType(torch.Float64)).View(3, 4).RequiresGrad_(true)
	rows := torch.FromSlice([]int64{0, 2, 0, -1}).View(2, 2)
	cols := torch.FromSlice([]int64{1, 3})
	y := x.Index(rows, cols)
	if !cmp.Equal(y.Shape(), []int{2, 2}) {
		t.Fatalf("shape %v (err %v), want [2 2]", y.Shape(), y.Err())
	}
	if diff := cmp.Diff([]float64{1, 11, 1, 11}, values(t, y)); diff != "" {
		t.Errorf("x[rows, cols] (-want +got):\n%s", diff)
	}
	if err := y.Sum().Backward(); err != nil {
		t.Fatalf("Backward: %v", err)
	}
	if diff := cmp.Diff([]float64{0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, values(t, x.Grad())); diff != "" {
		t.Errorf("gradient (-want +got):\n%s", diff)
	}
	if x.Index() != x {
		t.Error("Index() should be t itself, as t[()]")
	}
	meta := torch.WithDevice("meta")
	m := torch.Empty([]int{3, 4, 5}, meta).Index(torch.Empty([]int{2, 1}, meta, torch.WithDType(torch.Int64)),
		torch.Empty([]int{3}, meta, torch.WithDType(torch.Int64)))
	if m.Err() != nil || !cmp.Equal(m.Shape(), []int{2, 3, 5}) || !m.IsMeta() {
		t.Errorf("meta: %v %v (err %v), want meta [2 3 5]", m.Device(), m.Shape(), m.Err())
	}
}
