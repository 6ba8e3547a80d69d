package kernel

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func TestCheckedNumel(t *testing.T) {
	for _, c := range []struct {
		shape []int
		item  int
		want  int    // the count when valid
		err   string // a part of the message otherwise
	}{
		{nil, 4, 1, ""},
		{[]int{2, 3}, 4, 6, ""},
		{[]int{0, 5}, 8, 0, ""},
		{[]int{1 << 60}, 4, 1 << 60, ""},
		{[]int{1 << 62}, 1, 1 << 62, ""},
		{[]int{1 << 62}, 4, 0, "Storage size calculation overflowed with sizes=[4611686018427387904]"},
		{[]int{1 << 61}, 4, 0, "overflowed"},
		{[]int{1 << 32, 1 << 32}, 1, 0, "overflowed"}, // 2^64 wraps to 0
		{[]int{math.MaxInt}, 1, 0, "overflowed"},
		{[]int{1 << 62, 1 << 62, 0}, 1, 0, "overflowed"}, // sizes 0 count as 1
		{[]int{2, -1}, 4, 0, "Trying to create tensor with negative dimension -1: [2, -1]"},
	} {
		n, err := CheckedNumel(c.shape, c.item)
		switch {
		case c.err == "" && (err != nil || n != c.want):
			t.Errorf("CheckedNumel(%v, %d) = %d, %v; want %d", c.shape, c.item, n, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrShape)):
			t.Errorf("CheckedNumel(%v, %d) = %d, %v; want an ErrShape with %q", c.shape, c.item, n, err, c.err)
		}
	}
	if n, err := CheckedNbytes([]int{3, 5}, 8); n != 120 || err != nil {
		t.Errorf("CheckedNbytes = %d, %v", n, err)
	}
}

func TestStorageNbytes(t *testing.T) {
	for _, c := range []struct {
		shape, strides []int
		offset, item   int
		want           int
		err            string
	}{
		{[]int{3}, []int{1}, 0, 4, 12, ""},
		{[]int{2, 3}, []int{3, 1}, 2, 8, 64, ""},
		{[]int{3}, []int{0}, 5, 4, 24, ""},
		{[]int{0, 3}, []int{1, 1 << 62}, 7, 4, 0, ""}, // empty: nothing is reached
		{[]int{1}, []int{-5}, 0, 4, 4, ""},            // a size-1 dim's stride moves nothing
		{[]int{1}, []int{math.MaxInt}, 0, 4, 4, ""},
		{[]int{3}, []int{1 << 61}, 0, 4, 0, "Storage size calculation overflowed with sizes=[3] and strides=[2305843009213693952]"},
		{[]int{3}, []int{math.MaxInt}, 0, 1, 0, "overflowed"},
		{[]int{2, 2}, []int{1 << 61, 1 << 61}, 0, 1, 0, "overflowed"},
		{[]int{3}, []int{-1}, 2, 4, 0, "overflowed"},
		{[]int{1}, []int{1}, math.MaxInt, 4, 0, "overflowed"},
		{[]int{-1}, []int{1}, 0, 4, 0, "overflowed"},
		{[]int{3}, []int{1}, -1, 4, 0, "invalid storage offset -1"},
		{[]int{3}, nil, 0, 4, 0, "mismatch"},
	} {
		n, err := StorageNbytes(c.shape, c.strides, c.offset, c.item)
		switch {
		case c.err == "" && (err != nil || n != c.want):
			t.Errorf("StorageNbytes(%v, %v, %d, %d) = %d, %v; want %d", c.shape, c.strides, c.offset, c.item, n, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("StorageNbytes(%v, %v, %d, %d) = %d, %v; want %q", c.shape, c.strides, c.offset, c.item, n, err, c.err)
		}
	}
	err := CheckView([]int{3}, []int{2}, 0, 4, 12)
	want := "setStorage: sizes [3], strides [2], storage offset 0, and itemsize 4 requiring a storage size of 20 are out of bounds for storage of size 12"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckView = %v, want %q", err, want)
	}
	if err := CheckView([]int{3}, []int{1}, 0, 4, 12); err != nil {
		t.Errorf("CheckView of a fitting view: %v", err)
	}
}

type sizedMemory struct {
	Memory
	n int
}

func (m sizedMemory) Nbytes() int { return m.n }

func TestCheckOperand(t *testing.T) {
	o := Operand{Mem: sizedMemory{n: 16}, DType: dtype.Float32, Shape: []int{2, 2}, Strides: []int{2, 1}}
	if err := CheckOperand(&o); err != nil {
		t.Error(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = CheckOperand(&o) }); n != 0 {
		t.Errorf("CheckOperand allocates %v times", n)
	}
	o.Offset = 1
	if err := CheckOperand(&o); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "requiring a storage size of 20") {
		t.Errorf("CheckOperand past the end = %v", err)
	}
	if err := CheckOperand(&Operand{Shape: []int{1 << 40}, Strides: []int{1}}); err != nil {
		t.Errorf("an operand without memory: %v", err)
	}
}

func TestMulSizeAndAllocation(t *testing.T) {
	if n, ok := MulSize(1<<31, 1<<31); !ok || n != 1<<62 {
		t.Errorf("MulSize(2^31, 2^31) = %d, %v", n, ok)
	}
	for _, c := range [][2]int{{1 << 61, 8}, {math.MaxInt, 2}, {-1, 3}, {1 << 32, 1 << 32}} {
		if _, ok := MulSize(c[0], c[1]); ok {
			t.Errorf("MulSize(%d, %d) should overflow", c[0], c[1])
		}
	}
	for _, n := range []int{-1, 1<<62 + 1, math.MaxInt} {
		if err := CheckAllocation(n); !errors.Is(err, ErrShape) {
			t.Errorf("CheckAllocation(%d) = %v", n, err)
		}
	}
	if err := CheckAllocation(1 << 62); err != nil {
		t.Error(err)
	}
}

func TestInferSizeOverflow(t *testing.T) {
	if _, err := InferSize(nil, []int{1 << 62, 1 << 62, 3}, 0); !errors.Is(err, ErrShape) {
		t.Errorf("a product that wraps to 0 must be refused: %v", err)
	}
	if s, err := InferSize(nil, []int{-1, 1 << 40}, 1<<41); err != nil || s[0] != 2 {
		t.Errorf("InferSize = %v, %v", s, err)
	}
}

func TestScalarFits(t *testing.T) {
	for _, c := range []struct {
		v    any
		d    dtype.DType
		fits bool
	}{
		{math.NaN(), dtype.Int64, false},
		{math.Inf(1), dtype.Int32, false},
		{1e39, dtype.Float32, false},
		{1e5, dtype.Float16, false},
		{1e39, dtype.BFloat16, false},
		{300, dtype.Uint8, false},
		{-256, dtype.Uint8, false},
		{-0.5, dtype.Uint8, false},
		{-129, dtype.Int8, false},
		{1 << 31, dtype.Int32, false},
		{-1, dtype.Uint8, true}, // wraps, as PyTorch allows
		{-255, dtype.Uint8, true},
		{255, dtype.Uint8, true},
		{math.Inf(-1), dtype.Float16, true},
		{math.NaN(), dtype.Float32, true},
		{1e300, dtype.Float64, true},
		{math.NaN(), dtype.Bool, true},
		{int64(math.MinInt64), dtype.Int64, true},
		{3.5, dtype.Int32, true},
		{true, dtype.Uint8, true},
	} {
		s, err := ScalarOf(c.v)
		if err != nil {
			t.Fatal(err)
		}
		err = s.CheckFits(c.d)
		if (err == nil) != c.fits || err != nil && (!errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "without overflow")) {
			t.Errorf("%v into %v: %v, want fits %v", c.v, c.d, err, c.fits)
		}
	}
	if _, err := ScalarOf(uint64(math.MaxUint64)); err == nil ||
		!strings.Contains(err.Error(), "value cannot be converted to type int64_t without overflow") {
		t.Errorf("ScalarOf(max uint64) = %v", err)
	}
	if s, err := ScalarOf(uint64(math.MaxInt64)); err != nil || s.Int() != math.MaxInt64 {
		t.Errorf("ScalarOf(max int64 as uint64) = %v, %v", s, err)
	}
}
