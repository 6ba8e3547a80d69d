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
	// Memory, with Free, lets the pass free the gradients only it holds
	// (see ledger.go): it names the memory a gradient uses (gradients that
	// share memory, views of one another, have equal keys; nil for none)
	// and says whether that memory was made during the pass. Free releases
	// a gradient's memory. Without them, or with CreateGraph, the garbage
	// collector frees gradients.
	Memory func(Value) (key any, fresh bool)
	Free   func(Value)
}

// Backward propagates grads[i] from roots[i] through the graph: every node
// runs once, after all the nodes that feed it gradients (dependency counts,
// an explicit stack: no recursion, so a chain of any length is fine).
// With opt.Capture it returns the captured gradients (nil where none
// arrived).
func Backward(roots []Edge, grads []Value, opt Options) ([]Value, error) {
	p := pass{states: make([]nodeState, 0, 8), ledger: newLedger(opt)}
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

	var stack [smallGraph]*Node
	ready := stack[:0]
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
		if n.hasHooks() { // a hook may keep what it is given or returns
			p.disownAll(in)
			n.runHooks(in)
			p.disownAll(in)
		}
		outs, err := p.run(n, in, capture, captured, opt)
		if err != nil {
			return nil, err
		}
		for _, g := range outs { // held until every edge has its share
			p.ledger.hold(g)
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
		for _, g := range outs {
			p.ledger.drop(g)
		}
		for _, g := range in {
			p.ledger.drop(g)
		}
	}
	return captured, nil
}

// disownAll takes every gradient of vs out of the pass's hands.
func (p *pass) disownAll(vs []Value) {
	for _, v := range vs {
		p.ledger.disown(v)
	}
}

// smallGraph is the number of nodes up to which a pass finds a node's
// bookkeeping by a linear scan; larger graphs use a map.
const smallGraph = 16

// pass is one backward pass's bookkeeping: for every node reachable from
// the roots, the edges into it not yet run and the gradients it received.
type pass struct {
	states []nodeState   // of the reachable nodes, in the order found
	index  map[*Node]int // position in states, once there are more than smallGraph
	ledger ledger        // what the pass may free
}

type nodeState struct {
	node   *Node
	deps   int
	buf    []Value
	one    [1]Value // buf of a one-output node
	queued bool
}

// find is the position of n in p.nodes, or -1.
func (p *pass) find(n *Node) int {
	if p.index != nil {
		if i, ok := p.index[n]; ok {
			return i
		}
		return -1
	}
	for i := range p.states {
		if p.states[i].node == n {
			return i
		}
	}
	return -1
}

// state is the bookkeeping of n, which must be reachable from the roots.
func (p *pass) state(n *Node) *nodeState { return &p.states[p.find(n)] }

// count numbers the nodes reachable from roots and counts the edges into
// each (an explicit stack: no recursion).
func (p *pass) count(roots []Edge) {
	var inline [smallGraph]*Node
	stack := inline[:0]
	for _, r := range roots {
		if r.Node != nil && p.visit(r.Node) {
			stack = append(stack, r.Node)
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range n.next {
			if e.Node != nil && p.visit(e.Node) {
				stack = append(stack, e.Node)
			}
		}
	}
	for i := range p.states {
		for _, e := range p.states[i].node.next {
			if e.Node != nil {
				p.states[p.find(e.Node)].deps++
			}
		}
	}
}

// visit adds n to the nodes found, reporting false when it was there.
func (p *pass) visit(n *Node) bool {
	if p.find(n) >= 0 {
		return false
	}
	p.states = append(p.states, nodeState{node: n})
	if p.index != nil {
		p.index[n] = len(p.states) - 1
	} else if len(p.states) > smallGraph {
		p.index = make(map[*Node]int, 2*len(p.states))
		for i := range p.states {
			p.index[p.states[i].node] = i
		}
	}
	return true
}

// add sums gradient g into output e.Slot of e.Node.
func (p *pass) add(e Edge, g Value, sum func(a, b Value) (Value, error)) error {
	st := p.state(e.Node)
	if st.buf == nil {
		if e.Node.outputs == 1 {
			st.buf = st.one[:]
		} else {
			st.buf = make([]Value, e.Node.outputs)
		}
	}
	if st.buf[e.Slot] == nil {
		st.buf[e.Slot] = g
		p.ledger.hold(g)
		return nil
	}
	old := st.buf[e.Slot]
	v, err := sum(old, g)
	st.buf[e.Slot] = v
	p.ledger.hold(v)
	p.ledger.drop(old)
	return err
}

// run applies node n to the gradients of its outputs.
func (p *pass) run(n *Node, in []Value, capture map[Edge]int, captured []Value, opt Options) ([]Value, error) {
	got := false
	for slot, g := range in {
		if g == nil {
			continue
		}
		got = true
		if i, ok := capture[Edge{n, slot}]; ok {
			captured[i] = g
			p.ledger.disown(g)
		}
	}
	if !got || (n.leaf && capture != nil) {
		return nil, nil
	}
	if n.leaf {
		kept, err := n.acc(in[0], p.ledger.sole(in[0]))
		if kept {
			p.ledger.disown(in[0])
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.name, err)
		}
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
