package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// checkBounds refuses a tensor whose elements reach past the end of its
// storage, which UntypedStorage.Resize_ may have shrunk under it since it
// was made: op gets PyTorch's setStorage error instead of touching memory
// that is no longer there. It costs a few integer operations per dim and
// allocates nothing when t is within bounds. Failed tensors pass (their
// error is reported elsewhere).
func (t *Tensor) checkBounds(op string) error {
	if t.err != nil || t.storage == nil {
		return nil
	}
	size := t.dtype.ItemSize()
	need, err := kernel.StorageNbytes(t.shape, t.strides, t.offset, size)
	if have := t.storage.mem.Nbytes(); err == nil && need > have {
		err = kernel.OutOfBounds(t.shape, t.strides, t.offset, size, need, have)
	}
	if err != nil {
		return t.fail(op, err).err
	}
	return nil
}
