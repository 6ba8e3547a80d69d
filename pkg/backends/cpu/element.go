package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// storeFloat writes v into an element of dtype d, converting as a cast does.
func storeFloat(p unsafe.Pointer, d dtype.DType, v float64) {
	switch d {
	case dtype.Float32:
		*(*float32)(p) = float32(v)
	case dtype.Float64:
		*(*float64)(p) = v
	case dtype.Float16:
		*(*uint16)(p) = uint16(dtype.F16FromFloat32(float32(v)))
	case dtype.BFloat16:
		*(*uint16)(p) = uint16(dtype.BF16FromFloat32(float32(v)))
	case dtype.Bool:
		*(*uint8)(p) = b2u(v != 0)
	default:
		storeInt(p, d, kernel.FloatToInt(v, d))
	}
}

// storeInt writes v into an element of dtype d (wrapping for narrow types).
func storeInt(p unsafe.Pointer, d dtype.DType, v int64) {
	switch d {
	case dtype.Bool:
		*(*uint8)(p) = b2u(v != 0)
	case dtype.Uint8, dtype.Int8:
		*(*uint8)(p) = uint8(v)
	case dtype.Int16:
		*(*int16)(p) = int16(v)
	case dtype.Int32:
		*(*int32)(p) = int32(v)
	case dtype.Int64:
		*(*int64)(p) = v
	default:
		storeFloat(p, d, float64(v))
	}
}

// loadFloat reads an element of dtype d as a float64.
func loadFloat(p unsafe.Pointer, d dtype.DType) float64 {
	switch d {
	case dtype.Float32:
		return float64(*(*float32)(p))
	case dtype.Float64:
		return *(*float64)(p)
	case dtype.Float16:
		return float64(dtype.F16(*(*uint16)(p)).Float32())
	case dtype.BFloat16:
		return float64(dtype.BF16(*(*uint16)(p)).Float32())
	case dtype.Bool, dtype.Uint8:
		return float64(*(*uint8)(p))
	case dtype.Int8:
		return float64(*(*int8)(p))
	case dtype.Int16:
		return float64(*(*int16)(p))
	case dtype.Int32:
		return float64(*(*int32)(p))
	}
	return float64(*(*int64)(p))
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// forEach calls f with the address of every element of o in row-major
// (logical) order.
func forEach(o *kernel.Operand, f func(p unsafe.Pointer)) {
	n := kernel.Numel(o.Shape)
	if n == 0 {
		return
	}
	size := o.DType.ItemSize()
	base := o.Data()
	if kernel.IsContiguous(o.Shape, o.Strides) {
		for i := range n {
			f(unsafe.Add(base, i*size))
		}
		return
	}
	nd := len(o.Shape)
	idx := make([]int, nd)
	off := 0
	for range n {
		f(unsafe.Add(base, off*size))
		for d := nd - 1; d >= 0; d-- {
			idx[d]++
			off += o.Strides[d]
			if idx[d] < o.Shape[d] {
				break
			}
			off -= idx[d] * o.Strides[d]
			idx[d] = 0
		}
	}
}

// loadInt reads an element of an integer or bool dtype d.
func loadInt(p unsafe.Pointer, d dtype.DType) int64 {
	switch d {
	case dtype.Bool, dtype.Uint8:
		return int64(*(*uint8)(p))
	case dtype.Int8:
		return int64(*(*int8)(p))
	case dtype.Int16:
		return int64(*(*int16)(p))
	case dtype.Int32:
		return int64(*(*int32)(p))
	case dtype.Int64:
		return *(*int64)(p)
	}
	return int64(loadFloat(p, d))
}
