package nn

import "github.com/mindtorch/mindtorch/pkg/torch"

// intermediates are the tensors a layer computes on the way to its result
// and hands to no one. When no graph was recorded (the result does not
// require grad: no_grad, or no input or parameter requires it), nothing
// else can reach them, and release returns their memory to the cache at
// once, as PyTorch frees them when the layer returns; a recorded graph may
// have saved them for backward, and then they are left to the collector.
type intermediates []*torch.Tensor

// add records x and returns it. A failed x is not recorded: it is either
// a new tensor without memory or an input passing its error on (an op on
// a tensor that carries an error returns that tensor), which is not ours.
func (t *intermediates) add(x *torch.Tensor) *torch.Tensor {
	if x.Err() == nil {
		*t = append(*t, x)
	}
	return x
}

// release releases the recorded tensors, but none when result requires
// grad or has failed, and never result itself.
func (t intermediates) release(result *torch.Tensor) {
	if result.Err() != nil || result.RequiresGrad() {
		return
	}
	for _, x := range t {
		if x != result {
			x.Release()
		}
	}
}
