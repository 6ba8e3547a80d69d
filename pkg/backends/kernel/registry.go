package kernel

import (
	"github.com/mindtorch/mindtorch/pkg/device"
)

// MetaFunc computes the outputs of a call (their dtype, shape and strides)
// from its inputs and attributes, or returns an *OpError for bad input. It
// runs alone on the meta device and before the kernel on every other.
type MetaFunc func(c *Call) error

// KernelFunc runs an op on its device. Inputs and outputs are bound to
// memory; the outputs have the layout the meta function chose (or the
// caller's, for out= calls).
type KernelFunc func(c *Call) error

type opEntry struct {
	meta    MetaFunc
	kernels [device.NumTypes]KernelFunc
}

var registry [NumOps]opEntry

// RegisterMeta installs the meta function of an op (pkg/backends/meta does,
// for every op). Registering twice is a bug and panics at init.
func RegisterMeta(op OpID, f MetaFunc) {
	if registry[op].meta != nil {
		panic("kernel: meta function of " + op.String() + " registered twice")
	}
	registry[op].meta = f
}

// Register installs the kernel of an op for a device type. Backends call it
// from their init. Registering twice is a bug and panics at init.
func Register(op OpID, t device.Type, f KernelFunc) {
	if registry[op].kernels[t] != nil {
		panic("kernel: " + op.String() + " registered twice for " + t.String())
	}
	registry[op].kernels[t] = f
}

// Meta returns the meta function of op, or nil.
func Meta(op OpID) MetaFunc { return registry[op].meta }

// Lookup returns the kernel of op for device type t, or nil.
func Lookup(op OpID, t device.Type) KernelFunc { return registry[op].kernels[t] }

// Devices lists the device types that can run op: those with a kernel, and
// meta when the op has a meta function.
func Devices(op OpID) []device.Type {
	var ts []device.Type
	for t := device.Type(0); t < device.NumTypes; t++ {
		if registry[op].kernels[t] != nil || (t == device.Meta && registry[op].meta != nil) {
			ts = append(ts, t)
		}
	}
	return ts
}
