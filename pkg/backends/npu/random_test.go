package npu_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The random ops on the NPU (kernels_random.go): native draws from the
// generator's Philox stream for the device, which ManualSeed restarts and
// every draw advances past the counters its kernel consumed; the forms the
// kernels draw otherwise than PyTorch decline to the host, whose numbers
// are the CPU's. The emulator's numbers are its own model's (docs/npu-ops.md,
// "Random ops"), so the checks are what any correct draw shares: the same
// numbers after the same seed, other numbers after more draws, the range,
// the moments, the layout written.

// randomForm is one form of a random op and the route it takes on the NPU.
type randomForm struct {
	name   string
	op     kernel.OpID
	dtype  torch.DType
	draw   func(x *torch.Tensor) *torch.Tensor
	native bool
	lo, hi float64 // the values' range, both ends included
}

var randomForms = []randomForm{
	{"uniform f32", kernel.OpUniform, torch.Float32, func(x *torch.Tensor) *torch.Tensor { return x.Uniform_(2, 5) }, true, 2, 5},
	{"uniform f16", kernel.OpUniform, torch.Float16, func(x *torch.Tensor) *torch.Tensor { return x.Uniform_(-1, 1) }, true, -1, 1},
	{"uniform bf16", kernel.OpUniform, torch.BFloat16, func(x *torch.Tensor) *torch.Tensor { return x.Uniform_(0, 1) }, true, 0, 1},
	{"uniform f64", kernel.OpUniform, torch.Float64, func(x *torch.Tensor) *torch.Tensor { return x.Uniform_(0, 1) }, false, 0, 1},
	{"normal f32", kernel.OpNormal, torch.Float32, func(x *torch.Tensor) *torch.Tensor { return x.Normal_(1, 2) }, true, -100, 100},
	{"normal f16", kernel.OpNormal, torch.Float16, func(x *torch.Tensor) *torch.Tensor { return x.Normal_(0, 1) }, true, -100, 100},
	{"normal f64", kernel.OpNormal, torch.Float64, func(x *torch.Tensor) *torch.Tensor { return x.Normal_(0, 1) }, false, -100, 100},
	{"random i64", kernel.OpRandomFromTo, torch.Int64, func(x *torch.Tensor) *torch.Tensor { return x.Random_(3, 13) }, true, 3, 12},
	{"random i32", kernel.OpRandomFromTo, torch.Int32, func(x *torch.Tensor) *torch.Tensor { return x.Random_(0, 1<<24) }, true, 0, 1<<24 - 1},
	{"random u8", kernel.OpRandomFromTo, torch.Uint8, func(x *torch.Tensor) *torch.Tensor { return x.Random_(0, 256) }, true, 0, 255},
	{"random f32", kernel.OpRandomFromTo, torch.Float32, func(x *torch.Tensor) *torch.Tensor { return x.Random_(0, 7) }, true, 0, 6},
	{"random bool", kernel.OpRandomFromTo, torch.Bool, func(x *torch.Tensor) *torch.Tensor { return x.Random_(0, 2) }, true, 0, 1},
	{"random negative", kernel.OpRandomFromTo, torch.Int64, func(x *torch.Tensor) *torch.Tensor { return x.Random_(-3, 3) }, false, -3, 2},
	{"random wide", kernel.OpRandomFromTo, torch.Int64, func(x *torch.Tensor) *torch.Tensor { return x.Random_(0, 1<<40) }, false, 0, 1<<40 - 1},
	{"random f16 wide", kernel.OpRandomFromTo, torch.Float16, func(x *torch.Tensor) *torch.Tensor { return x.Random_(0, 3000) }, false, 0, 2999},
	{"bernoulli_ f32", kernel.OpBernoulliScalar, torch.Float32, func(x *torch.Tensor) *torch.Tensor { return x.Bernoulli_(0.3) }, true, 0, 1},
	{"bernoulli_ bool", kernel.OpBernoulliScalar, torch.Bool, func(x *torch.Tensor) *torch.Tensor { return x.Bernoulli_(0.5) }, true, 0, 1},
	{"bernoulli_ i64", kernel.OpBernoulliScalar, torch.Int64, func(x *torch.Tensor) *torch.Tensor { return x.Bernoulli_(0.7) }, true, 0, 1},
	{"bernoulli f32", kernel.OpBernoulliTensor, torch.Float32, func(x *torch.Tensor) *torch.Tensor { return torch.Bernoulli(x.Fill_(0.25)) }, true, 0, 1},
	{"bernoulli f64", kernel.OpBernoulliTensor, torch.Float64, func(x *torch.Tensor) *torch.Tensor { return torch.Bernoulli(x.Fill_(0.25)) }, true, 0, 1},
	{"bernoulli bf16", kernel.OpBernoulliTensor, torch.BFloat16, func(x *torch.Tensor) *torch.Tensor { return torch.Bernoulli(x.Fill_(0.25)) }, false, 0, 1},
}

// drawOn draws f into a fresh tensor of shape and dtype on dev after
// seeding the default generator with seed, and counts the op's routes.
func drawOn(t *testing.T, f randomForm, dev string, shape []int, seed uint64) ([]float64, dispatch.Counts) {
	t.Helper()
	torch.ManualSeed(seed)
	before := dispatch.CountsOf(f.op, device.NPU)
	x := f.draw(torch.Zeros(shape, torch.WithDType(f.dtype), torch.WithDevice(dev)))
	after := dispatch.CountsOf(f.op, device.NPU)
	if x.Err() != nil {
		t.Fatalf("%s on %s: %v", f.name, dev, x.Err())
	}
	v := f64s(t, x)
	x.Release()
	return v, dispatch.Counts{Native: after.Native - before.Native, HostFallback: after.HostFallback - before.HostFallback}
}

// TestRandomRoutesAndSeeds: each form takes its route; a seed gives the same
// numbers again, on the NPU as on the host; the declined forms draw the
// CPU's numbers; every value is in the form's range.
func TestRandomRoutesAndSeeds(t *testing.T) {
	shape := []int{37, 29}
	for _, f := range randomForms {
		a, n := drawOn(t, f, "npu", shape, 11)
		b, _ := drawOn(t, f, "npu", shape, 11)
		c, _ := drawOn(t, f, "npu", shape, 12)
		if f.native != (n.Native == 1 && n.HostFallback == 0) {
			t.Errorf("%s: routes native %d host %d, want native=%v", f.name, n.Native, n.HostFallback, f.native)
		}
		if !sameFloats(a, b) {
			t.Errorf("%s: the same seed drew other numbers", f.name)
		}
		if sameFloats(a, c) {
			t.Errorf("%s: another seed drew the same numbers", f.name)
		}
		if !f.native {
			cpu, _ := drawOn(t, f, "cpu", shape, 11)
			if !sameFloats(a, cpu) {
				t.Errorf("%s: drawn on the host, its numbers are not the CPU's", f.name)
			}
		}
		for i, v := range a {
			if !(v >= f.lo && v <= f.hi) {
				t.Fatalf("%s: value %d is %g, outside [%g, %g]", f.name, i, v, f.lo, f.hi)
			}
		}
	}
	settle(t)
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// TestRandomMoments: the native draws have their distributions' moments
// (1e5 draws: the bounds are more than 5 standard errors).
func TestRandomMoments(t *testing.T) {
	const n = 100000
	moments := func(v []float64) (mean, std float64) {
		for _, x := range v {
			mean += x
		}
		mean /= float64(len(v))
		for _, x := range v {
			std += (x - mean) * (x - mean)
		}
		return mean, math.Sqrt(std / float64(len(v)))
	}
	for _, c := range []struct {
		f              randomForm
		mean, std, tol float64
	}{
		{randomForms[0], 3.5, 3 / math.Sqrt(12), 0.02},    // U(2, 5)
		{randomForms[4], 1, 2, 0.03},                      // N(1, 2)
		{randomForms[7], 7.5, math.Sqrt(99.0 / 12), 0.05}, // integers 3..12
		{randomForms[15], 0.3, math.Sqrt(0.21), 0.01},     // Bernoulli(0.3)
		{randomForms[18], 0.25, math.Sqrt(0.1875), 0.01},  // Bernoulli(0.25) by tensor
	} {
		v, _ := drawOn(t, c.f, "npu", []int{n}, 5)
		m, s := moments(v)
		if math.Abs(m-c.mean) > c.tol || math.Abs(s-c.std) > c.tol {
			t.Errorf("%s: mean %g std %g, want %g and %g within %g", c.f.name, m, s, c.mean, c.std, c.tol)
		}
	}
	// random_(3, 13): every value about a tenth of the time
	v, _ := drawOn(t, randomForms[7], "npu", []int{n}, 6)
	count := map[float64]int{}
	for _, x := range v {
		count[x]++
	}
	for k := 3.0; k < 13; k++ {
		if c := count[k]; c < n/10-600 || c > n/10+600 {
			t.Errorf("random_(3, 13): %g drawn %d times of %d", k, c, n)
		}
	}
	// random_(-3, 3) draws on the host: -3 as often as any other value
	v, _ = drawOn(t, randomForms[12], "npu", []int{n}, 6)
	count = map[float64]int{}
	for _, x := range v {
		count[x]++
	}
	for k := -3.0; k < 3; k++ {
		if c := count[k]; c < n/6-700 || c > n/6+700 {
			t.Errorf("random_(-3, 3): %g drawn %d times of %d", k, c, n)
		}
	}
	settle(t)
}

// TestRandomStreamAdvances: successive draws use fresh counters. A tensor
// of four rounds of the kernels' grid (256 threads x 624 blocks x 4
// elements) takes 16 counters of each thread's stream; an advance of
// torch_npu's fixed 10 (12) for bernoulli would let the next draw repeat
// the last round: element i of the second draw would be element i + 3
// rounds of the first. No shift of whole rounds may repeat values beyond
// chance (float32 uniforms of 24 bits: 1 in 2^24 per pair).
func TestRandomStreamAdvances(t *testing.T) {
	const round = 256 * 624 * 4
	for _, f := range []randomForm{randomForms[0], randomForms[15]} {
		torch.ManualSeed(3)
		x := torch.Zeros([]int{4 * round}, torch.WithDevice("npu"))
		a := f64s(t, f.draw(x))
		b := f64s(t, f.draw(x))
		x.Release()
		if f.op == kernel.OpBernoulliScalar { // 0s and 1s: compare the draws' agreement with chance
			for s := 0; s < 4; s++ {
				same := 0
				for i := 0; i+s*round < len(a); i++ {
					if b[i] == a[i+s*round] {
						same++
					}
				}
				if frac := float64(same) / float64(len(a)-s*round); frac > 0.60 { // chance: 0.7^2 + 0.3^2 = 0.58
					t.Errorf("%s: the second draw agrees with the first shifted by %d rounds at %.3f", f.name, s, frac)
				}
			}
			continue
		}
		for s := 0; s < 4; s++ {
			same := 0
			for i := 0; i+s*round < len(a); i++ {
				if b[i] == a[i+s*round] {
					same++
				}
			}
			if same > 4 {
				t.Errorf("%s: the second draw repeats %d values of the first shifted by %d rounds", f.name, same, s)
			}
		}
	}
	settle(t)
}

// TestRandomGeneratorsAndSeeds: a generator given to the op draws from its
// own stream and leaves the default one as it was; ManualSeed restarts the
// device's stream; two generators seeded alike draw alike.
func TestRandomGeneratorsAndSeeds(t *testing.T) {
	draw := func(opts ...torch.Option) []float64 {
		return f64s(t, torch.Rand([]int{100}, append(opts, torch.WithDevice("npu"))...))
	}
	torch.ManualSeed(1)
	a := draw()
	torch.ManualSeed(1)
	g1, g2 := torch.NewGenerator(9), torch.NewGenerator(9)
	x, y := draw(torch.WithGenerator(g1)), draw(torch.WithGenerator(g2))
	b := draw()
	if !sameFloats(a, b) {
		t.Error("a draw with another generator moved the default generator's stream")
	}
	if !sameFloats(x, y) {
		t.Error("two generators seeded alike drew other numbers")
	}
	if sameFloats(a, x) {
		t.Error("generators seeded 1 and 9 drew the same numbers")
	}
	if c := draw(torch.WithGenerator(g1)); sameFloats(c, x) {
		t.Error("a generator's second draw repeated its first")
	}
	g1.ManualSeed(9)
	if c := draw(torch.WithGenerator(g1)); !sameFloats(c, x) {
		t.Error("ManualSeed did not restart the generator's device stream")
	}
	settle(t)
}

// TestRandomLayouts: a draw into a view writes the view's elements and no
// other; 0-dim and empty tensors; a broadcast view is refused, as PyTorch
// refuses writes through it.
func TestRandomLayouts(t *testing.T) {
	base := torch.Zeros([]int{6, 8}, torch.WithDevice("npu"))
	base.Narrow(1, 2, 3).T().Uniform_(1, 2)
	v := f64s(t, base)
	for i := range 6 {
		for j := range 8 {
			x := v[i*8+j]
			if in := j >= 2 && j < 5; in != (x >= 1 && x < 2) || !in && x != 0 {
				t.Fatalf("element [%d,%d] = %g after a draw into columns 2..4", i, j, x)
			}
		}
	}
	base.Release()
	s := torch.Zeros(nil, torch.WithDevice("npu")).Normal_(0, 1)
	e := torch.Zeros([]int{0, 3}, torch.WithDevice("npu")).Bernoulli_(0.5)
	if s.Err() != nil || e.Err() != nil {
		t.Fatalf("0-dim: %v, empty: %v", s.Err(), e.Err())
	}
	if w := torch.Zeros([]int{3}, torch.WithDevice("npu")).Expand(2, 3).Uniform_(0, 1).Err(); w == nil ||
		!strings.Contains(w.Error(), "written-to tensor") {
		t.Errorf("a draw into an expanded view: %v", w)
	}
	s.Release()
	e.Release()
	settle(t)
}

// TestRandomArgumentsOnTheNPU: the NPU refuses what the CPU refuses, before
// it draws: probabilities out of [0, 1] (and NaN) in a tensor, which the
// kernel cannot check, and the scalar arguments the meta functions check.
func TestRandomArgumentsOnTheNPU(t *testing.T) {
	p, err := torch.FromSlice([]float32{0.5, 1.5}).To("npu")
	if err != nil {
		t.Fatal(err)
	}
	q, _ := torch.FromSlice([]float32{0.5, float32(math.NaN())}).To("npu")
	for _, x := range []*torch.Tensor{torch.Bernoulli(p), torch.Bernoulli(q)} {
		if err := x.Err(); err == nil || !strings.Contains(err.Error(), "Expected p_in >= 0 && p_in <= 1 to be true, but got false.") {
			t.Errorf("bernoulli of an out-of-range probability: %v", err)
		}
	}
	z := torch.Zeros([]int{3}, torch.WithDevice("npu"))
	for _, x := range []*torch.Tensor{z.Normal_(0, -1), z.Bernoulli_(2), z.Random_(4, 4)} {
		if x.Err() == nil {
			t.Error("a bad argument was drawn on the NPU")
		}
	}
	p.Release()
	q.Release()
	z.Release()
	settle(t)
}

// TestDropoutOnTheNPU: nn.Dropout draws its mask on the device.
func TestDropoutOnTheNPU(t *testing.T) {
	x := torch.Ones([]int{200, 100}, torch.WithDevice("npu"))
	before := dispatch.CountsOf(kernel.OpBernoulliScalar, device.NPU)
	y := nn.NewDropout(0.25).Forward(x)
	after := dispatch.CountsOf(kernel.OpBernoulliScalar, device.NPU)
	if after.Native-before.Native != 1 || after.HostFallback != before.HostFallback {
		t.Errorf("dropout's mask: native %d host %d", after.Native-before.Native, after.HostFallback-before.HostFallback)
	}
	v := f64s(t, y)
	zeros := 0
	for _, e := range v {
		switch {
		case e == 0:
			zeros++
		case math.Abs(e-1/0.75) > 1e-6:
			t.Fatalf("a kept element is %g, want %g", e, 1/0.75)
		}
	}
	if f := float64(zeros) / float64(len(v)); math.Abs(f-0.25) > 0.015 {
		t.Errorf("dropout zeroed %.3f of the elements, want 0.25", f)
	}
	x.Release()
	y.Release()
	settle(t)
}

func init() {
	// the random ops on other SoCs: on an Atlas training chip random_ and
	// bfloat16 draw on the host; on an inference chip only uniform_ is native
	children["random_soc"] = func() {
		for _, i := range []int{0, 2, 4, 7, 15, 18} {
			f := randomForms[i]
			before := dispatch.CountsOf(f.op, device.NPU)
			x := f.draw(torch.Zeros([]int{64}, torch.WithDType(f.dtype), torch.WithDevice("npu")))
			after := dispatch.CountsOf(f.op, device.NPU)
			fmt.Printf("%s err=%v native=%d host=%d\n", f.name, x.Err(), after.Native-before.Native,
				after.HostFallback-before.HostFallback)
		}
	}
}

func TestRandomOnOtherSoCs(t *testing.T) {
	if !emulated() {
		t.Skip("needs the emulator's MTEMU_SOC")
	}
	for soc, lines := range map[string][]string{
		"Ascend910A": {"uniform f32 err=<nil> native=1 host=0", "uniform bf16 err=<nil> native=0 host=1",
			"normal f32 err=<nil> native=1 host=0", "random i64 err=<nil> native=0 host=1",
			"bernoulli_ f32 err=<nil> native=1 host=0", "bernoulli f32 err=<nil> native=1 host=0"},
		"Ascend310P3": {"uniform f32 err=<nil> native=1 host=0", "normal f32 err=<nil> native=0 host=1",
			"random i64 err=<nil> native=0 host=1", "bernoulli_ f32 err=<nil> native=0 host=1",
			"bernoulli f32 err=<nil> native=0 host=1"},
	} {
		out := runChild(t, "random_soc", "MTEMU_SOC="+soc)
		for _, w := range lines {
			if !strings.Contains(out, w) {
				t.Errorf("on %s the child did not say %q:\n%s", soc, w, out)
			}
		}
	}
}
