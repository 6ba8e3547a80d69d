package dtype

import "math"

// MaxFloat is the largest finite value of a floating dtype (torch.finfo's
// max), and math.MaxFloat64 for any other dtype.
func (d DType) MaxFloat() float64 {
	switch d {
	case Float16:
		return 65504
	case BFloat16:
		return 3.3895313892515355e38
	case Float32:
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// IntRange is the range of an integer dtype (torch.iinfo's min and max);
// bool's is [0, 1]. Any other dtype gives int64's.
func (d DType) IntRange() (lo, hi int64) {
	switch d {
	case Bool:
		return 0, 1
	case Uint8:
		return 0, math.MaxUint8
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Int16:
		return math.MinInt16, math.MaxInt16
	case Int32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}
