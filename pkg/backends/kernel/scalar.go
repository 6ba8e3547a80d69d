package kernel

import (
	"fmt"
	"math"

	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Scalar is a number passed to a kernel as an attribute (alpha, a fill
// value, a clamp bound). It keeps its category: a Go int stays an integer (so
// int64 arithmetic is exact), a Go float a float, a bool a bool.
type Scalar struct {
	kind dtype.Kind
	i    int64
	f    float64
}

// IntScalar is an integer scalar.
func IntScalar(v int64) Scalar { return Scalar{kind: dtype.KindInt, i: v, f: float64(v)} }

// FloatScalar is a floating scalar.
func FloatScalar(v float64) Scalar { return Scalar{kind: dtype.KindFloat, f: v, i: saturate(v)} }

// BoolScalar is a boolean scalar.
func BoolScalar(v bool) Scalar {
	if v {
		return Scalar{kind: dtype.KindBool, i: 1, f: 1}
	}
	return Scalar{kind: dtype.KindBool}
}

// ScalarOf converts a Go value (bool, any int or uint kind, float32,
// float64, dtype.F16, dtype.BF16) to a Scalar. Unsigned values above the
// largest int64 are an ErrArgument, as PyTorch's: "value cannot be
// converted to type int64_t without overflow".
func ScalarOf(v any) (Scalar, error) {
	switch x := v.(type) {
	case Scalar:
		return x, nil
	case bool:
		return BoolScalar(x), nil
	case int:
		return IntScalar(int64(x)), nil
	case int8:
		return IntScalar(int64(x)), nil
	case int16:
		return IntScalar(int64(x)), nil
	case int32:
		return IntScalar(int64(x)), nil
	case int64:
		return IntScalar(x), nil
	case uint:
		return uintScalar(uint64(x))
	case uint8:
		return IntScalar(int64(x)), nil
	case uint16:
		return IntScalar(int64(x)), nil
	case uint32:
		return IntScalar(int64(x)), nil
	case uint64:
		return uintScalar(x)
	case float32:
		return FloatScalar(float64(x)), nil
	case float64:
		return FloatScalar(x), nil
	case dtype.F16:
		return FloatScalar(float64(x.Float32())), nil
	case dtype.BF16:
		return FloatScalar(float64(x.Float32())), nil
	}
	return Scalar{}, Errorf(ErrArgument, "%T is not a scalar (want bool, an integer or a float)", v)
}

func uintScalar(v uint64) (Scalar, error) {
	if v > math.MaxInt64 {
		return Scalar{}, Errorf(ErrArgument, "value cannot be converted to type int64_t without overflow")
	}
	return IntScalar(int64(v)), nil
}

// CheckFits returns PyTorch's error for a value that a fill of dtype d
// refuses (c10's checked_convert): "value cannot be converted to type
// uint8_t without overflow", an ErrArgument. The value must lie in d's
// range, except that negative integers down to -255 wrap into uint8 and
// that infinities and NaN fit the floating dtypes; anything fits bool.
func (s Scalar) CheckFits(d dtype.DType) error {
	if s.fits(d) {
		return nil
	}
	return Errorf(ErrArgument, "value cannot be converted to type %s without overflow", cTypeNames[d])
}

func (s Scalar) fits(d dtype.DType) bool {
	isFloat := s.kind == dtype.KindFloat
	if isFloat && d.IsFloatingPoint() && (math.IsInf(s.f, 0) || math.IsNaN(s.f)) {
		return true
	}
	switch d {
	case dtype.Uint8:
		if !isFloat {
			return s.i >= -math.MaxUint8 && s.i <= math.MaxUint8
		}
		return s.in(0, math.MaxUint8)
	case dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64:
		return s.in(d.IntRange())
	case dtype.Float16, dtype.BFloat16, dtype.Float32:
		return s.f >= -d.MaxFloat() && s.f <= d.MaxFloat()
	}
	return true
}

// in reports whether the value lies in [lo, hi] (a float compared as c10
// does, in double: NaN never does).
func (s Scalar) in(lo, hi int64) bool {
	if s.kind == dtype.KindFloat {
		return s.f >= float64(lo) && s.f <= float64(hi)
	}
	return s.i >= lo && s.i <= hi
}

var cTypeNames = [dtype.NumDTypes]string{"bool", "uint8_t", "int8_t", "int16_t", "int", "int64_t", "at::Half", "at::BFloat16", "float", "double"}

// Kind is the scalar's category.
func (s Scalar) Kind() dtype.Kind { return s.kind }

// DType is the dtype the scalar has on its own: bool, int64 or float64.
func (s Scalar) DType() dtype.DType {
	switch s.kind {
	case dtype.KindBool:
		return dtype.Bool
	case dtype.KindInt:
		return dtype.Int64
	}
	return dtype.Float64
}

// Int is the value as an int64 (a float truncates toward zero; NaN and
// values out of range give the minimum int64).
func (s Scalar) Int() int64 { return s.i }

// Float is the value as a float64.
func (s Scalar) Float() float64 { return s.f }

// Bool is whether the value is non-zero.
func (s Scalar) Bool() bool {
	if s.kind == dtype.KindFloat {
		return s.f != 0
	}
	return s.i != 0
}

// IsFloat reports whether the scalar is a float.
func (s Scalar) IsFloat() bool { return s.kind == dtype.KindFloat }

// String prints the scalar as Python would.
func (s Scalar) String() string {
	switch s.kind {
	case dtype.KindBool:
		if s.i != 0 {
			return "True"
		}
		return "False"
	case dtype.KindInt:
		return fmt.Sprint(s.i)
	}
	return fmt.Sprint(s.f)
}

// Bits encodes the scalar as the bits of one element of dtype d (in the low
// bytes of the result), converting as a cast to d would.
func (s Scalar) Bits(d dtype.DType) uint64 {
	switch d {
	case dtype.Bool:
		if s.Bool() {
			return 1
		}
		return 0
	case dtype.Uint8, dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64:
		if s.kind == dtype.KindFloat {
			return uint64(FloatToInt(s.f, d))
		}
		return uint64(s.i)
	case dtype.Float16:
		return uint64(dtype.F16FromFloat32(float32(s.f)))
	case dtype.BFloat16:
		return uint64(dtype.BF16FromFloat32(float32(s.f)))
	case dtype.Float32:
		return uint64(math.Float32bits(float32(s.f)))
	}
	return math.Float64bits(s.f)
}

// FloatToInt converts v to the integer dtype d as PyTorch does on x86: the
// value truncates toward zero; NaN and values out of range give the
// "indefinite" integer (the minimum of int32, or of int64 for int64); the
// 8- and 16-bit types take the low bits of the int32 conversion.
func FloatToInt(v float64, d dtype.DType) int64 {
	if d == dtype.Int64 {
		return saturate(v)
	}
	var i32 int32
	if v != v || v >= 2147483648.0 || v <= -2147483649.0 {
		i32 = math.MinInt32
	} else {
		i32 = int32(v)
	}
	switch d {
	case dtype.Uint8:
		return int64(uint8(i32))
	case dtype.Int8:
		return int64(int8(i32))
	case dtype.Int16:
		return int64(int16(i32))
	}
	return int64(i32)
}

// saturate truncates v toward zero into int64; NaN and values out of range
// give the minimum, as x86's conversion does (and PyTorch on x86 with it).
func saturate(v float64) int64 {
	if v != v || v >= 9.223372036854775807e18 || v < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(v)
}
