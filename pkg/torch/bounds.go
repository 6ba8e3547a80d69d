package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// checkBounds refuses a tensor whose elements reach past the end of its
// storage, which UntypedStorage.Resize_ may have shrunk under it since it
// was made: op gets PyTorch's setStorage error (kernel.CheckOperand, the
// check the dispatcher makes on every operand) instead of touching memory
// that is no longer there. Failed tensors pass (their error is reported
// elsewhere).
func (t *Tensor) checkBounds(op string) error {
	if t.err != nil || t.storage == nil {
		return nil
	}
	o := t.operand()
	if err := kernel.CheckOperand(&o); err != nil {
		return t.fail(op, err).err
	}
	return nil
}
