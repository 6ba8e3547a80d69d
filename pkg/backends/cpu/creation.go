package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
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
// from start and the second from end (so both ends are exact), with the
// roundings of PyTorch's CPU kernel (linspaceValues).
func linspaceKernel(c *kernel.Call) error {
	o := &c.Out[0]
	size := o.DType.ItemSize()
	base := o.Data()
	linspaceValues(c.Scalars[0].Float(), c.Scalars[1].Float(), c.Ints[0], o.DType, func(i int, v float64) {
		storeFloat(unsafe.Add(base, i*size), o.DType, v)
	})
	return nil
}
