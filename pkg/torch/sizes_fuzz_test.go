package torch_test

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// maxNbytes is the library's bound on a tensor's bytes (kernel.MaxNbytes).
var maxNbytes = big.NewInt(1 << 62)

// denseBytes is the bytes of a contiguous tensor of shape, its sizes 0
// counted as 1 (the library's rule), computed without overflow; ok is
// false for a negative size.
func denseBytes(shape []int, item int) (n *big.Int, ok bool) {
	n = big.NewInt(int64(item))
	for _, s := range shape {
		if s < 0 {
			return nil, false
		}
		n.Mul(n, big.NewInt(int64(max(s, 1))))
	}
	return n, true
}

// extentBytes is the bytes a view reaches: one past its furthest element,
// or its offset when it has no elements (as_strided keeps the address of
// an empty view within its storage), without overflow.
func extentBytes(shape, strides []int, offset, item int) *big.Int {
	end := big.NewInt(int64(offset))
	for i, s := range shape {
		if s == 0 {
			return end.Mul(big.NewInt(int64(offset)), big.NewInt(int64(item)))
		}
		end.Add(end, new(big.Int).Mul(big.NewInt(int64(s-1)), big.NewInt(int64(strides[i]))))
	}
	end.Add(end, big.NewInt(1))
	return end.Mul(end, big.NewInt(int64(item)))
}

// checkSized fails t when x is not what a valid call gives: its shape, a
// numel that is the product of the sizes, and elements within its storage;
// or, for an invalid call (valid false), when x carries no error of a size
// kind that names its op.
func checkSized(t *testing.T, what string, x *torch.Tensor, shape []int, valid bool) {
	t.Helper()
	if err := x.Err(); err != nil {
		if valid {
			t.Fatalf("%s %v: unexpected error %v", what, shape, err)
		}
		var e *torch.Error
		if !errors.Is(err, torch.ErrShape) && !errors.Is(err, torch.ErrArgument) && !errors.Is(err, torch.ErrIndex) ||
			!errors.As(err, &e) || e.Op == "" {
			t.Fatalf("%s %v: error of the wrong kind or without op: %v", what, shape, err)
		}
		return
	}
	if !valid {
		t.Fatalf("%s %v: no error, got a tensor of shape %v", what, shape, x.Shape())
	}
	numel := big.NewInt(1)
	for i, s := range x.Shape() {
		if i < len(shape) && s != shape[i] {
			t.Fatalf("%s %v: shape %v", what, shape, x.Shape())
		}
		numel.Mul(numel, big.NewInt(int64(s)))
	}
	if len(x.Shape()) != len(shape) || !numel.IsInt64() || numel.Int64() != int64(x.Numel()) {
		t.Fatalf("%s %v: shape %v, numel %d, want %v", what, shape, x.Shape(), x.Numel(), numel)
	}
	ext := extentBytes(x.Shape(), x.Stride(), x.StorageOffset(), x.ElementSize())
	if ext.Cmp(big.NewInt(int64(x.UntypedStorage().Nbytes()))) > 0 {
		t.Fatalf("%s %v: the view reaches %v bytes of a storage of %d", what, shape, ext, x.UntypedStorage().Nbytes())
	}
}

// touch reads every element of a small CPU tensor, so that an element
// outside its memory would crash the fuzzer.
func touch(t *testing.T, x *torch.Tensor) {
	t.Helper()
	if x.Err() != nil || x.IsMeta() || x.Numel() > 1<<14 {
		return
	}
	if err := x.Sum().Err(); err != nil {
		t.Fatalf("sum of %v (strides %v): %v", x.Shape(), x.Stride(), err)
	}
}

// FuzzSizesAndStrides feeds sizes, strides and offsets near the int64
// limits to creation, AsStrided and Expand: each either fails with a size
// error or makes a consistent tensor, exactly when the sizes are valid,
// and never crashes. Nothing large is allocated: creation runs on the meta
// device, and on the CPU only when the tensor is small.
func FuzzSizesAndStrides(f *testing.F) {
	seeds := []int64{1 << 62, 1 << 61, 1 << 31, -1, 0, math.MaxInt64, 1, 3, math.MinInt64}
	for i, a := range seeds {
		b := seeds[(i+3)%len(seeds)]
		f.Add(a, int64(2), int64(1), b, int64(0), uint8(i))
		f.Add(int64(3), a, b, int64(1), a, uint8(i+1))
		f.Add(a, b, a, b, int64(1), uint8(i+2))
	}
	f.Add(int64(0), int64(47), int64(64), int64(1<<62-21), int64(65485), uint8(0)) // empty, far past the end
	dtypes := []torch.DType{torch.Uint8, torch.Float32, torch.Float64, torch.Int16}
	f.Fuzz(func(t *testing.T, s0, s1, st0, st1, off int64, which uint8) {
		dt := dtypes[int(which)%len(dtypes)]
		item := dt.ItemSize()
		shape := []int{int(s0), int(s1)}
		strides := []int{int(st0), int(st1)}
		dense, ok := denseBytes(shape, item)
		valid := ok && dense.Cmp(maxNbytes) <= 0

		// Creation: always on meta; on the CPU when small or invalid.
		meta := torch.WithDevice("meta")
		checkSized(t, "empty on meta", torch.Empty(shape, meta, torch.WithDType(dt)), shape, valid)
		if !valid || dense.Cmp(big.NewInt(1<<16)) <= 0 {
			x := torch.Zeros(shape, torch.WithDType(dt))
			checkSized(t, "zeros", x, shape, valid)
			touch(t, x)
		}

		// AsStrided over a small CPU storage and a huge meta one.
		for _, base := range []*torch.Tensor{
			torch.Zeros([]int{64}, torch.WithDType(dt)),
			torch.Empty([]int{1 << 40}, meta, torch.WithDType(dt)),
		} {
			inBounds := valid && off >= 0 && st0 >= 0 && st1 >= 0 // as_strided refuses any negative stride
			if inBounds {
				ext := extentBytes(shape, strides, int(off), item)
				inBounds = ext.Cmp(big.NewInt(int64(base.UntypedStorage().Nbytes()))) <= 0
			}
			v := base.AsStrided(shape, strides, int(off))
			checkSized(t, "as_strided", v, shape, inBounds)
			touch(t, v)
		}

		// Expand of a [1, 1] tensor (-1 keeps a size).
		want := []int{int(s0), int(s1)}
		expandOK := true
		for i, s := range want {
			if s == -1 {
				want[i] = 1
			}
			expandOK = expandOK && want[i] >= 0
		}
		if expandOK {
			d, _ := denseBytes(want, item)
			expandOK = d.Cmp(maxNbytes) <= 0
		}
		for _, dev := range []torch.Option{torch.WithDevice("cpu"), meta} {
			e := torch.Ones([]int{1, 1}, dev, torch.WithDType(dt)).Expand(shape...)
			checkSized(t, "expand", e, want, expandOK)
			touch(t, e)
		}
	})
}
