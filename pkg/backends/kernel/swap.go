package kernel

import "github.com/mindtorch/mindtorch/pkg/device"

// SwapKernel installs f (nil: none) as op's kernel for device type t and
// returns the function that puts the previous one back. It is for tests
// that exercise another route of an op a device runs natively (its
// decomposition, the host fallback); calls must not run meanwhile.
func SwapKernel(op OpID, t device.Type, f KernelFunc) (restore func()) {
	old := registry[op].kernels[t]
	registry[op].kernels[t] = f
	return func() { registry[op].kernels[t] = old }
}
