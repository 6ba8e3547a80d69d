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
	deps := countDependencies(roots)
	buffers := make(map[*Node][]Value, len(deps))
	add := func(e Edge, g Value) error {
		buf := buffers[e.Node]
		if buf == nil {
			buf = make([]Value, e.Node.outputs)
			buffers[e.Node] = buf
		}
		if buf[e.Slot] == nil {
			buf[e.Slot] = g
			return nil
		}
		sum, err := opt.Add(buf[e.Slot], g)
		buf[e.Slot] = sum
		return err
	}
	for i, r := range roots {
		if r.Node != nil && grads[i] != nil {
			if err := add(r, grads[i]); err != nil {
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
	seen := map[*Node]bool{}
	for _, r := range roots {
		if r.Node != nil && deps[r.Node] == 0 && !seen[r.Node] {
			seen[r.Node] = true
			ready = append(ready, r.Node)
		}
	}
	for len(ready) > 0 {
		n := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		in := buffers[n]
		delete(buffers, n)
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
				if err := add(e, outs[i]); err != nil {
					return nil, err
				}
			}
			if deps[e.Node]--; deps[e.Node] == 0 {
				ready = append(ready, e.Node)
			}
		}
	}
	return captured, nil
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

// countDependencies counts, for every node reachable from roots, the edges
// that lead into it.
func countDependencies(roots []Edge) map[*Node]int {
	deps := map[*Node]int{}
	visited := map[*Node]bool{}
	var stack []*Node
	for _, r := range roots {
		if r.Node != nil && !visited[r.Node] {
			visited[r.Node] = true
			stack = append(stack, r.Node)
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range n.next {
			if e.Node == nil {
				continue
			}
			deps[e.Node]++
			if !visited[e.Node] {
				visited[e.Node] = true
				stack = append(stack, e.Node)
			}
		}
	}
	return deps
}
