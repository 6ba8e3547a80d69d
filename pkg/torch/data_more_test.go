package torch_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// dleaf is a float64 leaf requiring gradients with distinct values.
func dleaf(shape ...int) *torch.Tensor {
	return torch.Randn(shape, torch.WithDType(torch.Float64)).RequiresGrad_(true)
}

func longs(v ...int64) *torch.Tensor { return torch.FromSlice(v) }

func masks(v ...bool) *torch.Tensor { return torch.FromSlice(v) }

// The derivatives of the composite data ops agree with finite differences.
func TestDataOpsGradCheck(t *testing.T) {
	mask := masks(true, false, true, true)
	one := func(v int) *int { return &v }
	cases := []struct {
		name   string
		f      func(in ...*torch.Tensor) *torch.Tensor
		inputs []*torch.Tensor
	}{
		{"take", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Take(torch.FromSlice([]int64{0, -1, 5, 5}, torch.WithShape(2, 2)))
		}, []*torch.Tensor{dleaf(3, 4)}},
		{"take transposed", func(in ...*torch.Tensor) *torch.Tensor { return in[0].T().Take(longs(1, 2)) }, []*torch.Tensor{dleaf(3, 4)}},
		{"index_fill scalar", func(in ...*torch.Tensor) *torch.Tensor { return in[0].IndexFill(1, longs(0, -1, 0), 2.5) },
			[]*torch.Tensor{dleaf(3, 4)}},
		{"index_fill tensor", func(in ...*torch.Tensor) *torch.Tensor { return in[0].IndexFill(0, longs(1, 1), in[1]) },
			[]*torch.Tensor{dleaf(3, 4), dleaf()}},
		{"index_fill_ tensor", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(1).IndexFill_(1, longs(2), in[1])
		}, []*torch.Tensor{dleaf(3, 4), dleaf()}},
		{"index_copy", func(in ...*torch.Tensor) *torch.Tensor { return in[0].IndexCopy(1, longs(3, 0), in[1]) },
			[]*torch.Tensor{dleaf(3, 4), dleaf(3, 2)}},
		{"index_copy_", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(2).IndexCopy_(0, longs(2), in[1])
		}, []*torch.Tensor{dleaf(3, 4), dleaf(1, 4)}},
		{"index_copy 0-dim", func(in ...*torch.Tensor) *torch.Tensor { return in[0].IndexCopy(0, longs(0), in[1]) },
			[]*torch.Tensor{dleaf(), dleaf()}},
		{"masked_scatter", func(in ...*torch.Tensor) *torch.Tensor { return in[0].MaskedScatter(mask, in[1]) },
			[]*torch.Tensor{dleaf(3, 4), dleaf(2, 7)}},
		{"masked_scatter broadcast", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MaskedScatter(torch.FromSlice([]bool{true, false}, torch.WithShape(2, 1)), in[1])
		}, []*torch.Tensor{dleaf(3), dleaf(4)}},
		{"masked_scatter_", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(1).MaskedScatter_(mask, in[1])
		}, []*torch.Tensor{dleaf(3, 4), dleaf(9)}},
		{"masked_fill tensor", func(in ...*torch.Tensor) *torch.Tensor { return in[0].MaskedFillTensor(mask, in[1]) },
			[]*torch.Tensor{dleaf(3, 4), dleaf()}},
		{"masked_fill_ tensor", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(1).MaskedFillTensor_(mask, in[1])
		}, []*torch.Tensor{dleaf(3, 4), dleaf()}},
		{"where scalar", func(in ...*torch.Tensor) *torch.Tensor {
			return torch.WhereScalar(mask, in[0], 2.5).Add(torch.WhereScalar(mask, 1, in[0]))
		}, []*torch.Tensor{dleaf(3, 4)}},
		{"repeat_interleave tensor", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].RepeatInterleaveTensor(longs(1, 0, 3), one(1)).Add(in[0].RepeatInterleaveTensor(longs(2), nil).Narrow(0, 0, 4).Sum())
		}, []*torch.Tensor{dleaf(2, 3)}},
		{"at", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].At(longs(0, 2), torch.Colon, torch.FromSlice([]int64{1, -1}, torch.WithShape(2, 1)))
		}, []*torch.Tensor{dleaf(3, 2, 4)}},
		{"at adjacent", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].At(torch.NewAxis, torch.Colon, longs(1, 1), torch.Slice(1, 4, 2))
		}, []*torch.Tensor{dleaf(3, 2, 4)}},
		{"at mask", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].At(torch.Ellipsis, mask)
		}, []*torch.Tensor{dleaf(2, 4)}},
		{"set_at", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(1).SetAt(in[1], longs(0, 2), torch.Colon, longs(1, 3))
		}, []*torch.Tensor{dleaf(3, 2, 4), dleaf(2, 2)}},
		{"set_at basic", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(1).SetAt(in[1], 1, torch.SliceFrom(1))
		}, []*torch.Tensor{dleaf(3, 4), dleaf(3)}},
		{"index_put_at accumulate", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(1).IndexPutAt_([]any{torch.Colon, longs(1, 1)}, in[1], true)
		}, []*torch.Tensor{dleaf(3, 4), dleaf(3, 2)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := torch.GradCheck(tc.f, tc.inputs, torch.GradCheckOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
}

// The composite ops record PyTorch's node names.
func TestDataOpsGradFnNames(t *testing.T) {
	x := dleaf(3, 4)
	v := dleaf()
	mask := masks(true, false, true, true)
	for want, y := range map[string]*torch.Tensor{
		"TakeBackward0":          x.Take(longs(0)),
		"IndexFillBackward0":     x.IndexFill(0, longs(0), 1),
		"IndexFillBackward1":     x.IndexFill(0, longs(0), v),
		"IndexCopyBackward0":     x.IndexCopy(0, longs(0), dleaf(1, 4)),
		"MaskedScatterBackward0": x.MaskedScatter(mask, dleaf(12)),
		"MaskedFillBackward1":    x.MaskedFillTensor(mask, v),
		"IndexSelectBackward0":   x.RepeatInterleaveTensor(longs(1, 2, 0), new(int)),
		"WhereBackward0":         torch.WhereScalar(mask, x, 0),
	} {
		if err := y.Err(); err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		if got := y.GradFn().Name(); got != want {
			t.Errorf("grad_fn %s, want %s", got, want)
		}
	}
	y := x.MulScalar(1).IndexFill_(1, longs(0), v)
	if got := y.GradFn().Name(); got != "IndexFillBackward1" {
		t.Errorf("index_fill_: grad_fn %s", got)
	}
}

// Unique has no derivative: its values carry a node that fails when a
// backward pass reaches it, as PyTorch's.
func TestUniqueHasNoDerivative(t *testing.T) {
	x := dleaf(4, 2)
	v, _, _ := x.UniqueDim(0, false, false)
	if v.GradFn() == nil || v.GradFn().Name() != "UniqueDimBackward0" {
		t.Fatalf("grad_fn %v", v.GradFn())
	}
	if err := v.Sum().Backward(); err == nil {
		t.Fatal("backward through unique_dim succeeded")
	}
	c, _, _ := x.UniqueConsecutive(false, false, nil)
	if c.GradFn().Name() != "UniqueConsecutiveBackward0" {
		t.Fatalf("grad_fn %s", c.GradFn().Name())
	}
}

// Writing in place into a leaf that requires grad is refused, as PyTorch.
func TestDataInPlaceLeafRefused(t *testing.T) {
	x := dleaf(3, 4)
	for name, r := range map[string]func() *torch.Tensor{
		"index_fill_":     func() *torch.Tensor { return dleaf(3, 4).IndexFill_(0, longs(0), 1) },
		"index_copy_":     func() *torch.Tensor { return dleaf(3, 4).IndexCopy_(0, longs(0), dleaf(1, 4)) },
		"masked_scatter_": func() *torch.Tensor { return dleaf(3, 4).MaskedScatter_(masks(true, false, true, true), dleaf(12)) },
		"set_at":          func() *torch.Tensor { return dleaf(3, 4).SetAt(1.0, longs(0)) },
	} {
		if err := r().Err(); !errors.Is(err, torch.ErrAutograd) {
			t.Errorf("%s: %v", name, err)
		}
	}
	_ = x
}

// Each op names itself in its errors, passes on a failed input's error and
// never panics on a nil tensor or an absurd index.
func TestDataOpsBadInputs(t *testing.T) {
	x := torch.Ones([]int{3, 4})
	bad := torch.Ones([]int{2}).Add(torch.Ones([]int{3}))
	huge := longs(1 << 62)
	one := func(v int) *int { return &v }
	tuple := func(ts []*torch.Tensor, err error) *torch.Tensor {
		if err != nil {
			return torch.Failed(err)
		}
		return ts[0]
	}
	first := func(a, b, c *torch.Tensor) *torch.Tensor { return a }
	for _, c := range []struct {
		name, op string
		r        *torch.Tensor
	}{
		{"take nil", "take", x.Take(nil)},
		{"take huge", "take", x.Take(huge)},
		{"index_fill nil", "index_fill", (*torch.Tensor)(nil).IndexFill(0, longs(0), 1)},
		{"index_fill huge", "index_fill", x.IndexFill(0, huge, 1)},
		{"index_fill bad value", "index_fill", x.IndexFill(0, longs(0), "x")},
		{"index_fill_ huge", "index_fill_", x.Clone().IndexFill_(0, huge, 1)},
		{"index_copy huge", "index_copy", x.IndexCopy(0, huge, torch.Ones([]int{1, 4}))},
		{"index_copy_ nil", "index_copy_", x.Clone().IndexCopy_(0, longs(0), nil)},
		{"masked_scatter nil", "masked_scatter", x.MaskedScatter(nil, x)},
		{"masked_scatter int mask", "masked_scatter", x.MaskedScatter(longs(1, 0, 1, 0), x)},
		{"masked_fill tensor nil", "masked_fill", x.MaskedFillTensor(masks(true), nil)},
		{"masked_fill tensor int mask", "masked_fill", x.MaskedFillTensor(longs(1), torch.Scalar(1.0))},
		{"where nil", "where", torch.WhereScalar(nil, 1, 2)},
		{"where bad scalar", "where", torch.WhereScalar(masks(true), "a", 2)},
		{"searchsorted nil", "searchsorted", torch.SearchsortedWith(nil, x, torch.SearchsortedOptions{})},
		{"searchsorted sorter oob", "searchsorted", torch.SearchsortedWith(torch.FromSlice([]float32{3, 1}), x,
			torch.SearchsortedOptions{Sorter: longs(1, 2)})},
		{"searchsorted sorter negative", "searchsorted", torch.SearchsortedWith(torch.FromSlice([]float32{3, 1}), x,
			torch.SearchsortedOptions{Sorter: longs(1, -1)})},
		{"searchsorted scalar bad", "searchsorted", torch.SearchsortedScalar(torch.FromSlice([]float32{3, 1}), struct{}{},
			torch.SearchsortedOptions{})},
		{"bucketize nil", "bucketize", torch.Bucketize(x, nil, false, false)},
		{"repeat_interleave huge", "repeat_interleave", x.RepeatInterleaveTensor(longs(1<<40), nil)},
		{"repeat_interleave nil", "repeat_interleave", torch.RepeatInterleaveIndex(nil)},
		{"unique_dim bad dim", "unique_dim", first(x.UniqueDim(5, true, true))},
		{"unique_consecutive nil", "unique_consecutive", first((*torch.Tensor)(nil).UniqueConsecutive(true, true, one(0)))},
		{"nonzero nil", "nonzero", tuple((*torch.Tensor)(nil).NonzeroTuple())},
		{"at nil item", "index", x.At(nil)},
		{"at string", "index", x.At("a")},
		{"at zero item", "index", x.At(torch.IndexItem{})},
		{"at huge int", "index", x.At(1 << 62)},
		{"at huge tensor", "index", x.At(torch.Colon, huge)},
		{"at nil tensor", "index", x.At((*torch.Tensor)(nil))},
		{"at step 0", "index", x.At(torch.Slice(0, 2, 0))},
		{"set_at huge", "index_put_", x.Clone().SetAt(1.0, huge)},
		{"set_at nil value", "index_put_", x.Clone().SetAt((*torch.Tensor)(nil), 0)},
	} {
		err := c.r.Err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.op) {
			t.Errorf("%s: error does not name %s: %v", c.name, c.op, err)
		}
	}
	// A failed input's error is passed on unchanged.
	for name, r := range map[string]*torch.Tensor{
		"take":           bad.Take(longs(0)),
		"index_fill":     x.IndexFill(0, bad, 1),
		"masked_scatter": x.MaskedScatter(masks(true), bad),
		"at":             bad.At(0),
		"at index":       x.At(bad),
		"where":          torch.WhereScalar(masks(true), bad, 1),
		"searchsorted":   torch.Searchsorted(bad, x, false),
	} {
		if !errors.Is(r.Err(), torch.ErrShape) || !strings.Contains(r.Err().Error(), "add") {
			t.Errorf("%s: %v", name, r.Err())
		}
	}
}

// PyTorch 2.x forms that 1.13 (the golden data's version) lacks.
func TestDataPyTorch2Forms(t *testing.T) {
	x := torch.Arange(12, torch.WithDType(torch.Float32)).Reshape(3, 4)
	// int32 index tensors index (2.x; 1.13 refused them).
	got := x.At(torch.Colon, torch.FromSlice([]int32{3, -4}))
	want := torch.FromSlice([]float32{3, 0, 7, 4, 11, 8}, torch.WithShape(3, 2))
	if !torch.Equal(got, want) {
		t.Errorf("x[:, int32 index] = %v", got)
	}
	// A mask of 2 dims followed by a slice and an int (fixed in PyTorch by
	// its PR 158369; 1.13 applied them to the wrong dim).
	y := torch.Arange(24).Reshape(2, 3, 4)
	m := torch.FromSlice([]bool{true, false, false, true, true, false}, torch.WithShape(2, 3))
	if r := y.At(m, torch.Slice(1, 4, 2)); !torch.Equal(r, torch.FromSlice([]int64{1, 3, 13, 15, 17, 19}, torch.WithShape(3, 2))) {
		t.Errorf("y[mask, 1::2] = %v", r)
	}
	if r := y.At(m, 0); !torch.Equal(r, longs(0, 12, 16)) {
		t.Errorf("y[mask, 0] = %v", r)
	}
	z := y.Clone().SetAt(-1, m, torch.NewAxis, 3)
	if r := z.At(m); !torch.Equal(r.At(torch.Colon, 3), longs(-1, -1, -1)) || !torch.Equal(r.At(torch.Colon, 2), longs(2, 14, 18)) {
		t.Errorf("y[mask, None, 3] = -1 gives %v", z)
	}
	// unique(sorted=False) is sorted, as 2.x's CPU unique.
	v, _, _ := longs(3, 1, 3, 2).UniqueWith(false)
	if !torch.Equal(v, longs(1, 2, 3)) {
		t.Errorf("unique(sorted=False) = %v", v)
	}
	// A sorter out of range is an error (2.x; 1.13 read out of bounds).
	s := torch.SearchsortedWith(torch.FromSlice([]float32{3, 1}), torch.FromSlice([]float32{2}),
		torch.SearchsortedOptions{Sorter: longs(1, 0)})
	if !torch.Equal(s, longs(1)) {
		t.Errorf("searchsorted with sorter = %v", s)
	}
}

// Writing through At's expressions changes the elements At reads, and
// the basic forms return views.
func TestAtViewsAndWrites(t *testing.T) {
	x := torch.Zeros([]int{2, 3, 4})
	v := x.At(1, torch.Ellipsis, torch.SliceTo(2))
	if !slices.Equal(v.Shape(), []int{3, 2}) {
		t.Fatalf("shape %v", v.Shape())
	}
	v.Fill_(5)
	if s, _ := x.Sum().Item(); s != 30 {
		t.Errorf("a write through a basic index view: sum %v", s)
	}
	x.SetAt(torch.FromSlice([]float32{1, 2}, torch.WithShape(2, 1)), longs(0, 1), torch.Colon, longs(3, 3))
	if r := x.At(torch.Colon, 0, 3); !torch.Equal(r, torch.FromSlice([]float32{1, 2})) {
		t.Errorf("x[:, 0, 3] = %v", r)
	}
	// The meta device gives shapes.
	m := torch.Empty([]int{6, 3, 4, 5}, torch.WithDevice("meta"))
	mi, err := longs(0, 2).To("meta")
	if err != nil {
		t.Fatal(err)
	}
	r := m.At(torch.Colon, mi, torch.Colon, torch.Scalar(int64(1)))
	if !slices.Equal(r.Shape(), []int{6, 2, 4}) || !r.IsMeta() {
		t.Errorf("meta: %v %v", r.Shape(), r.Err())
	}
}

// No indexing expression panics: every sequence of up to three entries
// from a pool of good and bad ones, read and written, on 0-dim, empty and
// 3-D tensors of the CPU and meta devices.
func TestAtNeverPanics(t *testing.T) {
	pool := []any{0, -1, 5, torch.Colon, torch.Slice(1, 9, 2), torch.NewAxis, torch.Ellipsis, true, false,
		longs(0, -1), longs(7), longs(), torch.Scalar(int64(1)), torch.Scalar(true),
		masks(true, false), torch.Ones([]int{2, 3}, torch.WithDType(torch.Bool))}
	var seqs [][]any
	for _, a := range pool {
		seqs = append(seqs, []any{a})
		for _, b := range pool {
			seqs = append(seqs, []any{a, b})
			for _, c := range pool[:9] {
				seqs = append(seqs, []any{a, b, c})
			}
		}
	}
	for _, dev := range []string{"cpu", "meta"} {
		for _, shape := range [][]int{nil, {0, 3}, {2, 3, 4}} {
			x := torch.Zeros(shape, torch.WithDevice(dev))
			for _, s := range seqs {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s %v: At%v panics: %v", dev, shape, s, r)
						}
					}()
					x.At(s...)
					x.Clone().SetAt(1.0, s...)
				}()
			}
		}
	}
}
