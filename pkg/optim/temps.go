package optim

import "github.com/mindtorch/mindtorch/pkg/torch"

// temps are the temporaries of one update, which the optimizer alone
// holds: released when the update is done, so that their memory returns to
// the cache at once (hot for the next update) rather than after a garbage
// collection. Updates run on detached tensors, so no graph saves them.
type temps []*torch.Tensor

// add records x and returns it. A failed x is not recorded: it is either
// a new tensor without memory or an input passing its error on (an op on
// a tensor that carries an error returns that tensor), which is not ours.
func (t *temps) add(x *torch.Tensor) *torch.Tensor {
	if x.Err() == nil {
		*t = append(*t, x)
	}
	return x
}

// release releases every recorded tensor.
func (t temps) release() {
	for _, x := range t {
		x.Release()
	}
}
