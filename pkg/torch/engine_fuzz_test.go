package torch_test

import (
	"math"
	"slices"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// FuzzPointwiseEngine checks the elementwise engine against a slow,
// obviously correct reference: random shapes, layouts (transposed, sliced
// with a step, broadcast, expanded), dtypes and ops, each result element
// compared with the op computed in float64 on the two input elements read
// one by one through views. Inputs hold small integers, so that the
// reference is exact in every dtype.
func FuzzPointwiseEngine(f *testing.F) {
	f.Add(uint8(3), uint8(4), uint8(2), uint8(0), uint8(1), uint8(0), uint8(0), int64(1))
	f.Add(uint8(1), uint8(5), uint8(3), uint8(2), uint8(3), uint8(1), uint8(4), int64(7))
	f.Add(uint8(4), uint8(1), uint8(1), uint8(3), uint8(2), uint8(2), uint8(5), int64(-3))
	f.Fuzz(func(t *testing.T, s0, s1, s2, layoutA, layoutB, dtA, dtB uint8, seed int64) {
		shape := []int{int(s0 % 5), int(s1 % 5), int(s2%3) + 1}
		dtypes := []torch.DType{torch.Float32, torch.Float64, torch.Int32, torch.Int64, torch.Int16, torch.Float16}
		a := fuzzOperand(shape, layoutA, dtypes[int(dtA)%len(dtypes)], seed)
		b := fuzzOperand(shape, layoutB, dtypes[int(dtB)%len(dtypes)], seed+1)
		type op struct {
			run func(x, y *torch.Tensor) *torch.Tensor
			ref func(x, y float64) float64
		}
		ops := []op{
			{(*torch.Tensor).Add, func(x, y float64) float64 { return x + y }},
			{(*torch.Tensor).Sub, func(x, y float64) float64 { return x - y }},
			{(*torch.Tensor).Mul, func(x, y float64) float64 { return x * y }},
			{(*torch.Tensor).Maximum, math.Max},
			{func(x, y *torch.Tensor) *torch.Tensor { return x.Lt(y) }, func(x, y float64) float64 { return b2f(x < y) }},
		}
		o := ops[int(uint64(seed)%uint64(len(ops)))]
		got := o.run(a, b)
		if err := got.Err(); err != nil {
			t.Fatalf("%v", err)
		}
		want := shape
		if a.Dim() == 2 && b.Dim() == 2 { // both broadcast from the last two dims
			want = shape[1:]
		}
		if !slices.Equal(got.Shape(), want) {
			t.Fatalf("shape %v, want %v", got.Shape(), want)
		}
		for i := range shape[0] {
			for j := range shape[1] {
				for k := range shape[2] {
					x := element(t, a, i, j, k)
					y := element(t, b, i, j, k)
					want := o.ref(x, y)
					if g := element(t, got, i, j, k); g != want {
						t.Fatalf("[%d %d %d]: %v op %v = %v, want %v (%s, %s)", i, j, k, x, y, g, want, a.DType(), b.DType())
					}
				}
			}
		}
	})
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// fuzzOperand makes a tensor that broadcasts to shape with one of several
// layouts, holding small integers.
func fuzzOperand(shape []int, layout uint8, d torch.DType, seed int64) *torch.Tensor {
	n0, n1, n2 := shape[0], shape[1], shape[2]
	fill := func(dims ...int) *torch.Tensor {
		size := 1
		for _, s := range dims {
			size *= s
		}
		vals := make([]float64, size)
		for i := range vals {
			vals[i] = float64((int64(i)*7+seed)%9 - 4)
		}
		return torch.FromSlice(vals, torch.WithShape(dims...)).ToDType(d)
	}
	switch layout % 5 {
	case 1: // transposed memory
		return fill(n2, n1, n0).Permute(2, 1, 0)
	case 2: // every other element of a wider tensor
		return fill(n0, n1, 2*n2).Slice(2, 0, 2*n2, 2)
	case 3: // broadcast from fewer dims
		return fill(n1, n2)
	case 4: // expanded size-1 dim
		return fill(n0, 1, n2).Expand(n0, n1, n2)
	}
	return fill(n0, n1, n2)
}

// element reads x[i, j, k] (broadcasting x's missing leading dims) through
// views and Item: no pointwise kernel involved.
func element(t *testing.T, x *torch.Tensor, idx ...int) float64 {
	t.Helper()
	idx = idx[len(idx)-x.Dim():]
	for _, i := range idx {
		if x.Shape()[0] == 1 {
			i = 0
		}
		x = x.Select(0, i)
	}
	v, err := x.Item()
	if err != nil {
		t.Fatal(err)
	}
	return v
}
