package cpu

import (
	"math"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpArange, device.CPU, arangeKernel)
	kernel.Register(kernel.OpLinspace, device.CPU, linspaceKernel)
}

// arangeKernel writes start + i*step, computed in int64 for integer
// dtypes and in double for floating ones (PyTorch's accumulate types).
func arangeKernel(c *kernel.Call) error {
	o := &c.Out[0]
	n, size := c.Ints[0], o.DType.ItemSize()
	base := o.Data()
	start, step := c.Scalars[0], c.Scalars[1]
	if o.DType.IsFloatingPoint() {
		s, st := start.Float(), step.Float()
		for i := range n {
			storeFloat(unsafe.Add(base, i*size), o.DType, s+float64(i)*st)
		}
		return nil
	}
	s, st := start.Int(), step.Int()
	for i := range n {
		storeInt(unsafe.Add(base, i*size), o.DType, s+int64(i)*st)
	}
	return nil
}

// linspaceKernel writes steps evenly spaced values, the first half counted
// from start and the second from end (so both ends are exact), as PyTorch.
func linspaceKernel(c *kernel.Call) error {
	o := &c.Out[0]
	n, size := c.Ints[0], o.DType.ItemSize()
	base := o.Data()
	start, end := c.Scalars[0].Float(), c.Scalars[1].Float()
	if !o.DType.IsFloatingPoint() && o.DType != dtype.Bool {
		// PyTorch's integer linspace: start and end converted to the dtype
		// first, the step a double (RangeFactoriesKernel.cpp's step_t).
		start, end = math.Trunc(start), math.Trunc(end)
	}
	if n == 1 {
		storeFloat(base, o.DType, start)
		return nil
	}
	// float32 (and the 16-bit floats) step in float32, as PyTorch does:
	// end - start rounded, then divided.
	single := o.DType == dtype.Float32 || o.DType == dtype.Float16 || o.DType == dtype.BFloat16
	round := func(v float64) float64 {
		if single {
			return float64(float32(v))
		}
		return v
	}
	start, end = round(start), round(end)
	step := round(round(end-start) / round(float64(n-1)))
	for i := range n {
		var v float64
		if i < n/2 {
			v = round(start + round(step*float64(i)))
		} else {
			v = round(end - round(step*float64(n-i-1)))
		}
		storeFloat(unsafe.Add(base, i*size), o.DType, v)
	}
	return nil
}
