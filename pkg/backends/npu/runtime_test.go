package npu_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// toNPU copies x to the NPU.
func toNPU(t *testing.T, x *torch.Tensor) *torch.Tensor {
	t.Helper()
	d, err := x.To("npu")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// closeAll closes streams and events, failing the test on an error.
func closeAll(t *testing.T, cs ...interface{ Close() error }) {
	t.Helper()
	for _, c := range cs {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestOperatorLibrariesStayLocal checks how the libraries were opened: the
// runtime and libnnopbase into the global scope, the operator libraries
// without RTLD_GLOBAL, as op-plugin opens them, so that an op's symbols
// are found only through its library's handle.
func TestOperatorLibrariesStayLocal(t *testing.T) {
	if !npu.IsAvailable() {
		t.Skip(npu.UnavailableReason())
	}
	for name, global := range map[string]bool{"aclrtMalloc": true, "aclCreateTensor": true, "aclnnAdd": false,
		"aclnnAddGetWorkspaceSize": false, "aclnnSoftmax": false} {
		if npushim.GlobalSymbol(name) != global {
			t.Errorf("%s in the global scope: %v, want %v", name, !global, global)
		}
	}
}

// TestWorkspacePerStream runs ops that take a workspace on two streams at
// once. The emulator runs the streams' work interleaved, as the device
// runs streams concurrently, and fails an op whose workspace another op
// uses meanwhile: one workspace per device shared by the streams fails
// here, one per stream does not.
func TestWorkspacePerStream(t *testing.T) {
	a, err := npu.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := npu.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	torch.ManualSeed(1)
	x := torch.Randn([]int{8, 16})
	xd := toNPU(t, x)
	var ya, yb *torch.Tensor
	npu.WithStream(a, func() { ya = xd.Softmax(1) })
	npu.WithStream(b, func() { yb = xd.LogSoftmax(1) })
	for _, c := range []struct {
		name      string
		got, want *torch.Tensor
	}{{"softmax on stream a", ya, x.Softmax(1)}, {"log_softmax on stream b", yb, x.LogSoftmax(1)}} {
		got, err := c.got.To("cpu")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !torch.AllClose(got, c.want, 1e-6, 1e-6, false) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if c, ok := npushim.Counters(); ok && c.Misuses != 0 {
		t.Errorf("%d misuses of CANN", c.Misuses)
	}
	ya.Release()
	yb.Release()
	closeAll(t, a, b)
	settle(t)
}

// TestEventClosedWhileAStreamWaits closes an event that a stream has not
// yet passed a wait on: CANN requires the waits completed before
// aclrtDestroyEvent, so Close waits for them.
func TestEventClosedWhileAStreamWaits(t *testing.T) {
	s, err := npu.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	e, err := npu.NewEvent(0)
	if err != nil {
		t.Fatal(err)
	}
	x := torch.Full([]int{256}, 2, torch.WithDevice("npu"))
	if err := e.Record(nil); err != nil {
		t.Fatal(err)
	}
	var y *torch.Tensor
	npu.WithStream(s, func() {
		if err := s.WaitEvent(e); err != nil {
			t.Fatal(err)
		}
		y = x.MulScalar(3)
	})
	if err := e.Close(); err != nil {
		t.Errorf("closing an event a stream waits on: %v", err)
	}
	if err := s.Synchronize(); err != nil { // y is read on the default stream
		t.Fatal(err)
	}
	if v, err := y.Sum().Item(); err != nil || v != 6*256 {
		t.Errorf("the work after the wait: %v, %v", v, err)
	}
	if c, ok := npushim.Counters(); ok && (c.Events != 0 || c.Misuses != 0) {
		t.Errorf("%d events left, %d misuses", c.Events, c.Misuses)
	}
	y.Release()
	closeAll(t, s)
	settle(t)
}

// TestExecutorDiscardedWhenWorkspaceFails runs a child whose device
// memory is full when an op's workspace is first allocated: the op fails
// with out of memory, and its executor, which will never run, is
// discarded rather than leaked.
func TestExecutorDiscardedWhenWorkspaceFails(t *testing.T) {
	if !emulated() {
		t.Skip("the memory limit is a knob of the emulator")
	}
	out := runChild(t, "workspace-oom", "MTEMU_MEMORY_MB=64")
	if !strings.Contains(out, "out of memory=true executors=0 misuses=0") {
		t.Errorf("the child said:\n%s", out)
	}
}

// workspaceOOM is the child of TestExecutorDiscardedWhenWorkspaceFails.
func workspaceOOM() {
	x := torch.Ones([]int{4, 4}, torch.WithDevice("npu"))
	free, _, err := npu.MemGetInfo(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fill := torch.Empty([]int{(free - 16<<10) / 4}, torch.WithDevice("npu")) // 16 KiB left: no 64 KiB workspace
	y := x.Softmax(1)
	err = y.Err()
	if err := npu.Synchronize(0); err != nil {
		fmt.Println(err)
	}
	c, _ := npushim.Counters()
	fmt.Printf("fill=%v\nerr=%v\nout of memory=%v executors=%d misuses=%d\n", fill.Err(), err, errors.Is(err, torch.ErrOutOfMemory),
		c.Executors, c.Misuses)
}

// TestTrainingStepAllocatesNothing runs steps of softmax regression with
// gradients written out (matmul, softmax, log_softmax and a sum take
// workspaces), releasing each step's tensors: once the first steps have
// filled the caches, a step makes no aclrtMalloc.
func TestTrainingStepAllocatesNothing(t *testing.T) {
	if !emulated() {
		t.Skip("aclrtMalloc is counted by the emulator")
	}
	torch.ManualSeed(3)
	x := toNPU(t, torch.Randn([]int{32, 10}))
	onehot := toNPU(t, torch.OneHot(torch.Randint(0, 4, []int{32}), 4).ToDType(torch.Float32))
	w := toNPU(t, torch.Randn([]int{10, 4}).MulScalar(0.1))
	var losses []float64
	step := func() {
		logits := x.MatMul(w)
		p := logits.Softmax(1)
		g := p.Sub(onehot)
		gw := x.T().MatMul(g)
		upd := gw.MulScalar(0.1 / 32)
		w.Sub_(upd)
		logp := logits.LogSoftmax(1)
		nll := logp.Mul(onehot)
		loss := nll.Sum()
		v, err := loss.Item()
		if err != nil {
			t.Fatal(err)
		}
		losses = append(losses, -v/32)
		for _, r := range []*torch.Tensor{logits, p, g, gw, upd, logp, nll, loss} {
			r.Release()
		}
	}
	mallocs := func() int64 {
		c, _ := npushim.Counters()
		return c.Mallocs
	}
	for range 3 {
		step()
	}
	before := mallocs()
	for range 20 {
		step()
	}
	if n := mallocs() - before; n != 0 {
		t.Errorf("20 steady steps made %d aclrtMalloc calls", n)
	}
	if last := losses[len(losses)-1]; !(last < losses[0]) || math.IsNaN(last) {
		t.Errorf("the loss did not fall: %v", losses)
	}
	settle(t)
}
