package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// In-place ops and autograd. Writing into a leaf that requires gradients
// is refused while grad mode is on (its gradient would lose its meaning);
// writing into any other tensor rebases its history: the tensor's node
// becomes the in-place op, whose input is the tensor's previous value
// (a copy of it when the derivative needs that value).

// checkLeafWrite refuses an in-place op into a leaf that requires grad.
func checkLeafWrite(t *Tensor, op string) error {
	if t.requiresGrad && t.gradFn == nil && IsGradEnabled() {
		return t.opError(op, ErrAutograd, "a leaf Variable that requires grad is being used in an in-place operation.")
	}
	return nil
}

// previous is t's value before an in-place op, as an input of the op's node:
// a recorded copy when keep is true, else t's old history over its storage.
func previous(t *Tensor, keep bool) *Tensor {
	if keep {
		return t.Clone()
	}
	p := t.view(t.shape, t.strides, t.offset)
	p.gradFn, p.requiresGrad = t.gradFn, t.requiresGrad
	return p
}

// rebase gives t, just written by an in-place op, the node rec makes for
// it: rec records an op with output t and the given inputs.
func rebase(t *Tensor, rec func(out *Tensor)) {
	t.gradFn, t.requiresGrad = nil, false
	rec(t)
}

// recordCopy records t.Copy_(src): the gradient goes to src (summed over
// broadcast dims, in src's dtype); t's old value gets none.
func recordCopy(t, src *Tensor, name string) {
	t.gradFn, t.requiresGrad = nil, false
	t.setGradFn(name, []*Tensor{src}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
		return []*Tensor{fitGrad(g, src)}
	})
}

// unaryInPlaceGrad records x.op_() for autograd, x holding prev's value before.
func unaryInPlaceGrad(op kernel.OpID, x *Tensor, mode int, s [2]kernel.Scalar) (func(), error) {
	if !recording(x) {
		return nil, nil
	}
	if err := checkLeafWrite(x, op.String()+"_"); err != nil {
		return nil, err
	}
	keep := unaryRules[op] != nil && unaryRules[op].usesX
	prev := previous(x, keep)
	return func() { rebase(x, func(out *Tensor) { recordUnary(op, prev, out, mode, s) }) }, nil
}

// binaryInPlaceGrad records a.op_(b) (b nil: the Go scalar s) for autograd.
func binaryInPlaceGrad(op kernel.OpID, a, b *Tensor, s kernel.Scalar, mode int, alpha kernel.Scalar) (func(), error) {
	if !recording(a, b) {
		return nil, nil
	}
	if err := checkLeafWrite(a, op.String()+"_"); err != nil {
		return nil, err
	}
	keep := op != kernel.OpAdd && op != kernel.OpSub
	prev := previous(a, keep)
	if b == nil {
		return func() { rebase(a, func(out *Tensor) { recordScalar(op, prev, out, s, mode, alpha) }) }, nil
	}
	return func() { rebase(a, func(out *Tensor) { recordBinary(op, prev, b, out, mode, alpha) }) }, nil
}
