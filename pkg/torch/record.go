package torch

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/autograd"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// How ops record themselves for autograd. An op that has an input
// requiring gradients (while grad mode is on) gives its output a node: the
// edges to its inputs' nodes and a backward function, written next to the
// op. Backward functions compute with ordinary tensor ops; they see the
// saved tensors detached unless create_graph asks for a differentiable
// backward, so they record nothing otherwise.

// backwardFn returns the gradients of an op's inputs from the gradient g of
// its output; need[i] says whether input i wants one (nil entries are
// fine). Errors travel in the returned tensors.
type backwardFn func(g *Tensor, need []bool, create bool) []*Tensor

// recording reports whether an op on these inputs records a node.
func recording(ins ...*Tensor) bool {
	for _, t := range ins {
		if t != nil && t.requiresGrad {
			return autograd.IsGradEnabled()
		}
	}
	return false
}

// setGradFn records that out was made from ins by the op name, whose
// gradients fn computes. Outputs that are not floating point never require
// gradients.
func (out *Tensor) setGradFn(name string, ins []*Tensor, fn backwardFn) *Tensor {
	if o := out.newNode(name, ins); o != nil {
		o.fn = fn
	}
	return out
}

// newNode makes out's node for an op over ins (nil when out does not
// require gradients); the caller sets its backward function.
func (out *Tensor) newNode(name string, ins []*Tensor) *opNode {
	if out.err != nil || !out.dtype.IsFloatingPoint() {
		return nil
	}
	o := &opNode{}
	next, need := o.edges[:0], o.needs[:0]
	if len(ins) > len(o.edges) {
		next, need = make([]autograd.Edge, 0, len(ins)), make([]bool, 0, len(ins))
	}
	for _, in := range ins {
		var e autograd.Edge
		wants := in != nil && in.requiresGrad
		if wants {
			e = in.gradEdge()
		}
		next, need = append(next, e), append(need, wants)
	}
	o.need = need
	autograd.InitNode(&o.Node, name, 1, next, o)
	out.gradFn = &o.Node
	out.requiresGrad = true
	return o
}

// opNode is the node of one recorded op and its backward function, in one
// allocation (with room for the edges of up to three inputs).
type opNode struct {
	autograd.Node
	fn    backwardFn
	need  []bool
	edges [3]autograd.Edge
	needs [3]bool

	// The most frequent ops read no saved tensor in their derivatives: add
	// and sub (a rule and alpha), sum and mean (the reduced dims). Their
	// node keeps what the derivative needs instead of a closure, and the
	// inputs' shapes and dtypes instead of the inputs, whose memory it
	// would otherwise keep alive until the backward pass.
	kind    nodeKind
	linear  *binaryRule
	alpha   kernel.Scalar
	shapes  [2][]int
	dtypes  [2]DType
	dims    []int
	keepDim bool
	count   int    // mean: the number of elements averaged
	ints    [8]int // backing of shapes and dims while they fit
	used    int    // of ints
}

// nodeKind says how an opNode computes its gradients.
type nodeKind uint8

const (
	closureNode nodeKind = iota // fn
	linearNode                  // add, sub
	sumNode                     // sum
	meanNode                    // mean
)

// keep copies ints into the node's inline space when they fit.
func (o *opNode) keep(ints []int) []int {
	if o.used+len(ints) > len(o.ints) {
		return slices.Clone(ints)
	}
	s := o.ints[o.used : o.used+len(ints) : o.used+len(ints)]
	copy(s, ints)
	o.used += len(ints)
	return s
}

// keepInput records input i's shape and dtype, which its gradient must have.
func (o *opNode) keepInput(i int, t *Tensor) {
	o.shapes[i], o.dtypes[i] = o.keep(t.shape), t.dtype
}

// Apply runs the backward function on the output's gradient.
func (o *opNode) Apply(gs []autograd.Value, create bool) ([]autograd.Value, error) {
	var buf [2]*Tensor
	var res []*Tensor
	g := gs[0].(*Tensor)
	switch o.kind {
	case linearNode:
		ga, gb := o.linear.grad(g, nil, nil, nil, 0, o.alpha)
		buf[0], buf[1] = fitTo(ga, o.shapes[0], o.dtypes[0]), fitTo(gb, o.shapes[1], o.dtypes[1])
		res = buf[:2]
	case sumNode, meanNode:
		g = expandTo(g, o.shapes[0], o.dims, o.keepDim)
		if o.kind == meanNode {
			g = g.DivScalar(float64(o.count))
		}
		buf[0] = fitTo(g, o.shapes[0], o.dtypes[0])
		res = buf[:1]
	default:
		res = o.fn(g, o.need, create)
	}
	vals := make([]autograd.Value, len(o.need))
	for i, r := range res {
		if r == nil || !o.need[i] {
			continue
		}
		if r.err != nil {
			return nil, r.err
		}
		vals[i] = r
	}
	return vals, nil
}

// Release drops the backward function and the tensors it saved.
func (o *opNode) Release() { o.fn, o.linear = nil, nil }

// gradEdge is where t's gradient goes: the output of the op that made it,
// or its accumulator when t is a leaf.
func (t *Tensor) gradEdge() autograd.Edge {
	if t.gradFn != nil {
		return autograd.Edge{Node: t.gradFn}
	}
	if n := t.accumulator.Load(); n != nil {
		return autograd.Edge{Node: n}
	}
	n := autograd.NewAccumulator(func(g autograd.Value) error { return t.accumulate(g.(*Tensor)) })
	if !t.accumulator.CompareAndSwap(nil, n) {
		n = t.accumulator.Load()
	}
	return autograd.Edge{Node: n}
}

// saved is a tensor kept for the backward pass, with the version of its
// storage at the time, to detect in-place changes made since.
type saved struct {
	t       *Tensor
	version int64
	output  bool // t is the output of the op that saved it
}

func save(t *Tensor) saved { return saved{t: t, version: t.storage.Version()} }

func saveOutput(t *Tensor) saved { s := save(t); s.output = true; return s }

// get returns the saved tensor (detached unless create), or an error when
// it was modified in place after it was saved.
func (s saved) get(create bool, op string) *Tensor {
	if s.t == nil { // not saved: the derivative does not read it
		return nil
	}
	if v := s.t.storage.Version(); v != s.version {
		what := "input"
		if s.output {
			what = "output"
		}
		return failed(kernel.Errorf(ErrAutograd, "one of the variables needed for gradient computation has been modified by an inplace operation: "+
			"[%s %s], which is an %s of %s, is at version %d; expected version %d instead. "+
			"Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).",
			s.t.typeName(), kernel.ShapeString(s.t.shape), what, op, v, s.version))
	}
	if create || !s.t.requiresGrad {
		return s.t
	}
	return s.t.Detach()
}

// typeName is PyTorch's legacy tensor type name, as in its messages.
func (t *Tensor) typeName() string {
	names := map[DType]string{Float32: "torch.FloatTensor", Float64: "torch.DoubleTensor", Float16: "torch.HalfTensor",
		BFloat16: "torch.BFloat16Tensor", Int64: "torch.LongTensor", Int32: "torch.IntTensor", Int16: "torch.ShortTensor",
		Int8: "torch.CharTensor", Uint8: "torch.ByteTensor", Bool: "torch.BoolTensor"}
	return names[t.dtype]
}

// sumTo reduces a gradient to shape by summing the dims that broadcasting
// added or expanded: the gradient of every broadcasting op.
func sumTo(g *Tensor, shape []int) *Tensor {
	if g.err != nil || sameShape(g.shape, shape) {
		return g
	}
	lead := g.Dim() - len(shape)
	var dims []int
	for i := range g.Dim() {
		if i < lead || (shape[i-lead] == 1 && g.shape[i] != 1) {
			dims = append(dims, i)
		}
	}
	if len(dims) > 0 {
		g = g.SumKeepDim(dims...)
	}
	return g.Reshape(shape...)
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
