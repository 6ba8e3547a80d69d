package npu_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/internal/npuemu"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestMain builds the CANN emulator and runs the tests; in a child process
// that a test started (MINDTORCH_NPU_CHILD set) it runs that child's part
// instead, with the libraries the parent chose.
func TestMain(m *testing.M) {
	if role := os.Getenv("MINDTORCH_NPU_CHILD"); role != "" {
		children[role]()
		os.Exit(0)
	}
	cleanup, err := npuemu.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 && !testing.Short() {
		if err := released(); err != nil {
			fmt.Fprintln(os.Stderr, "after the tests:", err)
			code = 1
		}
	}
	cleanup()
	os.Exit(code)
}

// released checks, after every test, that the emulator's counters are
// back to zero: no descriptors, executors, events or misuses, and once
// the garbage collector has returned the tensors no test released and the
// cache is emptied, no device memory but the streams' workspaces.
func released() error {
	if !emulated() {
		return nil
	}
	var c npushim.EmulatorCounters
	for range 200 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond) // the allocator's cleanups run after the collection
		npu.EmptyCache(0)
		c, _ = npushim.Counters()
		if c.Bytes == int64(npushim.WorkspaceBytes(0)) {
			break
		}
	}
	if c.Tensors != 0 || c.Scalars != 0 || c.IntArrays != 0 || c.Executors != 0 || c.Events != 0 || c.Misuses != 0 ||
		c.Bytes != int64(npushim.WorkspaceBytes(0)) {
		return fmt.Errorf("emulator counters %+v, workspaces %d bytes", c, npushim.WorkspaceBytes(0))
	}
	return nil
}

// children are the parts of the tests that run in a child process: each
// prints what the parent checks.
var children = map[string]func(){
	// what the NPU says with the libraries in MINDTORCH_NPU_LIB_DIR
	"report": func() {
		ok, missing := npu.SymbolsOK()
		fmt.Printf("available=%v reason=%s\nsymbols_ok=%v missing=%v\n", npu.IsAvailable(), npu.UnavailableReason(), ok, missing)
		x, err := torch.Ones([]int{2}).To("npu")
		fmt.Printf("to=%v\n", err)
		if err == nil {
			fmt.Printf("softmax=%v\nexp=%v\n", x.Softmax(0).Err(), x.Exp().Err())
			// a kernel whose ACLNN symbol is missing declines, and the op runs on the host
			fmt.Printf("softmax on the host=%d\n", dispatch.CountsOf(kernel.OpSoftmax, device.NPU).HostFallback)
		}
		if c, ok := npushim.Counters(); ok {
			fmt.Printf("misuses=%d\n", c.Misuses)
		}
	},
	// how many executors wait in the queue after two ops
	"blocking": func() {
		x := torch.Ones([]int{8}, torch.WithDevice("npu")).Exp()
		c, _ := npushim.Counters()
		fmt.Printf("queued=%d err=%v\n", c.Executors, x.Err())
	},
	"workspace-oom": workspaceOOM,
	// tensors on two devices
	"two": func() {
		x, err := torch.Arange(4, torch.WithDType(torch.Float32)).To("npu:1")
		if err != nil {
			fmt.Println("to:", err)
			return
		}
		y, err := x.AddScalar(1).To("npu:0")
		if err != nil {
			fmt.Println("across:", err)
			return
		}
		v, _ := torch.ToSlice[float32](y.MulScalar(2))
		fmt.Printf("devices=%d on=%v %v values=%v\n", npu.DeviceCount(), x.Device(), y.Device(), v)
		fmt.Println("mixed:", x.Add(y).Err())
	},
}

// runChild runs this test binary as a child in role with extra environment.
func runChild(t *testing.T, role string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), "MINDTORCH_NPU_CHILD="+role), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s: %v: %s", role, err, out)
	}
	return string(out)
}

// settle waits for the device and checks that nothing leaked and nothing
// was misused: no live descriptors, executors or events, no misuse of
// CANN refused by the emulator, and every device byte held by the
// allocator or a stream's workspace arena.
func settle(t *testing.T) {
	t.Helper()
	if err := npu.Synchronize(0); err != nil {
		t.Fatal(err)
	}
	c, ok := npushim.Counters()
	if !ok {
		return // real CANN: no counters
	}
	if c.Tensors != 0 || c.Scalars != 0 || c.IntArrays != 0 || c.Executors != 0 || c.Events != 0 {
		t.Errorf("live descriptors: %d tensors, %d scalars, %d int arrays, %d executors, %d events", c.Tensors, c.Scalars,
			c.IntArrays, c.Executors, c.Events)
	}
	if c.Misuses != 0 {
		t.Errorf("the emulator refused %d misuses of CANN", c.Misuses)
	}
	if want := npu.Stats(0).Reserved + int64(npushim.WorkspaceBytes(0)); c.Bytes != want {
		t.Errorf("device bytes %d, allocator reserved + workspace %d", c.Bytes, want)
	}
}

func TestAvailableWithEmulator(t *testing.T) {
	if !npu.IsAvailable() {
		t.Fatalf("not available: %s", npu.UnavailableReason())
	}
	if ok, missing := npu.SymbolsOK(); !ok || !npu.ACLNNAvailable() {
		t.Errorf("missing symbols: %v", missing)
	}
	if emulated() && (npu.DeviceCount() != 1 || !strings.Contains(npu.Info(), "Ascend910B3")) {
		t.Errorf("devices %d, info %q", npu.DeviceCount(), npu.Info())
	}
	free, total, err := npu.MemGetInfo(0)
	if err != nil || free <= 0 || free > total {
		t.Errorf("MemGetInfo: %d of %d, %v", free, total, err)
	}
	if err := npu.Synchronize(npu.DeviceCount()); !errors.Is(err, torch.ErrDevice) {
		t.Errorf("a device that does not exist: %v", err)
	}
}

// TestMissingLibrariesAndSymbols runs this test binary again with libraries
// or symbols missing: the NPU must say it is unavailable and why, or report
// the missing op when it is used.
func TestMissingLibrariesAndSymbols(t *testing.T) {
	if os.Getenv("MINDTORCH_NPU_REAL") == "1" {
		t.Skip("real CANN is installed here")
	}
	// emulator is a directory with the libraries names (and the core),
	// copied from one build of all of them per set of defines.
	built := map[string]string{}
	emulator := func(names []string, defines ...string) string {
		key := strings.Join(defines, " ")
		if _, ok := built[key]; !ok {
			built[key] = t.TempDir()
			if err := npuemu.Build(built[key], npuemu.All, defines...); err != nil {
				t.Fatal(err)
			}
		}
		dir := t.TempDir()
		for _, name := range append([]string{npuemu.Core}, names...) {
			b, err := os.ReadFile(filepath.Join(built[key], name))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, name), b, 0o755)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	cases := []struct {
		name string
		dir  string
		want []string
	}{
		{"no CANN", t.TempDir(), []string{"available=false reason=the ACL runtime (libascendcl.so or libacl_rt.so) was not found in",
			"to=mindtorch:", "the NPU is not available"}},
		{"no libnnopbase", emulator([]string{"libascendcl.so"}), []string{"available=false reason=libnnopbase.so was not found"}},
		{"no operator library", emulator([]string{"libacl_rt.so", "libnnopbase.so"}), []string{"available=false reason=no ACLNN operator library"}},
		{"per-repo operator libraries", emulator([]string{"libacl_rt.so", "libnnopbase.so", "libopapi_math.so", "libopapi_nn.so"}),
			[]string{"available=true", "symbols_ok=true", "to=<nil>", "softmax=<nil>", "softmax on the host=0", "misuses=0"}},
		// CANN 8.5 ships both kinds; loading libopapi.so with the others is refused
		{"both kinds of operator libraries", emulator(npuemu.All),
			[]string{"available=true", "symbols_ok=true", "to=<nil>", "softmax=<nil>", "softmax on the host=0", "exp=<nil>", "misuses=0"}},
		{"only libopapi.so", emulator([]string{"libascendcl.so", "libnnopbase.so", "libopapi.so"}),
			[]string{"available=true", "symbols_ok=true", "softmax=<nil>", "softmax on the host=0", "misuses=0"}},
		{"no math operator library", emulator([]string{"libascendcl.so", "libnnopbase.so", "libopapi.so", "libopapi_nn.so"}),
			[]string{"available=true", "symbols_ok=false missing=[aclnnAdd aclnnSub", "softmax=<nil>", "softmax on the host=0",
				"misuses=0"}},
		{"a missing op", emulator([]string{"libascendcl.so", "libnnopbase.so", "libopapi.so"}, "-DMTEMU_OMIT_SOFTMAX"),
			[]string{"available=true", "symbols_ok=false missing=[aclnnSoftmax]", "softmax=<nil>", "softmax on the host=1",
				"exp=<nil>"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := runChild(t, "report", "MINDTORCH_NPU_LIB_DIR="+c.dir)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the child did not say %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	torch.ManualSeed(0)
	base := torch.Randn([]int{3, 4}, torch.WithDType(torch.Float64))
	inputs := map[string]*torch.Tensor{
		"contiguous": base,
		"transposed": base.T(),
		"sliced":     base.Slice(1, 0, 4, 2),
		"0-dim":      base.Select(0, 1).Select(0, 2),
		"empty":      torch.Zeros([]int{0, 3}),
	}
	dtypes := []torch.DType{torch.Float32, torch.Float64, torch.Float16, torch.BFloat16, torch.Int64, torch.Int32,
		torch.Int16, torch.Int8, torch.Uint8, torch.Bool}
	for name, x := range inputs {
		for _, dt := range dtypes {
			in := x.ToDType(dt)
			d, err := in.To("npu")
			if err != nil {
				t.Fatalf("%s %v: %v", name, dt, err)
			}
			if d.Device().String() != "npu:0" || !equalShapes(d.Shape(), in.Shape()) {
				t.Errorf("%s %v: on %v with shape %v", name, dt, d.Device(), d.Shape())
			}
			back, err := d.To("cpu")
			if err != nil {
				t.Fatal(err)
			}
			if !torch.Equal(back, in) {
				t.Errorf("%s %v: %v came back as %v", name, dt, in, back)
			}
			d.Release()
		}
	}
	// Into a strided device tensor, with a dtype change and broadcasting.
	d := torch.Zeros([]int{4, 3}, torch.WithDevice("npu"))
	d.T().Copy_(torch.FromSlice([]float64{1, 2, 3, 4}))
	got, _ := torch.ToSlice[float32](d)
	want := []float32{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}
	if !equalF32(got, want) {
		t.Errorf("strided copy: %v", got)
	}
	settle(t)
}

func TestConcurrentGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := torch.Full([]int{64}, float64(g), torch.WithDevice("npu"))
			for range 50 {
				x = x.AddScalar(1)
			}
			v, err := x.Sum().Item()
			if err != nil || v != float64(64*(g+50)) {
				t.Errorf("goroutine %d: %v %v", g, v, err)
			}
		}()
	}
	wg.Wait()
	settle(t)
}

func TestOutOfMemory(t *testing.T) {
	t.Setenv("MTEMU_MEMORY_MB", "64")
	if !emulated() {
		t.Skip("the memory limit is a knob of the emulator")
	}
	keep := torch.Empty([]int{10 << 20}, torch.WithDevice("npu")) // 40 MiB
	big := torch.Empty([]int{10 << 20}, torch.WithDevice("npu"))  // 40 more: over 64
	if err := big.Err(); !errors.Is(err, torch.ErrOutOfMemory) || !strings.Contains(err.Error(), "out of device memory") {
		t.Errorf("allocation over the limit: %v", err)
	}
	keep.Release()
	// The cached block is freed and the allocation retried.
	again := torch.Empty([]int{12 << 20}, torch.WithDevice("npu"))
	if err := again.Err(); err != nil {
		t.Errorf("after releasing: %v", err)
	}
	again.Release()
	npu.EmptyCache(0)
	settle(t)
}

// emulated reports whether the NPU is the emulator (not real CANN).
func emulated() bool {
	npu.IsAvailable()
	_, ok := npushim.Counters()
	return ok
}

func equalShapes(a, b []int) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func equalF32(a, b []float32) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestAllocatorStats(t *testing.T) {
	npu.EmptyCache(0)
	before := npu.Stats(0)
	a := torch.Empty([]int{1000}, torch.WithDevice("npu")) // 4000 bytes: one 4096-byte block
	b := torch.Empty([]int{10}, torch.WithDevice("npu"))   // 40 bytes: one 512-byte block
	s := npu.Stats(0)
	if s.Allocated-before.Allocated != 4096+512 || s.PeakAllocated < s.Allocated || s.Reserved < s.Allocated {
		t.Errorf("after two allocations: %+v (before %+v)", s, before)
	}
	a.Release()
	s = npu.Stats(0)
	if s.Allocated-before.Allocated != 512 || s.Reserved-before.Reserved != 4096+512 {
		t.Errorf("after a release the block stays cached: %+v", s)
	}
	npu.ResetPeakMemoryStats(0)
	if s = npu.Stats(0); s.PeakAllocated != s.Allocated {
		t.Errorf("reset peak: %+v", s)
	}
	again := torch.Empty([]int{1000}, torch.WithDevice("npu"))
	if m := npu.Stats(0).Mallocs; m != s.Mallocs {
		t.Errorf("a cached block was not reused: %d device allocations, was %d", m, s.Mallocs)
	}
	again.Release()
	b.Release()
	npu.EmptyCache(0)
	if s = npu.Stats(0); s.Reserved != s.Allocated {
		t.Errorf("after EmptyCache: %+v", s)
	}
	settle(t)
}
