package torch_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	goldenfile "github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// semanticsGolden is testdata/semantics.json, written by
// scripts/golden/semantics.py with real PyTorch: the messages of argument
// checks, gradients at zeros and kinks, grad_fn names, the layout of the
// *_like ops and masked_fill with a mask that broadcasts beyond self. The
// Go twins below are keyed by the cases' names.
type semanticsGolden struct {
	Torch    string `json:"torch"`
	Messages []struct {
		Name, Expr, Message string
	} `json:"messages"`
	Accepted []struct {
		Name, Expr string
		Out        goldenfile.Tensor
	} `json:"accepted"`
	Grads []struct {
		Name   string
		Inputs []goldenfile.Tensor
		Loss   float64
		Grads  []goldenfile.Tensor
	} `json:"grads"`
	GradFns []struct {
		Name, Expr string
		GradFn     string `json:"grad_fn"`
	} `json:"grad_fns"`
	Like []struct {
		Input, Op string
		Strides   []int
		Out       *goldenfile.Tensor
	} `json:"like"`
	MaskedFill []struct {
		Name, Expr, Message string
		Out, Grad           *goldenfile.Tensor
	} `json:"masked_fill"`
}

func loadSemantics(t *testing.T) *semanticsGolden {
	t.Helper()
	var g semanticsGolden
	if err := goldenfile.Load("semantics.json", &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// devices are those the argument checks, names and layouts are replayed
// on: the checks live in the meta functions, which every device runs.
var devices = []string{"cpu", "meta"}

// on makes a tensor of data on dev (with opts: a dtype, a shape).
func on[T int64 | float64 | float32 | bool](dev string, data []T, opts ...torch.Option) *torch.Tensor {
	return torch.FromSlice(data, append([]torch.Option{torch.WithDevice(dev)}, opts...)...)
}

// int64s, floats and bools make 1-D tensors of their values on dev;
// ofDType makes one of dtype dt from integers.
func int64s(dev string, v ...int64) *torch.Tensor { return on(dev, v) }

func floats(dev string, v ...float32) *torch.Tensor { return on(dev, v) }

func bools(dev string, v ...bool) *torch.Tensor { return on(dev, v) }

func ofDType(dt torch.DType, dev string, v ...int64) *torch.Tensor {
	return on(dev, v, torch.WithDType(dt))
}

// messageCases are the Go twins of semantics.py's MESSAGES.
var messageCases = map[string]func(dev string) *torch.Tensor{
	"add_float_alpha_int": func(d string) *torch.Tensor { return int64s(d, 1, 2).AddAlpha(int64s(d, 3, 4), 1.5) },
	"add_float_alpha_int_scalar": func(d string) *torch.Tensor { // the Python int 3 wraps into a 0-dim tensor
		return int64s(d, 1, 2).AddAlpha(int64s(d, 3).Reshape(), 0.5)
	},
	"add_float_alpha_bool": func(d string) *torch.Tensor { return bools(d, true).AddAlpha(bools(d, false), 1.5) },
	"add_bool_alpha_int":   func(d string) *torch.Tensor { return int64s(d, 1, 2).AddAlpha(int64s(d, 3, 4), true) },
	"add_bool_alpha_float": func(d string) *torch.Tensor { // past the small-tensor path: see TestSemanticsSmallPathBoolAlpha
		return torch.Ones([]int{20}, torch.WithDevice(d)).AddAlpha(torch.Ones([]int{20}, torch.WithDevice(d)), true)
	},
	"add__float_alpha_int":   func(d string) *torch.Tensor { return int64s(d, 1, 2).AddAlpha_(int64s(d, 3, 4), 2.0) },
	"sub_float_alpha_int":    func(d string) *torch.Tensor { return int64s(d, 1, 2).SubAlpha(int64s(d, 3, 4), 1.5) },
	"sub_bool_bool":          func(d string) *torch.Tensor { return bools(d, true, false).Sub(bools(d, true, true)) },
	"sub_bool_scalar_bool":   func(d string) *torch.Tensor { return bools(d, true, false).SubScalar(true) },
	"sub_int_bool":           func(d string) *torch.Tensor { return int64s(d, 1, 2).Sub(bools(d, true, false)) },
	"sub_bool_int_scalar":    func(d string) *torch.Tensor { return bools(d, true, false).SubScalar(1) },
	"sub_float_bool":         func(d string) *torch.Tensor { return floats(d, 1, 2).Sub(bools(d, true, false)) },
	"sub_bool_alpha":         func(d string) *torch.Tensor { return bools(d, true).SubAlpha(bools(d, true), 2) },
	"clamp_int8_both":        func(d string) *torch.Tensor { return ofDType(torch.Int8, d, 1, 2).Clamp(-1000, 1000) },
	"clamp_int8_min":         func(d string) *torch.Tensor { return ofDType(torch.Int8, d, 1, 2).Clamp(-1000, nil) },
	"clamp_int8_max":         func(d string) *torch.Tensor { return ofDType(torch.Int8, d, 1, 2).Clamp(nil, 1000) },
	"clamp__int8":            func(d string) *torch.Tensor { return ofDType(torch.Int8, d, 1, 2).Clamp_(0, 128) },
	"clamp_int32":            func(d string) *torch.Tensor { return ofDType(torch.Int32, d, 1, 2).Clamp(-1<<40, 5) },
	"clamp_uint8":            func(d string) *torch.Tensor { return ofDType(torch.Uint8, d, 1, 2).Clamp(0, 256) },
	"clamp_float32":          func(d string) *torch.Tensor { return floats(d, 1, 2).Clamp(-1e300, nil) },
	"clamp_bool_bounds_bool": func(d string) *torch.Tensor { return bools(d, true, false).Clamp(true, true) },
	"pow_int_neg":            func(d string) *torch.Tensor { return int64s(d, 1, 2).PowScalar(-1) },
	"pow_int8_neg":           func(d string) *torch.Tensor { return ofDType(torch.Int8, d, 1, 2).PowScalar(-2) },
	"pow_bool_neg":           func(d string) *torch.Tensor { return bools(d, true, false).PowScalar(-1) },
	"pow_int_0dim_neg":       func(d string) *torch.Tensor { return int64s(d, 2).Reshape().PowScalar(-1) },
	"pow__int_neg":           func(d string) *torch.Tensor { return int64s(d, 1, 2).PowScalar_(-3) },
	"lerp_end_double":        func(d string) *torch.Tensor { return torch.LerpScalar(floats(d, 1, 2), on(d, []float64{3, 4}), 0.5) },
	"lerp_start_double":      func(d string) *torch.Tensor { return torch.LerpScalar(on(d, []float64{1, 2}), floats(d, 3, 4), 0.5) },
	"lerp_end_long":          func(d string) *torch.Tensor { return torch.LerpScalar(floats(d, 1, 2), int64s(d, 3, 4), 0.5) },
	"lerp_end_half": func(d string) *torch.Tensor {
		return torch.LerpScalar(floats(d, 1, 2), on(d, []float32{3, 4}, torch.WithDType(torch.Float16)), 0.5)
	},
	"lerp_weight_double": func(d string) *torch.Tensor {
		return torch.Lerp(floats(d, 1, 2), floats(d, 3, 4), on(d, []float64{0.5, 0.5}))
	},
	"lerp_weight_0dim_double": func(d string) *torch.Tensor {
		return torch.Lerp(floats(d, 1, 2), floats(d, 3, 4), on(d, []float64{0.5}).Reshape())
	},
	"lerp__end_double":        func(d string) *torch.Tensor { return floats(d, 1, 2).LerpScalar_(on(d, []float64{3, 4}), 0.5) },
	"lerp_long":               func(d string) *torch.Tensor { return torch.LerpScalar(int64s(d, 1, 2), int64s(d, 3, 4), 0.5) },
	"lerp_long_tensor_weight": func(d string) *torch.Tensor { return torch.Lerp(int64s(d, 1, 2), int64s(d, 3, 4), int64s(d, 1, 1)) },
	"argmax_bool":             func(d string) *torch.Tensor { return bools(d, true, false).Argmax() },
	"argmin_bool":             func(d string) *torch.Tensor { return bools(d, true, false).Argmin() },
	"argmax_bool_dim":         func(d string) *torch.Tensor { return bools(d, true, false).Reshape(1, 2).ArgmaxDim(1, false) },
	"argmax_bool_empty":       func(d string) *torch.Tensor { return on(d, []bool{}).Argmax() },
	"amax_empty":              func(d string) *torch.Tensor { return emptyOn(d, 0).Amax() },
	"amin_empty_2d":           func(d string) *torch.Tensor { return emptyOn(d, 3, 0).Amin() },
	"amax_empty_dims":         func(d string) *torch.Tensor { return emptyOn(d, 0, 3).Amax(0, 1) },
	"max_empty":               func(d string) *torch.Tensor { return emptyOn(d, 0).Max() },
	"max_dim_empty":           func(d string) *torch.Tensor { return first(emptyOn(d, 0, 3).MaxDim(0, false)) },
	"min_dim_empty":           func(d string) *torch.Tensor { return first(emptyOn(d, 2, 0).MinDim(1, false)) },
	"argmin_empty":            func(d string) *torch.Tensor { return emptyOn(d, 0, 3).Argmin() },
	"argmax_dim_empty":        func(d string) *torch.Tensor { return emptyOn(d, 0, 3).ArgmaxDim(0, false) },
	"aminmax_empty":           func(d string) *torch.Tensor { return first(emptyOn(d, 0).Aminmax(nil, false)) },
	"median_dim_empty":        func(d string) *torch.Tensor { return first(emptyOn(d, 0, 3).MedianDim(0, false)) },
	"kthvalue_empty":          func(d string) *torch.Tensor { return first(emptyOn(d, 0, 3).Kthvalue(1, 0, false)) },
	"mode_empty":              func(d string) *torch.Tensor { return first(emptyOn(d, 0, 3).Mode(0, false)) },
	"topk_empty":              func(d string) *torch.Tensor { return first(emptyOn(d, 0, 3).Topk(1, 0, true)) },
	"norm_inf_empty":          func(d string) *torch.Tensor { return emptyOn(d, 0).Norm(math.Inf(1)) },
	"norm_ninf_empty":         func(d string) *torch.Tensor { return emptyOn(d, 0).Norm(math.Inf(-1)) },
	"norm_neg_empty_dim":      func(d string) *torch.Tensor { return emptyOn(d, 0, 3).Norm(-1, 0) },
	"round_decimals_long":     func(d string) *torch.Tensor { return int64s(d, 1, 2).RoundDecimals(2) },
	"round_decimals_long_0":   func(d string) *torch.Tensor { return int64s(d, 1, 2).RoundDecimals(0) },
	"round_decimals_bool":     func(d string) *torch.Tensor { return bools(d, true).RoundDecimals(-1) },
	"round_bool":              func(d string) *torch.Tensor { return bools(d, true).Round() },
}

// first is the first of two results.
func first(a, _ *torch.Tensor) *torch.Tensor { return a }

// Every argument check of semantics.py fails with PyTorch's message, on
// the CPU and on the meta device.
func TestSemanticsArgumentChecks(t *testing.T) {
	g := loadSemantics(t)
	for _, c := range g.Messages {
		f := messageCases[c.Name]
		if f == nil {
			t.Errorf("%s: no Go twin", c.Name)
			continue
		}
		for _, dev := range devices {
			err := f(dev).Err()
			var e *torch.Error
			if !errors.As(err, &e) || e.Detail != c.Message {
				t.Errorf("%s on %s (%s): got %v, want PyTorch's %q", c.Name, dev, c.Expr, err, c.Message)
			}
		}
	}
}

// Two float tensors of one shape and at most 64 bytes take the small-tensor
// path (pkg/torch/small.go), which skips the meta function: it must leave a
// bool alpha to the dispatcher, which refuses it.
func TestSemanticsSmallPathBoolAlpha(t *testing.T) {
	err := floats("cpu", 1, 2).AddAlpha(floats("cpu", 3, 4), true).Err()
	if want := "Boolean alpha only supported for Boolean results."; !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// acceptedCases are the Go twins of semantics.py's ACCEPTED: calls next to
// the refused ones that PyTorch accepts.
var acceptedCases = map[string]func(dev string) *torch.Tensor{
	"add_float_alpha_float_scalar": func(d string) *torch.Tensor { // 2.0 as a 0-dim float64 tensor: a float64 result
		return int64s(d, 1, 2).AddAlpha(on(d, []float64{2}).Reshape(), 1.5)
	},
	"add_int_alpha_float":     func(d string) *torch.Tensor { return floats(d, 1, 2).AddAlpha(int64s(d, 3, 4), 1.5) },
	"add_bool_alpha_bool":     func(d string) *torch.Tensor { return bools(d, true, false).AddAlpha(bools(d, false, false), true) },
	"clamp_int8_in_range":     func(d string) *torch.Tensor { return ofDType(torch.Int8, d, 1, 2, -5).Clamp(-100, 100) },
	"clamp_uint8_wraps":       func(d string) *torch.Tensor { return ofDType(torch.Uint8, d, 1, 2).Clamp(-1, 1) },
	"clamp_int8_float_bounds": func(d string) *torch.Tensor { return ofDType(torch.Int8, d, 1, 2).Clamp(-1000.5, 1.5) },
	"pow_int_tensor_neg": func(d string) *torch.Tensor {
		return int64s(d, 1, -1, -1, 0, 2, -2).Pow(int64s(d, -1, -1, -2, -1, -1, -3))
	},
	"pow_int_float_neg": func(d string) *torch.Tensor { return int64s(d, 1, 2).PowScalar(-1.0) },
	"pow_int_zero":      func(d string) *torch.Tensor { return int64s(d, 1, 2).PowScalar(0) },
	"norm_empty_2":      func(d string) *torch.Tensor { return emptyOn(d, 0).Norm(2) },
	"norm_inf_empty_kept_dim": func(d string) *torch.Tensor {
		return emptyOn(d, 0, 3).Norm(math.Inf(1), 1)
	},
	"max_dim_empty_other_dim": func(d string) *torch.Tensor { return first(emptyOn(d, 0, 3).MaxDim(1, false)) },
}

// The calls PyTorch accepts beside the refused ones give its values (on
// the meta device, its dtypes and shapes).
func TestSemanticsAcceptedCalls(t *testing.T) {
	g := loadSemantics(t)
	for _, c := range g.Accepted {
		f := acceptedCases[c.Name]
		if f == nil {
			t.Errorf("%s: no Go twin", c.Name)
			continue
		}
		for _, dev := range devices {
			y := f(dev)
			if dev == "meta" {
				if err := y.Err(); err != nil || !slices.Equal(y.Shape(), c.Out.Shape) {
					t.Errorf("%s on meta: %v %v, want %v", c.Name, err, y.Shape(), c.Out.Shape)
				}
				continue
			}
			checkValues(t, c.Name+" ("+c.Expr+")", y, c.Out, 0)
		}
	}
}

// checkValues compares y with PyTorch's tensor want within rtol (0: exact).
func checkValues(t *testing.T, name string, y *torch.Tensor, want goldenfile.Tensor, rtol float64) {
	t.Helper()
	got, err := torch.ToSlice[float64](y.ToDType(torch.Float64))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if !slices.Equal(y.Shape(), want.Shape) || len(got) != len(want.Data) {
		t.Errorf("%s: shape %v, want %v", name, y.Shape(), want.Shape)
		return
	}
	for i := range got {
		if !goldenfile.Close(got[i], want.Data[i], rtol*1e-3, rtol) {
			t.Errorf("%s: [%d] = %v, want %v (got %v)", name, i, got[i], want.Data[i], got)
			return
		}
	}
}

// weights are the upstream weights of semantics.py's losses: 1/4, 2/4, ...
// in shape (float64 unless opts say otherwise).
func weights(shape []int, opts ...torch.Option) *torch.Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	opts = append([]torch.Option{torch.WithDType(torch.Float64)}, opts...)
	return torch.ArangeRange(1, n+1, 1, opts...).DivScalar(4).Reshape(shape...)
}

// weighted is (y * weights).sum(), semantics.py's loss of a reduction.
func weighted(y *torch.Tensor) *torch.Tensor { return y.Mul(weights(y.Shape())).Sum() }

// semGradCases are the Go twins of semantics.py's GRADS; smooth says that
// GradCheck applies (std at a constant slice is not differentiable).
var semGradCases = map[string]struct {
	f      func(in ...*torch.Tensor) *torch.Tensor
	smooth bool
}{
	"prod_all_one_zero":  {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Prod()) }, true},
	"prod_all_two_zeros": {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Prod()) }, true},
	"prod_all_no_zero":   {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Prod()) }, true},
	"prod_dim1":          {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Prod(1)) }, true},
	"prod_dim0_keepdim":  {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].ProdKeepDim(0)) }, true},
	"prod_dim_3d":        {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Prod(1)) }, true},
	"prod_dim_neg":       {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Prod(-1)) }, true},
	"var_const":          {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Var()) }, true},
	"var_const_dim":      {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Var(1)) }, true},
	"std_const":          {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Std()) }, false},
	"std_const_dim":      {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Std(1)) }, false},
	"std_const_dim0":     {func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Std(0)) }, false},
	"bce_logits_zero_mean": {func(in ...*torch.Tensor) *torch.Tensor {
		return nn.BCEWithLogits(in[0], f64([]float64{0, 1, 0.5, 1}))
	}, true},
	"bce_logits_zero_none": {func(in ...*torch.Tensor) *torch.Tensor {
		return weighted(nn.BCEWithLogits(in[0], f64([]float64{1, 0, 0.25, 1}), nn.WithReduction(nn.None)))
	}, true},
	"bce_logits_zero_sum_pos_weight": {func(in ...*torch.Tensor) *torch.Tensor {
		return nn.BCEWithLogits(in[0], f64([]float64{1, 0.5, 0}), nn.WithReduction(nn.Sum), nn.WithPosWeight(f64([]float64{2, 3, 0.5})))
	}, true},
	"stack_dim1":    {func(in ...*torch.Tensor) *torch.Tensor { return weighted(stack3(in[0], 1)) }, true},
	"stack_dim_neg": {func(in ...*torch.Tensor) *torch.Tensor { return weighted(stack3(in[0], -1)) }, true},
	"clamp_nan_bound": {func(in ...*torch.Tensor) *torch.Tensor {
		return in[0].Clamp(math.NaN(), 1.0).NanToNum(0, nil, nil).Mul(weights(in[0].Shape())).Sum()
	}, false},
	"bce_logits_zero_weight": {func(in ...*torch.Tensor) *torch.Tensor {
		return nn.BCEWithLogits(in[0], f64([]float64{0, 1, 1, 0}, 2, 2), nn.WithWeight(f64([]float64{0.5, 2})))
	}, true},
}

// stack3 is semantics.py's torch.stack([x, x * 2, x.exp()], dim).
func stack3(x *torch.Tensor, dim int) *torch.Tensor {
	return torch.Stack([]*torch.Tensor{x, x.MulScalar(2), x.Exp()}, dim)
}

func f64(v []float64, shape ...int) *torch.Tensor {
	if len(shape) == 0 {
		return torch.FromSlice(v)
	}
	return torch.FromSlice(v, torch.WithShape(shape...))
}

// The gradients at zeros and kinks are PyTorch's: prod with one zero, two
// zeros and per dim is not NaN, var and std of a constant have gradient 0,
// and BCE with logits at a logit of 0 is log(2) with gradient sigmoid(0) -
// target. Where the function is smooth, GradCheck agrees too.
func TestSemanticsGradients(t *testing.T) {
	g := loadSemantics(t)
	for _, c := range g.Grads {
		tc, ok := semGradCases[c.Name]
		if !ok {
			t.Errorf("%s: no Go twin", c.Name)
			continue
		}
		in := make([]*torch.Tensor, len(c.Inputs))
		for i, x := range c.Inputs {
			in[i] = x.Tensor().RequiresGrad_(true)
		}
		loss := tc.f(in...)
		if v, err := loss.Item(); err != nil || !goldenfile.Close(v, c.Loss, 1e-12, 1e-12) {
			t.Errorf("%s: loss %v (%v), want %v", c.Name, v, err, c.Loss)
		}
		grads, err := torch.Grad([]*torch.Tensor{loss}, in, torch.GradOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		for i, gr := range grads {
			checkValues(t, c.Name, gr, c.Grads[i], 1e-12)
		}
		if tc.smooth {
			if err := torch.GradCheck(tc.f, in, torch.GradCheckOptions{}); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
		}
	}
}

// prod's gradient runs on the meta device (which always takes the way
// without division, as PyTorch's) with the input's shape.
func TestSemanticsProdGradOnMeta(t *testing.T) {
	for _, dims := range [][]int{nil, {1}, {0, 2}} {
		x := torch.Zeros([]int{2, 3, 4}, torch.WithDevice("meta"), torch.WithDType(torch.Float64)).RequiresGrad_(true)
		if err := x.Prod(dims...).Sum().Backward(); err != nil {
			t.Fatalf("prod(%v) on meta: %v", dims, err)
		}
		if gr := x.Grad(); gr == nil || !slices.Equal(gr.Shape(), x.Shape()) || gr.Device().String() != "meta" {
			t.Errorf("prod(%v) on meta: grad %v", dims, gr)
		}
	}
}

// prod over several dims (a MindTorch extension) is not NaN at zeros
// either, and its second derivative (through the product of the others)
// agrees with finite differences.
func TestSemanticsProdSeveralDims(t *testing.T) {
	x := torch.FromSlice([]float64{1, 0, 2, 3, 0, 4, 5, 0, 6, 7, 8, 9}, torch.WithShape(2, 3, 2)).RequiresGrad_(true)
	f := func(in ...*torch.Tensor) *torch.Tensor { return weighted(in[0].Prod(0, 2)) }
	if err := torch.GradCheck(f, []*torch.Tensor{x}, torch.GradCheckOptions{}); err != nil {
		t.Error(err)
	}
	grad := func(in ...*torch.Tensor) (y *torch.Tensor) {
		torch.EnableGrad(func() { // GradCheck evaluates f without recording
			gs, err := torch.Grad([]*torch.Tensor{f(in...)}, in, torch.GradOptions{CreateGraph: true})
			if err != nil {
				y = torch.Failed(err)
				return
			}
			y = gs[0].Mul(weights(gs[0].Shape())).Sum()
		})
		return y
	}
	if err := torch.GradCheck(grad, []*torch.Tensor{x}, torch.GradCheckOptions{}); err != nil {
		t.Errorf("second derivative: %v", err)
	}
}

// gradFnCases are the Go twins of semantics.py's GRAD_FNS: x is [2, 3, 4],
// m [3, 4], v [3] and s 0-dim.
var gradFnCases = map[string]func(x, m, v, s *torch.Tensor) *torch.Tensor{
	"t":                 func(x, m, v, s *torch.Tensor) *torch.Tensor { return m.T() },
	"t_1d":              func(x, m, v, s *torch.Tensor) *torch.Tensor { return v.T() },
	"t_0d":              func(x, m, v, s *torch.Tensor) *torch.Tensor { return s.T() },
	"transpose":         func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Transpose(0, 1) },
	"mT":                func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.MT() },
	"permute":           func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Permute(2, 0, 1) },
	"expand":            func(x, m, v, s *torch.Tensor) *torch.Tensor { return m.Expand(2, 3, 4) },
	"reshape":           func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Reshape(6, 4) },
	"reshape_strided":   func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Transpose(0, 1).Reshape(3, 2, 2, 2) },
	"reshape_copy":      func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Transpose(0, 1).Reshape(-1) },
	"flatten":           func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Flatten(0, -1) },
	"view":              func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.View(6, 4) },
	"unflatten":         func(x, m, v, s *torch.Tensor) *torch.Tensor { return m.Unflatten(1, 2, 2) },
	"squeeze":           func(x, m, v, s *torch.Tensor) *torch.Tensor { return m.Unsqueeze(0).Squeeze() },
	"squeeze_dim":       func(x, m, v, s *torch.Tensor) *torch.Tensor { return m.Unsqueeze(0).SqueezeDim(0) },
	"squeeze_dim_not_1": func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.SqueezeDim(0) },
	"unsqueeze":         func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Unsqueeze(1) },
	"select":            func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Select(1, 2) },
	"narrow":            func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Narrow(1, 0, 2) },
	"slice":             func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Slice(1, 1, 3, 1) },
	"split":             func(x, m, v, s *torch.Tensor) *torch.Tensor { return piece(x.Split(1, 0))(1) },
	"split_with_sizes":  func(x, m, v, s *torch.Tensor) *torch.Tensor { return piece(x.SplitSizes([]int{1, 2}, 1))(0) },
	"chunk":             func(x, m, v, s *torch.Tensor) *torch.Tensor { return piece(x.Chunk(2, 2))(1) },
	"unbind":            func(x, m, v, s *torch.Tensor) *torch.Tensor { return piece(x.Unbind(1))(2) },
	"index_select": func(x, m, v, s *torch.Tensor) *torch.Tensor {
		return x.IndexSelect(1, torch.FromSlice([]int64{0, 2}, torch.OnDevice(x.Device())))
	},
	"cat":        func(x, m, v, s *torch.Tensor) *torch.Tensor { return torch.Cat([]*torch.Tensor{x, x}, 0) },
	"sum":        func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Sum() },
	"sum_dim":    func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Sum(1) },
	"mean":       func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Mean() },
	"mean_dim":   func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Mean(1) },
	"mul":        func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Mul(x) },
	"mul_scalar": func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.MulScalar(2) },
	"div":        func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Div(x) },
	"div_scalar": func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.DivScalar(2) },
	"exp":        func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Exp() },
	"contiguous": func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Transpose(0, 1).Contiguous() },
	"prod":       func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Prod() },
	"prod_dim":   func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Prod(1) },
	"std":        func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Std() },
	"var":        func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.Var() },
	"stack":      func(x, m, v, s *torch.Tensor) *torch.Tensor { return torch.Stack([]*torch.Tensor{m, m}, 1) },
	"stack_0":    func(x, m, v, s *torch.Tensor) *torch.Tensor { return torch.Stack([]*torch.Tensor{v, v, v}, 0) },
	"round_decimals": func(x, m, v, s *torch.Tensor) *torch.Tensor {
		return x.RoundDecimals(2)
	},
	"round_decimals_neg": func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.RoundDecimals(-1) },
	"round_decimals_0":   func(x, m, v, s *torch.Tensor) *torch.Tensor { return x.RoundDecimals(0) },
}

// piece returns the i-th of pieces, or a failed tensor.
func piece(ts []*torch.Tensor, err error) func(i int) *torch.Tensor {
	return func(i int) *torch.Tensor {
		if err != nil {
			return torch.Failed(err)
		}
		return ts[i]
	}
}

// The ops record PyTorch's grad_fn names (1.13's: a reshape that is a view
// is ReshapeAliasBackward0, which 2.x names ViewBackward0 for a contiguous
// input), on the CPU and on the meta device.
func TestSemanticsGradFnNames(t *testing.T) {
	g := loadSemantics(t)
	for _, dev := range devices {
		leaf := func(shape ...int) *torch.Tensor {
			return torch.Randn(shape, torch.WithDevice(dev)).RequiresGrad_(true)
		}
		x, m, v, s := leaf(2, 3, 4), leaf(3, 4), leaf(3), leaf()
		for _, c := range g.GradFns {
			f := gradFnCases[c.Name]
			if f == nil {
				t.Errorf("%s: no Go twin", c.Name)
				continue
			}
			y := f(x, m, v, s)
			if err := y.Err(); err != nil {
				t.Errorf("%s on %s: %v", c.Name, dev, err)
				continue
			}
			if y.GradFn() == nil || y.GradFn().Name() != c.GradFn {
				name := "<nil>"
				if y.GradFn() != nil {
					name = y.GradFn().Name()
				}
				t.Errorf("%s on %s (%s): grad_fn %s, PyTorch's %s", c.Name, dev, c.Expr, name, c.GradFn)
			}
		}
	}
}

// likeInputs are the Go twins of semantics.py's LIKE_INPUTS.
var likeInputs = map[string]func(dev string) *torch.Tensor{
	"transposed":      func(d string) *torch.Tensor { return emptyOn(d, 4, 3).T() },
	"permuted":        func(d string) *torch.Tensor { return emptyOn(d, 2, 3, 4).Permute(2, 0, 1) },
	"permuted_size1":  func(d string) *torch.Tensor { return emptyOn(d, 2, 1, 3).Permute(2, 1, 0) },
	"size1_stride":    func(d string) *torch.Tensor { return emptyOn(d, 3).AsStrided([]int{1, 3}, []int{5, 1}, 0) },
	"sliced":          func(d string) *torch.Tensor { return emptyOn(d, 4, 6).Slice(1, 0, 6, 2) },
	"permuted_sliced": func(d string) *torch.Tensor { return emptyOn(d, 2, 3, 4, 5).Permute(0, 2, 3, 1).Slice(1, 0, 4, 2) },
	"expanded":        func(d string) *torch.Tensor { return emptyOn(d, 3).Expand(2, 3) },
	"empty_transposed": func(d string) *torch.Tensor {
		return emptyOn(d, 0, 3).T()
	},
	"contiguous": func(d string) *torch.Tensor { return emptyOn(d, 2, 3) },
}

func emptyOn(dev string, shape ...int) *torch.Tensor {
	return torch.Empty(shape, torch.WithDevice(dev))
}

// The *_like ops lay their result out as PyTorch's preserve_format does
// (the input's strides when it is dense, else dense strides in its memory
// order), and the random ones fill memory in order, so that their values
// are PyTorch's for a given seed.
func TestSemanticsLikeKeepsLayout(t *testing.T) {
	g := loadSemantics(t)
	likeOps := map[string]func(x *torch.Tensor) *torch.Tensor{
		"empty_like":       func(x *torch.Tensor) *torch.Tensor { return torch.EmptyLike(x) },
		"zeros_like":       func(x *torch.Tensor) *torch.Tensor { return torch.ZerosLike(x) },
		"ones_like":        func(x *torch.Tensor) *torch.Tensor { return torch.OnesLike(x) },
		"full_like":        func(x *torch.Tensor) *torch.Tensor { return torch.FullLike(x, 2.5) },
		"rand_like":        func(x *torch.Tensor) *torch.Tensor { return torch.RandLike(x) },
		"randn_like":       func(x *torch.Tensor) *torch.Tensor { return torch.RandnLike(x) },
		"zeros_like_int64": func(x *torch.Tensor) *torch.Tensor { return torch.ZerosLike(x, torch.WithDType(torch.Int64)) },
	}
	for _, dev := range devices {
		for _, c := range g.Like {
			in, op := likeInputs[c.Input], likeOps[c.Op]
			if in == nil || op == nil {
				t.Errorf("%s %s: no Go twin", c.Op, c.Input)
				continue
			}
			torch.ManualSeed(7)
			r := op(in(dev))
			if err := r.Err(); err != nil {
				t.Errorf("%s(%s) on %s: %v", c.Op, c.Input, dev, err)
				continue
			}
			if !slices.Equal(r.Stride(), c.Strides) {
				t.Errorf("%s(%s) on %s: strides %v, PyTorch's %v", c.Op, c.Input, dev, r.Stride(), c.Strides)
			}
			if c.Out != nil && dev == "cpu" {
				checkValues(t, c.Op+"("+c.Input+")", r, *c.Out, 0)
			}
		}
	}
}

// maskedFillCases are the Go twins of semantics.py's MASKED_FILL: self
// (requiring gradients) and the filled result.
var maskedFillCases = map[string]func(dev string) (*torch.Tensor, *torch.Tensor){
	"mask_more_dims": func(d string) (*torch.Tensor, *torch.Tensor) {
		x := torch.Zeros([]int{3}, torch.WithDevice(d)).RequiresGrad_(true)
		return x, x.MaskedFill(on(d, []bool{true, false}, torch.WithShape(2, 1)), 1.5)
	},
	"mask_larger_size": func(d string) (*torch.Tensor, *torch.Tensor) {
		x := torch.Zeros([]int{1, 3}, torch.WithDevice(d)).RequiresGrad_(true)
		return x, x.MaskedFill(on(d, []bool{true, false}, torch.WithShape(2, 1)), 2)
	},
	"mask_expanded": func(d string) (*torch.Tensor, *torch.Tensor) {
		x := torch.Arange(3.0, torch.WithDevice(d)).RequiresGrad_(true)
		return x, x.MaskedFill(bools(d, true, false, true).Expand(2, 3), -1)
	},
}

// masked_fill out of place broadcasts self with the mask, as PyTorch 1.13
// and 2.x do, and its gradient sums over the broadcast dims; in place, the
// result must keep self's shape.
func TestSemanticsMaskedFillBroadcasts(t *testing.T) {
	g := loadSemantics(t)
	for _, c := range g.MaskedFill {
		if c.Name == "in_place_refused" {
			for _, dev := range devices {
				err := torch.Zeros([]int{3}, torch.WithDevice(dev)).MaskedFill_(on(dev, []bool{true, false}, torch.WithShape(2, 1)), 1).Err()
				var e *torch.Error
				if !errors.As(err, &e) || e.Detail != c.Message {
					t.Errorf("masked_fill_ on %s: %v, want %q", dev, err, c.Message)
				}
			}
			continue
		}
		f := maskedFillCases[c.Name]
		if f == nil {
			t.Errorf("%s: no Go twin", c.Name)
			continue
		}
		for _, dev := range devices {
			x, y := f(dev)
			if err := y.Err(); err != nil || !slices.Equal(y.Shape(), c.Out.Shape) {
				t.Errorf("%s on %s: %v shape %v, want %v", c.Name, dev, err, y.Shape(), c.Out.Shape)
				continue
			}
			if err := y.Mul(weights(y.Shape(), torch.WithDType(torch.Float32), torch.WithDevice(dev))).Sum().Backward(); err != nil {
				t.Errorf("%s on %s: backward: %v", c.Name, dev, err)
				continue
			}
			if dev == "cpu" {
				checkValues(t, c.Name, y, *c.Out, 0)
				checkValues(t, c.Name+" grad", x.Grad(), *c.Grad, 0)
			} else if !slices.Equal(x.Grad().Shape(), x.Shape()) {
				t.Errorf("%s on meta: grad shape %v", c.Name, x.Grad().Shape())
			}
		}
	}
}

// poisonCache hands the CPU cache a released block of n bytes filled with
// -1.5 (or its integer cast), so that the next allocation of that size
// reads garbage unless it is written (MINDTORCH_CPU_CACHE_DEBUG=1 poisons
// every reused block with 0xFF bytes as well).
func poisonCache(n int) {
	torch.Full([]int{n / 8}, -1.5, torch.WithDType(torch.Float64)).Release()
}

// A matrix product with an inner dimension of 0 is a sum of nothing: zeros
// of the result's shape (plus beta*input for addmm and baddbmm, the input
// ignored when beta is 0), whatever memory the result gets.
func TestSemanticsMatmulZeroInnerDim(t *testing.T) {
	const rows = 1 << 14 // results of 64 KiB and more come from the cache
	nan := math.NaN()
	for _, dt := range []torch.DType{torch.Float32, torch.Float64, torch.Float16, torch.BFloat16, torch.Int64, torch.Int32} {
		ones := func(shape ...int) *torch.Tensor { return torch.Ones(shape, torch.WithDType(dt)) }
		cases := []struct {
			name string
			f    func() *torch.Tensor
			want float64 // every element
		}{
			{"mm", func() *torch.Tensor { return ones(rows, 0).Mm(ones(0, 4)) }, 0},
			{"bmm", func() *torch.Tensor { return ones(2, rows, 0).Bmm(ones(2, 0, 4)) }, 0},
			{"dot", func() *torch.Tensor { return ones(0).Dot(ones(0)) }, 0},
			{"mv", func() *torch.Tensor { return ones(rows, 0).MatMul(ones(0)) }, 0},
			{"vm", func() *torch.Tensor { return ones(0).MatMul(ones(0, rows)) }, 0},
			{"matmul_2d_3d", func() *torch.Tensor { return ones(rows, 0).MatMul(ones(2, 0, 4)) }, 0},
			{"mm_into_transposed", func() *torch.Tensor {
				out := torch.Empty([]int{4, rows}, torch.WithDType(dt)).T()
				torch.Into(out).Mm(ones(rows, 0), ones(0, 4))
				return out
			}, 0},
			{"addmm_beta_0", func() *torch.Tensor {
				in := ones(rows, 4)
				if dt.IsFloatingPoint() {
					in = torch.Full([]int{rows, 4}, nan, torch.WithDType(dt))
				}
				return torch.Addmm(in, ones(rows, 0), ones(0, 4), 0, 1)
			}, 0},
			{"addmm_beta_2", func() *torch.Tensor { return torch.Addmm(ones(rows, 4).MulScalar(3), ones(rows, 0), ones(0, 4), 2, 1) }, 6},
			{"baddbmm", func() *torch.Tensor {
				return torch.Baddbmm(ones(2, rows, 4).MulScalar(4), ones(2, rows, 0), ones(2, 0, 4), 2, 1)
			}, 8},
		}
		for _, c := range cases {
			want := c.f() // the shape, and a first block to poison
			shape := want.Shape()
			poisonCache(want.Numel() * dt.ItemSize())
			y := c.f()
			if err := y.Err(); err != nil || !slices.Equal(y.Shape(), shape) {
				t.Errorf("%s %s: %v shape %v", c.name, dt, err, y.Shape())
				continue
			}
			v, err := torch.ToSlice[float64](y.ToDType(torch.Float64))
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range v {
				if x != c.want {
					t.Errorf("%s %s: [%d] = %v, want %v", c.name, dt, i, x, c.want)
					break
				}
			}
		}
	}
}

// torch.matmul of a batch [2, n, 0] by a matrix [0, 4] is zeros [2, n, 4].
// MatMul folds the batch into rows with the rows' count (Reshape(-1, k) is
// ambiguous for k = 0).
func TestSemanticsMatmulBatchByMatrixZeroInnerDim(t *testing.T) {
	y := torch.Ones([]int{2, 3, 0}).MatMul(torch.Ones([]int{0, 4}))
	v, err := torch.ToSlice[float32](y)
	if err != nil || !slices.Equal(y.Shape(), []int{2, 3, 4}) || slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
		t.Errorf("got %v %v, want zeros [2, 3, 4]", y, err)
	}
}

// Flatten over one dim merges nothing and returns t itself, as ATen's
// flatten (start_dim == end_dim); a 0-dim tensor becomes [1].
func TestFlattenOfOneDimIsItself(t *testing.T) {
	x := torch.Zeros([]int{2, 3})
	if y := x.Flatten(1, -1); y != x {
		t.Errorf("Flatten(1, -1) of [2, 3] is a new tensor %v", y)
	}
	if y := torch.Scalar(1.0).Flatten(0, 0); y.Dim() != 1 || y.Err() != nil {
		t.Errorf("Flatten of a 0-dim tensor: %v", y)
	}
}
