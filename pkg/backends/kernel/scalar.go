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
// float64, dtype.F16, dtype.BF16) to a Scalar.
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
		return IntScalar(int64(x)), nil
	case uint8:
		return IntScalar(int64(x)), nil
	case uint16:
		return IntScalar(int64(x)), nil
	case uint32:
		return IntScalar(int64(x)), nil
	case uint64:
		return IntScalar(int64(x)), nil
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
