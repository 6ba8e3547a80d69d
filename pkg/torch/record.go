package torch

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/autograd"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
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
	next := o.edges[:0]
	if len(ins) > len(o.edges) {
		next = make([]autograd.Edge, 0, len(ins))
	}
	for _, in := range ins {
		var e autograd.Edge // no node: the input wants no gradient
		if in != nil && in.requiresGrad {
			e = in.gradEdge()
		}
		next = append(next, e)
	}
	autograd.InitNode(&o.Node, name, 1, next, o)
	out.gradFn = &o.Node
	out.requiresGrad = true
	return o
}

// opNode is the node of one recorded op and its backward function, in one
// allocation (with room for the edges of up to three inputs). Recording
// cost follows its size, so it is kept small.
type opNode struct {
	autograd.Node
	fn    backwardFn
	edges [3]autograd.Edge

	// The most frequent ops read no saved tensor in their derivatives: add
	// and sub (a rule and alpha), sum and mean (the reduced dims). Their
	// node keeps what the derivative needs instead of a closure, and the
	// inputs' shapes and dtypes instead of the inputs, whose memory it
	// would otherwise keep alive until the backward pass.
	kind    nodeKind
	keepDim bool
	lens    [3]uint8 // of the shapes of inputs 0 and 1 (sameAsGrad: the gradient's) and of the dims, in ints
	nints   uint8    // ints used
	dtypes  [2]DType
	linear  *binaryRule
	alpha   kernel.Scalar // add, sub: alpha; mean: the number of elements averaged
	ints    [4]int        // the kept shapes, then the dims, while they fit
	more    *[]int        // all of them when they do not
}

// nodeKind says how an opNode computes its gradients.
type nodeKind uint8

const (
	closureNode nodeKind = iota // fn
	linearNode                  // add, sub
	sumNode                     // sum
	meanNode                    // mean
)

// sameAsGrad in lens says that an input has the shape of the incoming
// gradient (no broadcasting), which then need not be stored.
const sameAsGrad = 255

// keepInput records input i's dtype, and its shape unless it is out's.
func (o *opNode) keepInput(i int, t, out *Tensor) {
	o.dtypes[i] = t.dtype
	if out != nil && slices.Equal(t.shape, out.shape) {
		o.lens[i] = sameAsGrad
		return
	}
	o.lens[i] = uint8(len(t.shape))
	o.keepInts(t.shape)
}

// keepDims records the reduced dims (after the shapes).
func (o *opNode) keepDims(dims []int) {
	o.lens[2] = uint8(len(dims))
	o.keepInts(dims)
}

func (o *opNode) keepInts(v []int) {
	n := int(o.nints) + len(v)
	if o.more == nil && n <= len(o.ints) {
		copy(o.ints[o.nints:], v)
	} else {
		if o.more == nil {
			all := append([]int(nil), o.ints[:o.nints]...)
			o.more = &all
		}
		*o.more = append(*o.more, v...)
	}
	o.nints = uint8(min(n, 255))
}

// kept is every int kept, in order.
func (o *opNode) kept() []int {
	if o.more != nil {
		return *o.more
	}
	return o.ints[:o.nints]
}

// shape is input i's shape (that of g when the same).
func (o *opNode) shape(i int, g *Tensor) []int {
	if o.lens[i] == sameAsGrad {
		return g.shape
	}
	at := 0
	if i == 1 && o.lens[0] != sameAsGrad {
		at = int(o.lens[0])
	}
	return o.kept()[at : at+int(o.lens[i])]
}

// dims are the reduced dims of sum and mean.
func (o *opNode) dims() []int {
	at := int(o.lens[0]) // sum and mean have one input, whose shape is kept
	return o.kept()[at : at+int(o.lens[2])]
}

// Apply runs the backward function on the output's gradient.
func (o *opNode) Apply(gs []autograd.Value, create bool) ([]autograd.Value, error) {
	var buf [2]*Tensor
	var res []*Tensor
	g := gs[0].(*Tensor)
	next := o.Next()
	switch o.kind {
	case linearNode:
		ga, gb := o.linear.grad(g, nil, nil, nil, 0, o.alpha)
		buf[0], buf[1] = fitTo(ga, o.shape(0, g), o.dtypes[0]), fitTo(gb, o.shape(1, g), o.dtypes[1])
		res = buf[:2]
	case sumNode, meanNode:
		shape := o.shape(0, g)
		g = expandTo(g, shape, o.dims(), o.keepDim)
		if o.kind == meanNode {
			g = g.DivScalar(o.alpha.Float())
		}
		buf[0] = fitTo(g, shape, o.dtypes[0])
		res = buf[:1]
	default:
		need := make([]bool, len(next))
		for i, e := range next {
			need[i] = e.Node != nil
		}
		res = o.fn(g, need, create)
	}
	vals := make([]autograd.Value, len(next))
	for i, r := range res {
		if r == nil || next[i].Node == nil {
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
	n := autograd.NewAccumulator(func(g autograd.Value, yours bool) (bool, error) { return t.accumulate(g.(*Tensor), yours) })
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

// save keeps t for a backward pass; t may be the failed output of an op
// (which then records nothing: newNode skips failed outputs).
func save(t *Tensor) saved {
	if t != nil && t.storage != nil {
		dispatch.Keep(t.storage.mem) // read by the backward pass: a pipeline stores it
	}
	return saved{t: t, version: t.Version()}
}

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
	if g.err != nil || slices.Equal(g.shape, shape) {
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
