package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// In-place ops and autograd. Writing into a leaf that requires gradients,
// or into a view of one, is refused while grad mode is on (its gradient
// would lose its meaning); writing into any other tensor rebases its
// history: the tensor's node becomes the in-place op, whose input is the
// tensor's previous value (a copy of it when the derivative needs that
// value). Writing into a view also rebases the view's base: its node
// becomes CopySlices, which sends the gradient of the written elements to
// the in-place op and the rest to the base's previous history, and the
// view then reads the base's new history, as in PyTorch.
//
// Unlike PyTorch, other views of the same base made before the write keep
// the history they had; take views again after writing through one.

// checkLeafWrite refuses an in-place op into a leaf that requires grad or
// into a view of one.
func checkLeafWrite(t *Tensor, op string) error {
	if !IsGradEnabled() {
		return nil
	}
	if t.requiresGrad && t.gradFn == nil {
		return t.opError(op, ErrAutograd, "a leaf Variable that requires grad is being used in an in-place operation.")
	}
	if b := t.base; b != nil && b.requiresGrad && b.gradFn == nil {
		return t.opError(op, ErrAutograd, "a view of a leaf Variable that requires grad is being used in an in-place operation.")
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
	p.gradFn, p.requiresGrad, p.base = t.gradFn, t.requiresGrad, nil
	return p
}

// rebase gives t, just written by an in-place op, the node rec makes for
// it: rec records an op with output t and the given inputs (or nothing,
// when t's new value is a constant). A view's base is rebased too.
func rebase(t *Tensor, rec func(out *Tensor)) {
	var before *Tensor
	if t.base != nil {
		before = previous(t.base, false)
	}
	t.gradFn, t.requiresGrad = nil, false
	if rec != nil {
		rec(t)
	}
	if before != nil {
		copySlices(t, before)
	}
}

// copySlices records that the view v of base was written in place: base's
// node becomes CopySlices over its previous value before and v's new value,
// and v then reads base's new history.
func copySlices(v, before *Tensor) {
	base := v.base
	written := v.view(v.shape, v.strides, v.offset)
	written.gradFn, written.requiresGrad, written.base = v.gradFn, v.requiresGrad, nil
	if !before.requiresGrad && !written.requiresGrad {
		return
	}
	base.gradFn, base.requiresGrad = nil, false
	base.setGradFn("CopySlices", []*Tensor{before, written}, func(g *Tensor, need []bool, _ bool) []*Tensor {
		// Work in storage positions: g is spread over the base's positions,
		// v's positions are picked out of it or cleared.
		dev := OnDevice(g.Device())
		n := base.storage.Nbytes() / base.dtype.ItemSize()
		at := Arange(n, dev, WithDType(Int64))
		inBase := at.AsStrided(base.shape, base.strides, base.offset).Reshape(-1)
		inView := at.AsStrided(v.shape, v.strides, v.offset).Reshape(-1)
		spread := Zeros([]int{n}, WithDType(g.dtype), dev).IndexAdd(0, inBase, g.Reshape(-1), 1)
		out := make([]*Tensor, 2)
		if need[0] {
			out[0] = spread.ScatterValue(0, inView, 0).IndexSelect(0, inBase).View(base.shape...)
		}
		if need[1] {
			out[1] = fitGrad(spread.IndexSelect(0, inView).View(v.shape...), written)
		}
		return out
	})
	v.gradFn, v.requiresGrad = nil, false
	recordView(base, v, "AsStridedBackward0", func(g *Tensor) *Tensor { return asStridedGrad(base, v, g) })
}

// recordCopy records t.Copy_(src): the gradient goes to src (summed over
// broadcast dims, in src's dtype); t's old value gets none.
func recordCopy(t, src *Tensor, name string) {
	rebase(t, func(out *Tensor) {
		if src.requiresGrad {
			out.setGradFn(name, []*Tensor{src}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
				return []*Tensor{fitGrad(g, src)}
			})
		}
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
	keep := op != kernel.OpAdd && op != kernel.OpSub && boolOps[op] == "" // the rules that read a's value
	prev := previous(a, keep)
	if b == nil {
		return func() { rebase(a, func(out *Tensor) { recordScalar(op, prev, out, s, mode, alpha) }) }, nil
	}
	return func() { rebase(a, func(out *Tensor) { recordBinary(op, prev, b, out, mode, alpha) }) }, nil
}
