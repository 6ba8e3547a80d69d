package torch_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/dtype"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// opsGolden is testdata/ops.json, written by scripts/golden/ops.py with
// real PyTorch: each case names an op, its inputs (a base tensor and the
// views taken of it), its arguments, and the outputs or PyTorch's error.
type opsGolden struct {
	Torch string `json:"torch"`
	Cases []struct {
		Op     string         `json:"op"`
		Inputs []goldenTensor `json:"inputs"`
		Args   map[string]any `json:"args"`
		Outs   []goldenTensor `json:"outs"`
		Error  string         `json:"error"`
	} `json:"cases"`
}

type goldenTensor struct {
	Shape []int   `json:"shape"`
	DType string  `json:"dtype"`
	Data  []any   `json:"data"`
	Views [][]any `json:"views"`
}

// build makes the input on the CPU: the base tensor, then its views.
func (g goldenTensor) build(t *testing.T) *torch.Tensor { return g.buildOn(t, "cpu") }

// buildOn makes the input on a device.
func (g goldenTensor) buildOn(t *testing.T, dev string) *torch.Tensor {
	t.Helper()
	d, err := dtype.Parse(g.DType)
	if err != nil {
		t.Fatal(err)
	}
	var x *torch.Tensor
	if d.IsFloatingPoint() {
		vals := make([]float64, len(g.Data))
		for i, v := range g.Data {
			vals[i] = num(v)
		}
		x = torch.FromSlice(vals, torch.WithShape(g.Shape...)).ToDType(d)
	} else { // integers exactly, int64 extremes included
		vals := make([]int64, len(g.Data))
		for i, v := range g.Data {
			switch n := v.(type) {
			case json.Number:
				vals[i], _ = n.Int64()
			case bool:
				vals[i] = int64(num(n))
			}
		}
		x = torch.FromSlice(vals, torch.WithShape(g.Shape...)).ToDType(d)
	}
	x, err = x.To(dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range g.Views {
		x = applyView(x, v)
	}
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	return x
}

// goldenOps runs each op of the golden data on its inputs and arguments.
var goldenOps = map[string]func(in []*torch.Tensor, a args) []*torch.Tensor{
	"where": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(torch.Where(in[0], in[1], in[2])) },
	"lerp":  func(in []*torch.Tensor, a args) []*torch.Tensor { return one(torch.Lerp(in[0], in[1], in[2])) },
	"lerp_scalar": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(torch.LerpScalar(in[0], in[1], a.f("weight")))
	},
	"masked_fill":  func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].MaskedFill(in[1], a.f("value"))) },
	"clamp_tensor": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].ClampTensor(in[1], in[2])) },
	"clamp":        func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Clamp(-2, 3)) },
	"add_alpha":    func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].AddAlpha(in[1], a.i("alpha"))) },
	"leaky_relu":   func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].LeakyRelu(0.1)) },
	"elu":          func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Elu(1)) },
	"softplus":     func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Softplus(1, 20)) },
	"nan_to_num":   func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].NanToNum(0, nil, nil)) },

	// Reductions.
	"sum":  reduce((*torch.Tensor).Sum, (*torch.Tensor).SumKeepDim),
	"mean": reduce((*torch.Tensor).Mean, (*torch.Tensor).MeanKeepDim),
	"prod": reduce((*torch.Tensor).Prod, (*torch.Tensor).ProdKeepDim),
	"amax": reduce((*torch.Tensor).Amax, (*torch.Tensor).AmaxKeepDim),
	"amin": reduce((*torch.Tensor).Amin, (*torch.Tensor).AminKeepDim),
	"var": reduce((*torch.Tensor).Var, func(x *torch.Tensor, dims ...int) *torch.Tensor {
		return x.VarCorrection(1, true, dims...)
	}),
	"std": reduce((*torch.Tensor).Std, func(x *torch.Tensor, dims ...int) *torch.Tensor {
		return x.StdCorrection(1, true, dims...)
	}),
	"norm": reduce(func(x *torch.Tensor, dims ...int) *torch.Tensor { return x.Norm(2, dims...) },
		func(x *torch.Tensor, dims ...int) *torch.Tensor { return x.NormKeepDim(2, dims...) }),
	"logsumexp":     reduce((*torch.Tensor).LogSumExp, (*torch.Tensor).LogSumExpKeepDim),
	"all":           reduce((*torch.Tensor).All, (*torch.Tensor).AllKeepDim),
	"any":           reduce((*torch.Tensor).Any, (*torch.Tensor).AnyKeepDim),
	"count_nonzero": reduce((*torch.Tensor).CountNonzero, nil),
	"norm_p": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].Norm(a.f("p"), a.ints("dims")...))
	},
	"var_correction": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].VarCorrection(a.f("correction"), false, a.ints("dims")...))
	},
	"max_dim": func(in []*torch.Tensor, a args) []*torch.Tensor {
		v, i := in[0].MaxDim(a.i("dim"), a.b("keepdim"))
		return []*torch.Tensor{v, i}
	},
	"min_dim": func(in []*torch.Tensor, a args) []*torch.Tensor {
		v, i := in[0].MinDim(a.i("dim"), a.b("keepdim"))
		return []*torch.Tensor{v, i}
	},
	"argmax": func(in []*torch.Tensor, a args) []*torch.Tensor {
		if a["dim"] == nil {
			return one(in[0].Argmax())
		}
		return one(in[0].ArgmaxDim(a.i("dim"), a.b("keepdim")))
	},
	"argmin": func(in []*torch.Tensor, a args) []*torch.Tensor {
		if a["dim"] == nil {
			return one(in[0].Argmin())
		}
		return one(in[0].ArgminDim(a.i("dim"), a.b("keepdim")))
	},
	"cumsum":      func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Cumsum(a.i("dim"))) },
	"cumprod":     func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Cumprod(a.i("dim"))) },
	"softmax":     func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Softmax(a.i("dim"))) },
	"log_softmax": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].LogSoftmax(a.i("dim"))) },

	// Matrix products.
	"mm":     func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Mm(in[1])) },
	"bmm":    func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Bmm(in[1])) },
	"matmul": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].MatMul(in[1])) },
	"dot":    func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Dot(in[1])) },
	"mv":     func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Mv(in[1])) },
	"outer":  func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Outer(in[1])) },
	"linear": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(torch.Linear(in[0], in[1], in[2])) },
	"addmm": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(torch.Addmm(in[0], in[1], in[2], a.f("beta"), a.f("alpha")))
	},
	"baddbmm": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(torch.Baddbmm(in[0], in[1], in[2], a.f("beta"), a.f("alpha")))
	},

	// Data movement.
	"cat":   func(in []*torch.Tensor, a args) []*torch.Tensor { return one(torch.Cat(in, a.i("dim"))) },
	"stack": func(in []*torch.Tensor, a args) []*torch.Tensor { return stackCase(in, a) },
	"flip":  func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Flip(a.ints("dims")...)) },
	"roll": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].Roll(a.ints("shifts"), a.ints("dims")...))
	},
	"repeat": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Repeat(a.ints("reps")...)) },
	"tile":   func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Tile(a.ints("reps")...)) },
	"repeat_interleave": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].RepeatInterleave(a.i("repeats"), a.i("dim")))
	},
	"tril":   func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Tril(a.i("diagonal"))) },
	"triu":   func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Triu(a.i("diagonal"))) },
	"diag":   func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Diag(a.i("diagonal"))) },
	"gather": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Gather(a.i("dim"), in[1])) },
	"scatter": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].Scatter(a.i("dim"), in[1], in[2]))
	},
	"scatter_value": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].ScatterValue(a.i("dim"), in[1], a.i("value")))
	},
	"scatter_add": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].ScatterAdd(a.i("dim"), in[1], in[2]))
	},
	"scatter_reduce": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].ScatterReduce(a.i("dim"), in[1], in[2], a["reduce"].(string), a.b("include_self")))
	},
	"index_select": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].IndexSelect(a.i("dim"), in[1]))
	},
	"index_add": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].IndexAdd(a.i("dim"), in[1], in[2], a.i("alpha")))
	},
	"index_put": func(in []*torch.Tensor, a args) []*torch.Tensor {
		n := a.i("n")
		return one(in[0].IndexPut(in[1:1+n], in[1+n], a.b("accumulate")))
	},
	"masked_select": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].MaskedSelect(in[1])) },
	"nonzero":       func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Nonzero()) },
	"index":         func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Index(in[1])) },
	"index_many":    func(in []*torch.Tensor, a args) []*torch.Tensor { return one(in[0].Index(in[1:]...)) },
	"sort": func(in []*torch.Tensor, a args) []*torch.Tensor {
		v, i := in[0].Sort(a.i("dim"), a.b("descending"))
		return []*torch.Tensor{v, i}
	},
	"argsort": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(in[0].Argsort(a.i("dim"), a.b("descending")))
	},
	"topk": func(in []*torch.Tensor, a args) []*torch.Tensor {
		v, i := in[0].Topk(a.i("k"), a.i("dim"), a.b("largest"))
		return []*torch.Tensor{v, i}
	},
	"unique": func(in []*torch.Tensor, a args) []*torch.Tensor {
		v, i, c := in[0].Unique()
		return []*torch.Tensor{v, i, c}
	},
	"searchsorted": func(in []*torch.Tensor, a args) []*torch.Tensor {
		return one(torch.Searchsorted(in[0], in[1], a.b("right")))
	},
	"one_hot":   func(in []*torch.Tensor, a args) []*torch.Tensor { return one(torch.OneHot(in[0], a.i("num_classes"))) },
	"embedding": func(in []*torch.Tensor, a args) []*torch.Tensor { return one(torch.Embedding(in[0], in[1])) },
}

func init() {
	unary := map[string]func(*torch.Tensor) *torch.Tensor{
		"neg": (*torch.Tensor).Neg, "abs": (*torch.Tensor).Abs, "sign": (*torch.Tensor).Sign,
		"exp": (*torch.Tensor).Exp, "exp2": (*torch.Tensor).Exp2, "expm1": (*torch.Tensor).Expm1,
		"log": (*torch.Tensor).Log, "log2": (*torch.Tensor).Log2, "log10": (*torch.Tensor).Log10,
		"log1p": (*torch.Tensor).Log1p, "sqrt": (*torch.Tensor).Sqrt, "rsqrt": (*torch.Tensor).Rsqrt,
		"square": (*torch.Tensor).Square, "reciprocal": (*torch.Tensor).Reciprocal, "sin": (*torch.Tensor).Sin,
		"cos": (*torch.Tensor).Cos, "tan": (*torch.Tensor).Tan, "asin": (*torch.Tensor).Asin,
		"acos": (*torch.Tensor).Acos, "atan": (*torch.Tensor).Atan, "sinh": (*torch.Tensor).Sinh,
		"cosh": (*torch.Tensor).Cosh, "tanh": (*torch.Tensor).Tanh, "sigmoid": (*torch.Tensor).Sigmoid,
		"relu": (*torch.Tensor).Relu, "relu6": (*torch.Tensor).Relu6, "erf": (*torch.Tensor).Erf,
		"floor": (*torch.Tensor).Floor, "ceil": (*torch.Tensor).Ceil, "round": (*torch.Tensor).Round,
		"trunc": (*torch.Tensor).Trunc, "frac": (*torch.Tensor).Frac, "isnan": (*torch.Tensor).IsNan,
		"isinf": (*torch.Tensor).IsInf, "isfinite": (*torch.Tensor).IsFinite,
		"bitwise_not": (*torch.Tensor).BitwiseNot, "logical_not": (*torch.Tensor).LogicalNot,
		"silu": (*torch.Tensor).Silu, "gelu": (*torch.Tensor).Gelu, "gelu_tanh": (*torch.Tensor).GeluTanh,
	}
	for name, f := range unary {
		goldenOps[name] = func(in []*torch.Tensor, a args) []*torch.Tensor { return one(f(in[0])) }
	}
	type pair struct {
		t func(*torch.Tensor, *torch.Tensor) *torch.Tensor
		s func(*torch.Tensor, any) *torch.Tensor
	}
	binary := map[string]pair{
		"add": {(*torch.Tensor).Add, (*torch.Tensor).AddScalar}, "sub": {(*torch.Tensor).Sub, (*torch.Tensor).SubScalar},
		"mul": {(*torch.Tensor).Mul, (*torch.Tensor).MulScalar}, "div": {(*torch.Tensor).Div, (*torch.Tensor).DivScalar},
		"div_trunc":   {(*torch.Tensor).DivTrunc, (*torch.Tensor).DivTruncScalar},
		"div_floor":   {(*torch.Tensor).DivFloor, (*torch.Tensor).DivFloorScalar},
		"remainder":   {(*torch.Tensor).Remainder, (*torch.Tensor).RemainderScalar},
		"fmod":        {(*torch.Tensor).Fmod, (*torch.Tensor).FmodScalar},
		"pow":         {(*torch.Tensor).Pow, (*torch.Tensor).PowScalar},
		"maximum":     {(*torch.Tensor).Maximum, (*torch.Tensor).MaximumScalar},
		"minimum":     {(*torch.Tensor).Minimum, (*torch.Tensor).MinimumScalar},
		"atan2":       {(*torch.Tensor).Atan2, (*torch.Tensor).Atan2Scalar},
		"bitwise_and": {(*torch.Tensor).BitwiseAnd, (*torch.Tensor).BitwiseAndScalar},
		"bitwise_or":  {(*torch.Tensor).BitwiseOr, (*torch.Tensor).BitwiseOrScalar},
		"bitwise_xor": {(*torch.Tensor).BitwiseXor, (*torch.Tensor).BitwiseXorScalar},
		"logical_and": {(*torch.Tensor).LogicalAnd, (*torch.Tensor).LogicalAndScalar},
		"logical_or":  {(*torch.Tensor).LogicalOr, (*torch.Tensor).LogicalOrScalar},
		"logical_xor": {(*torch.Tensor).LogicalXor, (*torch.Tensor).LogicalXorScalar},
		"eq":          {(*torch.Tensor).Eq, (*torch.Tensor).EqScalar}, "ne": {(*torch.Tensor).Ne, (*torch.Tensor).NeScalar},
		"lt": {(*torch.Tensor).Lt, (*torch.Tensor).LtScalar}, "le": {(*torch.Tensor).Le, (*torch.Tensor).LeScalar},
		"gt": {(*torch.Tensor).Gt, (*torch.Tensor).GtScalar}, "ge": {(*torch.Tensor).Ge, (*torch.Tensor).GeScalar},
	}
	for name, p := range binary {
		goldenOps[name] = func(in []*torch.Tensor, a args) []*torch.Tensor { return one(p.t(in[0], in[1])) }
		goldenOps[name+"_scalar"] = func(in []*torch.Tensor, a args) []*torch.Tensor {
			v := num(a["value"])
			if !strings.Contains(string(a["value"].(json.Number)), ".") {
				return one(p.s(in[0], int(v)))
			}
			return one(p.s(in[0], v))
		}
	}
}

func one(t *torch.Tensor) []*torch.Tensor { return []*torch.Tensor{t} }

func stackCase(in []*torch.Tensor, a args) []*torch.Tensor {
	if len(in[1].Shape()) == 2 && in[1].Shape()[0] != in[0].Shape()[0] {
		in = []*torch.Tensor{in[0], in[1].T()}
	}
	return one(torch.Stack(in, a.i("dim")))
}

// reduce adapts a reduction with and without keepdim to the golden args.
func reduce(f, keep func(*torch.Tensor, ...int) *torch.Tensor) func([]*torch.Tensor, args) []*torch.Tensor {
	return func(in []*torch.Tensor, a args) []*torch.Tensor {
		dims := a.ints("dims")
		if a.b("keepdim") {
			return one(keep(in[0], dims...))
		}
		return one(f(in[0], dims...))
	}
}

// args are a case's arguments as JSON decoded them.
type args map[string]any

func (a args) f(k string) float64 { return num(a[k]) }
func (a args) i(k string) int     { return int(num(a[k])) }
func (a args) b(k string) bool    { v, _ := a[k].(bool); return v }
func (a args) ints(k string) []int {
	v, _ := a[k].([]any)
	return ints(v)
}

// tolerance is how close a result of dtype d must be: float16 and
// bfloat16 to their precision, float32 a few ulps (a different summation
// order or libm), float64 near exact.
func tolerance(d dtype.DType) (rtol, atol float64) {
	switch d {
	case dtype.Float16:
		return 1e-3, 1e-3
	case dtype.BFloat16:
		return 8e-3, 8e-3
	case dtype.Float32:
		return 2e-5, 2e-6
	case dtype.Float64:
		return 1e-12, 1e-12
	}
	return 0, 0
}

func TestOpsGolden(t *testing.T) {
	b, err := os.ReadFile("../../testdata/ops.json")
	if err != nil {
		t.Fatal(err)
	}
	var g opsGolden
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&g); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, c := range g.Cases {
		counts[c.Op]++
		name := fmt.Sprintf("%s/%d", c.Op, counts[c.Op])
		t.Run(name, func(t *testing.T) {
			run, ok := goldenOps[c.Op]
			if !ok {
				t.Fatalf("no Go call for op %q", c.Op)
			}
			in := make([]*torch.Tensor, len(c.Inputs))
			for i, s := range c.Inputs {
				in[i] = s.build(t)
			}
			outs := run(in, c.Args)
			if c.Error != "" {
				if outs[0].Err() == nil {
					t.Fatalf("PyTorch fails with %q, we do not: %v", c.Error, outs[0])
				}
				return
			}
			for i, want := range c.Outs {
				checkGolden(t, outs[i], want)
			}
			checkMeta(t, c.Op, c.Inputs, c.Args, c.Outs)
		})
	}
}

// dataDependent lists the ops whose output shape depends on the values:
// the meta device refuses them.
var dataDependent = map[string]bool{"masked_select": true, "nonzero": true, "unique": true, "one_hot": true}

// hasMask reports whether one of the inputs is a bool tensor.
func hasMask(inputs []goldenTensor) bool {
	return slices.ContainsFunc(inputs, func(g goldenTensor) bool { return g.DType == "bool" })
}

// checkMeta runs the op on the meta device: the same shapes and dtypes as
// PyTorch's CPU results, or an error for data-dependent shapes.
func checkMeta(t *testing.T, op string, inputs []goldenTensor, a args, want []goldenTensor) {
	t.Helper()
	in := make([]*torch.Tensor, len(inputs))
	for i, s := range inputs {
		in[i] = s.buildOn(t, "meta")
	}
	outs := goldenOps[op](in, a)
	if dataDependent[op] || strings.HasPrefix(op, "index") && op != "index_put" && hasMask(inputs[1:]) {
		if outs[0].Err() == nil {
			t.Fatalf("meta: %s has a data-dependent shape but gave %v", op, outs[0].Shape())
		}
		return
	}
	for i, w := range want {
		got := outs[i]
		if err := got.Err(); err != nil {
			t.Fatalf("meta: %v", err)
		}
		if got.Device().String() != "meta" || !slices.Equal(got.Shape(), w.Shape) || got.DType().String() != "torch."+w.DType {
			t.Fatalf("meta: got %s %s%v, want meta %s%v", got.Device(), got.DType(), got.Shape(), w.DType, w.Shape)
		}
	}
}

// checkGolden compares a result with PyTorch's: shape, dtype, and values
// within the dtype's tolerance (NaN equal to NaN, infinities exact).
func checkGolden(t *testing.T, got *torch.Tensor, want goldenTensor) {
	t.Helper()
	if err := got.Err(); err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if !slices.Equal(got.Shape(), want.Shape) || got.DType().String() != "torch."+want.DType {
		t.Fatalf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType, want.Shape)
	}
	vals, err := torch.ToSlice[float64](got.ToDType(dtype.Float64))
	if err != nil {
		t.Fatal(err)
	}
	rtol, atol := tolerance(got.DType())
	var bad []string
	for i, w := range want.Data {
		wv, gv := num(w), vals[i]
		switch {
		case math.IsNaN(wv) || math.IsNaN(gv):
			if math.IsNaN(wv) != math.IsNaN(gv) {
				bad = append(bad, fmt.Sprintf("[%d] got %v want %v", i, gv, wv))
			}
		case math.IsInf(wv, 0) || math.IsInf(gv, 0):
			if wv != gv {
				bad = append(bad, fmt.Sprintf("[%d] got %v want %v", i, gv, wv))
			}
		case math.Abs(gv-wv) > atol+rtol*math.Abs(wv):
			bad = append(bad, fmt.Sprintf("[%d] got %v want %v", i, gv, wv))
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%d of %d values differ: %s", len(bad), len(want.Data), strings.Join(bad[:min(len(bad), 5)], ", "))
	}
}
