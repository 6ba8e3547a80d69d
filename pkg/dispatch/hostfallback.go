package dispatch

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// hostFallback runs c, an op its device lacks, with the CPU kernel: the
// bytes each operand spans in device memory are copied to the host (once
// per memory, so that an in-place output stays the memory of its input),
// the CPU kernel runs on those copies with c's attributes (its random
// generator too, so that seeded values are the same on every device), and
// the bytes of the outputs are copied back. The outputs of a Dynamic call,
// which the CPU kernel allocates, are copied to new memory on c's device.
func hostFallback(c *kernel.Call) error {
	var st stager
	defer st.release()
	for i := range c.In {
		st.add(&c.In[i], true)
	}
	if !c.Dynamic {
		for i := range c.Out {
			// An output the caller gave may be read back whole; one the
			// dispatcher allocated holds nothing yet.
			st.add(&c.Out[i], c.OutGiven)
		}
	}
	if err := st.read(); err != nil {
		return err
	}
	h := *c // the attributes; the operands are replaced below
	h.Device = device.CPUDevice
	h.In = make([]kernel.Operand, len(c.In))
	h.Out = make([]kernel.Operand, len(c.Out))
	for i := range c.In {
		h.In[i] = st.onHost(&c.In[i])
	}
	for i := range c.Out {
		if c.Dynamic {
			h.Out[i] = kernel.Operand{DType: c.Out[i].DType}
		} else {
			h.Out[i] = st.onHost(&c.Out[i])
		}
	}
	if err := kernel.Lookup(c.Op, device.CPU)(&h); err != nil {
		return err
	}
	if c.Dynamic {
		return toDevice(c, h.Out)
	}
	for i := range c.Out {
		st.written(&c.Out[i])
	}
	return st.write()
}

// toDevice copies the host outputs of a Dynamic call into new memory on
// c's device and binds c's outputs to it.
func toDevice(c *kernel.Call, outs []kernel.Operand) error {
	for i := range outs {
		o := &outs[i]
		host := o.Mem
		m, err := kernel.Allocate(c.Device, host.Nbytes())
		if err == nil {
			err = writeBytes(m, 0, hostBytes(host, 0, host.Nbytes()))
		}
		host.Release()
		if err != nil {
			if m != nil {
				m.Release()
			}
			for j := range i {
				c.Out[j].Mem.Release()
			}
			return err
		}
		c.Out[i] = *o
		c.Out[i].Bind(m)
	}
	return nil
}

// stager keeps one host copy per device memory that a call's operands use.
type stager struct {
	stages []stage
}

// stage is the host copy of bytes [lo, hi) of a device memory.
type stage struct {
	dev    kernel.Memory
	host   kernel.Memory
	lo, hi int
	read   bool // copy the bytes to the host before the kernel runs
	dirty  bool // copy them back after it
}

// onDevice reports whether the host cannot address o's memory.
func onDevice(o *kernel.Operand) bool {
	return o.Mem != nil && o.Mem.HostPtr() == nil && o.Mem.Nbytes() > 0 && o.Numel() > 0
}

// span is the bytes o reaches in its memory, from its first element to
// past its last (strides are not negative); lo is rounded down to 8 bytes,
// so that every dtype's elements stay aligned in the copy.
func span(o *kernel.Operand) (lo, hi int) {
	size := o.DType.ItemSize()
	lo = o.Offset * size &^ 7
	return lo, kernel.StorageExtent(o.Shape, o.Strides, o.Offset) * size
}

func (s *stager) find(m kernel.Memory) *stage {
	for i := range s.stages {
		if s.stages[i].dev == m {
			return &s.stages[i]
		}
	}
	return nil
}

// add notes that o's bytes are needed on the host; read says that their
// values are.
func (s *stager) add(o *kernel.Operand, read bool) {
	if !onDevice(o) {
		return
	}
	lo, hi := span(o)
	if st := s.find(o.Mem); st != nil {
		st.lo, st.hi, st.read = min(st.lo, lo), max(st.hi, hi), st.read || read
		return
	}
	s.stages = append(s.stages, stage{dev: o.Mem, lo: lo, hi: hi, read: read})
}

// read allocates the host copies and fills those whose values are read.
func (s *stager) read() error {
	for i := range s.stages {
		st := &s.stages[i]
		m, err := kernel.Allocate(device.CPUDevice, st.hi-st.lo)
		if err != nil {
			return err
		}
		st.host = m
		if !st.read {
			continue
		}
		t, ok := st.dev.(kernel.HostTransfer)
		if !ok {
			return kernel.Errorf(kernel.ErrDevice, "the memory of %v cannot be copied to the host", st.dev.Device())
		}
		if err := t.ReadHost(hostBytes(m, 0, st.hi-st.lo), st.lo); err != nil {
			return err
		}
	}
	return nil
}

// onHost returns o as the CPU kernel sees it: over its host copy, or
// unchanged when the host addresses its memory.
func (s *stager) onHost(o *kernel.Operand) kernel.Operand {
	h := *o
	if !onDevice(o) {
		if o.Mem != nil && o.Mem.HostPtr() == nil { // empty device operand
			h.Offset = 0
			h.Ptr = unsafe.Pointer(&noBytes)
		}
		return h
	}
	st := s.find(o.Mem)
	h.Offset = (o.Offset*o.DType.ItemSize() - st.lo) / o.DType.ItemSize()
	h.Bind(st.host)
	return h
}

// written marks the memory of output o for copying back.
func (s *stager) written(o *kernel.Operand) {
	if st := s.find(o.Mem); st != nil {
		st.dirty = true
	}
}

// write copies the written host copies back to their device memory.
func (s *stager) write() error {
	for i := range s.stages {
		st := &s.stages[i]
		if !st.dirty {
			continue
		}
		if err := writeBytes(st.dev, st.lo, hostBytes(st.host, 0, st.hi-st.lo)); err != nil {
			return err
		}
	}
	return nil
}

// release frees the host copies.
func (s *stager) release() {
	for i := range s.stages {
		if m := s.stages[i].host; m != nil {
			m.Release()
		}
	}
}

// noBytes is where an empty operand of device memory points on the host.
var noBytes [8]byte

// hostBytes is n bytes of host memory m from byte off.
func hostBytes(m kernel.Memory, off, n int) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(m.HostPtr(), off)), n)
}

// writeBytes copies b into device memory m at byte off.
func writeBytes(m kernel.Memory, off int, b []byte) error {
	t, ok := m.(kernel.HostTransfer)
	if !ok {
		return kernel.Errorf(kernel.ErrDevice, "the memory of %v cannot be written from the host", m.Device())
	}
	return t.WriteHost(off, b)
}
