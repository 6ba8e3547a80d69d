package npu_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

func TestStreamsAndEvents(t *testing.T) {
	s, err := npu.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := npu.NewEvent(0)
	filled, _ := npu.NewEvent(0)
	end, _ := npu.NewEvent(0)
	x := torch.Zeros([]int{256}, torch.WithDevice("npu"))
	if err := start.Record(nil); err != nil {
		t.Fatal(err)
	}
	x.Fill_(2)
	if err := filled.Record(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := start.ElapsedTime(filled); err == nil {
		t.Error("the elapsed time of events not yet completed must be an error")
	}
	// Work on s that reads x waits for the fill on the default stream.
	var y *torch.Tensor
	npu.WithStream(s, func() {
		if err := s.WaitEvent(filled); err != nil {
			t.Fatal(err)
		}
		if npu.CurrentStream(0).Device() != 0 {
			t.Error("current stream")
		}
		y = x.MulScalar(3).AddScalar(1)
		if err := end.Record(s); err != nil {
			t.Fatal(err)
		}
	})
	if err := end.Synchronize(); err != nil {
		t.Fatal(err)
	}
	ms, err := start.ElapsedTime(end)
	if err != nil || ms < 0 {
		t.Errorf("elapsed %v ms, %v", ms, err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	v, err := y.Sum().Item()
	if err != nil || v != 7*256 {
		t.Errorf("sum of the work on the second stream: %v, %v", v, err)
	}
	y.Release()
	for _, c := range []interface{ Close() error }{start, filled, end, s} {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
	// The shim keeps one stream of its own per device.
	if c, ok := npushim.Counters(); ok && (c.Streams != 1 || c.Events != 0) {
		t.Errorf("%d streams (want the shim's one) and %d events left", c.Streams, c.Events)
	}
	settle(t)
}

// TestLaunchBlocking runs a child with MINDTORCH_LAUNCH_BLOCKING=1: each op
// is done when its launch returns, so no executor is left queued; without
// it the op waits in the stream until a synchronize.
func TestLaunchBlocking(t *testing.T) {
	if !emulated() {
		t.Skip("the queue is observed through the emulator's counters")
	}
	for _, blocking := range []string{"0", "1"} {
		out := runChild(t, "blocking", "MINDTORCH_LAUNCH_BLOCKING="+blocking)
		want := "queued=2 err=<nil>" // the fill of Ones and the exp
		if blocking == "1" {
			want = "queued=0 err=<nil>"
		}
		if !strings.Contains(out, want) {
			t.Errorf("MINDTORCH_LAUNCH_BLOCKING=%s: want %q in\n%s", blocking, want, out)
		}
	}
}

func TestCurrentDevice(t *testing.T) {
	if npu.CurrentDevice() != 0 {
		t.Fatalf("current device %d", npu.CurrentDevice())
	}
	missing := npu.DeviceCount()
	if err := npu.SetDevice(missing); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("npu:%d does not exist", missing)) {
		t.Errorf("SetDevice(%d): %v", missing, err)
	}
	ran := false
	if err := npu.UseDevice(0, func() {
		ran = true
		if d := torch.Ones([]int{2}, torch.WithDevice("npu")).Device().String(); d != "npu:0" {
			t.Errorf("\"npu\" placed a tensor on %s", d)
		}
	}); err != nil || !ran {
		t.Errorf("UseDevice: %v", err)
	}
	if err := npu.UseDevice(missing, func() { t.Error("ran on a missing device") }); err == nil {
		t.Error("UseDevice of a missing device accepted")
	}
}

// TestTwoDevices runs a child with two emulated NPUs: tensors move between
// them, ops run on each, and mixing them in one op is an error.
func TestTwoDevices(t *testing.T) {
	if !emulated() {
		t.Skip("the device count is a knob of the emulator")
	}
	out := runChild(t, "two", "MTEMU_DEVICES=2")
	for _, want := range []string{"devices=2 on=npu:1 npu:0 values=[2 4 6 8]", "mixed: mindtorch: add: "} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
}

// TestRecordStream checks that a block another stream still uses is not
// reused before that stream's work is done, and that its events go away.
func TestRecordStream(t *testing.T) {
	s, err := npu.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := torch.Ones([]int{1000}, torch.WithDevice("npu"))
	ptr, _ := x.DataPtr()
	filled, _ := npu.NewEvent(0)
	if err := filled.Record(nil); err != nil {
		t.Fatal(err)
	}
	var y *torch.Tensor
	npu.WithStream(s, func() {
		if err := s.WaitEvent(filled); err != nil { // s reads x only after its fill
			t.Fatal(err)
		}
		y = x.MulScalar(2) // queued on s, reads x
	})
	if err := x.RecordStream(s); err != nil {
		t.Fatal(err)
	}
	x.Release()
	z := torch.Empty([]int{1000}, torch.WithDevice("npu"))
	if p, _ := z.DataPtr(); p == ptr {
		t.Error("a block still read by another stream was reused")
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	w := torch.Empty([]int{1000}, torch.WithDevice("npu"))
	if p, _ := w.DataPtr(); p != ptr {
		t.Error("the block was not reused once the other stream was done")
	}
	if v, err := y.Sum().Item(); err != nil || v != 2000 {
		t.Errorf("the other stream read %v, %v", v, err)
	}
	for _, r := range []*torch.Tensor{y, z, w} {
		r.Release()
	}
	if err := filled.Close(); err != nil {
		t.Fatal(err)
	}
	if c, ok := npushim.Counters(); ok && c.Events != 0 {
		t.Errorf("%d events left behind", c.Events)
	}
	settle(t)
}
