package npu_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/npuemu"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The tests of the ops' CANN rules (docs/npu-ops.md): GELU's two forms,
// aclnnMatmul's cubeMathType per SoC, the dtype table's routes, the
// reductions' dtypes.

func init() {
	// exact GELU with a CANN that has no aclnnGeluV2
	children["gelu"] = func() {
		ok, missing := npu.SymbolsOK()
		cpu := torch.FromSlice([]float32{-2.7, 1})
		x, _ := cpu.To("npu")
		before := dispatch.CountsOf(kernel.OpGelu, device.NPU)
		fmt.Printf("symbols_ok=%v missing=%v\n", ok, missing)
		fmt.Printf("exact=%s tanh=%s\n", geluForm(x.Gelu(), cpu), geluForm(x.GeluTanh(), cpu))
		after := dispatch.CountsOf(kernel.OpGelu, device.NPU)
		fmt.Printf("native=%d host=%d\n", after.Native-before.Native, after.HostFallback-before.HostFallback)
	}
	// matmul on an Atlas training SoC (MTEMU_SOC=Ascend910A)
	children["matmul"] = func() {
		fmt.Println("info:", npu.Info())
		a, b := torch.FromSlice([]float32{1 + 1.0/4096}, torch.WithShape(1, 1)), torch.FromSlice([]float32{1}, torch.WithShape(1, 1))
		da, _ := a.To("npu")
		db, _ := b.To("npu")
		v, err := da.Mm(db).Item()
		fmt.Printf("float32 mm=%v err=%v\n", v, err)
		before := dispatch.CountsOf(kernel.OpMm, device.NPU)
		hb, err := da.ToDType(torch.BFloat16).Mm(db.ToDType(torch.BFloat16)).Item()
		after := dispatch.CountsOf(kernel.OpMm, device.NPU)
		fmt.Printf("bfloat16 mm=%v err=%v host=%d\n", hb, err, after.HostFallback-before.HostFallback)
		os.Setenv("MINDTORCH_NPU_CUBE_MATH_TYPE", "0")
		fmt.Printf("KEEP_DTYPE: %v\n", da.Mm(db).Err())
	}
}

// geluForm names the form of GELU that y is of the CPU tensor x: "erf"
// (PyTorch's approximate='none'), "tanh", or else y's values.
func geluForm(y, x *torch.Tensor) string {
	got, err := torch.ToSlice[float32](y)
	if err != nil {
		return err.Error()
	}
	exact, _ := torch.ToSlice[float32](x.Gelu())
	tanh, _ := torch.ToSlice[float32](x.GeluTanh())
	near := func(want []float32) bool {
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 2e-6 {
				return false
			}
		}
		return len(got) == len(want)
	}
	switch {
	case near(exact):
		return "erf"
	case near(tanh):
		return "tanh"
	}
	return fmt.Sprint(got)
}

// GELU's exact form runs as aclnnGeluV2(x, 0), its tanh form as aclnnGelu
// (the tanh approximation), both on the device; without aclnnGeluV2 the
// exact form runs on the host. Near x = -2.7 the forms differ by 4.7e-4.
func TestGeluForms(t *testing.T) {
	x := torch.FromSlice([]float32{-2.7, 1})
	d, err := x.To("npu")
	if err != nil {
		t.Fatal(err)
	}
	before := dispatch.CountsOf(kernel.OpGelu, device.NPU)
	if got := geluForm(d.Gelu(), x); got != "erf" {
		t.Errorf("gelu(approximate='none') on the NPU is %s, want the erf form", got)
	}
	if got := geluForm(d.GeluTanh(), x); got != "tanh" {
		t.Errorf("gelu(approximate='tanh') on the NPU is %s, want the tanh form", got)
	}
	after := dispatch.CountsOf(kernel.OpGelu, device.NPU)
	if after.Native-before.Native != 2 || after.HostFallback != before.HostFallback {
		t.Errorf("both forms should run on the device: %v, before %v", after, before)
	}
	if !emulated() {
		return
	}
	dir := t.TempDir()
	if err := npuemu.Build(dir, []string{"libascendcl.so", "libnnopbase.so", "libopapi.so"}, "-DMTEMU_OMIT_GELU_V2"); err != nil {
		t.Fatal(err)
	}
	out := runChild(t, "gelu", "MINDTORCH_NPU_LIB_DIR="+dir)
	for _, w := range []string{"symbols_ok=true missing=[]", "exact=erf tanh=tanh", "native=1 host=1"} {
		if !strings.Contains(out, w) {
			t.Errorf("without aclnnGeluV2 the child did not say %q:\n%s", w, out)
		}
	}
}

// aclnnMatmul's cubeMathType is torch_npu's for the SoC: 0 (KEEP_DTYPE) on
// Atlas A2/A3, where float32 stays float32; 2 (USE_FP16) on Atlas training
// chips, which refuse float32 with 0 and compute it in float16, and take no
// bfloat16 (the product then runs on the host).
func TestMatmulCubeMathTypeBySoC(t *testing.T) {
	a, err := torch.FromSlice([]float32{1 + 1.0/4096}, torch.WithShape(1, 1)).To("npu")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a.Mm(torch.Ones([]int{1, 1}, torch.WithDevice("npu"))).Item(); err != nil || v != float64(float32(1+1.0/4096)) {
		t.Errorf("Ascend910B3: float32 mm = %v, %v; want float32's 1.000244", v, err)
	}
	if !emulated() {
		return
	}
	out := runChild(t, "matmul", "MTEMU_SOC=Ascend910A")
	for _, w := range []string{"Ascend910A", "float32 mm=1 err=<nil>", "bfloat16 mm=1 err=<nil> host=1",
		"KEEP_DTYPE: mindtorch: mm", "161002", "KEEP_DTYPE) is not supported on Atlas training"} {
		if !strings.Contains(out, w) {
			t.Errorf("on Ascend910A the child did not say %q:\n%s", w, out)
		}
	}
}

// An operand dtype the ACLNN op does not take runs the op on the host
// (the dispatcher's fallback), where PyTorch's CPU kernel gives PyTorch's
// value: aclnnMatmul takes no float64, and BLAS gives +inf for
// [1e308, 1e308] @ [10, -10] (the emulator's double sum gave NaN).
func TestUnsupportedDTypesRunOnTheHost(t *testing.T) {
	a := torch.FromSlice([]float64{1e308, 1e308}, torch.WithShape(1, 2))
	b := torch.FromSlice([]float64{10, -10}, torch.WithShape(2, 1))
	da, _ := a.To("npu")
	db, _ := b.To("npu")
	before := dispatch.CountsOf(kernel.OpMm, device.NPU)
	v, err := da.Mm(db).Item()
	if err != nil || !math.IsInf(v, 1) {
		t.Errorf("float64 [1e308 1e308] @ [10 -10] = %v, %v; want +Inf as on the CPU", v, err)
	}
	if after := dispatch.CountsOf(kernel.OpMm, device.NPU); after.HostFallback != before.HostFallback+1 {
		t.Errorf("float64 mm should run on the host: %v, before %v", after, before)
	}
	x := torch.FromSlice([]float64{-1, 2})
	dx, _ := x.To("npu")
	before = dispatch.CountsOf(kernel.OpRelu, device.NPU)
	if got, err := torch.ToSlice[float64](dx.Relu()); err != nil || fmt.Sprint(got) != "[0 2]" {
		t.Errorf("float64 relu = %v, %v", got, err)
	}
	if after := dispatch.CountsOf(kernel.OpRelu, device.NPU); after.HostFallback != before.HostFallback+1 {
		t.Errorf("aclnnRelu takes no float64: %v, before %v", after, before)
	}
	settle(t)
}

// Reductions make legal ACLNN calls: a sum of int32 to int64 is one
// aclnnReduceSum with dtype int64 (not a host fallback), a mean of bool to
// float32 is right (aclnnMean takes no bool), and a 0-dim input reduces over
// dim 0 or -1 as on the CPU.
func TestReductionDTypes(t *testing.T) {
	x := torch.FromSlice([]int32{1, 2, 3, 2147483647})
	dx, _ := x.To("npu")
	before := dispatch.CountsOf(kernel.OpSum, device.NPU)
	if got, err := dx.Sum().Item(); err != nil || got != 2147483653 {
		t.Errorf("int32 sum = %v, %v; want 2147483653 (int64)", got, err)
	}
	if after := dispatch.CountsOf(kernel.OpSum, device.NPU); after.Native != before.Native+1 {
		t.Errorf("int32 sum to int64 should run on the device: %v, before %v", after, before)
	}
	b, _ := torch.FromSlice([]bool{true, false, true, true}).To("npu")
	if got, err := b.MeanDType(torch.Float32, false).Item(); err != nil || got != 0.75 {
		t.Errorf("mean of bool to float32 = %v, %v", got, err)
	}
	s := torch.FromSlice([]float32{3}).Reshape()
	ds, _ := s.To("npu")
	for name, f := range map[string]func(*torch.Tensor) *torch.Tensor{
		"sum(0)": func(t *torch.Tensor) *torch.Tensor { return t.Sum(0) }, "sum(-1)": func(t *torch.Tensor) *torch.Tensor { return t.Sum(-1) },
		"amax(0)": func(t *torch.Tensor) *torch.Tensor { return t.Amax(0) }, "mean(-1)": func(t *torch.Tensor) *torch.Tensor { return t.Mean(-1) },
		"sum keepdim(0)": func(t *torch.Tensor) *torch.Tensor { return t.SumKeepDim(0) },
	} {
		want, got := f(s), f(ds)
		if v, err := got.Item(); err != nil || v != 3 || got.Dim() != want.Dim() {
			t.Errorf("%s of a 0-dim tensor on the NPU: %v (%v), CPU %v", name, got, err, want)
		}
	}
	settle(t)
}
