package autograd

import "fmt"

// ErrGraphFreed is the error of a second backward pass through a graph whose
// first pass did not retain it.
var ErrGraphFreed = fmt.Errorf("Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). " +
	"Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). " +
	"Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.")

// Options control one backward pass.
type Options struct {
	// Add sums two gradients of the same output.
	Add func(a, b Value) (Value, error)
	// RetainGraph keeps the nodes' saved values for another pass.
	RetainGraph bool
	// CreateGraph makes the computed gradients differentiable.
	CreateGraph bool
	// Capture, when not nil, asks for the gradients arriving at these
	// outputs; they are returned and leaves' accumulators do not run.
	Capture []Edge
}

// Backward propagates grads[i] from roots[i] through the graph: every node
// runs once, after all the nodes that feed it gradients (dependency counts,
// an explicit stack: no recursion, so a chain of any length is fine).
// With opt.Capture it returns the captured gradients (nil where none
// arrived).
func Backward(roots []Edge, grads []Value, opt Options) ([]Value, error) {
	var p pass
	p.count(roots)
	for i, r := range roots {
		if r.Node != nil && grads[i] != nil {
			if err := p.add(r, grads[i], opt.Add); err != nil {
				return nil, err
			}
		}
	}
	var captured []Value
	var capture map[Edge]int
	if opt.Capture != nil {
		captured = make([]Value, len(opt.Capture))
		capture = make(map[Edge]int, len(opt.Capture))
		for i, e := range opt.Capture {
			capture[e] = i
		}
	}

	var ready []*Node
	for _, r := range roots {
		if r.Node == nil {
			continue
		}
		if st := p.state(r.Node); st.deps == 0 && !st.queued {
			st.queued = true
			ready = append(ready, r.Node)
		}
	}
	for len(ready) > 0 {
		n := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		st := p.state(n)
		in := st.buf
		st.buf = nil
		if in == nil {
			in = make([]Value, n.outputs)
		}
		n.runHooks(in)
		outs, err := run(n, in, capture, captured, opt)
		if err != nil {
			return nil, err
		}
		for i, e := range n.next {
			if e.Node == nil {
				continue
			}
			if i < len(outs) && outs[i] != nil {
				if err := p.add(e, outs[i], opt.Add); err != nil {
					return nil, err
				}
			}
			next := p.state(e.Node)
			if next.deps--; next.deps == 0 {
				ready = append(ready, e.Node)
			}
		}
	}
	return captured, nil
}

// pass is one backward pass's bookkeeping: for every node reachable from
// the roots, the edges into it not yet run and the gradients it received.
type pass struct {
	index  map[*Node]int
	states []nodeState
}

type nodeState struct {
	deps   int
	buf    []Value
	queued bool
}

// state is the bookkeeping of n, which must be reachable from the roots.
func (p *pass) state(n *Node) *nodeState { return &p.states[p.index[n]] }

// count numbers the nodes reachable from roots and counts the edges into
// each (an explicit stack: no recursion).
func (p *pass) count(roots []Edge) {
	p.index = map[*Node]int{}
	var stack []*Node
	visit := func(n *Node) {
		if _, ok := p.index[n]; !ok {
			p.index[n] = len(p.index)
			stack = append(stack, n)
		}
	}
	for _, r := range roots {
		if r.Node != nil {
			visit(r.Node)
		}
	}
	var edges []*Node
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range n.next {
			if e.Node != nil {
				visit(e.Node)
				edges = append(edges, e.Node)
			}
		}
	}
	p.states = make([]nodeState, len(p.index))
	for _, n := range edges {
		p.states[p.index[n]].deps++
	}
}

// add sums gradient g into output e.Slot of e.Node.
func (p *pass) add(e Edge, g Value, sum func(a, b Value) (Value, error)) error {
	st := p.state(e.Node)
	if st.buf == nil {
		st.buf = make([]Value, e.Node.outputs)
	}
	if st.buf[e.Slot] == nil {
		st.buf[e.Slot] = g
		return nil
	}
	v, err := sum(st.buf[e.Slot], g)
	st.buf[e.Slot] = v
	return err
}

// run applies node n to the gradients of its outputs.
func run(n *Node, in []Value, capture map[Edge]int, captured []Value, opt Options) ([]Value, error) {
	got := false
	for slot, g := range in {
		if g == nil {
			continue
		}
		got = true
		if i, ok := capture[Edge{n, slot}]; ok {
			captured[i] = g
		}
	}
	if !got || (n.leaf && capture != nil) {
		return nil, nil
	}
	n.mu.Lock()
	fn := n.fn
	n.mu.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("%s: %w", n.name, ErrGraphFreed)
	}
	outs, err := fn.Apply(in, opt.CreateGraph)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.name, err)
	}
	if !opt.RetainGraph {
		n.release()
	}
	return outs, nil
}
