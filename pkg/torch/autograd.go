package torch

import (
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/autograd"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// The autograd API of tensors. The engine is pkg/autograd; the gradient
// formulas sit next to their ops.

// NoGrad runs f with recording off in the calling goroutine (PyTorch's
// torch.no_grad(), whose mode is per thread). Other goroutines record as
// before; goroutines that f starts begin with recording on. See
// pkg/autograd for how the mode is kept and what it costs.
func NoGrad(f func()) { autograd.NoGrad(f) }

// EnableGrad runs f with recording on in the calling goroutine, even inside
// NoGrad.
func EnableGrad(f func()) { autograd.EnableGrad(f) }

// SetGradEnabled turns recording on or off for the calling goroutine until
// it calls SetGradEnabled again. Prefer NoGrad, which restores the mode.
func SetGradEnabled(on bool) { autograd.SetGradEnabled(on) }

// IsGradEnabled reports whether ops called by this goroutine record.
func IsGradEnabled() bool { return autograd.IsGradEnabled() }

// InferenceMode runs f with recording off in the calling goroutine, as
// NoGrad. (PyTorch's inference
// mode also skips version counting; here version counters are one atomic
// add per in-place op, so there is nothing further to skip.)
func InferenceMode(f func()) { autograd.NoGrad(f) }

// GradFn is the node of the op that made t (nil for leaves and for tensors
// that do not require gradients).
func (t *Tensor) GradFn() *autograd.Node {
	if t == nil {
		return nil
	}
	return t.gradFn
}

// IsLeaf reports whether t was not made by a recorded op: tensors that do
// not require gradients, and those the user created with requires_grad.
func (t *Tensor) IsLeaf() bool { return t == nil || t.gradFn == nil }

// Grad is the gradient accumulated into t by backward passes (nil before
// the first): for leaves that require gradients, and for tensors that
// called RetainGrad.
func (t *Tensor) Grad() *Tensor {
	if t == nil {
		return nil
	}
	return t.grad
}

// SetGrad replaces t's gradient (nil clears it, as optimizers' zero_grad
// with set_to_none). A gradient must have t's shape, dtype and device, as
// PyTorch checks when .grad is assigned; otherwise t keeps its gradient and
// the error is returned.
func (t *Tensor) SetGrad(g *Tensor) error {
	if t == nil {
		return nilTensor("set_grad")
	}
	if g != nil {
		if err := CheckGrad(t, g); err != nil {
			return err
		}
	}
	mu := accumulateLock(t)
	mu.Lock()
	if g == nil && t.gradMade && t.grad != nil && t.grad.storage != nil {
		dropGrad(t.grad.storage) // dropped inside a Tidy: the scope's to release
	}
	t.grad, t.gradMade = g, false
	mu.Unlock()
	return nil
}

// CheckGrad reports why g cannot be the gradient of t: either is nil,
// carries an error or has memory that was released or no longer holds it,
// or g's shape, dtype or device is not t's (PyTorch's checks on assigning
// .grad). Optimizers call it before a step, so that a step changes nothing
// when a gradient cannot be used.
func CheckGrad(t, g *Tensor) error {
	if err := inputErr("set_grad", t, g); err != nil {
		return err
	}
	for _, x := range []*Tensor{t, g} {
		if x.storage.mem.Released() {
			return NewError("set_grad", ErrArgument, []*Tensor{t, g}, "a tensor was used after its storage was released")
		}
		if err := x.checkBounds("set_grad"); err != nil {
			return err
		}
	}
	switch {
	case !slices.Equal(g.shape, t.shape):
		return NewError("set_grad", ErrShape, []*Tensor{t, g}, "assigned grad has data of a different size")
	case g.dtype != t.dtype:
		return NewError("set_grad", ErrDType, []*Tensor{t, g}, "assigned grad has data of a different type")
	case g.Device() != t.Device():
		return NewError("set_grad", ErrDevice, []*Tensor{t, g}, "assigned grad has data located on a different device")
	}
	return nil
}

// nilTensor is the error of a nil *Tensor given to op.
func nilTensor(op string) error {
	e := kernel.Errorf(ErrArgument, "expected a Tensor but got nil")
	e.Op = op
	return e
}

// RetainGrad makes a non-leaf tensor keep its gradient in Grad. It does
// nothing on leaves.
func (t *Tensor) RetainGrad() *Tensor {
	if t == nil {
		return failed(nilTensor("retain_grad"))
	}
	if t.err != nil || t.gradFn == nil || t.retainsGrad {
		return t
	}
	if !t.requiresGrad {
		return failed(t.opError("retain_grad", ErrAutograd, "can't retain_grad on Tensor that has requires_grad=False"))
	}
	t.retainsGrad = true
	t.gradFn.AddHook(0, func(g autograd.Value) autograd.Value {
		if _, err := t.accumulate(g.(*Tensor), false); err != nil {
			return failed(err)
		}
		return g
	})
	return t
}

// RegisterHook adds a function called with t's gradient each time it is
// computed; it returns the gradient to use instead, or nil to keep it. A
// returned gradient must have the shape, dtype and device of the one it
// replaces (else the backward pass fails with PyTorch's error).
func (t *Tensor) RegisterHook(hook func(grad *Tensor) *Tensor) error {
	if t == nil {
		return nilTensor("register_hook")
	}
	if t.err != nil {
		return t.err
	}
	if hook == nil {
		return t.opError("register_hook", ErrArgument, "the hook is nil")
	}
	if !t.requiresGrad {
		return t.opError("register_hook", ErrAutograd, "cannot register a hook on a tensor that doesn't require gradient")
	}
	t.gradEdge().Node.AddHook(0, func(g autograd.Value) autograd.Value {
		in := g.(*Tensor)
		r := hook(in)
		if r == nil {
			return g
		}
		if err := checkHookResult(in, r); err != nil {
			return failed(err)
		}
		return r
	})
	return nil
}

// checkHookResult refuses a hook's gradient that differs from the one it
// replaces, with PyTorch's messages.
func checkHookResult(was, got *Tensor) error {
	switch {
	case got.err != nil:
		return got.err
	case !slices.Equal(was.shape, got.shape):
		return NewError("hook", ErrShape, []*Tensor{was, got}, "hook 'hook' has changed the size of value")
	case was.dtype != got.dtype:
		return NewError("hook", ErrDType, []*Tensor{was, got}, "hook 'hook' has changed the type of value (was %s got %s)", was.dtype, got.dtype)
	case was.Device() != got.Device():
		return NewError("hook", ErrDevice, []*Tensor{was, got}, "hook 'hook' has changed the type of value (was %s got %s)", was.Device(), got.Device())
	}
	return nil
}

// Detach_ makes t a leaf that does not require gradients, in place.
func (t *Tensor) Detach_() *Tensor {
	if t == nil {
		return failed(nilTensor("detach_"))
	}
	t.gradFn, t.requiresGrad = nil, false
	return t
}

// accumulate adds g into t.grad: the first gradient is copied (it may be
// shared with other tensors or a broadcast view) unless yours says the
// backward pass alone holds it (then t keeps it, and kept says so to the
// pass, as it does for a differentiable g kept as is), later ones are added in
// place, or out of place when g is itself differentiable (create_graph). A
// gradient of another dtype is cast to t's, as PyTorch's engine does; one
// of another shape, or a failed addition, is an error and leaves t.grad as
// it was.
func (t *Tensor) accumulate(g *Tensor, yours bool) (kept bool, err error) {
	given := g
	if g.err != nil {
		return false, g.err
	}
	if !slices.Equal(g.shape, t.shape) {
		return false, NewError("backward", ErrShape, []*Tensor{t, g}, "invalid gradient: got %s but expected shape compatible with %s",
			kernel.ShapeString(g.shape), kernel.ShapeString(t.shape))
	}
	own := false // g is a tensor t may keep
	if g.dtype != t.dtype {
		if g = g.ToDType(t.dtype); g.err != nil {
			return false, g.err
		}
		own = true
	}
	var mu = accumulateLock(t)
	mu.Lock()
	defer mu.Unlock()
	var sum *Tensor
	switch {
	case t.grad == nil:
		switch {
		case g.requiresGrad:
			sum = g
		case (own || yours) && g.wholeStorage():
			sum = g
		default:
			if sum = g.Contiguous(); sum == g {
				sum = g.Clone()
			}
		}
	case g.requiresGrad || t.grad.requiresGrad:
		sum = t.grad.Add(g)
	default:
		sum = t.grad.Add_(g)
	}
	if sum.err != nil {
		return false, sum.err
	}
	if sum.storage != nil {
		dispatch.Keep(sum.storage.mem) // read later for sure: a pipeline stores it
	}
	if sum != t.grad { // a new gradient (an in-place sum keeps the tensor SetGrad may have given)
		if sum.storage != nil {
			sum.storage.mark.Or(gradBit) // no Tidy scope releases it while it is t's gradient
		}
		// made here, or the pass's own: not a gradient the caller passed in
		t.grad, t.gradMade = sum, sum != given || yours
	}
	return sum == given, nil // t holds the pass's gradient itself: the pass must not free it
}

// wholeStorage reports whether t is contiguous and spans its whole storage:
// a gradient that a leaf may keep as it is (a view of a larger storage
// would keep all of it alive).
func (t *Tensor) wholeStorage() bool {
	return t.IsContiguous() && t.offset == 0 && t.storage != nil && t.storage.mem != nil &&
		t.storage.mem.Nbytes() == t.Numel()*t.dtype.ItemSize()
}

// BackwardOptions control a backward pass.
type BackwardOptions struct {
	// Grad is the gradient of the output (nil: 1 for a one-element output).
	Grad *Tensor
	// RetainGraph keeps the graph for another pass.
	RetainGraph bool
	// CreateGraph records the backward pass, for higher derivatives (it
	// implies RetainGraph).
	CreateGraph bool
}

// Backward computes the gradient of t, a one-element tensor, with respect
// to every leaf that requires gradients and accumulates it into their Grad.
// The graph is freed afterwards (see BackwardWith).
func (t *Tensor) Backward() error { return t.BackwardWith(BackwardOptions{}) }

// BackwardWith is Backward with an explicit output gradient (required for
// a t with more than one element) and graph options.
func (t *Tensor) BackwardWith(opt BackwardOptions) error {
	if t == nil {
		return nilTensor("backward")
	}
	if t.err != nil { // a pending t's own failure is the flush's below
		return t.err
	}
	g, err := rootGrad(t, opt.Grad, 0)
	if err != nil {
		return err
	}
	// Inside a pipeline the backward pass is queued with the forward ops
	// (a device that launches batches gets both in one), then run before
	// Backward returns: its errors are this call's.
	_, err = autograd.Backward([]autograd.Edge{t.gradEdge()}, []autograd.Value{g},
		engineOptions(opt.RetainGraph || opt.CreateGraph, opt.CreateGraph, nil))
	if ferr := dispatch.FlushCurrent(); err == nil {
		err = ferr
	}
	return err
}

// GradOptions control Grad.
type GradOptions struct {
	// GradOutputs are the gradients of the outputs (nil entries, or a nil
	// slice: 1 for one-element outputs).
	GradOutputs []*Tensor
	RetainGraph bool
	CreateGraph bool
	// AllowUnused returns nil for inputs the outputs do not depend on,
	// instead of an error.
	AllowUnused bool
}

// Grad returns the gradients of the outputs with respect to the inputs,
// without touching any tensor's Grad (PyTorch's torch.autograd.grad).
func Grad(outputs, inputs []*Tensor, opt GradOptions) ([]*Tensor, error) {
	if len(outputs) == 0 {
		return nil, NewError("grad", ErrArgument, nil, "grad requires at least one output")
	}
	if len(inputs) == 0 {
		return nil, NewError("grad", ErrArgument, nil, "grad requires non-empty inputs.")
	}
	roots := make([]autograd.Edge, len(outputs))
	grads := make([]autograd.Value, len(outputs))
	for i, o := range outputs {
		if o == nil {
			return nil, nilTensor("grad")
		}
		if err := o.Err(); err != nil {
			return nil, err
		}
		var go_ *Tensor
		if i < len(opt.GradOutputs) {
			go_ = opt.GradOutputs[i]
		}
		g, err := rootGrad(o, go_, i)
		if err != nil {
			return nil, err
		}
		roots[i], grads[i] = o.gradEdge(), g
	}
	capture := make([]autograd.Edge, len(inputs))
	for i, in := range inputs {
		if in == nil {
			return nil, nilTensor("grad")
		}
		if in.err != nil {
			return nil, in.err
		}
		if !in.requiresGrad {
			return nil, in.opError("grad", ErrAutograd, "One of the differentiated Tensors does not require grad")
		}
		capture[i] = in.gradEdge()
	}
	var vals []autograd.Value
	var err error
	dispatch.Eager(func() {
		vals, err = autograd.Backward(roots, grads, engineOptions(opt.RetainGraph || opt.CreateGraph, opt.CreateGraph, capture))
	})
	if err != nil {
		return nil, err
	}
	out := make([]*Tensor, len(inputs))
	for i, v := range vals {
		if v == nil {
			if !opt.AllowUnused {
				return nil, inputs[i].opError("grad", ErrAutograd,
					"One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.")
			}
			continue
		}
		out[i] = v.(*Tensor)
	}
	return out, nil
}

// rootGrad is the gradient a backward pass starts from at output t.
func rootGrad(t *Tensor, g *Tensor, i int) (*Tensor, error) {
	if !t.requiresGrad {
		return nil, t.opError("backward", ErrAutograd, "element %d of tensors does not require grad and does not have a grad_fn", i)
	}
	if g == nil {
		if t.Numel() != 1 {
			return nil, t.opError("backward", ErrAutograd, "grad can be implicitly created only for scalar outputs")
		}
		return onesFor(t), nil
	}
	if g.err != nil {
		return nil, g.err
	}
	if !slices.Equal(g.shape, t.shape) {
		return nil, NewError("backward", ErrShape, []*Tensor{t, g}, "Mismatch in shape: grad_output[%d] has a shape of %s and output[%d] has a shape of %s.",
			i, kernel.ShapeString(g.shape), i, kernel.ShapeString(t.shape))
	}
	return g, nil
}

// onesFor is a tensor of ones shaped like t: on the CPU in float32 or
// float64 written directly (the root gradient of every backward pass of a
// scalar), else OnesLike.
func onesFor(t *Tensor) *Tensor {
	if t.Device().Type != device.CPU || (t.dtype != Float32 && t.dtype != Float64) || t.Dim() > 8 {
		return OnesLike(t)
	}
	both, m := kernel.AllocateWith[tensorAndStorage](t.dtype.ItemSize())
	if both == nil { // every allocation goes through the cache (its debug mode)
		return OnesLike(t)
	}
	if t.dtype == Float32 {
		*(*float32)(m.HostPtr()) = 1
	} else {
		*(*float64)(m.HostPtr()) = 1
	}
	var strides [8]int
	kernel.ContiguousStrides(t.shape, strides[:t.Dim()])
	return both.init(m, t.dtype, t.shape, strides[:t.Dim()], 0)
}

func engineOptions(retain, create bool, capture []autograd.Edge) autograd.Options {
	opt := autograd.Options{
		RetainGraph: retain,
		CreateGraph: create,
		Capture:     capture,
		Add: func(a, b autograd.Value) (autograd.Value, error) {
			s := a.(*Tensor).Add(b.(*Tensor))
			return s, s.err
		},
	}
	if !dispatch.Pipelined() { // a pipeline frees its calls' outputs by itself
		start := storageClock.Load()
		opt.Memory = func(v autograd.Value) (any, bool) {
			t, _ := v.(*Tensor)
			if t == nil || t.err != nil || t.storage == nil || t.storage.mem == nil {
				return nil, false
			}
			// A gradient that requires gradients (the caller's gradient
			// did) may be saved by the graph it records: never the pass's.
			return kernel.AliasKey(t.storage.mem), t.storage.born() > start && !t.requiresGrad
		}
		opt.Free = func(v autograd.Value) { v.(*Tensor).Release() }
	}
	return opt
}
