package npu_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The pointwise math ops of kernels_pointwise.go: each runs on the device
// (one ACLNN call) with the CPU's values, the forms ACLNN lacks or computes
// otherwise run on the host, and the ops only Atlas A2/A3 have run on the
// host on other SoCs.

func init() {
	// the A2/A3-only ops and bfloat16 on an Atlas training SoC
	children["pointwise_a1"] = func() {
		x := torch.FromSlice([]float32{0.25, float32(math.NaN()), float32(math.Inf(1))})
		d, _ := x.To("npu")
		for _, c := range []struct {
			op kernel.OpID
			f  func(*torch.Tensor) *torch.Tensor
		}{
			{kernel.OpNanToNum, func(t *torch.Tensor) *torch.Tensor { return t.NanToNum(0, nil, nil) }},
			{kernel.OpLogit, func(t *torch.Tensor) *torch.Tensor { return t.Logit() }},
			{kernel.OpIsPosInf, func(t *torch.Tensor) *torch.Tensor { return t.IsPosInf() }},
			{kernel.OpSin, func(t *torch.Tensor) *torch.Tensor { return t.ToDType(torch.BFloat16).Sin() }},
			{kernel.OpSin, func(t *torch.Tensor) *torch.Tensor { return t.Sin() }},
		} {
			before := dispatch.CountsOf(c.op, device.NPU)
			got, want := c.f(d), c.f(x)
			after := dispatch.CountsOf(c.op, device.NPU)
			fmt.Printf("%s same=%v native=%d host=%d\n", c.op, sameValues(got, want), after.Native-before.Native,
				after.HostFallback-before.HostFallback)
		}
	}
}

// sameValues reports whether got (on any device) has want's dtype, shape
// and values, within the conformance tolerance of the dtype.
func sameValues(got, want *torch.Tensor) bool {
	return valuesDiffer(got, want) == ""
}

func valuesDiffer(got, want *torch.Tensor) string {
	if got.Err() != nil || want.Err() != nil {
		return fmt.Sprintf("errors %v, want %v", got.Err(), want.Err())
	}
	if got.DType() != want.DType() || !equalShapes(got.Shape(), want.Shape()) {
		return fmt.Sprintf("%v%v, want %v%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, err1 := torch.ToSlice[float64](got.ToDType(torch.Float64))
	w, err2 := torch.ToSlice[float64](want.ToDType(torch.Float64))
	if err1 != nil || err2 != nil {
		return fmt.Sprint(err1, err2)
	}
	rtol, atol := conformance.Tolerance(got.DType())
	for i := range w {
		switch {
		case math.IsNaN(w[i]) || math.IsNaN(g[i]):
			if math.IsNaN(w[i]) != math.IsNaN(g[i]) {
				return fmt.Sprintf("[%d] %v, want %v", i, g[i], w[i])
			}
		case math.IsInf(w[i], 0) || math.IsInf(g[i], 0):
			if w[i] != g[i] {
				return fmt.Sprintf("[%d] %v, want %v", i, g[i], w[i])
			}
		case math.Abs(g[i]-w[i]) > atol+rtol*math.Abs(w[i]):
			return fmt.Sprintf("[%d] %v, want %v", i, g[i], w[i])
		}
	}
	return ""
}

type pwCase struct {
	name  string
	op    kernel.OpID
	in    []*torch.Tensor
	f     func(x ...*torch.Tensor) *torch.Tensor
	route dispatch.Route
}

func runPointwiseCases(t *testing.T, cases []pwCase) {
	t.Helper()
	for _, c := range cases {
		dev := make([]*torch.Tensor, len(c.in))
		for i, x := range c.in {
			d, err := x.To("npu")
			if err != nil {
				t.Fatal(err)
			}
			dev[i] = d
		}
		before := dispatch.CountsOf(c.op, device.NPU)
		got := c.f(dev...)
		want := c.f(c.in...)
		if d := valuesDiffer(got, want); d != "" {
			t.Errorf("%s on the NPU: %s", c.name, d)
		}
		after := dispatch.CountsOf(c.op, device.NPU)
		n := map[dispatch.Route]uint64{dispatch.Native: after.Native - before.Native,
			dispatch.Decomposed: after.Decomposed - before.Decomposed, dispatch.HostFallback: after.HostFallback - before.HostFallback}
		if n[c.route] == 0 || n[dispatch.Native]+n[dispatch.Decomposed]+n[dispatch.HostFallback] != n[c.route] {
			t.Errorf("%s on the NPU should run by %s only: %v", c.name, c.route, n)
		}
	}
}

func un(f func(*torch.Tensor) *torch.Tensor) func(x ...*torch.Tensor) *torch.Tensor {
	return func(x ...*torch.Tensor) *torch.Tensor { return f(x[0]) }
}

func bin(f func(a, b *torch.Tensor) *torch.Tensor) func(x ...*torch.Tensor) *torch.Tensor {
	return func(x ...*torch.Tensor) *torch.Tensor { return f(x[0], x[1]) }
}

// Every op of the file on the device, against the CPU, with NaN, ±Inf, -0
// and integer inputs where the op takes them.
func TestPointwiseOpsRunNatively(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	f := torch.FromSlice([]float32{-2.5, -0.75, -0.0, 0, 0.3, 0.5, 1.5, 7, nan, inf, -inf, 1e-3}, torch.WithShape(3, 4))
	unit := torch.FromSlice([]float32{-1, -0.999, -0.5, 0, 0.25, 0.999, 1, nan})
	pos := torch.FromSlice([]float32{1, 1.5, 3, 10, 0.5, 1e-4, inf, nan})
	i64 := torch.FromSlice([]int64{-7, -1, 0, 2, 9, math.MaxInt64})
	i8 := torch.FromSlice([]int8{-128, -3, 0, 5, 127})
	native := dispatch.Native
	var cases []pwCase
	for _, u := range []struct {
		name string
		op   kernel.OpID
		f    func(*torch.Tensor) *torch.Tensor
		x    *torch.Tensor
	}{
		{"sin", kernel.OpSin, (*torch.Tensor).Sin, f}, {"cos", kernel.OpCos, (*torch.Tensor).Cos, f},
		{"tan", kernel.OpTan, (*torch.Tensor).Tan, f}, {"asin", kernel.OpAsin, (*torch.Tensor).Asin, unit},
		{"acos", kernel.OpAcos, (*torch.Tensor).Acos, unit}, {"atan", kernel.OpAtan, (*torch.Tensor).Atan, f},
		{"asinh", kernel.OpAsinh, (*torch.Tensor).Asinh, f}, {"acosh", kernel.OpAcosh, (*torch.Tensor).Acosh, pos},
		{"atanh", kernel.OpAtanh, (*torch.Tensor).Atanh, unit}, {"sinh", kernel.OpSinh, (*torch.Tensor).Sinh, f},
		{"cosh", kernel.OpCosh, (*torch.Tensor).Cosh, f}, {"erf", kernel.OpErf, (*torch.Tensor).Erf, f},
		{"erfc", kernel.OpErfc, (*torch.Tensor).Erfc, f}, {"erfinv", kernel.OpErfinv, (*torch.Tensor).Erfinv, unit},
		{"exp2", kernel.OpExp2, (*torch.Tensor).Exp2, f}, {"expm1", kernel.OpExpm1, (*torch.Tensor).Expm1, f},
		{"log2", kernel.OpLog2, (*torch.Tensor).Log2, pos}, {"log10", kernel.OpLog10, (*torch.Tensor).Log10, pos},
		{"log1p", kernel.OpLog1p, (*torch.Tensor).Log1p, f}, {"rsqrt", kernel.OpRsqrt, (*torch.Tensor).Rsqrt, pos},
		{"reciprocal", kernel.OpReciprocal, (*torch.Tensor).Reciprocal, f}, {"sinc", kernel.OpSinc, (*torch.Tensor).Sinc, f},
		{"sign", kernel.OpSign, (*torch.Tensor).Sign, f}, {"floor", kernel.OpFloor, (*torch.Tensor).Floor, f},
		{"ceil", kernel.OpCeil, (*torch.Tensor).Ceil, f}, {"round", kernel.OpRound, (*torch.Tensor).Round, f},
		{"trunc", kernel.OpTrunc, (*torch.Tensor).Trunc, f}, {"frac", kernel.OpFrac, (*torch.Tensor).Frac, f},
		{"isinf", kernel.OpIsInf, (*torch.Tensor).IsInf, f}, {"isfinite", kernel.OpIsFinite, (*torch.Tensor).IsFinite, f},
		{"isposinf", kernel.OpIsPosInf, (*torch.Tensor).IsPosInf, f},
		{"isneginf", kernel.OpIsNegInf, (*torch.Tensor).IsNegInf, f},
		{"logical_not", kernel.OpLogicalNot, (*torch.Tensor).LogicalNot, f},
		{"silu", kernel.OpSilu, (*torch.Tensor).Silu, f}, {"log_sigmoid", kernel.OpLogSigmoid, (*torch.Tensor).LogSigmoid, f},
		{"hardswish", kernel.OpHardswish, (*torch.Tensor).Hardswish, f},
		{"hardsigmoid", kernel.OpHardsigmoid, (*torch.Tensor).Hardsigmoid, f},
		{"mish", kernel.OpMish, (*torch.Tensor).Mish, f}, {"selu", kernel.OpSelu, (*torch.Tensor).Selu, f},
		{"relu6", kernel.OpRelu6, (*torch.Tensor).Relu6, f},
		{"logit", kernel.OpLogit, (*torch.Tensor).Logit, unit},
		{"logit eps", kernel.OpLogit, func(t *torch.Tensor) *torch.Tensor { return t.LogitEps(0.01) }, unit},
		{"leaky_relu", kernel.OpLeakyRelu, func(t *torch.Tensor) *torch.Tensor { return t.LeakyRelu(0.1) }, f},
		{"elu", kernel.OpElu, func(t *torch.Tensor) *torch.Tensor { return t.Elu(1.5) }, f},
		{"celu", kernel.OpCelu, func(t *torch.Tensor) *torch.Tensor { return t.Celu(0.5) }, f},
		{"softplus", kernel.OpSoftplus, func(t *torch.Tensor) *torch.Tensor { return t.Softplus(2, 3) }, f},
		{"hardtanh", kernel.OpHardtanh, func(t *torch.Tensor) *torch.Tensor { return t.Hardtanh(-0.5, 2) }, f},
		{"nan_to_num", kernel.OpNanToNum, func(t *torch.Tensor) *torch.Tensor { return t.NanToNum(1.5, nil, nil) }, f},
		// integer inputs: computed in float32 by the op, or its own result
		{"sin int64", kernel.OpSin, (*torch.Tensor).Sin, i64}, {"exp2 int8", kernel.OpExp2, (*torch.Tensor).Exp2, i8},
		{"floor int8", kernel.OpFloor, (*torch.Tensor).Floor, i8}, {"ceil int64 (a copy)", kernel.OpCeil, (*torch.Tensor).Ceil, i64},
		{"round int8 (a copy)", kernel.OpRound, (*torch.Tensor).Round, i8},
		{"isinf int64 (zeros)", kernel.OpIsInf, (*torch.Tensor).IsInf, i64},
		{"isfinite int8", kernel.OpIsFinite, (*torch.Tensor).IsFinite, i8},
		{"signbit int64", kernel.OpSignbit, (*torch.Tensor).Signbit, i64},
		{"sign int64", kernel.OpSign, (*torch.Tensor).Sign, i64},
		{"bitwise_not int8", kernel.OpBitwiseNot, (*torch.Tensor).BitwiseNot, i8},
		{"hardtanh int64", kernel.OpHardtanh, func(t *torch.Tensor) *torch.Tensor { return t.Hardtanh(-2, 3) }, i64},
		{"nan_to_num int8", kernel.OpNanToNum, func(t *torch.Tensor) *torch.Tensor { return t.NanToNum(0, nil, nil) }, i8},
		// other floating dtypes
		{"sin float16", kernel.OpSin, (*torch.Tensor).Sin, f.ToDType(torch.Float16)},
		{"cos bfloat16", kernel.OpCos, (*torch.Tensor).Cos, f.ToDType(torch.BFloat16)},
		{"atan float64", kernel.OpAtan, (*torch.Tensor).Atan, f.ToDType(torch.Float64)},
		{"mish bfloat16", kernel.OpMish, (*torch.Tensor).Mish, f.ToDType(torch.BFloat16)},
	} {
		cases = append(cases, pwCase{u.name, u.op, []*torch.Tensor{u.x}, un(u.f), native})
	}
	g := torch.FromSlice([]float32{3, -2, 0.5, 4}, torch.WithShape(1, 4))
	ia := torch.FromSlice([]int32{5, -6, 12, 0x0f0f}, torch.WithShape(1, 4))
	ib := torch.FromSlice([]int16{3, 5, -4, 0x00ff})
	b := torch.FromSlice([]bool{true, false, true, false})
	for _, c := range []struct {
		name string
		op   kernel.OpID
		f    func(a, b *torch.Tensor) *torch.Tensor
		a, b *torch.Tensor
	}{
		{"remainder", kernel.OpRemainder, (*torch.Tensor).Remainder, f, g},
		{"fmod", kernel.OpFmod, (*torch.Tensor).Fmod, f, g},
		{"atan2", kernel.OpAtan2, (*torch.Tensor).Atan2, f, g},
		{"atan2 int32", kernel.OpAtan2, (*torch.Tensor).Atan2, ia, ib},
		{"logaddexp", kernel.OpLogaddexp, (*torch.Tensor).Logaddexp, f, g},
		{"bitwise_and", kernel.OpBitwiseAnd, (*torch.Tensor).BitwiseAnd, ia, ib},
		{"bitwise_or", kernel.OpBitwiseOr, (*torch.Tensor).BitwiseOr, ia, ib},
		{"bitwise_xor", kernel.OpBitwiseXor, (*torch.Tensor).BitwiseXor, ia, ib},
		{"bitwise_xor bool", kernel.OpBitwiseXor, (*torch.Tensor).BitwiseXor, b, b.LogicalNot()},
		{"logical_and", kernel.OpLogicalAnd, (*torch.Tensor).LogicalAnd, f, g},
		{"logical_or", kernel.OpLogicalOr, (*torch.Tensor).LogicalOr, ia, b},
		{"logical_xor", kernel.OpLogicalXor, (*torch.Tensor).LogicalXor, f, g},
	} {
		cases = append(cases, pwCase{c.name, c.op, []*torch.Tensor{c.a, c.b}, bin(c.f), native})
	}
	lo, hi := torch.FromSlice([]float32{-1, 0, 1, nan}), torch.FromSlice([]float32{1, 0.2, 0.5, 9}, torch.WithShape(1, 4))
	cases = append(cases,
		pwCase{"clamp tensor", kernel.OpClampTensor, []*torch.Tensor{f, lo, hi},
			func(x ...*torch.Tensor) *torch.Tensor { return x[0].ClampTensor(x[1], x[2]) }, native},
		pwCase{"lerp", kernel.OpLerp, []*torch.Tensor{f, g, lo.Abs()},
			func(x ...*torch.Tensor) *torch.Tensor { return torch.Lerp(x[0], x[1], x[2]) }, native},
		pwCase{"lerp scalar", kernel.OpLerp, []*torch.Tensor{f, g},
			func(x ...*torch.Tensor) *torch.Tensor { return torch.LerpScalar(x[0], x[1], 0.75) }, native})
	r := torch.FromSlice([]float32{1, -2, 3, 0.5, 8, -1, 2, 2, 0, 4, -3, 6}, torch.WithShape(2, 3, 2))
	for _, c := range []struct {
		name string
		op   kernel.OpID
		f    func(*torch.Tensor) *torch.Tensor
		x    *torch.Tensor
	}{
		{"all", kernel.OpAll, func(t *torch.Tensor) *torch.Tensor { return t.All() }, r},
		{"all dim 1", kernel.OpAll, func(t *torch.Tensor) *torch.Tensor { return t.All(1) }, r},
		{"any keepdim", kernel.OpAny, func(t *torch.Tensor) *torch.Tensor { return t.AnyKeepDim(0, 2) }, r.GtScalar(5)},
		{"all uint8", kernel.OpAll, func(t *torch.Tensor) *torch.Tensor { return t.All(0) }, r.ToDType(torch.Uint8)},
		{"logsumexp", kernel.OpLogSumExp, func(t *torch.Tensor) *torch.Tensor { return t.LogSumExp(1) }, r},
		{"logsumexp -inf", kernel.OpLogSumExp, func(t *torch.Tensor) *torch.Tensor { return t.LogSumExp(0) },
			torch.FromSlice([]float32{-inf, -inf, 1, inf}, torch.WithShape(2, 2))},
		{"logsumexp int64", kernel.OpLogSumExp, func(t *torch.Tensor) *torch.Tensor { return t.LogSumExp(0) }, i64.Narrow(0, 0, 5)},
		{"var", kernel.OpVar, func(t *torch.Tensor) *torch.Tensor { return t.Var(0, 2) }, r},
		{"var correction 0", kernel.OpVar, func(t *torch.Tensor) *torch.Tensor { return t.VarCorrection(0, true, 1) }, r},
		{"std", kernel.OpStd, func(t *torch.Tensor) *torch.Tensor { return t.Std() }, r},
		{"std correction 2", kernel.OpStd, func(t *torch.Tensor) *torch.Tensor { return t.StdCorrection(2, false, 1) }, r},
	} {
		cases = append(cases, pwCase{c.name, c.op, []*torch.Tensor{c.x}, un(c.f), native})
	}
	runPointwiseCases(t, cases)
	settle(t)
}

// Views and in-place calls run natively too: ACLNN takes strided tensors
// (offset, transposed) for inputs and outputs.
func TestPointwiseViewsAndInPlace(t *testing.T) {
	x := torch.Arange(24, torch.WithDType(torch.Float32)).View(4, 6).DivScalar(7)
	d, err := x.To("npu")
	if err != nil {
		t.Fatal(err)
	}
	view := func(x *torch.Tensor) *torch.Tensor { return x.Narrow(0, 1, 2).Transpose(0, 1).Narrow(0, 1, 3) }
	before := dispatch.CountsOf(kernel.OpSin, device.NPU)
	if s := valuesDiffer(view(d).Sin(), view(x).Sin()); s != "" {
		t.Errorf("sin of a view: %s", s)
	}
	x2, d2 := x.Clone(), d.Clone()
	view(x2).Sin_()
	view(d2).Sin_()
	if s := valuesDiffer(d2, x2); s != "" {
		t.Errorf("sin_ into a view: %s", s)
	}
	x3, d3 := x.Clone(), d.Clone()
	torch.Into(view(x3)).Atan2(view(x), view(x).AddScalar(1))
	torch.Into(view(d3)).Atan2(view(d), view(d).AddScalar(1))
	if s := valuesDiffer(d3, x3); s != "" {
		t.Errorf("atan2 into a view: %s", s)
	}
	after := dispatch.CountsOf(kernel.OpSin, device.NPU)
	if after.Native-before.Native != 2 || after.HostFallback != before.HostFallback {
		t.Errorf("sin of views should run on the device: %v, before %v", after, before)
	}
	settle(t)
}

// What ACLNN lacks or computes otherwise runs on the host, with PyTorch's
// values: signbit of floats (Atlas A2/A3 compute self < 0, false for -0.0),
// integer remainder and fmod (a zero divisor must raise), the Go-scalar
// forms of the binary ops, dtypes the tables refuse, var with a correction
// not below the count, celu with alpha 0, hardtanh with min > max.
func TestPointwiseDeclines(t *testing.T) {
	nan := float32(math.NaN())
	f := torch.FromSlice([]float32{-0.0, 0, -1, nan, 2})
	i := torch.FromSlice([]int32{7, -7, 9})
	j := torch.FromSlice([]int32{2, 3, -4})
	host := dispatch.HostFallback
	runPointwiseCases(t, []pwCase{
		{"signbit of -0.0", kernel.OpSignbit, []*torch.Tensor{f}, un((*torch.Tensor).Signbit), host},
		{"remainder int32", kernel.OpRemainder, []*torch.Tensor{i, j}, bin((*torch.Tensor).Remainder), host},
		{"fmod int32", kernel.OpFmod, []*torch.Tensor{i, j}, bin((*torch.Tensor).Fmod), host},
		{"remainder scalar", kernel.OpRemainder, []*torch.Tensor{f},
			un(func(t *torch.Tensor) *torch.Tensor { return t.RemainderScalar(1.5) }), host},
		{"trunc float64", kernel.OpTrunc, []*torch.Tensor{f.ToDType(torch.Float64)}, un((*torch.Tensor).Trunc), host},
		{"expm1 int32", kernel.OpExpm1, []*torch.Tensor{i}, un((*torch.Tensor).Expm1), host},
		{"logsumexp float64", kernel.OpLogSumExp, []*torch.Tensor{f.ToDType(torch.Float64)},
			un(func(t *torch.Tensor) *torch.Tensor { return t.LogSumExp(0) }), host},
		{"var correction 5 of 5", kernel.OpVar, []*torch.Tensor{f},
			un(func(t *torch.Tensor) *torch.Tensor { return t.VarCorrection(5, false) }), host},
		{"std correction 0.5", kernel.OpStd, []*torch.Tensor{f},
			un(func(t *torch.Tensor) *torch.Tensor { return t.StdCorrection(0.5, false) }), host},
		{"celu alpha 0", kernel.OpCelu, []*torch.Tensor{f}, un(func(t *torch.Tensor) *torch.Tensor { return t.Celu(0) }), host},
		{"hardtanh 2 > 1", kernel.OpHardtanh, []*torch.Tensor{f},
			un(func(t *torch.Tensor) *torch.Tensor { return t.Hardtanh(2, 1) }), host},
		{"elu alpha inf", kernel.OpElu, []*torch.Tensor{f},
			un(func(t *torch.Tensor) *torch.Tensor { return t.Elu(math.Inf(1)) }), host},
	})
	settle(t)
}

// On an Atlas training SoC the ops only Atlas A2/A3 have (nan_to_num,
// logit, isposinf) and bfloat16 run on the host; float32 sin stays native.
func TestPointwiseOnAtlasTraining(t *testing.T) {
	if !emulated() {
		t.Skip("needs the emulator's MTEMU_SOC")
	}
	out := runChild(t, "pointwise_a1", "MTEMU_SOC=Ascend910A")
	for _, w := range []string{"nan_to_num same=true native=0 host=1", "logit same=true native=0 host=1",
		"isposinf same=true native=0 host=1", "sin same=true native=0 host=1", "sin same=true native=1 host=0"} {
		if !strings.Contains(out, w) {
			t.Errorf("on Ascend910A the child did not say %q:\n%s", w, out)
		}
	}
}

// deg2rad and rad2deg have no ACLNN op: their decompositions (a cast and
// aclnnMuls) give the CPU's values bit for bit in every dtype.
func TestPointwiseDecompositionsExact(t *testing.T) {
	x := torch.Randn([]int{4096}, torch.WithDType(torch.Float64)).MulScalar(400)
	for _, dt := range []torch.DType{torch.Float32, torch.Float16, torch.BFloat16, torch.Float64, torch.Int32, torch.Int64,
		torch.Uint8, torch.Bool} {
		h := x.ToDType(dt)
		d, err := h.To("npu")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			op kernel.OpID
			f  func(*torch.Tensor) *torch.Tensor
		}{{kernel.OpDeg2rad, (*torch.Tensor).Deg2rad}, {kernel.OpRad2deg, (*torch.Tensor).Rad2deg}} {
			before := dispatch.CountsOf(c.op, device.NPU)
			got, want := c.f(d), c.f(h)
			after := dispatch.CountsOf(c.op, device.NPU)
			if after.Decomposed-before.Decomposed != 1 || after.HostFallback != before.HostFallback {
				t.Errorf("%s of %v on the NPU should be decomposed: %v, before %v", c.op, dt, after, before)
			}
			if got.DType() != want.DType() {
				t.Fatalf("%s of %v: %v, want %v", c.op, dt, got.DType(), want.DType())
			}
			g, _ := torch.ToSlice[float64](got.ToDType(torch.Float64))
			w, _ := torch.ToSlice[float64](want.ToDType(torch.Float64))
			for i := range w {
				if g[i] != w[i] {
					t.Errorf("%s of %v %v: %v, want %v", c.op, dt, i, g[i], w[i])
					break
				}
			}
		}
	}
	settle(t)
}

// gelu's backward has no fused kernel on the NPU: its decomposition runs
// there (erf, exp, tanh and products), natively, and gives the CPU's
// gradient to float32 rounding, in both modes.
func TestGeluBackwardDecomposed(t *testing.T) {
	x := torch.Linspace(-6, 6, 1001)
	for _, approximate := range []bool{false, true} {
		gelu := (*torch.Tensor).Gelu
		if approximate {
			gelu = (*torch.Tensor).GeluTanh
		}
		h := x.Detach().RequiresGrad_(true)
		if err := gelu(h).Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		d, err := x.To("npu")
		if err != nil {
			t.Fatal(err)
		}
		d.RequiresGrad_(true)
		before := dispatch.CountsOf(kernel.OpGeluBackward, device.NPU)
		if err := gelu(d).Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		after := dispatch.CountsOf(kernel.OpGeluBackward, device.NPU)
		if after.Decomposed-before.Decomposed != 1 || after.HostFallback != before.HostFallback {
			t.Errorf("gelu backward (tanh %v) on the NPU should be decomposed: %v, before %v", approximate, after, before)
		}
		got, err := torch.ToSlice[float32](d.Grad())
		if err != nil {
			t.Fatal(err)
		}
		want, _ := torch.ToSlice[float32](h.Grad())
		for i := range want {
			if diff := math.Abs(float64(got[i] - want[i])); diff > 2e-6 {
				t.Errorf("gelu backward (tanh %v) at %v: %v, want %v", approximate, i, got[i], want[i])
				break
			}
		}
	}
	settle(t)
}

// fmax, fmin, xlogy and copysign have no ACLNN op: their decompositions (maximum or
// minimum with NaN operands replaced; where, log and mul; where, abs and
// signbit) give the CPU's
// values on NaN, ±0, ±Inf and in every dtype, with a tensor or a Go
// scalar as the second operand.
func TestBinaryDecompositions(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	a := torch.FromSlice([]float64{nan, 1, nan, 0, 0, 0, -2, inf, -inf, 3, 0.5, 2})
	b := torch.FromSlice([]float64{1, nan, nan, 0, nan, inf, -inf, 2, 1, math.Copysign(0, -1), 0.25, -1})
	type binop struct {
		op     kernel.OpID
		tensor func(x, y *torch.Tensor) *torch.Tensor
		scalar func(x *torch.Tensor, v any) *torch.Tensor
	}
	for _, c := range []binop{
		{kernel.OpFmax, (*torch.Tensor).Fmax, (*torch.Tensor).FmaxScalar},
		{kernel.OpFmin, (*torch.Tensor).Fmin, (*torch.Tensor).FminScalar},
		{kernel.OpXlogy, (*torch.Tensor).Xlogy, (*torch.Tensor).XlogyScalar},
		{kernel.OpCopysign, (*torch.Tensor).Copysign, (*torch.Tensor).CopysignScalar},
	} {
		for _, dt := range []torch.DType{torch.Float32, torch.Float16, torch.BFloat16, torch.Float64, torch.Int32} {
			ha, hb := a.ToDType(dt), b.ToDType(dt)
			if dt == torch.Int32 {
				hi, lo := 100.0, -100.0
				ha, hb = a.NanToNum(0, &hi, &lo).ToDType(dt), b.NanToNum(0, &hi, &lo).ToDType(dt)
			}
			da, _ := ha.To("npu")
			db, _ := hb.To("npu")
			before := dispatch.CountsOf(c.op, device.NPU)
			for _, pair := range [][2]*torch.Tensor{
				{c.tensor(da, db), c.tensor(ha, hb)},
				{c.tensor(da, db.Narrow(0, 0, 1)), c.tensor(ha, hb.Narrow(0, 0, 1))}, // broadcast
				{c.scalar(da, 0.5), c.scalar(ha, 0.5)},
				{c.scalar(da, nan), c.scalar(ha, nan)},
			} {
				got, want := pair[0], pair[1]
				if got.DType() != want.DType() {
					t.Fatalf("%s of %v: %v, want %v", c.op, dt, got.DType(), want.DType())
				}
				g, err := torch.ToSlice[float64](got.ToDType(torch.Float64))
				if err != nil {
					t.Fatalf("%s of %v: %v", c.op, dt, err)
				}
				w, _ := torch.ToSlice[float64](want.ToDType(torch.Float64))
				for i := range w {
					if math.Float64bits(g[i]) != math.Float64bits(w[i]) && !(g[i] != g[i] && w[i] != w[i]) {
						t.Errorf("%s of %v [%d]: %v, want %v", c.op, dt, i, g[i], w[i])
						break
					}
				}
			}
			after := dispatch.CountsOf(c.op, device.NPU)
			if after.Decomposed-before.Decomposed != 4 || after.HostFallback != before.HostFallback {
				t.Errorf("%s of %v on the NPU should be decomposed: %v, before %v", c.op, dt, after, before)
			}
		}
	}
	settle(t)
}
