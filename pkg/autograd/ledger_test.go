package autograd_test

import (
	"slices"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/autograd"
)

// grad is a fake gradient: mem names its memory (views share it) and
// fresh says that a backward function made it during the pass.
type grad struct {
	name  string
	mem   *int
	fresh bool
}

func fresh(name string) *grad          { return &grad{name: name, mem: new(int), fresh: true} }
func (g *grad) view(name string) *grad { return &grad{name: name, mem: g.mem, fresh: g.fresh} }

// books records what a pass freed and what its leaves were given.
type books struct {
	freed []string
	yours map[string]bool // by leaf: whether it was told the gradient is its own
}

func (b *books) options() autograd.Options {
	return autograd.Options{
		Add: func(a, c autograd.Value) (autograd.Value, error) {
			return fresh(a.(*grad).name + "+" + c.(*grad).name), nil
		},
		Memory: func(v autograd.Value) (any, bool) { g := v.(*grad); return g.mem, g.fresh },
		Free:   func(v autograd.Value) { b.freed = append(b.freed, v.(*grad).name) },
	}
}

// leaf is an accumulator that keeps what it is told is its own.
func (b *books) leaf(name string) *autograd.Node {
	return autograd.NewAccumulator(func(g autograd.Value, yours bool) (bool, error) {
		b.yours[name] = yours
		return yours, nil
	})
}

// op is a one-output node whose backward function returns outs(grad).
func op(name string, next []autograd.Edge, outs func(g *grad) []autograd.Value) *autograd.Node {
	return autograd.NewNode(name, 1, next, func(gs []autograd.Value, _ bool) ([]autograd.Value, error) {
		return outs(gs[0].(*grad)), nil
	})
}

func run(t *testing.T, b *books, root *autograd.Node, g autograd.Value, opt autograd.Options) {
	t.Helper()
	if _, err := autograd.Backward([]autograd.Edge{{Node: root}}, []autograd.Value{g}, opt); err != nil {
		t.Fatal(err)
	}
}

// A chain x -> a -> b -> loss: the gradients made between nodes are freed
// as soon as the next node has read them, the one reaching the leaf is
// given to it, and the caller's root gradient is never freed.
func TestPassFreesWhatOnlyItHolds(t *testing.T) {
	b := &books{yours: map[string]bool{}}
	x := b.leaf("x")
	a := op("a", []autograd.Edge{{Node: x}}, func(*grad) []autograd.Value { return []autograd.Value{fresh("ga")} })
	c := op("b", []autograd.Edge{{Node: a}}, func(*grad) []autograd.Value { return []autograd.Value{fresh("gb")} })
	run(t, b, c, &grad{name: "root", mem: new(int)}, b.options())
	if !slices.Equal(b.freed, []string{"gb"}) {
		t.Errorf("freed %v, want [gb]", b.freed)
	}
	if !b.yours["x"] {
		t.Error("the leaf was not given the gradient only the pass held")
	}
}

// A gradient two edges share (add's backward passes its input on to both
// operands) is the first leaf's to share and the second's to keep; one
// whose view goes elsewhere is nobody's to keep until that view is read.
func TestPassCountsSharedGradients(t *testing.T) {
	b := &books{yours: map[string]bool{}}
	x, y := b.leaf("x"), b.leaf("y")
	var g *grad
	add := op("add", []autograd.Edge{{Node: x}, {Node: y}}, func(*grad) []autograd.Value {
		g = fresh("g")
		return []autograd.Value{g, g}
	})
	run(t, b, add, &grad{name: "root", mem: new(int)}, b.options())
	if b.yours["x"] == b.yours["y"] {
		t.Errorf("leaves told yours=%v and %v, want exactly one (the last to run)", b.yours["x"], b.yours["y"])
	}
	if len(b.freed) != 0 {
		t.Errorf("freed %v: a leaf kept it", b.freed)
	}

	b = &books{yours: map[string]bool{}}
	z := b.leaf("z")
	mid := op("mid", []autograd.Edge{{Node: z}}, func(g *grad) []autograd.Value { return []autograd.Value{fresh("gz")} })
	split := op("split", []autograd.Edge{{Node: z}, {Node: mid}}, func(*grad) []autograd.Value {
		g := fresh("g")
		return []autograd.Value{g.view("g[0]"), g.view("g[1]")}
	})
	run(t, b, split, &grad{name: "root", mem: new(int)}, b.options())
	// z receives g[0] + gz (a fresh sum), mid reads g[1]: g's memory is
	// freed once both views are read, through the second.
	if !slices.Contains(b.freed, "g[0]") && !slices.Contains(b.freed, "g[1]") {
		t.Errorf("freed %v: the split gradient's memory was never freed", b.freed)
	}
	if n := len(b.freed); n != 2 {
		t.Errorf("freed %v, want g's memory once and gz once", b.freed)
	}
}

// Hooks and captures see gradients that the pass must then leave alone;
// a pass that creates a graph, or has no Memory, frees nothing.
func TestPassLeavesForeignGradientsAlone(t *testing.T) {
	b := &books{yours: map[string]bool{}}
	x := b.leaf("x")
	a := op("a", []autograd.Edge{{Node: x}}, func(*grad) []autograd.Value { return []autograd.Value{fresh("ga")} })
	var stashed autograd.Value
	a.AddHook(0, func(v autograd.Value) autograd.Value { stashed = v; return v })
	c := op("b", []autograd.Edge{{Node: a}}, func(*grad) []autograd.Value { return []autograd.Value{fresh("gb")} })
	run(t, b, c, &grad{name: "root", mem: new(int)}, b.options())
	if len(b.freed) != 0 || stashed == nil {
		t.Errorf("freed %v, which a hook saw", b.freed)
	}

	b = &books{yours: map[string]bool{}}
	x = b.leaf("x")
	a = op("a", []autograd.Edge{{Node: x}}, func(*grad) []autograd.Value { return []autograd.Value{fresh("ga")} })
	opt := b.options()
	opt.Capture = []autograd.Edge{{Node: x}}
	got, err := autograd.Backward([]autograd.Edge{{Node: a}}, []autograd.Value{&grad{name: "root", mem: new(int)}}, opt)
	if err != nil || got[0] == nil {
		t.Fatal(err, got)
	}
	if len(b.freed) != 0 {
		t.Errorf("freed %v, which was captured for the caller", b.freed)
	}

	for _, o := range []func(*autograd.Options){
		func(o *autograd.Options) { o.CreateGraph = true },
		func(o *autograd.Options) { o.Memory, o.Free = nil, nil },
	} {
		b = &books{yours: map[string]bool{}}
		x = b.leaf("x")
		a = op("a", []autograd.Edge{{Node: x}}, func(*grad) []autograd.Value { return []autograd.Value{fresh("ga")} })
		c = op("b", []autograd.Edge{{Node: a}}, func(*grad) []autograd.Value { return []autograd.Value{fresh("gb")} })
		opt := b.options()
		o(&opt)
		run(t, b, c, &grad{name: "root", mem: new(int)}, opt)
		if len(b.freed) != 0 || b.yours["x"] {
			t.Errorf("freed %v, yours %v without freeing enabled", b.freed, b.yours["x"])
		}
	}
}

// A gradient a backward function passes on unchanged from the caller is
// not the pass's to free or to give away.
func TestPassNeverFreesTheCallersGradient(t *testing.T) {
	b := &books{yours: map[string]bool{}}
	x := b.leaf("x")
	id := op("id", []autograd.Edge{{Node: x}}, func(g *grad) []autograd.Value { return []autograd.Value{g} })
	root := &grad{name: "root", mem: new(int)}
	run(t, b, id, root, b.options())
	if len(b.freed) != 0 || b.yours["x"] {
		t.Errorf("freed %v, yours %v: the root gradient is the caller's", b.freed, b.yours["x"])
	}
}
