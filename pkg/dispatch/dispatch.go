// Package dispatch runs an op on a device: the op's meta function (output
// dtypes, shapes, strides, or an error), the allocation of its outputs on
// the device, and the device's kernel. It imports every backend, so that
// their kernels are registered.
//
// When the device has no kernel for the op, or its kernel returns
// kernel.ErrNotImplemented for this form of the op (a dtype, a mode, an
// ACLNN operator missing from the loaded libraries), the dispatcher runs
// the op's decomposition (RegisterDecomposition: other ops on the same
// device, ATen's CompositeImplicitAutograd), and failing that the CPU
// kernel on host copies of the operands (torch_npu's CPU fallback). The
// caller never chooses; CountsOf tells how the calls of an op ran on a
// device (Native, Decomposed, HostFallback) and Routes how they can.
//
// A call costs no reflection, no map lookup and no string building: the
// registry is an array indexed by op and device type, and the errors are
// decorated only when something failed.
package dispatch

import (
	"slices"
	"sync"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"

	// The backends register their kernels in init.
	_ "github.com/mindtorch/mindtorch/pkg/backends/cpu"
	_ "github.com/mindtorch/mindtorch/pkg/backends/meta"
	_ "github.com/mindtorch/mindtorch/pkg/backends/npu"
)

var calls = sync.Pool{New: func() any { return new(kernel.Call) }}

// NewCall returns a call from a pool (a zero one, or one Free reset);
// give it back with Free.
func NewCall(op kernel.OpID, dev device.Device, nIn, nOut int) *kernel.Call {
	c := calls.Get().(*kernel.Call)
	c.Init(op, dev, nIn, nOut)
	return c
}

// Free resets a call, so that it keeps no memory alive, and returns it to
// the pool. The caller must not keep its slices.
func Free(c *kernel.Call) {
	c.Reset(kernel.OpInvalid, device.CPUDevice, 0, 0)
	calls.Put(c)
}

// Run runs c on c.Device. Outputs the caller did not give are allocated
// (contiguous storage covering their strides) and bound; on the meta
// device nothing else happens. Errors name the op, its inputs and devices.
//
// Inside WithPipeline, a call the pipeline captures (see Pipeline) is
// prepared and queued instead: its outputs are bound to Pending memory.
func Run(c *kernel.Call) error {
	if pl := capturing(c); pl != nil {
		if err := prepare(c); err != nil {
			return err
		}
		if deferrable(c) {
			return pl.capture(c)
		}
		return runSettled(c)
	}
	if err := settle(c); err != nil {
		return decorate(c, err)
	}
	if err := prepare(c); err != nil {
		return err
	}
	return runPrepared(c)
}

// Call runs c as Run does, hands output 0 to wrap, frees c (see Free) and
// returns what wrap made: the caller's tensor, from a zero O allocated
// together with the output's memory when that is small CPU memory
// (kernel.AllocateWith, so that an op on small tensors costs one Go
// allocation), else allocated on its own. On failure it returns the zero T
// and the error, and wrap is not called.
func Call[O, T any](c *kernel.Call, wrap func(owner *O, out *kernel.Operand) T) (T, error) {
	owner, err := call[O](c)
	var t T
	if err == nil {
		t = wrap(owner, &c.Out[0])
	}
	Free(c)
	return t, err
}

// call is Call before wrap: it runs c and returns the zero O.
func call[O any](c *kernel.Call) (*O, error) {
	if pl := capturing(c); pl != nil {
		if err := prepare(c); err != nil {
			return nil, err
		}
		if !deferrable(c) {
			return new(O), runSettled(c)
		}
		if err := pl.capture(c); err != nil {
			return nil, err
		}
		return new(O), nil
	}
	if err := settle(c); err != nil {
		return nil, decorate(c, err)
	}
	if err := prepare(c); err != nil {
		return nil, err
	}
	if c.Device.Type == device.CPU && len(c.Out) == 1 && !c.OutGiven && !c.Dynamic {
		if n := OutputBytes(&c.Out[0]); n <= kernel.SmallMax {
			if owner, m := kernel.AllocateWith[O](n); owner != nil {
				c.Out[0].Bind(m)
				if err := execute(c); err != nil {
					return nil, err
				}
				return owner, nil
			}
		}
	}
	if err := runPrepared(c); err != nil {
		return nil, err
	}
	return new(O), nil
}

// settle readies the operands of a call that runs now: the memory it
// writes is computed if pending, and captured calls that read it and have
// not run yet run first; pending inputs are computed. Pending operands are
// then pointed at the memory behind them, which the kernel reads.
func settle(c *kernel.Call) error {
	if c.OutGiven {
		for i := range c.Out {
			o := &c.Out[i]
			if o.Mem == nil {
				continue
			}
			key := o.Mem
			if err := resolve(o); err != nil {
				return err
			}
			runReaders(key)
		}
	}
	for i := range c.In {
		if err := resolve(&c.In[i]); err != nil {
			return err
		}
	}
	return nil
}

// runSettled runs a prepared call now, its operands settled.
func runSettled(c *kernel.Call) error {
	if err := settle(c); err != nil {
		return decorate(c, err)
	}
	return runPrepared(c)
}

// runPrepared is Run after prepare: it allocates the outputs the caller
// did not give and executes the kernel.
func runPrepared(c *kernel.Call) error {
	if c.Dynamic {
		if c.Device.Type == device.Meta {
			return decorate(c, kernel.Errorf(kernel.ErrNotImplemented,
				"the output shape of %s depends on the data, which the meta device does not have", c.Op))
		}
		if err := runKernel(c); err != nil {
			return decorate(c, err)
		}
		return nil
	}
	if !c.OutGiven {
		for i := range c.Out {
			m, err := kernel.Allocate(c.Device, OutputBytes(&c.Out[i]))
			if err != nil {
				return decorate(c, err)
			}
			c.Out[i].Bind(m)
		}
	}
	if err := execute(c); err != nil {
		if !c.OutGiven {
			for i := range c.Out {
				c.Out[i].Mem.Release()
			}
		}
		return err
	}
	return nil
}

// prepare is the first step of Run: it checks c's operands, runs the op's
// meta function, which lays out the outputs (or checks the given ones),
// and refuses an op that no route runs on the device.
func prepare(c *kernel.Call) error {
	meta := kernel.Meta(c.Op)
	if meta == nil {
		return decorate(c, kernel.Errorf(kernel.ErrNotImplemented, "the op has no meta function"))
	}
	if err := released(c); err != nil {
		return decorate(c, err)
	}
	if err := meta(c); err != nil {
		return decorate(c, err)
	}
	if err := overlap(c); err != nil {
		return decorate(c, err)
	}
	if err := runnable(c); err != nil {
		return decorate(c, err)
	}
	return nil
}

// OutputBytes is the size of the storage an output laid out by the meta
// function needs.
func OutputBytes(o *kernel.Operand) int {
	return kernel.StorageExtent(o.Shape, o.Strides, 0) * o.DType.ItemSize()
}

// execute is the last step of Run: it runs a prepared call whose outputs
// are bound (nothing on the meta device, or when every output is empty).
func execute(c *kernel.Call) error {
	if c.Device.Type == device.Meta {
		count(c, Native)
		return nil
	}
	if emptyOutputs(c) {
		return nil
	}
	copies, restore, err := cpuScalarsToDevice(c)
	if err != nil {
		return decorate(c, err)
	}
	err = runKernel(c)
	restore() // errors name the caller's operands
	releaseAll(copies)
	if err != nil {
		return decorate(c, err)
	}
	return nil
}

// kernelDevice is the device type whose kernel runs c: c's device, except
// for copies out of a device into host memory, which the source device's
// backend runs.
func kernelDevice(c *kernel.Call) device.Type {
	if c.Op == kernel.OpCopy && c.Device.Type == device.CPU && len(c.In) == 1 {
		if t := c.In[0].Device().Type; t != device.CPU && t != device.Meta {
			return t
		}
	}
	return c.Device.Type
}

// released refuses operands whose memory was released, or which reach
// past the end of their memory (a storage resized smaller under its
// tensor).
func released(c *kernel.Call) error {
	check := func(what string, ops []kernel.Operand) error {
		for i := range ops {
			if m := ops[i].Mem; m != nil && m.Released() {
				return kernel.Errorf(kernel.ErrArgument, "%s %d was used after its storage was released", what, i)
			}
			if err := kernel.CheckOperand(&ops[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check("input", c.In); err != nil || !c.OutGiven {
		return err
	}
	return check("output", c.Out)
}

// overlap refuses a given output that shares part of its memory with an
// input (see kernel.PartialOverlap): the kernel would read elements it has
// already written.
func overlap(c *kernel.Call) error {
	if !c.OutGiven {
		return nil
	}
	for i := range c.Out {
		for j := range c.In {
			if kernel.PartialOverlap(&c.Out[i], &c.In[j]) {
				return kernel.Errorf(kernel.ErrArgument, "unsupported operation: some elements of the input tensor and "+
					"the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.")
			}
		}
	}
	return nil
}

// decorate fills in the op and its inputs in err.
func decorate(c *kernel.Call, err error) error {
	oe := kernel.AsOpError(err)
	if oe.Op == "" {
		oe.Op = c.Op.String()
	}
	if oe.Shapes == nil {
		for i := range c.In {
			in := &c.In[i]
			oe.Shapes = append(oe.Shapes, slices.Clone(in.Shape))
			oe.DTypes = append(oe.DTypes, in.DType)
			oe.Devices = append(oe.Devices, in.Device())
		}
	}
	return oe
}

// OpDevices is one row of the registry: an op, the device types with a
// kernel for it, and for every device type linked into the program the
// routes by which the op runs there (Routes' answer, in the order the
// dispatcher tries them; none: the op fails on that device).
type OpDevices struct {
	Op      string
	Devices []device.Type
	Routes  []DeviceRoutes
}

// DeviceRoutes are the routes of one op on one device type.
type DeviceRoutes struct {
	Device device.Type
	Routes []Route
}

// RegisteredOps lists every op with the device types that run it natively
// and its routes on each device type that has a backend linked in, so that
// a caller sees which ops an accelerator runs natively, by decomposition or
// on the host.
func RegisteredOps() []OpDevices {
	linked := linkedDevices()
	var out []OpDevices
	for op := kernel.OpID(1); op < kernel.NumOps; op++ {
		ds := kernel.Devices(op)
		if len(ds) == 0 {
			continue
		}
		row := OpDevices{Op: op.String(), Devices: ds}
		for _, t := range linked {
			row.Routes = append(row.Routes, DeviceRoutes{Device: t, Routes: Routes(op, t)})
		}
		out = append(out, row)
	}
	return out
}

// linkedDevices are the device types with at least one kernel registered.
func linkedDevices() []device.Type {
	var seen [device.NumTypes]bool
	for op := kernel.OpID(1); op < kernel.NumOps; op++ {
		for _, t := range kernel.Devices(op) {
			seen[t] = true
		}
	}
	var ts []device.Type
	for t := range device.Type(device.NumTypes) {
		if seen[t] {
			ts = append(ts, t)
		}
	}
	return ts
}

// emptyOutputs reports whether every output has no elements: then there is
// nothing to compute (and an empty view's data address may lie outside its
// storage, so kernels must not see it).
func emptyOutputs(c *kernel.Call) bool {
	for i := range c.Out {
		if kernel.Numel(c.Out[i].Shape) != 0 {
			return false
		}
	}
	return len(c.Out) > 0
}
