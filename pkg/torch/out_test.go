package torch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

func values(t *testing.T, x *torch.Tensor) []float64 {
	t.Helper()
	v, err := torch.ToSlice[float64](x)
	if err != nil {
		t.Fatalf("ToSlice: %v", err)
	}
	return v
}

// outLayouts are ways to give an output of shape [2, 3] and dtype d: a
// contiguous tensor, a transposed view, a slice with a step of a larger
// tensor, and an empty tensor that the op resizes.
var outLayouts = []struct {
	name string
	make func(d torch.DType) *torch.Tensor
}{
	{"contiguous", func(d torch.DType) *torch.Tensor { return torch.Full([]int{2, 3}, 7, torch.WithDType(d)) }},
	{"transposed", func(d torch.DType) *torch.Tensor { return torch.Full([]int{3, 2}, 7, torch.WithDType(d)).T() }},
	{"stepped", func(d torch.DType) *torch.Tensor {
		return torch.Full([]int{2, 7}, 7, torch.WithDType(d)).Slice(1, 0, 6, 2)
	}},
	{"empty", func(d torch.DType) *torch.Tensor { return torch.Empty([]int{0}, torch.WithDType(d)) }},
}

// TestIntoMatchesTheOp checks every out= form against the op that
// allocates its result, on each output layout, with a broadcast input.
func TestIntoMatchesTheOp(t *testing.T) {
	type binaryCase struct {
		name string
		out  func(torch.Out, *torch.Tensor, *torch.Tensor) *torch.Tensor
		op   func(*torch.Tensor, *torch.Tensor) *torch.Tensor
		d    torch.DType
	}
	f32, i32 := torch.Float32, torch.Int32
	binaries := []binaryCase{
		{"Add", torch.Out.Add, (*torch.Tensor).Add, f32}, {"Sub", torch.Out.Sub, (*torch.Tensor).Sub, f32},
		{"Mul", torch.Out.Mul, (*torch.Tensor).Mul, f32}, {"Div", torch.Out.Div, (*torch.Tensor).Div, f32},
		{"DivTrunc", torch.Out.DivTrunc, (*torch.Tensor).DivTrunc, i32},
		{"DivFloor", torch.Out.DivFloor, (*torch.Tensor).DivFloor, i32},
		{"FloorDivide", torch.Out.FloorDivide, (*torch.Tensor).FloorDivide, f32},
		{"Remainder", torch.Out.Remainder, (*torch.Tensor).Remainder, i32},
		{"Fmod", torch.Out.Fmod, (*torch.Tensor).Fmod, f32}, {"Pow", torch.Out.Pow, (*torch.Tensor).Pow, f32},
		{"Maximum", torch.Out.Maximum, (*torch.Tensor).Maximum, f32},
		{"Minimum", torch.Out.Minimum, (*torch.Tensor).Minimum, i32},
		{"Atan2", torch.Out.Atan2, (*torch.Tensor).Atan2, f32},
		{"BitwiseAnd", torch.Out.BitwiseAnd, (*torch.Tensor).BitwiseAnd, i32},
		{"BitwiseOr", torch.Out.BitwiseOr, (*torch.Tensor).BitwiseOr, i32},
		{"BitwiseXor", torch.Out.BitwiseXor, (*torch.Tensor).BitwiseXor, i32},
		{"LogicalAnd", torch.Out.LogicalAnd, (*torch.Tensor).LogicalAnd, f32},
		{"LogicalOr", torch.Out.LogicalOr, (*torch.Tensor).LogicalOr, f32},
		{"LogicalXor", torch.Out.LogicalXor, (*torch.Tensor).LogicalXor, f32},
		{"Eq", torch.Out.Eq, (*torch.Tensor).Eq, i32}, {"Ne", torch.Out.Ne, (*torch.Tensor).Ne, i32},
		{"Lt", torch.Out.Lt, (*torch.Tensor).Lt, f32}, {"Le", torch.Out.Le, (*torch.Tensor).Le, f32},
		{"Gt", torch.Out.Gt, (*torch.Tensor).Gt, f32}, {"Ge", torch.Out.Ge, (*torch.Tensor).Ge, f32},
		{"Mm", torch.Out.Mm, (*torch.Tensor).Mm, f32},
	}
	type unaryCase struct {
		name string
		out  func(torch.Out, *torch.Tensor) *torch.Tensor
		op   func(*torch.Tensor) *torch.Tensor
		d    torch.DType
	}
	unaries := []unaryCase{
		{"Gelu", torch.Out.Gelu, (*torch.Tensor).Gelu, f32}, {"GeluTanh", torch.Out.GeluTanh, (*torch.Tensor).GeluTanh, f32},
		{"Neg", torch.Out.Neg, (*torch.Tensor).Neg, i32}, {"Abs", torch.Out.Abs, (*torch.Tensor).Abs, f32},
		{"Sign", torch.Out.Sign, (*torch.Tensor).Sign, f32}, {"Exp", torch.Out.Exp, (*torch.Tensor).Exp, f32},
		{"Exp2", torch.Out.Exp2, (*torch.Tensor).Exp2, f32}, {"Expm1", torch.Out.Expm1, (*torch.Tensor).Expm1, f32},
		{"Log", torch.Out.Log, (*torch.Tensor).Log, f32}, {"Log2", torch.Out.Log2, (*torch.Tensor).Log2, f32},
		{"Log10", torch.Out.Log10, (*torch.Tensor).Log10, f32}, {"Log1p", torch.Out.Log1p, (*torch.Tensor).Log1p, f32},
		{"Sqrt", torch.Out.Sqrt, (*torch.Tensor).Sqrt, f32}, {"Rsqrt", torch.Out.Rsqrt, (*torch.Tensor).Rsqrt, f32},
		{"Square", torch.Out.Square, (*torch.Tensor).Square, i32},
		{"Reciprocal", torch.Out.Reciprocal, (*torch.Tensor).Reciprocal, f32},
		{"Sin", torch.Out.Sin, (*torch.Tensor).Sin, f32}, {"Cos", torch.Out.Cos, (*torch.Tensor).Cos, f32},
		{"Tan", torch.Out.Tan, (*torch.Tensor).Tan, f32}, {"Asin", torch.Out.Asin, (*torch.Tensor).Asin, f32},
		{"Acos", torch.Out.Acos, (*torch.Tensor).Acos, f32}, {"Atan", torch.Out.Atan, (*torch.Tensor).Atan, f32},
		{"Sinh", torch.Out.Sinh, (*torch.Tensor).Sinh, f32}, {"Cosh", torch.Out.Cosh, (*torch.Tensor).Cosh, f32},
		{"Tanh", torch.Out.Tanh, (*torch.Tensor).Tanh, f32}, {"Sigmoid", torch.Out.Sigmoid, (*torch.Tensor).Sigmoid, f32},
		{"Relu", torch.Out.Relu, (*torch.Tensor).Relu, f32}, {"Relu6", torch.Out.Relu6, (*torch.Tensor).Relu6, f32},
		{"Silu", torch.Out.Silu, (*torch.Tensor).Silu, f32}, {"Erf", torch.Out.Erf, (*torch.Tensor).Erf, f32},
		{"Floor", torch.Out.Floor, (*torch.Tensor).Floor, f32}, {"Ceil", torch.Out.Ceil, (*torch.Tensor).Ceil, f32},
		{"Round", torch.Out.Round, (*torch.Tensor).Round, f32}, {"Trunc", torch.Out.Trunc, (*torch.Tensor).Trunc, f32},
		{"Frac", torch.Out.Frac, (*torch.Tensor).Frac, f32}, {"IsNan", torch.Out.IsNan, (*torch.Tensor).IsNan, f32},
		{"IsInf", torch.Out.IsInf, (*torch.Tensor).IsInf, f32},
		{"IsFinite", torch.Out.IsFinite, (*torch.Tensor).IsFinite, f32},
		{"BitwiseNot", torch.Out.BitwiseNot, (*torch.Tensor).BitwiseNot, i32},
		{"LogicalNot", torch.Out.LogicalNot, (*torch.Tensor).LogicalNot, f32},
		{"Clamp", func(o torch.Out, x *torch.Tensor) *torch.Tensor { return o.Clamp(x, 0.2, 0.6) },
			func(x *torch.Tensor) *torch.Tensor { return x.Clamp(0.2, 0.6) }, f32},
		{"NanToNum", func(o torch.Out, x *torch.Tensor) *torch.Tensor { return o.NanToNum(x.Log(), 1, nil, nil) },
			func(x *torch.Tensor) *torch.Tensor { return x.Log().NanToNum(1, nil, nil) }, f32},
		{"Tril", func(o torch.Out, x *torch.Tensor) *torch.Tensor { return o.Tril(x, 0) },
			func(x *torch.Tensor) *torch.Tensor { return x.Tril(0) }, f32},
		{"Triu", func(o torch.Out, x *torch.Tensor) *torch.Tensor { return o.Triu(x, 1) },
			func(x *torch.Tensor) *torch.Tensor { return x.Triu(1) }, i32},
	}
	// Inputs of shape [2, 3] (and [3], broadcast) with values where every op
	// is defined; a and b are non-contiguous (transposed).
	input := func(d torch.DType, vals ...float64) *torch.Tensor {
		x := torch.FromSlice(vals, torch.WithShape(len(vals)/2, 2)).ToDType(d)
		if len(vals) == 6 {
			return x.T()
		}
		return torch.FromSlice(vals).ToDType(d)
	}
	ab := func(d torch.DType) (*torch.Tensor, *torch.Tensor) {
		if d == i32 {
			return input(d, 7, -7, 5, 3, 0, -2), input(d, 2, -3, 4)
		}
		return input(d, 0.5, -0.25, 0.75, 0.125, 0.9, -0.6), input(d, 0.3, -0.7, 0.5)
	}
	equate := cmpopts.EquateNaNs()
	for _, c := range binaries {
		for _, l := range outLayouts {
			t.Run(c.name+"/"+l.name, func(t *testing.T) {
				a, b := ab(c.d)
				if c.name == "Mm" {
					b = torch.FromSlice([]float32{1, -2, 0.5, 3, 0, 1, -1, 2, 4}, torch.WithShape(3, 3))
					a = a.T().T() // [2, 3] non-contiguous
				}
				want := c.op(a, b)
				out := l.make(want.DType())
				got := c.out(torch.Into(out), a, b)
				if got != out {
					t.Fatalf("Into(out).%s returned %v (err %v), not out", c.name, got, got.Err())
				}
				if diff := cmp.Diff(values(t, want), values(t, out), equate); diff != "" {
					t.Errorf("Into(out).%s differs from %s (-op +out):\n%s", c.name, c.name, diff)
				}
				if !cmp.Equal(out.Shape(), want.Shape()) {
					t.Errorf("out has shape %v, want %v", out.Shape(), want.Shape())
				}
			})
		}
	}
	for _, c := range unaries {
		for _, l := range outLayouts {
			t.Run(c.name+"/"+l.name, func(t *testing.T) {
				x, _ := ab(c.d)
				want := c.op(x)
				out := l.make(want.DType())
				if got := c.out(torch.Into(out), x); got != out {
					t.Fatalf("Into(out).%s returned %v (err %v), not out", c.name, got, got.Err())
				}
				if diff := cmp.Diff(values(t, want), values(t, out), equate); diff != "" {
					t.Errorf("Into(out).%s differs from %s (-op +out):\n%s", c.name, c.name, diff)
				}
			})
		}
	}
}

// TestIntoRules checks the out= rules against what PyTorch 1.13 does
// (torch.add(..., out=...) and kin, run by hand).
func TestIntoRules(t *testing.T) {
	x := torch.Arange(6, torch.WithDType(torch.Float32)).View(2, 3)
	y := torch.Ones([]int{3})
	ints := func(v ...int32) *torch.Tensor { return torch.FromSlice(v) }
	cases := []struct {
		name    string
		run     func() (got, out *torch.Tensor)
		want    []float64 // the values of out
		wantErr error     // a kind for errors.Is
		message string    // a part of the error's text
	}{
		{name: "float out of an int32 sum", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2})
			return torch.Into(out).Add(ints(1, 1), ints(1, 2)), out
		}, want: []float64{2, 3}},
		{name: "uint8 out wraps as a cast", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{1}, torch.WithDType(torch.Uint8))
			return torch.Into(out).Add(torch.FromSlice([]int64{300}), torch.FromSlice([]int64{1})), out
		}, want: []float64{45}},
		{name: "float64 out of a float32 sum", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 3}, torch.WithDType(torch.Float64))
			return torch.Into(out).Add(x, y), out
		}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "float out of a comparison", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 3})
			return torch.Into(out).Eq(x, y), out
		}, want: []float64{0, 1, 0, 0, 0, 0}},
		{name: "int out of a float result", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 3}, torch.WithDType(torch.Int64))
			return torch.Into(out).Add(x, y), out
		}, wantErr: torch.ErrDType, message: "result type Float can't be cast to the desired output type Long"},
		{name: "int out of true division", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2}, torch.WithDType(torch.Int32))
			return torch.Into(out).Div(ints(7, -7), ints(2, 2)), out
		}, wantErr: torch.ErrDType, message: "can't be cast"},
		{name: "int out of floor division", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2}, torch.WithDType(torch.Int32))
			return torch.Into(out).DivFloor(ints(7, -7), ints(2, 2)), out
		}, want: []float64{3, -4}},
		{name: "int out of exp", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2}, torch.WithDType(torch.Int32))
			return torch.Into(out).Exp(ints(1, 2)), out
		}, wantErr: torch.ErrDType, message: "can't be cast"},
		{name: "an empty out of another dtype is resized and cast", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{0, 4}, torch.WithDType(torch.Float64))
			return torch.Into(out).Add(x, y), out
		}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "an empty int out of a float result", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{0}, torch.WithDType(torch.Int64))
			return torch.Into(out).Add(x, y), out
		}, wantErr: torch.ErrDType, message: "can't be cast"},
		{name: "a non-empty out of another shape", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{6})
			return torch.Into(out).Add(x, y), out
		}, wantErr: torch.ErrShape, message: "[6]"},
		{name: "0-dim", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Scalar(float32(0))
			return torch.Into(out).Mul(torch.Scalar(float32(3)), torch.Scalar(float32(4))), out
		}, want: []float64{12}},
		{name: "out is an input", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Arange(5, torch.WithDType(torch.Float32))
			return torch.Into(out).Add(out, torch.Ones([]int{5})), out
		}, want: []float64{1, 2, 3, 4, 5}},
		{name: "out shares part of an input", run: func() (*torch.Tensor, *torch.Tensor) {
			z := torch.Arange(5, torch.WithDType(torch.Float32))
			return torch.Into(z.Slice(0, 1, 5, 1)).Exp(z.Slice(0, 0, 4, 1)), z
		}, wantErr: torch.ErrArgument, message: "some elements of the input tensor and the written-to tensor refer to a single memory location"},
		{name: "expanded out", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Zeros([]int{2}).Expand(3, 2)
			return torch.Into(out).Add(torch.Ones([]int{3, 2}), torch.Ones([]int{3, 2})), out
		}, wantErr: torch.ErrArgument, message: "more than one element of the written-to tensor"},
		{name: "an input requires grad", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{3})
			return torch.Into(out).Add(torch.Ones([]int{3}).RequiresGrad_(true), torch.Ones([]int{3})), out
		}, wantErr: torch.ErrArgument, message: "add(): functions with out=... arguments don't support automatic differentiation"},
		{name: "out requires grad", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{3}).RequiresGrad_(true)
			return torch.Into(out).Relu(torch.Ones([]int{3})), out
		}, wantErr: torch.ErrArgument, message: "relu(): functions with out=..."},
		{name: "an input requires grad, under NoGrad", run: func() (got, out *torch.Tensor) {
			out = torch.Empty([]int{3})
			torch.NoGrad(func() { got = torch.Into(out).Add(torch.Ones([]int{3}).RequiresGrad_(true), torch.Ones([]int{3})) })
			return got, out
		}, want: []float64{2, 2, 2}},
		{name: "out on another device", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 3}, torch.WithDevice("meta"))
			return torch.Into(out).Add(x, y), out
		}, wantErr: torch.ErrDevice, message: "same device"},
		{name: "0-dim CPU inputs go with any device", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2}, torch.WithDevice("meta"))
			return torch.Into(out).Mul(torch.Empty([]int{2}, torch.WithDevice("meta")), torch.Scalar(float32(2))), out
		}},
		{name: "an input with an error", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2})
			return torch.Into(out).Add(x.View(7), y), out
		}, wantErr: torch.ErrShape},
		{name: "out with an error", run: func() (*torch.Tensor, *torch.Tensor) {
			out := x.View(7)
			return torch.Into(out).Add(x, y), out
		}, wantErr: torch.ErrShape},
		{name: "mm into another dtype", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 2}, torch.WithDType(torch.Float64))
			return torch.Into(out).Mm(x, x.T()), out
		}, wantErr: torch.ErrDType, message: "Expected out tensor to have dtype float, but got double instead"},
		{name: "bmm", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{1, 2, 2})
			return torch.Into(out).Bmm(x.Unsqueeze(0), x.T().Unsqueeze(0)), out
		}, want: []float64{5, 14, 14, 50}},
		{name: "addmm", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 2}).T()
			return torch.Into(out).Addmm(torch.Ones([]int{2}), x, x.T(), 1, 2), out
		}, want: []float64{11, 29, 29, 101}},
		{name: "where", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 3})
			return torch.Into(out).Where(x.GtScalar(2), x, y), out
		}, want: []float64{1, 1, 1, 3, 4, 5}},
		{name: "lerp", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 3})
			return torch.Into(out).Lerp(x, y, torch.Full([]int{1}, 0.5)), out
		}, want: []float64{0.5, 1, 1.5, 2, 2.5, 3}},
		{name: "clamp without bounds", run: func() (*torch.Tensor, *torch.Tensor) {
			out := torch.Empty([]int{2, 3})
			return torch.Into(out).Clamp(x, nil, nil), out
		}, wantErr: torch.ErrArgument, message: "At least one of 'min' or 'max'"},
		{name: "nil out", run: func() (*torch.Tensor, *torch.Tensor) {
			return torch.Into(nil).Add(x, y), nil
		}, wantErr: torch.ErrArgument, message: "nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, out := c.run()
			err := got.Err()
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), c.message) {
					t.Fatalf("err = %v, want %v containing %q", err, c.wantErr, c.message)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got != out {
				t.Fatalf("the result is not out")
			}
			if c.want != nil {
				if diff := cmp.Diff(c.want, values(t, out)); diff != "" {
					t.Errorf("out (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestIntoWritesInPlace checks that out keeps its storage, its version
// counts the write, and a loop of out= ops allocates no tensor memory.
func TestIntoWritesInPlace(t *testing.T) {
	x, y := torch.Randn([]int{256, 256}), torch.Randn([]int{256})
	out := torch.Empty([]int{256, 256})
	storage, version := out.UntypedStorage(), out.Version()
	torch.Into(out).Add(x, y)
	if out.UntypedStorage() != storage || out.Version() != version+1 {
		t.Errorf("out's storage or version changed: version %d, was %d", out.Version(), version)
	}
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(20, func() { torch.Into(out).Add(x, y) }); n != 0 {
		t.Errorf("Into(out).Add allocates %v times per call", n)
	}
}

// TestIntoOnMeta checks the rules on the meta device: shapes and dtypes
// without data.
func TestIntoOnMeta(t *testing.T) {
	meta := torch.WithDevice("meta")
	a, b := torch.Empty([]int{4, 1}, meta), torch.Empty([]int{3}, meta)
	if err := torch.Into(torch.Empty([]int{4, 3}, meta)).Add(a, b).Err(); err != nil {
		t.Errorf("a meta out of the broadcast shape: %v", err)
	}
	if err := torch.Into(torch.Empty([]int{4, 4}, meta)).Add(a, b).Err(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("a meta out of the wrong shape: err = %v, want ErrShape", err)
	}
	out := torch.Empty([]int{0}, meta, torch.WithDType(torch.Float64))
	torch.Into(out).Add(a, b)
	if !cmp.Equal(out.Shape(), []int{4, 3}) || out.DType() != torch.Float64 || !out.IsMeta() {
		t.Errorf("an empty meta out became %v %v on %v", out.Shape(), out.DType(), out.Device())
	}
	z := torch.Empty([]int{5}, meta)
	if err := torch.Into(z.Slice(0, 1, 5, 1)).Neg(z.Slice(0, 0, 4, 1)).Err(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("a meta out that shares part of its input: err = %v, want ErrArgument", err)
	}
}
