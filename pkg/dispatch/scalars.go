package dispatch

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// cpuScalarsToDevice copies the 0-dim CPU inputs of a call on an
// accelerator to the device (a 0-dim CPU tensor goes along with a tensor
// on any device, as in PyTorch, but a device kernel reads device memory
// only). It returns the device copies, which the caller releases once the
// kernel has run, and a function that points the call's inputs back at
// the CPU values.
func cpuScalarsToDevice(c *kernel.Call) (copies []kernel.Memory, restore func(), err error) {
	restore = func() {}
	t := c.Device.Type
	if t == device.CPU || t == device.Meta {
		return nil, restore, nil
	}
	var moved []int
	var saved []kernel.Operand
	restore = func() {
		for k, i := range moved {
			c.In[i] = saved[k]
		}
	}
	for i := range c.In {
		in := &c.In[i]
		if len(in.Shape) != 0 || in.Mem == nil || in.Mem.Device().Type != device.CPU || in.Mem.HostPtr() == nil {
			continue
		}
		n := in.DType.ItemSize()
		m, err := kernel.Allocate(c.Device, n)
		if err != nil {
			restore()
			releaseAll(copies)
			return nil, restore, err
		}
		dst, ok := m.(kernel.HostTransfer)
		src := unsafe.Slice((*byte)(unsafe.Add(in.Mem.HostPtr(), in.Offset*n)), n)
		if !ok {
			m.Release()
			restore()
			releaseAll(copies)
			return nil, restore, kernel.Errorf(kernel.ErrDevice, "%v memory cannot take a value from the host", c.Device)
		}
		if err := dst.WriteHost(0, src); err != nil {
			m.Release()
			restore()
			releaseAll(copies)
			return nil, restore, err
		}
		copies = append(copies, m)
		moved, saved = append(moved, i), append(saved, *in)
		in.Mem, in.Offset = m, 0
	}
	return copies, restore, nil
}

func releaseAll(ms []kernel.Memory) {
	for _, m := range ms {
		m.Release()
	}
}
