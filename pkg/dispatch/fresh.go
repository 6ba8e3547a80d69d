package dispatch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// CaptureFresh queues c in the calling goroutine's pipeline when the
// pipeline would capture it as a call making new tensors: c.Out describes
// fresh tensors that only the caller will hold (dtype, shape, strides;
// Mem nil), which the meta function sees as given outputs (copy_ needs its
// destination). Its outputs are then bound to Pending memory, and ok is
// true. Without a pipeline that takes it, nothing is done and ok is false.
func CaptureFresh(c *kernel.Call) (ok bool, err error) {
	c.OutGiven = false
	pl := capturing(c)
	if pl == nil {
		return false, nil
	}
	meta := kernel.Meta(c.Op)
	if meta == nil {
		return false, nil
	}
	if err := released(c); err != nil { // the inputs (no output is given yet)
		return true, decorate(c, err)
	}
	c.OutGiven = true
	if err := meta(c); err != nil {
		return true, decorate(c, err)
	}
	if err := runnable(c); err != nil {
		return true, decorate(c, err)
	}
	if !deferrable(c) {
		return false, nil
	}
	return true, pl.capture(c)
}
