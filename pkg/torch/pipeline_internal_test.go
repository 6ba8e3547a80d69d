package torch

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// pending reports whether t's bytes are not computed (nor failed).
func pending(t *Tensor) bool { return dispatch.IsPending(t.storage.mem) }

// TestPipelineElidesIntermediates: a chain of pointwise ops stores only
// what is read outside it; an intermediate read later is computed then,
// with the bits it would have had.
func TestPipelineElidesIntermediates(t *testing.T) {
	x := Arange(4000, WithDType(Float32)).DivScalar(1000).SubScalar(2)
	a := Full([]int{4000}, 1.5)
	b := Full([]int{4000}, -0.25)
	var t1, t2, t3, y, wide *Tensor
	err := Pipeline(func(p *Pipe) error {
		t1 = x.Mul(a)
		t2 = t1.Add(b)
		t3 = t2.Relu()
		y = t3.Sigmoid()
		wide = y.Cumsum(0) // reads y outside the chain: y is stored
		if !pending(t1) || p.Len() != 5 {
			t.Fatalf("before the flush: t1 pending %v, %d ops queued", pending(t1), p.Len())
		}
		return p.Flush()
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []*Tensor{t1, t2, t3} {
		if !pending(v) {
			t.Errorf("intermediate %d was stored", i+1)
		}
	}
	if pending(y) || pending(wide) {
		t.Error("a result read outside the chain was not stored")
	}
	want := x.Mul(a).Add(b).Relu()
	x.AddScalar_(1) // t1 reads x: it gets a copy of x's bytes, it is not computed
	if !pending(t1) || !pending(t3) {
		t.Error("a write into an input computed the intermediates that read it")
	}
	if !Equal(t3, want) || pending(t3) {
		t.Errorf("t3 read later: %v, want %v", t3, want)
	}
	if !pending(t1) {
		t.Error("computing t3 stored t1")
	}
}

// TestPipelineSumJoinsChain: a sum of all of a chain's last result joins
// the chain, which then stores none of its results; the summed result,
// read later, is computed then.
func TestPipelineSumJoinsChain(t *testing.T) {
	x := Arange(5000, WithDType(Float32)).DivScalar(1000).SubScalar(2)
	var y, sum *Tensor
	err := Pipeline(func(p *Pipe) error {
		y = x.MulScalar(1.5).AddScalar(-0.25).Relu()
		sum = y.Sum()
		return p.Flush()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !pending(y) || pending(sum) {
		t.Fatalf("after the flush: y pending %v (want true), sum pending %v (want false)", pending(y), pending(sum))
	}
	want := x.MulScalar(1.5).AddScalar(-0.25).Relu()
	if !Equal(y, want) || !Equal(sum, want.Sum()) {
		t.Errorf("y, sum = %v, %v; want %v, %v", y, sum, want, want.Sum())
	}
}

// TestPipelineKeepsSavedTensors: a result autograd saves is stored when
// its chain runs, as the backward pass reads it.
func TestPipelineKeepsSavedTensors(t *testing.T) {
	x := Arange(1000, WithDType(Float64)).DivScalar(300).RequiresGrad_(true)
	var s, y *Tensor
	err := Pipeline(func(p *Pipe) error {
		s = x.MulScalar(2).Sigmoid() // sigmoid saves its output
		y = s.MulScalar(3)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pending(s) || pending(y) {
		t.Errorf("a saved output pending %v, the result pending %v", pending(s), pending(y))
	}
}
