package torch_test

import (
	"math"
	"slices"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Shifts by a negative count or by the type's width or more are left to
// the C compiler in PyTorch 1.13 (x86 masks the count); PyTorch 2.x
// defines them, and MindTorch follows 2.x: a left shift gives 0, a right
// shift fills with the sign bit.
func TestShiftCountsOutOfRange(t *testing.T) {
	x := torch.FromSlice([]int32{1, -8, 5, math.MinInt32})
	counts := torch.FromSlice([]int32{32, 40, -1, 31})
	left, err := torch.ToSlice[int32](x.BitwiseLeftShift(counts))
	if err != nil || !slices.Equal(left, []int32{0, 0, 0, 0}) {
		t.Errorf("left shift = %v, %v; want [0 0 0 0]", left, err)
	}
	right, err := torch.ToSlice[int32](x.BitwiseRightShift(counts))
	if err != nil || !slices.Equal(right, []int32{0, -1, 0, -1}) {
		t.Errorf("right shift = %v, %v; want [0 -1 0 -1]", right, err)
	}
	u := torch.FromSlice([]uint8{255, 128})
	r8, err := torch.ToSlice[uint8](u.BitwiseRightShiftScalar(8))
	if err != nil || !slices.Equal(r8, []uint8{0, 0}) {
		t.Errorf("uint8 >> 8 = %v, %v; want [0 0]", r8, err)
	}
	if err := torch.FromSlice([]float32{1}).BitwiseLeftShiftScalar(1).Err(); err == nil {
		t.Error("a float shift did not fail")
	}
}

func TestSignbitOfZeros(t *testing.T) {
	got, err := torch.ToSlice[bool](torch.FromSlice([]float64{math.Copysign(0, -1), 0, -1, math.Inf(-1)}).Signbit())
	if err != nil || !slices.Equal(got, []bool{true, false, true, true}) {
		t.Errorf("signbit = %v, %v", got, err)
	}
}

// The reflected forms promote the Go scalar as PyTorch promotes a Python
// number: 2.5 - int32 is float32, 3 - int8 stays int8.
func TestReflectedScalarDTypes(t *testing.T) {
	i8 := torch.FromSlice([]int8{1, 2})
	if d := torch.RSub(3, i8).DType(); d != torch.Int8 {
		t.Errorf("3 - int8: %v", d)
	}
	if d := torch.RSub(2.5, torch.FromSlice([]int32{1})).DType(); d != torch.Float32 {
		t.Errorf("2.5 - int32: %v", d)
	}
	if d := torch.RPow(2, torch.FromSlice([]float64{1})).DType(); d != torch.Float64 {
		t.Errorf("2 ** float64: %v", d)
	}
	if err := torch.RSub(2, nil).Err(); err == nil {
		t.Error("RSub of nil did not fail")
	}
}
