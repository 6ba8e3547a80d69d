package torch

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// The derivatives of the pointwise ops, one rule per op, each written with
// tensor ops (so that create_graph differentiates them again). x is the
// input, y the output, s the op's scalars, as the forward call had them.

type unaryRule struct {
	name         string
	usesX, usesY bool
	grad         func(g, x, y *Tensor, s [2]kernel.Scalar, mode int) *Tensor
}

// binaryRule gives the gradients of both tensor inputs, before broadcast
// reduction (the caller sums them to each input's shape).
type binaryRule struct {
	name       string
	scalarName string // the name of the Go-scalar form, when it has no rule of its own
	modeName   string // the name when the call's mode is not 0 (div's rounding modes)
	usesY      bool   // the formula reads the output
	grad       func(g, a, b, y *Tensor, mode int, alpha kernel.Scalar) (ga, gb *Tensor)
}

// nodeName is a rule's grad_fn name for a call's mode.
func nodeName(name, modeName string, mode int) string {
	if mode != 0 && modeName != "" {
		return modeName
	}
	return name
}

// scalarRule is the gradient of the tensor input of an op with a Go scalar
// operand s.
type scalarRule struct {
	name     string
	modeName string // the name when the call's mode is not 0
	usesA    bool   // the formula reads the tensor input
	grad     func(g, a, y *Tensor, s kernel.Scalar, mode int, alpha kernel.Scalar) *Tensor
}

// boolOps are the comparisons and logical ops of two operands (their
// results are bools), with the names of their nodes. They are piecewise
// constant: written in place into a float tensor (eq_, logical_and_, ...)
// they pass a zero gradient and save nothing. PyTorch does so for the
// comparisons; its logical ops in place record nothing and so pass the
// gradient of the value they overwrote.
var boolOps = map[kernel.OpID]string{kernel.OpEq: "Eq", kernel.OpNe: "Ne", kernel.OpLt: "Lt", kernel.OpLe: "Le",
	kernel.OpGt: "Gt", kernel.OpGe: "Ge", kernel.OpLogicalAnd: "LogicalAnd", kernel.OpLogicalOr: "LogicalOr",
	kernel.OpLogicalXor: "LogicalXor"}

var (
	unaryRules  [kernel.NumOps]*unaryRule
	binaryRules [kernel.NumOps]*binaryRule
	scalarRules [kernel.NumOps]*scalarRule
)

func unaryGrad(op kernel.OpID, name string, usesX, usesY bool, f func(g, x, y *Tensor, s [2]kernel.Scalar, mode int) *Tensor) {
	unaryRules[op] = &unaryRule{name, usesX, usesY, f}
}

// zero is the gradient of a piecewise-constant op.
func zero(g, _, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return ZerosLike(g) }

// where0 keeps g where keep holds and puts 0 elsewhere.
func where0(keep, g *Tensor) *Tensor { return g.MaskedFill(keep.LogicalNot(), 0) }

func init() {
	unaryGrad(kernel.OpNeg, "NegBackward0", false, false, func(g, _, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return g.Neg() })
	unaryGrad(kernel.OpAbs, "AbsBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return g.Mul(x.Sign()) })
	unaryGrad(kernel.OpExp, "ExpBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return g.Mul(y) })
	unaryGrad(kernel.OpExp2, "Exp2Backward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(y).MulScalar(math.Ln2)
	})
	unaryGrad(kernel.OpExpm1, "Expm1Backward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(y.AddScalar(1))
	})
	unaryGrad(kernel.OpLog, "LogBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return g.Div(x) })
	unaryGrad(kernel.OpLog2, "Log2Backward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Div(x.MulScalar(math.Ln2))
	})
	unaryGrad(kernel.OpLog10, "Log10Backward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Div(x.MulScalar(math.Ln10))
	})
	unaryGrad(kernel.OpLog1p, "Log1PBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Div(x.AddScalar(1))
	})
	unaryGrad(kernel.OpSqrt, "SqrtBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Div(y.MulScalar(2))
	})
	unaryGrad(kernel.OpRsqrt, "RsqrtBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(y.PowScalar(3)).MulScalar(-0.5)
	})
	unaryGrad(kernel.OpSquare, "PowBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(x).MulScalar(2)
	})
	unaryGrad(kernel.OpReciprocal, "ReciprocalBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(y.Mul(y)).Neg()
	})
	unaryGrad(kernel.OpSin, "SinBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return g.Mul(x.Cos()) })
	unaryGrad(kernel.OpCos, "CosBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(x.Sin()).Neg()
	})
	unaryGrad(kernel.OpTan, "TanBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(y.Mul(y).AddScalar(1))
	})
	unaryGrad(kernel.OpAsin, "AsinBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Div(x.Mul(x).Neg().AddScalar(1).Sqrt())
	})
	unaryGrad(kernel.OpAcos, "AcosBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Div(x.Mul(x).Neg().AddScalar(1).Sqrt()).Neg()
	})
	unaryGrad(kernel.OpAtan, "AtanBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Div(x.Mul(x).AddScalar(1))
	})
	unaryGrad(kernel.OpSinh, "SinhBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return g.Mul(x.Cosh()) })
	unaryGrad(kernel.OpCosh, "CoshBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return g.Mul(x.Sinh()) })
	unaryGrad(kernel.OpTanh, "TanhBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(y.Mul(y).Neg().AddScalar(1))
	})
	unaryGrad(kernel.OpSigmoid, "SigmoidBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(y.Mul(y.Neg().AddScalar(1)))
	})
	unaryGrad(kernel.OpRelu, "ReluBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return ThresholdBackward(g, y, 0)
	})
	unaryGrad(kernel.OpRelu6, "HardtanhBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.MaskedFill(x.LeScalar(0).LogicalOr(x.GeScalar(6)), 0)
	})
	unaryGrad(kernel.OpLeakyRelu, "LeakyReluBackward0", true, false, func(g, x, _ *Tensor, s [2]kernel.Scalar, _ int) *Tensor {
		return Where(x.GtScalar(0), g, g.MulScalar(s[0].Float()))
	})
	unaryGrad(kernel.OpElu, "EluBackward0", true, true, func(g, x, y *Tensor, s [2]kernel.Scalar, _ int) *Tensor {
		return Where(x.GtScalar(0), g, g.Mul(y.AddScalar(s[0].Float())))
	})
	unaryGrad(kernel.OpGelu, "GeluBackward0", true, false, geluGrad)
	unaryGrad(kernel.OpSilu, "SiluBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		sg := x.Sigmoid()
		return g.Mul(sg.Mul(x.Mul(sg.Neg().AddScalar(1)).AddScalar(1)))
	})
	unaryGrad(kernel.OpSoftplus, "SoftplusBackward0", true, false, func(g, x, _ *Tensor, s [2]kernel.Scalar, _ int) *Tensor {
		beta, threshold := s[0].Float(), s[1].Float()
		bx := x.MulScalar(beta)
		return Where(bx.GtScalar(threshold), g, g.Mul(bx.Sigmoid()))
	})
	unaryGrad(kernel.OpErf, "ErfBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(x.Mul(x).Neg().Exp()).MulScalar(2 / math.Sqrt(math.Pi))
	})
	unaryGrad(kernel.OpAsinh, "AsinhBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(x.Mul(x).AddScalar(1).Rsqrt())
	})
	unaryGrad(kernel.OpAcosh, "AcoshBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(x.Mul(x).SubScalar(1).Rsqrt())
	})
	unaryGrad(kernel.OpAtanh, "AtanhBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Div(x.Mul(x).Neg().AddScalar(1))
	})
	unaryGrad(kernel.OpErfc, "ErfcBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(x.Mul(x).Neg().Exp()).MulScalar(-2 / math.Sqrt(math.Pi))
	})
	unaryGrad(kernel.OpErfinv, "ErfinvBackward0", false, true, func(g, _, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(y.Mul(y).Exp()).MulScalar(math.Sqrt(math.Pi) / 2)
	})
	unaryGrad(kernel.OpSinc, "SincBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		px := x.MulScalar(math.Pi)
		d := px.Mul(px.Cos()).Sub(px.Sin()).Div(px.Mul(x))
		return g.Mul(d.MaskedFill(x.EqScalar(0), 0))
	})
	unaryGrad(kernel.OpDeg2rad, "Deg2RadBackward0", false, false, func(g, _, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.MulScalar(math.Pi / 180)
	})
	unaryGrad(kernel.OpRad2deg, "Rad2DegBackward0", false, false, func(g, _, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.MulScalar(180 / math.Pi)
	})
	unaryGrad(kernel.OpLogit, "LogitBackward0", true, false, func(g, x, _ *Tensor, s [2]kernel.Scalar, _ int) *Tensor {
		d := g.Div(x.Mul(x.Neg().AddScalar(1)))
		if eps := s[0].Float(); eps >= 0 {
			d = d.MaskedFill(x.LtScalar(eps).LogicalOr(x.GtScalar(1-eps)), 0)
		}
		return d
	})
	unaryGrad(kernel.OpLogSigmoid, "LogSigmoidBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return g.Mul(x.Neg().Sigmoid())
	})
	unaryGrad(kernel.OpHardswish, "HardswishBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		mid := g.Mul(x.DivScalar(3).AddScalar(0.5))
		return Where(x.LtScalar(-3), ZerosLike(g), Where(x.LeScalar(3), mid, g))
	})
	unaryGrad(kernel.OpHardsigmoid, "HardsigmoidBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		// PyTorch multiplies by 1/6 rounded to float32, in every dtype.
		return where0(x.GtScalar(-3).LogicalAnd(x.LtScalar(3)), g.MulScalar(float64(float32(1.0/6))))
	})
	unaryGrad(kernel.OpHardtanh, "HardtanhBackward0", true, false, func(g, x, _ *Tensor, s [2]kernel.Scalar, _ int) *Tensor {
		return g.MaskedFill(x.LeScalar(s[0].Float()).LogicalOr(x.GeScalar(s[1].Float())), 0)
	})
	unaryGrad(kernel.OpMish, "MishBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		t := x.Softplus(1, 20).Tanh()
		return g.Mul(t.Add(x.Mul(x.Sigmoid()).Mul(t.Mul(t).Neg().AddScalar(1))))
	})
	unaryGrad(kernel.OpSelu, "EluBackward0", true, true, func(g, x, y *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		const alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
		return Where(x.GtScalar(0), g.MulScalar(scale), g.Mul(y.AddScalar(alpha*scale)))
	})
	unaryGrad(kernel.OpCelu, "CeluBackward0", true, false, func(g, x, _ *Tensor, s [2]kernel.Scalar, _ int) *Tensor {
		// PyTorch's formula: elu_backward with input scale 1/alpha, alpha
		// rounded to float32 there (derivatives.yaml's alpha.toFloat()).
		alpha := s[0].Float()
		inv := 1 / float64(float32(alpha))
		return Where(x.GtScalar(0), g, g.Mul(x.MulScalar(inv).Exp()).MulScalar(alpha*inv))
	})
	for _, op := range []struct {
		id   kernel.OpID
		name string
	}{{kernel.OpFloor, "FloorBackward0"}, {kernel.OpCeil, "CeilBackward0"}, {kernel.OpRound, "RoundBackward0"},
		{kernel.OpTrunc, "TruncBackward0"}, {kernel.OpSign, "SignBackward0"}} {
		unaryGrad(op.id, op.name, false, false, zero)
	}
	unaryGrad(kernel.OpFrac, "FracBackward0", false, false, func(g, _, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor { return g })
	unaryGrad(kernel.OpClamp, "ClampBackward1", true, false, func(g, x, _ *Tensor, s [2]kernel.Scalar, mode int) *Tensor {
		keep := OnesLike(x, WithDType(Bool))
		if mode&1 != 0 {
			keep = keep.LogicalAnd(x.GeScalar(s[0].Float()))
		}
		if mode&2 != 0 {
			keep = keep.LogicalAnd(x.LeScalar(s[1].Float()))
		}
		return where0(keep, g)
	})
	unaryGrad(kernel.OpNanToNum, "NanToNumBackward0", true, false, func(g, x, _ *Tensor, _ [2]kernel.Scalar, _ int) *Tensor {
		return where0(x.IsFinite(), g)
	})

	binaryRules[kernel.OpAdd] = &binaryRule{name: "AddBackward0", grad: func(g, _, _, _ *Tensor, _ int, alpha kernel.Scalar) (*Tensor, *Tensor) {
		return g, scaled(g, alpha)
	}}
	binaryRules[kernel.OpSub] = &binaryRule{name: "SubBackward0", grad: func(g, _, _, _ *Tensor, _ int, alpha kernel.Scalar) (*Tensor, *Tensor) {
		return g, scaled(g, alpha).Neg()
	}}
	binaryRules[kernel.OpMul] = &binaryRule{name: "MulBackward0", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return g.Mul(b), g.Mul(a)
	}}
	binaryRules[kernel.OpDiv] = &binaryRule{name: "DivBackward0", modeName: "DivBackward2", grad: func(g, a, b, _ *Tensor, mode int, _ kernel.Scalar) (*Tensor, *Tensor) {
		if mode != kernel.RoundNone {
			return ZerosLike(g), ZerosLike(g)
		}
		return g.Div(b), g.Mul(a).Div(b.Mul(b)).Neg()
	}}
	binaryRules[kernel.OpPow] = &binaryRule{name: "PowBackward1", usesY: true, grad: func(g, a, b, y *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		ga := g.Mul(b).Mul(a.Pow(b.SubScalar(1)))
		ga = ga.MaskedFill(b.EqScalar(0), 0)
		gb := g.Mul(y.Mul(a.Log())).MaskedFill(a.EqScalar(0).LogicalAnd(b.GeScalar(0)), 0)
		return ga, gb
	}}
	binaryRules[kernel.OpMaximum] = &binaryRule{name: "MaximumBackward0", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return extremumGrads(g, a.Gt(b), a.Eq(b))
	}}
	binaryRules[kernel.OpMinimum] = &binaryRule{name: "MinimumBackward0", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return extremumGrads(g, a.Lt(b), a.Eq(b))
	}}
	binaryRules[kernel.OpGeluBackward] = &binaryRule{name: "GeluBackwardBackward0", grad: func(g, a, b, _ *Tensor, mode int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return geluGrad(g, b, nil, [2]kernel.Scalar{}, mode), g.Mul(a).Mul(geluSecond(b, mode))
	}}
	binaryRules[kernel.OpAtan2] = &binaryRule{name: "Atan2Backward0", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		den := a.Mul(a).Add(b.Mul(b))
		return g.Mul(b).Div(den), g.Mul(a).Div(den).Neg()
	}}
	binaryRules[kernel.OpHypot] = &binaryRule{name: "HypotBackward0", usesY: true, grad: func(g, a, b, y *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return g.Mul(a).Div(y), g.Mul(b).Div(y)
	}}
	binaryRules[kernel.OpCopysign] = &binaryRule{name: "CopysignBackward0", scalarName: "CopysignBackward1", usesY: true, grad: func(g, a, _, y *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return g.Mul(y.Div(a).MaskedFill(a.EqScalar(0), 0)), ZerosLike(g)
	}}
	binaryRules[kernel.OpFmax] = &binaryRule{name: "FmaxBackward0", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		first := a.Ge(b).LogicalOr(b.IsNan())
		return where0(first, g), g.MaskedFill(first, 0)
	}}
	binaryRules[kernel.OpFmin] = &binaryRule{name: "FminBackward0", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		first := a.Le(b).LogicalOr(b.IsNan())
		return where0(first, g), g.MaskedFill(first, 0)
	}}
	binaryRules[kernel.OpXlogy] = &binaryRule{name: "XlogyBackward0", scalarName: "XlogyBackward2", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return g.Mul(a.NeScalar(0).ToDType(g.DType()).Xlogy(b)), g.Mul(a).Div(b)
	}}
	binaryRules[kernel.OpLogaddexp] = &binaryRule{name: "LogaddexpBackward0", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return g.Div(b.Sub(a).Exp().AddScalar(1)), g.Div(a.Sub(b).Exp().AddScalar(1))
	}}
	binaryRules[kernel.OpFmod] = &binaryRule{name: "FmodBackward1", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return g, g.Mul(a.DivTrunc(b)).Neg()
	}}
	binaryRules[kernel.OpRemainder] = &binaryRule{name: "RemainderBackward1", grad: func(g, a, b, _ *Tensor, _ int, _ kernel.Scalar) (*Tensor, *Tensor) {
		return g, g.Mul(a.DivFloor(b)).Neg()
	}}

	scalarRules[kernel.OpAdd] = &scalarRule{name: "AddBackward0", grad: func(g, _, _ *Tensor, _ kernel.Scalar, _ int, _ kernel.Scalar) *Tensor { return g }}
	scalarRules[kernel.OpSub] = &scalarRule{name: "SubBackward0", grad: func(g, _, _ *Tensor, _ kernel.Scalar, _ int, _ kernel.Scalar) *Tensor { return g }}
	scalarRules[kernel.OpMul] = &scalarRule{name: "MulBackward0", grad: func(g, _, _ *Tensor, s kernel.Scalar, _ int, _ kernel.Scalar) *Tensor {
		return g.MulScalar(s.Float())
	}}
	scalarRules[kernel.OpDiv] = &scalarRule{name: "DivBackward0", modeName: "DivBackward2", grad: func(g, _, _ *Tensor, s kernel.Scalar, mode int, _ kernel.Scalar) *Tensor {
		if mode != kernel.RoundNone {
			return ZerosLike(g)
		}
		return g.DivScalar(s.Float())
	}}
	scalarRules[kernel.OpPow] = &scalarRule{name: "PowBackward0", usesA: true, grad: func(g, a, _ *Tensor, s kernel.Scalar, _ int, _ kernel.Scalar) *Tensor {
		e := s.Float()
		if e == 0 {
			return ZerosLike(g)
		}
		return g.Mul(a.PowScalar(e - 1)).MulScalar(e)
	}}
	scalarRules[kernel.OpMaximum] = &scalarRule{name: "MaximumBackward0", usesA: true, grad: func(g, a, _ *Tensor, s kernel.Scalar, _ int, _ kernel.Scalar) *Tensor {
		ga, _ := extremumGrads(g, a.GtScalar(s.Float()), a.EqScalar(s.Float()))
		return ga
	}}
	scalarRules[kernel.OpMinimum] = &scalarRule{name: "MinimumBackward0", usesA: true, grad: func(g, a, _ *Tensor, s kernel.Scalar, _ int, _ kernel.Scalar) *Tensor {
		ga, _ := extremumGrads(g, a.LtScalar(s.Float()), a.EqScalar(s.Float()))
		return ga
	}}
	scalarRules[kernel.OpFmod] = &scalarRule{name: "FmodBackward0", grad: func(g, _, _ *Tensor, _ kernel.Scalar, _ int, _ kernel.Scalar) *Tensor { return g }}
	scalarRules[kernel.OpRemainder] = &scalarRule{name: "RemainderBackward0", grad: func(g, _, _ *Tensor, _ kernel.Scalar, _ int, _ kernel.Scalar) *Tensor {
		return g
	}}
	scalarRules[kernel.OpAtan2] = &scalarRule{name: "Atan2Backward0", usesA: true, grad: func(g, a, _ *Tensor, s kernel.Scalar, _ int, _ kernel.Scalar) *Tensor {
		b := s.Float()
		return g.MulScalar(b).Div(a.Mul(a).AddScalar(b * b))
	}}
}

// scaled is g*alpha, or g itself when alpha is 1.
func scaled(g *Tensor, alpha kernel.Scalar) *Tensor {
	if a := alpha.Float(); a != 1 {
		return g.MulScalar(a)
	}
	return g
}

// extremumGrads splits g between the two inputs of maximum or minimum: all
// of it to the winner, half to each on ties, as PyTorch.
func extremumGrads(g, firstWins, tie *Tensor) (*Tensor, *Tensor) {
	half := g.MulScalar(0.5)
	ga := Where(firstWins, g, Where(tie, half, ZerosLike(g)))
	gb := Where(firstWins, ZerosLike(g), Where(tie, half, g))
	return ga, gb
}

// geluGrad is the derivative of gelu, exact (the normal CDF) or its tanh
// approximation: one fused op, PyTorch's gelu_backward.
func geluGrad(g, x, _ *Tensor, _ [2]kernel.Scalar, mode int) *Tensor {
	return binary(kernel.OpGeluBackward, g, x, mode, kernel.Scalar{})
}

// geluSecond is gelu's second derivative: exact, phi(x) (2 - x^2); of the
// tanh approximation 0.5 x (1 + t), t = tanh(u), u = k (x + a x^3),
// (1 - t^2) (du + 0.5 x (ddu - 2 t du^2)) with du, ddu the first two
// derivatives of u.
func geluSecond(x *Tensor, mode int) *Tensor {
	if mode == kernel.GeluTanh {
		k, a := math.Sqrt(2/math.Pi), 0.044715
		x2 := x.Mul(x)
		t := x.Add(x2.Mul(x).MulScalar(a)).MulScalar(k).Tanh()
		du := x2.MulScalar(3 * a).AddScalar(1).MulScalar(k)
		ddu := x.MulScalar(6 * a * k)
		inner := du.Add(x.MulScalar(0.5).Mul(ddu.Sub(t.Mul(du).Mul(du).MulScalar(2))))
		return t.Mul(t).Neg().AddScalar(1).Mul(inner)
	}
	pdf := x.Mul(x).MulScalar(-0.5).Exp().MulScalar(1 / math.Sqrt(2*math.Pi))
	return pdf.Mul(x.Mul(x).Neg().AddScalar(2))
}

// fitGrad brings an input's gradient to the input's shape and dtype.
func fitGrad(g, in *Tensor) *Tensor { return fitTo(g, in.shape, in.dtype) }

// fitTo is fitGrad for an input of the given shape and dtype.
func fitTo(g *Tensor, shape []int, dt DType) *Tensor {
	g = sumTo(g, shape)
	if g.err == nil && g.dtype != dt {
		g = g.ToDType(dt)
	}
	return g
}

// recordUnary records a one-input pointwise op.
func recordUnary(op kernel.OpID, x, y *Tensor, mode int, s [2]kernel.Scalar) {
	r := unaryRules[op]
	if r == nil {
		y.setGradFn(op.String()+"Backward", []*Tensor{x}, notDifferentiable(op))
		return
	}
	var sx, sy saved
	if r.usesX {
		sx = save(x)
	}
	if r.usesY {
		sy = saveOutput(y)
	}
	y.setGradFn(r.name, []*Tensor{x}, func(g *Tensor, _ []bool, create bool) []*Tensor {
		var xv, yv *Tensor
		if r.usesX {
			xv = sx.get(create, r.name)
		}
		if r.usesY {
			yv = sy.get(create, r.name)
		}
		return []*Tensor{fitGrad(r.grad(g, xv, yv, s, mode), x)}
	})
}

// recordBinary records a two-tensor pointwise op.
func recordBinary(op kernel.OpID, a, b, y *Tensor, mode int, alpha kernel.Scalar) {
	if name := boolOps[op]; name != "" {
		y.setGradFn(name+"Backward1", []*Tensor{a, b}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
			return []*Tensor{fitGrad(ZerosLike(g), a), fitGrad(ZerosLike(g), b)}
		})
		return
	}
	r := binaryRules[op]
	if r == nil {
		y.setGradFn(op.String()+"Backward", []*Tensor{a, b}, notDifferentiable(op))
		return
	}
	if op == kernel.OpAdd || op == kernel.OpSub { // nothing saved, no closure
		if o := y.newNode(r.name, []*Tensor{a, b}); o != nil {
			o.kind, o.linear, o.alpha = linearNode, r, alpha
			o.keepInput(0, a, y)
			o.keepInput(1, b, y)
		}
		return
	}
	// Save only what the derivative reads, as PyTorch: an in-place write
	// into an input the derivative does not read is then no error.
	sa, sb := save(a), save(b)
	var sy saved
	if r.usesY {
		sy = saveOutput(y)
	}
	name := nodeName(r.name, r.modeName, mode)
	y.setGradFn(name, []*Tensor{a, b}, func(g *Tensor, _ []bool, create bool) []*Tensor {
		ga, gb := r.grad(g, sa.get(create, name), sb.get(create, name), sy.get(create, name), mode, alpha)
		return []*Tensor{fitGrad(ga, a), fitGrad(gb, b)}
	})
}

// recordScalar records a tensor-and-Go-scalar pointwise op.
func recordScalar(op kernel.OpID, a, y *Tensor, s kernel.Scalar, mode int, alpha kernel.Scalar) {
	if name := boolOps[op]; name != "" {
		y.setGradFn(name+"Backward0", []*Tensor{a}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
			return []*Tensor{fitGrad(ZerosLike(g), a)}
		})
		return
	}
	r := scalarRules[op]
	if r == nil && binaryRules[op] != nil {
		recordScalarByBinary(op, a, y, s, mode, alpha)
		return
	}
	if r == nil {
		y.setGradFn(op.String()+"Backward", []*Tensor{a}, notDifferentiable(op))
		return
	}
	var sa saved
	if r.usesA {
		sa = save(a)
	}
	name := nodeName(r.name, r.modeName, mode)
	y.setGradFn(name, []*Tensor{a}, func(g *Tensor, _ []bool, create bool) []*Tensor {
		return []*Tensor{fitGrad(r.grad(g, sa.get(create, name), nil, s, mode, alpha), a)}
	})
}

// recordScalarByBinary records a Go-scalar form that has no rule of its
// own with the two-tensor rule, the scalar standing as a 0-dim tensor of
// a's dtype (as PyTorch wraps a Python number for ops such as hypot).
func recordScalarByBinary(op kernel.OpID, a, y *Tensor, s kernel.Scalar, mode int, alpha kernel.Scalar) {
	r := binaryRules[op]
	sa := save(a)
	var sy saved
	if r.usesY {
		sy = saveOutput(y)
	}
	name := nodeName(r.name, r.modeName, mode)
	if r.scalarName != "" {
		name = r.scalarName
	}
	y.setGradFn(name, []*Tensor{a}, func(g *Tensor, _ []bool, create bool) []*Tensor {
		av := sa.get(create, name)
		b := Scalar(s.Float(), WithDType(av.dtype))
		ga, _ := r.grad(g, av, b, sy.get(create, name), mode, alpha)
		return []*Tensor{fitGrad(ga, a)}
	})
}

// notDifferentiable is the backward of an op without a derivative.
func notDifferentiable(op kernel.OpID) backwardFn {
	return func(g *Tensor, need []bool, _ bool) []*Tensor {
		return []*Tensor{failed(kernel.Errorf(ErrNotImplemented, "the derivative for '%s' is not implemented", op))}
	}
}
