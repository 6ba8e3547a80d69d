package torch

import (
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// The small-tensor path.
//
// add, sub, mul and div of two float CPU tensors of one dtype and one
// shape, both contiguous, with a result of at most smallBytes, are computed
// here without the dispatcher: there is nothing for it to decide (no
// broadcasting, no type promotion, no device to choose, no error to
// report), and its steps would cost more than the op itself (three times
// the time of a 2x2 add). The result is allocated with its tensor in one
// object (kernel.AllocateWith, as the dispatcher allocates small results)
// and computed by the CPU backend's small-tensor path (kernel.SmallBinary:
// the Go loops its pointwise kernel runs on small operands, the one
// implementation). Everything else, including released inputs, goes to
// the dispatcher.

// smallBytes bounds the result of the small-tensor path.
const smallBytes = 64

// smallBinary returns a op b by the small-tensor path, or nil when the
// operands do not qualify.
func smallBinary(op kernel.OpID, a, b *Tensor, mode int, alpha kernel.Scalar) *Tensor {
	dt := a.dtype
	if mode != 0 || b.dtype != dt || (dt != Float32 && dt != Float64) {
		return nil
	}
	if (op == kernel.OpAdd || op == kernel.OpSub) && (alpha.DType() == Bool || alpha.Float() != 1) {
		return nil // an alpha other than 1, and a bool alpha (an error), go to the dispatcher
	}
	n := a.Numel()
	if n*dt.ItemSize() > smallBytes || a.Dim() > 8 || !slices.Equal(a.shape, b.shape) || !a.IsContiguous() || !b.IsContiguous() {
		return nil
	}
	am, bm := a.storage.mem, b.storage.mem
	if !onHost(am) || !onHost(bm) || am.Released() || bm.Released() ||
		(a.offset+n)*dt.ItemSize() > am.Nbytes() || (b.offset+n)*dt.ItemSize() > bm.Nbytes() {
		return nil // the dispatcher reports released or shrunk storage
	}
	both, m := kernel.AllocateWith[tensorAndStorage](n * dt.ItemSize())
	if both == nil { // the cache's debug mode
		return nil
	}
	x := unsafe.Add(am.HostPtr(), a.offset*dt.ItemSize())
	y := unsafe.Add(bm.HostPtr(), b.offset*dt.ItemSize())
	if !kernel.SmallBinary(op, dt, m.HostPtr(), x, y, n) {
		return nil
	}
	var strides [8]int
	kernel.ContiguousStrides(a.shape, strides[:len(a.shape)])
	return both.init(m, dt, a.shape, strides[:len(a.shape)], 0)
}

// onHost reports whether m is CPU memory the host addresses.
func onHost(m kernel.Memory) bool {
	return dispatch.PeekHostPtr(m) != nil && m.Device().Type == device.CPU
}
