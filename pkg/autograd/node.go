package autograd

import "sync"

// Value is a gradient. The engine passes values between nodes and sums them
// with Options.Add; it never looks inside.
type Value = any

// Edge names output Slot of Node: where the gradient of one input of a
// node goes. An Edge with a nil Node needs no gradient.
type Edge struct {
	Node *Node
	Slot int
}

// BackwardFunc computes the gradients of a node's inputs (one per edge of
// the node, nil for none) from the gradients of its outputs (nil for an
// output that received none). createGraph asks for gradients that are
// themselves differentiable.
type BackwardFunc func(grads []Value, createGraph bool) ([]Value, error)

// Apply calls f.
func (f BackwardFunc) Apply(grads []Value, createGraph bool) ([]Value, error) {
	return f(grads, createGraph)
}

// Function is what a node runs in the backward pass: Apply computes the
// gradients of the node's inputs, as a BackwardFunc. A Function that also
// has a Release method is told when the pass no longer needs it (to drop
// its saved tensors).
type Function interface {
	Apply(grads []Value, createGraph bool) ([]Value, error)
}

// Node is one recorded op (or a leaf's gradient accumulator) in the graph.
type Node struct {
	name    string
	next    []Edge
	outputs int
	fn      Function
	leaf    bool
	acc     func(g Value, yours bool) (kept bool, err error) // a leaf's

	mu    sync.Mutex                  // guards fn and hooks
	hooks map[int][]func(Value) Value // by output slot
}

// NewNode records an op: its name (as PyTorch's grad_fn, e.g. "MulBackward0"),
// the number of its outputs, where its inputs' gradients go, and its
// backward function, which keeps what it needs (saved tensors, shapes).
func NewNode(name string, outputs int, next []Edge, fn BackwardFunc) *Node {
	return &Node{name: name, next: next, outputs: outputs, fn: fn}
}

// InitNode sets up a zero Node that the caller allocated, typically inside
// a larger struct that is also its Function, so that recording an op costs
// one allocation.
func InitNode(n *Node, name string, outputs int, next []Edge, fn Function) {
	n.name, n.outputs, n.next, n.fn = name, outputs, next, fn
}

// NewAccumulator makes the node of a leaf: it receives the leaf's gradient
// and hands it to accumulate (which adds it into the leaf's grad). yours
// says that nothing but the pass holds g (see Options.Memory), so that
// accumulate may keep g itself instead of a copy; it reports whether it
// did. Grad captures the gradient instead of calling accumulate.
func NewAccumulator(accumulate func(g Value, yours bool) (kept bool, err error)) *Node {
	return &Node{name: "AccumulateGrad", outputs: 1, leaf: true, acc: accumulate}
}

// Name is the node's name, as PyTorch's grad_fn.name().
func (n *Node) Name() string { return n.name }

// Next lists where the gradients of the node's inputs go (PyTorch's
// next_functions).
func (n *Node) Next() []Edge { return n.next }

// IsAccumulator reports whether the node accumulates a leaf's gradient.
func (n *Node) IsAccumulator() bool { return n.leaf }

// AddHook registers a function applied to the gradient of output slot
// before the node runs; it returns the gradient to use (its argument to
// keep it). Hooks run in the order they were added.
func (n *Node) AddHook(slot int, h func(Value) Value) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.hooks == nil {
		n.hooks = map[int][]func(Value) Value{}
	}
	n.hooks[slot] = append(n.hooks[slot], h)
}

// hasHooks reports whether any hook is registered on the node.
func (n *Node) hasHooks() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.hooks) > 0
}

// runHooks applies the hooks of each slot to its gradient.
func (n *Node) runHooks(grads []Value) {
	n.mu.Lock()
	hooks := n.hooks
	n.mu.Unlock()
	for slot, hs := range hooks {
		for _, h := range hs {
			if grads[slot] != nil {
				grads[slot] = h(grads[slot])
			}
		}
	}
}

// release drops the node's backward function and what it keeps, after a
// backward pass that did not retain the graph.
func (n *Node) release() {
	if !n.leaf {
		n.mu.Lock()
		if r, ok := n.fn.(interface{ Release() }); ok {
			r.Release()
		}
		n.fn = nil
		n.mu.Unlock()
	}
}
