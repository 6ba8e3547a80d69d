package conformance

import (
	"encoding/json"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// coreOps are the ops of testdata/ops.json (scripts/golden/ops.py).
var coreOps = map[string]Func{
	"where": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(torch.Where(in[0], in[1], in[2])) },
	"lerp":  func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(torch.Lerp(in[0], in[1], in[2])) },
	"lerp_scalar": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.LerpScalar(in[0], in[1], a.F("weight")))
	},
	"masked_fill":        func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].MaskedFill(in[1], a.F("value"))) },
	"clamp_tensor":       func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].ClampTensor(in[1], in[2])) },
	"clamp":              func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Clamp(-2, 3)) },
	"add_alpha":          func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].AddAlpha(in[1], a.I("alpha"))) },
	"leaky_relu":         func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].LeakyRelu(0.1)) },
	"elu":                func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Elu(1)) },
	"softplus":           func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Softplus(1, 20)) },
	"hardtanh":           func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Hardtanh(-1.5, 2)) },
	"celu":               func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Celu(0.7)) },
	"round_decimals":     func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].RoundDecimals(1)) },
	"round_decimals_neg": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].RoundDecimals(-1)) },
	"logit_eps":          func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].LogitEps(0.1)) },
	"isclose": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].IsClose(in[1], a.F("rtol"), a.F("atol"), a.B("equal_nan")))
	},
	"nan_to_num": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].NanToNum(0, nil, nil)) },

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
	"norm_p": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].Norm(a.F("p"), a.Ints("dims")...))
	},
	"var_correction": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].VarCorrection(a.F("correction"), false, a.Ints("dims")...))
	},
	"max_dim": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		v, i := in[0].MaxDim(a.I("dim"), a.B("keepdim"))
		return []*torch.Tensor{v, i}
	},
	"min_dim": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		v, i := in[0].MinDim(a.I("dim"), a.B("keepdim"))
		return []*torch.Tensor{v, i}
	},
	"argmax": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		if a["dim"] == nil {
			return One(in[0].Argmax())
		}
		return One(in[0].ArgmaxDim(a.I("dim"), a.B("keepdim")))
	},
	"argmin": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		if a["dim"] == nil {
			return One(in[0].Argmin())
		}
		return One(in[0].ArgminDim(a.I("dim"), a.B("keepdim")))
	},
	"cumsum":      func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Cumsum(a.I("dim"))) },
	"cumprod":     func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Cumprod(a.I("dim"))) },
	"softmax":     func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Softmax(a.I("dim"))) },
	"log_softmax": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].LogSoftmax(a.I("dim"))) },

	// Matrix products.
	"mm":     func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Mm(in[1])) },
	"bmm":    func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Bmm(in[1])) },
	"matmul": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].MatMul(in[1])) },
	"dot":    func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Dot(in[1])) },
	"mv":     func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Mv(in[1])) },
	"outer":  func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Outer(in[1])) },
	"linear": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(torch.Linear(in[0], in[1], in[2])) },
	"addmm": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.Addmm(in[0], in[1], in[2], a.F("beta"), a.F("alpha")))
	},
	"baddbmm": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.Baddbmm(in[0], in[1], in[2], a.F("beta"), a.F("alpha")))
	},

	// Data movement.
	"cat":   func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(torch.Cat(in, a.I("dim"))) },
	"stack": func(in []*torch.Tensor, a Args) []*torch.Tensor { return stackCase(in, a) },
	"flip":  func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Flip(a.Ints("dims")...)) },
	"roll": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].Roll(a.Ints("shifts"), a.Ints("dims")...))
	},
	"repeat": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Repeat(a.Ints("reps")...)) },
	"tile":   func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Tile(a.Ints("reps")...)) },
	"repeat_interleave": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].RepeatInterleave(a.I("repeats"), a.I("dim")))
	},
	"tril":   func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Tril(a.I("diagonal"))) },
	"triu":   func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Triu(a.I("diagonal"))) },
	"diag":   func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Diag(a.I("diagonal"))) },
	"gather": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Gather(a.I("dim"), in[1])) },
	"scatter": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].Scatter(a.I("dim"), in[1], in[2]))
	},
	"scatter_value": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].ScatterValue(a.I("dim"), in[1], a.I("value")))
	},
	"scatter_add": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].ScatterAdd(a.I("dim"), in[1], in[2]))
	},
	"scatter_reduce": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].ScatterReduce(a.I("dim"), in[1], in[2], a["reduce"].(string), a.B("include_self")))
	},
	"index_select": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].IndexSelect(a.I("dim"), in[1]))
	},
	"index_add": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].IndexAdd(a.I("dim"), in[1], in[2], a.I("alpha")))
	},
	"index_put": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		n := a.I("n")
		return One(in[0].IndexPut(in[1:1+n], in[1+n], a.B("accumulate")))
	},
	"masked_select": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].MaskedSelect(in[1])) },
	"nonzero":       func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Nonzero()) },
	"index":         func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Index(in[1])) },
	"index_many":    func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Index(in[1:]...)) },
	"sort": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		v, i := in[0].Sort(a.I("dim"), a.B("descending"))
		return []*torch.Tensor{v, i}
	},
	"argsort": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].Argsort(a.I("dim"), a.B("descending")))
	},
	"topk": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		v, i := in[0].Topk(a.I("k"), a.I("dim"), a.B("largest"))
		return []*torch.Tensor{v, i}
	},
	"unique": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		v, i, c := in[0].Unique()
		return []*torch.Tensor{v, i, c}
	},
	"searchsorted": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.Searchsorted(in[0], in[1], a.B("right")))
	},
	"one_hot":   func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(torch.OneHot(in[0], a.I("num_classes"))) },
	"embedding": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(torch.Embedding(in[0], in[1])) },
}

func init() {
	defer func() {
		for name, f := range coreOps {
			Register(name, f)
		}
	}()
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
		coreOps[name] = func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(f(in[0])) }
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
		coreOps[name] = func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(p.t(in[0], in[1])) }
		coreOps[name+"_scalar"] = func(in []*torch.Tensor, a Args) []*torch.Tensor {
			v := Num(a["value"])
			if !strings.Contains(string(a["value"].(json.Number)), ".") {
				return One(p.s(in[0], int(v)))
			}
			return One(p.s(in[0], v))
		}
	}
}

func stackCase(in []*torch.Tensor, a Args) []*torch.Tensor {
	if len(in[1].Shape()) == 2 && in[1].Shape()[0] != in[0].Shape()[0] {
		in = []*torch.Tensor{in[0], in[1].T()}
	}
	return One(torch.Stack(in, a.I("dim")))
}

// reduce adapts a reduction with and without keepdim to the golden args.
func reduce(f, keep func(*torch.Tensor, ...int) *torch.Tensor) func([]*torch.Tensor, Args) []*torch.Tensor {
	return func(in []*torch.Tensor, a Args) []*torch.Tensor {
		dims := a.Ints("dims")
		if a.B("keepdim") {
			return One(keep(in[0], dims...))
		}
		return One(f(in[0], dims...))
	}
}

func init() {
	reflected := map[string]func(any, *torch.Tensor) *torch.Tensor{
		"rsub": torch.RSub, "rdiv": torch.RDiv, "rfloor_divide": torch.RFloorDivide,
		"rremainder": torch.RRemainder, "rpow": torch.RPow,
	}
	for name, f := range reflected {
		Register(name, func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(f(scalarArg(a["value"]), in[0])) })
	}
}
