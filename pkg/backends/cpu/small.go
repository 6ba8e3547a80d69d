package cpu

import (
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// smallLimit is the most elements for which add, sub, mul and div of two
// float tensors run in Go. A cgo call and the engine's setup cost about
// 100 ns, most of the time of an op on a few elements (the ops of a small
// model, a loss, the gradients of scalars); a Go loop over them costs a few
// nanoseconds. The results are the same bits: each element is one IEEE
// operation, rounded once, in both languages.
const smallLimit = 64

// smallBinary runs c in Go and reports true when c is one of those ops on
// float32 or float64 operands, with alpha 1, whose inputs are each either
// contiguous with the output's shape (an in-place output may be one of
// them) or a single element broadcast (a 0-dim tensor, an expanded
// scalar). Otherwise it does nothing and reports false.
func smallBinary(c *kernel.Call, cop int, compute dtype.DType) bool {
	o := &c.Out[0]
	if len(c.In) != 2 || o.DType != compute || kernel.Numel(o.Shape) > smallLimit || !kernel.IsContiguous(o.Shape, o.Strides) {
		return false
	}
	switch cop {
	case cpukernels.OpAdd, cpukernels.OpSub:
		if a := c.Scalars[1]; a.Float() != 1 {
			return false
		}
	case cpukernels.OpMul, cpukernels.OpDiv:
	default:
		return false
	}
	n := kernel.Numel(o.Shape)
	var lens [2]int // elements of each input: n, or 1 when broadcast
	for i := range c.In {
		in := &c.In[i]
		switch {
		case in.DType != compute:
			return false
		case slices.Equal(in.Shape, o.Shape) && kernel.IsContiguous(in.Shape, in.Strides):
			lens[i] = n
		case oneElement(in):
			lens[i] = 1
		default:
			return false
		}
	}
	if n == 0 {
		return true
	}
	return floatLoop(cop, compute, o.Data(), c.In[0].Data(), c.In[1].Data(), n, lens[0], lens[1])
}

// floatLoop runs binaryLoop over float32 or float64 memory: n outputs, and
// nx and ny input elements (n, or 1 for a broadcast one). It reports false
// for other dtypes.
func floatLoop(cop int, dt dtype.DType, out, x, y unsafe.Pointer, n, nx, ny int) bool {
	switch dt {
	case dtype.Float32:
		binaryLoop(cop, unsafe.Slice((*float32)(out), n), unsafe.Slice((*float32)(x), nx), unsafe.Slice((*float32)(y), ny))
	case dtype.Float64:
		binaryLoop(cop, unsafe.Slice((*float64)(out), n), unsafe.Slice((*float64)(x), nx), unsafe.Slice((*float64)(y), ny))
	default:
		return false
	}
	return true
}

// oneElement reports whether every element of o is the same one: each dim
// has size 1 or stride 0.
func oneElement(o *kernel.Operand) bool {
	for d, size := range o.Shape {
		if size != 1 && o.Strides[d] != 0 {
			return false
		}
	}
	return true
}

// binaryLoop computes out = x op y, where x and y each have len(out)
// elements or one that stands for all.
func binaryLoop[T float32 | float64](cop int, out, x, y []T) {
	xs, ys := min(len(x)-1, 1), min(len(y)-1, 1) // index steps: 0 for a single element
	switch cop {
	case cpukernels.OpAdd:
		for i := range out {
			out[i] = x[i*xs] + y[i*ys]
		}
	case cpukernels.OpSub:
		for i := range out {
			out[i] = x[i*xs] - y[i*ys]
		}
	case cpukernels.OpMul:
		for i := range out {
			out[i] = x[i*xs] * y[i*ys]
		}
	case cpukernels.OpDiv:
		for i := range out {
			out[i] = x[i*xs] / y[i*ys]
		}
	}
}

func init() { kernel.RegisterSmallBinary(SameShapeBinary) }

// SameShapeBinary computes out = x op y over n contiguous elements of
// dtype dt for op add, sub, mul or div (true division), in Go, and reports
// whether it did: it declines any other op or dtype. The tensor layer
// reaches it through kernel.SmallBinary for small float tensors of one
// shape, before any dispatch (see torch's small.go); the results are the
// bits the engine gives.
func SameShapeBinary(op kernel.OpID, dt dtype.DType, out, x, y unsafe.Pointer, n int) bool {
	switch op {
	case kernel.OpAdd, kernel.OpSub, kernel.OpMul, kernel.OpDiv:
		return floatLoop(int(op), dt, out, x, y, n, n, n)
	}
	return false
}
