package npu_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The more ops (kernels_more.go): dot, cumprod, searchsorted,
// count_nonzero, nonzero, masked_select and round(decimals=0) give the
// CPU's values on the NPU for each dtype and layout (contiguous,
// transposed, sliced, empty, 0-dim, NaN and ±Inf among the floats), run
// natively where the ACLNN op takes the form, and on the host where it does
// not.

// moreDTypes are the dtypes the cases run on.
var moreDTypes = []torch.DType{torch.Float32, torch.Float16, torch.BFloat16, torch.Float64, torch.Int8, torch.Int16, torch.Int32,
	torch.Int64, torch.Uint8, torch.Bool}

// moreData is a CPU tensor of dtype d and shape: for floating dtypes
// values with zeros, -0.0, NaN and ±Inf (unless finite), for the others
// small integers with zeros.
func moreData(d torch.DType, finite bool, shape ...int) *torch.Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	vals := []float64{1.5, 0, -2, math.NaN(), 3, math.Inf(1), -0.5, math.Copysign(0, -1), 2, math.Inf(-1), 0.25, 1}
	if finite || !d.IsFloatingPoint() {
		vals = []float64{1, 0, 2, 3, 0, 1, 2, 1, 0, 3, 1, 2}
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = vals[i%len(vals)]
	}
	return torch.FromSlice(v, torch.WithShape(shape...)).ToDType(d)
}

// moreLayouts are views of a CPU tensor of at least 2 dims: contiguous,
// transposed and sliced (a column: strided), and an empty slice.
func moreLayouts(x *torch.Tensor) map[string]*torch.Tensor {
	return map[string]*torch.Tensor{"contiguous": x, "transposed": x.T(), "sliced": x.Narrow(1, 1, 2), "empty": x.Narrow(0, 0, 0)}
}

// route is how a case is expected to run.
type route int

const (
	native route = iota
	host
	none // an empty output: the dispatcher runs no kernel
)

// checkMore runs f on the CPU inputs and on their NPU copies, compares the
// values and checks that op ran by the route want.
func checkMore(t *testing.T, name string, op kernel.OpID, want route, tol float64, f func(in ...*torch.Tensor) *torch.Tensor,
	in ...*torch.Tensor) {
	t.Helper()
	exp := f(in...)
	if err := exp.Err(); err != nil {
		t.Fatalf("%s on the CPU: %v", name, err)
	}
	before := dispatch.CountsOf(op, device.NPU)
	got := f(onNPU(t, in...)...)
	if got.DType() != exp.DType() {
		t.Errorf("%s: dtype %s, CPU %s", name, got.DType().Name(), exp.DType().Name())
	}
	closeTo(t, name, got, exp, tol, tol)
	after := dispatch.CountsOf(op, device.NPU)
	switch ran := after.Native != before.Native && after.HostFallback == before.HostFallback; {
	case want == native && !ran:
		t.Errorf("%s should run natively: %v, before %v", name, after, before)
	case want == host && after.HostFallback == before.HostFallback:
		t.Errorf("%s should run on the host: %v, before %v", name, after, before)
	case want == none && after != before:
		t.Errorf("%s should run no kernel: %v, before %v", name, after, before)
	}
}

// tolOf is the relative tolerance for dtype d: sums in another order than
// the CPU's differ in the last bits.
func tolOf(d torch.DType) float64 {
	switch d {
	case torch.Float16, torch.BFloat16:
		return 1e-2
	case torch.Float32:
		return 1e-6
	}
	return 0
}

func TestDotOnNPU(t *testing.T) {
	dot := func(in ...*torch.Tensor) *torch.Tensor { return in[0].Dot(in[1]) }
	for _, d := range moreDTypes {
		if d == torch.Bool {
			continue
		}
		want := native
		if d == torch.Float64 || !d.IsFloatingPoint() { // not taken; integers decline
			want = host
		}
		x, y := moreData(d, true, 6, 2), moreData(d, false, 6)
		checkMore(t, fmt.Sprint("dot ", d.Name()), kernel.OpDot, want, tolOf(d), dot, x.Select(1, 0).Contiguous(), y)
		checkMore(t, fmt.Sprint("dot of a strided column ", d.Name()), kernel.OpDot, want, tolOf(d), dot, x.Select(1, 1), y)
		checkMore(t, fmt.Sprint("dot of empty tensors ", d.Name()), kernel.OpDot, want, 0, dot, y.Narrow(0, 0, 0), y.Narrow(0, 2, 0))
	}
	settle(t)
}

func TestCumprodOnNPU(t *testing.T) {
	for _, d := range moreDTypes {
		want := native
		if d == torch.Bool { // aclnnCumprod takes no BOOL input
			want = host
		}
		for name, x := range moreLayouts(moreData(d, false, 3, 4)) {
			w := want
			if name == "empty" {
				w = none
			}
			for _, dim := range []int{0, 1, -1} {
				f := func(in ...*torch.Tensor) *torch.Tensor { return in[0].Cumprod(dim) }
				checkMore(t, fmt.Sprintf("cumprod %s %s dim %d", name, d.Name(), dim), kernel.OpCumprod, w, tolOf(d), f, x)
			}
		}
		f := func(in ...*torch.Tensor) *torch.Tensor { return in[0].Cumprod(0) }
		checkMore(t, "cumprod 0-dim "+d.Name(), kernel.OpCumprod, want, 0, f, moreData(d, false, 1).Reshape())
	}
	settle(t)
}

func TestSearchsortedOnNPU(t *testing.T) {
	for _, d := range moreDTypes[:len(moreDTypes)-1] { // PyTorch has no bool searchsorted
		want := native
		if d == torch.BFloat16 { // not in aclnnSearchSorted's dtypes
			want = host
		}
		// A NaN in the sorted sequence is left out: MindTorch's CPU kernel
		// orders it otherwise than PyTorch 1.13's !(a >= v) (which the
		// emulator follows); NaN and ±Inf values are searched.
		seq, _ := moreData(d, true, 3, 5).Sort(1, false)
		vals := moreData(d, false, 3, 4).T().Contiguous().T()
		for _, right := range []bool{false, true} {
			f := func(in ...*torch.Tensor) *torch.Tensor { return torch.Searchsorted(in[0], in[1], right) }
			name := fmt.Sprintf("searchsorted %s right=%v", d.Name(), right)
			checkMore(t, name, kernel.OpSearchsorted, want, 0, f, seq, vals)
			checkMore(t, name+" 1-D", kernel.OpSearchsorted, want, 0, f, seq.Select(0, 1), vals)
			checkMore(t, name+" int32", kernel.OpSearchsorted, want, 0, func(in ...*torch.Tensor) *torch.Tensor {
				return torch.SearchsortedWith(in[0], in[1], torch.SearchsortedOptions{Right: right, OutInt32: true})
			}, seq, vals.Narrow(1, 1, 2))
		}
		f := func(in ...*torch.Tensor) *torch.Tensor { return torch.Searchsorted(in[0], in[1], false) }
		checkMore(t, "searchsorted of empty values "+d.Name(), kernel.OpSearchsorted, none, 0, f, seq, vals.Narrow(1, 0, 0))
		checkMore(t, "searchsorted of a 0-dim value "+d.Name(), kernel.OpSearchsorted, host, 0, f, seq.Select(0, 0), vals.Select(0, 0).Select(0, 1))
	}
	settle(t)
}

func TestNonzeroOpsOnNPU(t *testing.T) {
	for _, d := range moreDTypes {
		for name, x := range moreLayouts(moreData(d, false, 3, 4)) {
			want, along := native, native
			if name == "empty" { // declined (nothing to launch), or no kernel for an empty output
				want, along = host, none
			}
			checkMore(t, fmt.Sprintf("count_nonzero %s %s", name, d.Name()), kernel.OpCountNonzero, want, 0,
				func(in ...*torch.Tensor) *torch.Tensor { return in[0].CountNonzero() }, x)
			checkMore(t, fmt.Sprintf("count_nonzero along 1 %s %s", name, d.Name()), kernel.OpCountNonzero, along, 0,
				func(in ...*torch.Tensor) *torch.Tensor { return in[0].CountNonzero(1) }, x)
			checkMore(t, fmt.Sprintf("nonzero %s %s", name, d.Name()), kernel.OpNonzero, want, 0,
				func(in ...*torch.Tensor) *torch.Tensor { return in[0].Nonzero() }, x)
			mask := moreData(torch.Bool, false, x.Shape()[1])
			checkMore(t, fmt.Sprintf("masked_select %s %s", name, d.Name()), kernel.OpMaskedSelect, want, 0,
				func(in ...*torch.Tensor) *torch.Tensor { return in[0].MaskedSelect(in[1]) }, x, mask)
		}
		scalar := moreData(d, false, 1).Reshape()
		checkMore(t, "nonzero 0-dim "+d.Name(), kernel.OpNonzero, host, 0, func(in ...*torch.Tensor) *torch.Tensor { return in[0].Nonzero() }, scalar)
		checkMore(t, "count_nonzero 0-dim "+d.Name(), kernel.OpCountNonzero, native, 0,
			func(in ...*torch.Tensor) *torch.Tensor { return in[0].CountNonzero() }, scalar)
	}
	settle(t)
}

func TestRoundDecimalsOnNPU(t *testing.T) {
	for _, d := range []torch.DType{torch.Float32, torch.Float16, torch.BFloat16, torch.Float64} {
		for name, x := range moreLayouts(moreData(d, false, 3, 4).MulScalar(1.37)) {
			want, other := native, host
			if name == "empty" {
				want, other = none, none
			}
			checkMore(t, fmt.Sprintf("round(decimals=0) %s %s", name, d.Name()), kernel.OpRoundDecimals, want, 0,
				func(in ...*torch.Tensor) *torch.Tensor { return in[0].RoundDecimals(0) }, x)
			checkMore(t, fmt.Sprintf("round(decimals=2) %s %s", name, d.Name()), kernel.OpRoundDecimals, other, 0,
				func(in ...*torch.Tensor) *torch.Tensor { return in[0].RoundDecimals(2) }, x)
		}
		checkMore(t, "round(decimals=0) 0-dim "+d.Name(), kernel.OpRoundDecimals, native, 0,
			func(in ...*torch.Tensor) *torch.Tensor { return in[0].RoundDecimals(0) }, moreData(d, false, 1).Reshape().MulScalar(2.5))
	}
	settle(t)
}

func init() {
	// the more ops on an Atlas training SoC
	children["more_a1"] = func() {
		x := torch.FromSlice([]float32{0.5, 2, -1, 3})
		d, _ := x.To("npu")
		for _, c := range []struct {
			name string
			op   kernel.OpID
			f    func(*torch.Tensor) *torch.Tensor
		}{
			{"cumprod", kernel.OpCumprod, func(t *torch.Tensor) *torch.Tensor { return t.Cumprod(0) }},
			{"searchsorted", kernel.OpSearchsorted, func(t *torch.Tensor) *torch.Tensor {
				s, _ := t.Sort(0, false)
				return torch.Searchsorted(s, t, false)
			}},
			{"dot", kernel.OpDot, func(t *torch.Tensor) *torch.Tensor { return t.Dot(t) }},
			{"dot bfloat16", kernel.OpDot, func(t *torch.Tensor) *torch.Tensor { b := t.ToDType(torch.BFloat16); return b.Dot(b) }},
		} {
			before := dispatch.CountsOf(c.op, device.NPU)
			got, want := c.f(d), c.f(x)
			after := dispatch.CountsOf(c.op, device.NPU)
			fmt.Printf("%s same=%v native=%d host=%d\n", c.name, sameValues(got, want), after.Native-before.Native,
				after.HostFallback-before.HostFallback)
		}
	}
}

// On an Atlas training SoC cumprod and searchsorted (whose docs list Atlas
// A2/A3 only) and bfloat16 dot run on the host; float32 dot stays native.
func TestMoreOpsOnAtlasTraining(t *testing.T) {
	if !emulated() {
		t.Skip("needs the emulator's MTEMU_SOC")
	}
	out := runChild(t, "more_a1", "MTEMU_SOC=Ascend910A")
	for _, w := range []string{"cumprod same=true native=0 host=1", "searchsorted same=true native=0 host=1",
		"dot same=true native=1 host=0", "dot bfloat16 same=true native=0 host=1"} {
		if !strings.Contains(out, w) {
			t.Errorf("on Ascend910A the child did not say %q:\n%s", w, out)
		}
	}
}
