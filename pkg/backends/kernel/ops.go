package kernel

// OpID names an op in the registry. The set of ops is closed: it is the
// list below, and a backend registers kernels for some of them.
type OpID uint16

// The ops. Their attributes are documented where pkg/torch builds their
// calls; the names are PyTorch's.
const (
	OpInvalid OpID = iota

	// Creation, copy and fill. Out[0] is given for the in-place ones.
	OpCopy            // copy_: Out[0] <- In[0], broadcasting and casting
	OpFill            // fill_: Out[0] <- Scalars[0]
	OpArange          // arange: Scalars[0] start, Scalars[1] step, Ints[0] length, DType
	OpLinspace        // linspace: Scalars[0] start, Scalars[1] end, Ints[0] steps, DType
	OpUniform         // uniform_: Scalars[0] from, Scalars[1] to, Random
	OpNormal          // normal_: Scalars[0] mean, Scalars[1] std, Random
	OpRandomFromTo    // random_: Scalars[0] low, Scalars[1] high (exclusive), Random
	OpBernoulliScalar // bernoulli_: Scalars[0] p, Random
	OpBernoulliTensor // bernoulli: probabilities In[0], Random

	// Pointwise binary ops: Out[0] = f(In[0], In[1]); In[1] may be absent when
	// Scalars[0] holds the second operand (the Go-scalar forms).
	OpAdd // Scalars[1] alpha
	OpSub // Scalars[1] alpha
	OpMul
	OpDiv // Mode: RoundNone, RoundTrunc, RoundFloor
	OpRemainder
	OpFmod
	OpPow
	OpMaximum
	OpMinimum
	OpAtan2
	OpBitwiseAnd
	OpBitwiseOr
	OpBitwiseXor
	OpLogicalAnd
	OpLogicalOr
	OpLogicalXor
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe

	// Pointwise unary ops: Out[0] = f(In[0]).
	OpNeg
	OpAbs
	OpSign
	OpExp
	OpExp2
	OpExpm1
	OpLog
	OpLog2
	OpLog10
	OpLog1p
	OpSqrt
	OpRsqrt
	OpSquare
	OpReciprocal
	OpSin
	OpCos
	OpTan
	OpAsin
	OpAcos
	OpAtan
	OpSinh
	OpCosh
	OpTanh
	OpSigmoid
	OpRelu
	OpRelu6
	OpLeakyRelu // Scalars[0] negative slope
	OpElu       // Scalars[0] alpha
	OpGelu      // Mode: GeluNone, GeluTanh
	OpSilu
	OpSoftplus // Scalars[0] beta, Scalars[1] threshold
	OpErf
	OpFloor
	OpCeil
	OpRound
	OpTrunc
	OpFrac
	OpClamp // Scalars[0] min, Scalars[1] max; Mode: ClampMin|ClampMax bits
	OpIsNan
	OpIsInf
	OpIsFinite
	OpNanToNum // Scalars[0] nan, Scalars[1] posinf, Scalars[2] neginf
	OpBitwiseNot
	OpLogicalNot

	// Pointwise ternary ops.
	OpWhere       // Out = In[0] ? In[1] : In[2]
	OpClampTensor // Out = min(max(In[0], In[1]), In[2]); Mode says which bounds are present
	OpLerp        // Out = In[0] + In[2]*(In[1]-In[0]), or weight Scalars[0] when In has 2
	OpMaskedFill  // Out = In[1] ? Scalars[0] : In[0]

	// Pointwise gradients.
	OpThresholdBackward // Out = In[1] > Scalars[0] ? In[0] : 0 (relu backward)

	// Reductions over Dims (all dims when empty), with KeepDim.
	OpSum  // DType: the result dtype
	OpMean // DType: the result dtype
	OpProd // DType: the result dtype
	OpAmax
	OpAmin
	OpMaxDim // Dim; Out[0] values, Out[1] int64 indices
	OpMinDim // Dim; Out[0] values, Out[1] int64 indices
	OpArgmax // Dim (Mode 1: over all elements)
	OpArgmin // Dim (Mode 1: over all elements)
	OpVar    // Scalars[0] correction
	OpStd    // Scalars[0] correction
	OpNorm   // Scalars[0] p (2, 1, inf, -inf, 0, or any float)
	OpLogSumExp
	OpAll
	OpAny
	OpCountNonzero
	OpCumsum  // Dim, DType
	OpCumprod // Dim, DType

	OpSoftmax            // Dim, DType
	OpLogSoftmax         // Dim, DType
	OpSoftmaxBackward    // In[0] grad, In[1] output; Dim
	OpLogSoftmaxBackward // In[0] grad, In[1] output; Dim

	// Linear algebra.
	OpMm      // Out = In[0] @ In[1] (2-D)
	OpBmm     // Out = In[0] @ In[1] (3-D, equal batch)
	OpAddmm   // Out = Scalars[0]*In[0] + Scalars[1]*(In[1] @ In[2]) (beta, alpha)
	OpBaddbmm // batched Addmm
	OpDot     // Out = sum(In[0]*In[1]) (1-D)

	// Data movement.
	OpCat           // Dim; any number of inputs
	OpFlip          // Dims
	OpGather        // Dim; In[0] self, In[1] index
	OpScatter       // Dim; In[0] self, In[1] index, In[2] src (or Scalars[0]); Mode: reduce
	OpScatterAdd    // Dim; In[0] self, In[1] index, In[2] src
	OpScatterReduce // Dim; Mode: reduce; KeepDim: include_self
	OpIndexSelect   // Dim; In[0] self, In[1] index
	OpIndexAdd      // Dim; In[0] self, In[1] index, In[2] source; Scalars[0] alpha
	OpMaskedSelect  // In[0] self, In[1] mask
	OpNonzero       // In[0]
	OpSort          // Dim; KeepDim: descending; Mode 1: stable
	OpTopk          // Ints[0] k; Dim; KeepDim: largest; Mode 1: sorted
	OpUnique        // Mode bits: sorted, return_inverse, return_counts
	OpSearchsorted  // In[0] sorted sequence, In[1] values; KeepDim: right; DType: out_int32 or int64

	// NumOps is the number of op IDs.
	NumOps
)

// Rounding modes of OpDiv.
const (
	RoundNone  = iota // true division
	RoundTrunc        // round toward zero
	RoundFloor        // round toward negative infinity
)

// Approximations of OpGelu.
const (
	GeluNone = iota // the exact erf form
	GeluTanh        // the tanh approximation
)

// Which bounds OpClamp and OpClampTensor have (bits of Mode).
const (
	ClampMin = 1 << iota
	ClampMax
)

// Reductions of OpScatter and OpScatterReduce (Mode).
const (
	ReduceNone = iota
	ReduceSum
	ReduceProd
	ReduceMean
	ReduceAmax
	ReduceAmin
)

var opNames = [NumOps]string{
	OpInvalid: "invalid", OpCopy: "copy_", OpFill: "fill_", OpArange: "arange", OpLinspace: "linspace",
	OpUniform: "uniform_", OpNormal: "normal_", OpRandomFromTo: "random_", OpBernoulliScalar: "bernoulli_",
	OpBernoulliTensor: "bernoulli",
	OpAdd:             "add", OpSub: "sub", OpMul: "mul", OpDiv: "div", OpRemainder: "remainder", OpFmod: "fmod",
	OpPow: "pow", OpMaximum: "maximum", OpMinimum: "minimum", OpAtan2: "atan2",
	OpBitwiseAnd: "bitwise_and", OpBitwiseOr: "bitwise_or", OpBitwiseXor: "bitwise_xor",
	OpLogicalAnd: "logical_and", OpLogicalOr: "logical_or", OpLogicalXor: "logical_xor",
	OpEq: "eq", OpNe: "ne", OpLt: "lt", OpLe: "le", OpGt: "gt", OpGe: "ge",
	OpNeg: "neg", OpAbs: "abs", OpSign: "sign", OpExp: "exp", OpExp2: "exp2", OpExpm1: "expm1",
	OpLog: "log", OpLog2: "log2", OpLog10: "log10", OpLog1p: "log1p", OpSqrt: "sqrt", OpRsqrt: "rsqrt",
	OpSquare: "square", OpReciprocal: "reciprocal", OpSin: "sin", OpCos: "cos", OpTan: "tan",
	OpAsin: "asin", OpAcos: "acos", OpAtan: "atan", OpSinh: "sinh", OpCosh: "cosh", OpTanh: "tanh",
	OpSigmoid: "sigmoid", OpRelu: "relu", OpRelu6: "relu6", OpLeakyRelu: "leaky_relu", OpElu: "elu",
	OpGelu: "gelu", OpSilu: "silu", OpSoftplus: "softplus", OpErf: "erf", OpFloor: "floor",
	OpCeil: "ceil", OpRound: "round", OpTrunc: "trunc", OpFrac: "frac", OpClamp: "clamp",
	OpIsNan: "isnan", OpIsInf: "isinf", OpIsFinite: "isfinite", OpNanToNum: "nan_to_num",
	OpBitwiseNot: "bitwise_not", OpLogicalNot: "logical_not",
	OpWhere: "where", OpClampTensor: "clamp", OpLerp: "lerp", OpMaskedFill: "masked_fill",
	OpThresholdBackward: "threshold_backward",
	OpSum:               "sum", OpMean: "mean", OpProd: "prod", OpAmax: "amax", OpAmin: "amin", OpMaxDim: "max",
	OpMinDim: "min", OpArgmax: "argmax", OpArgmin: "argmin", OpVar: "var", OpStd: "std", OpNorm: "norm",
	OpLogSumExp: "logsumexp", OpAll: "all", OpAny: "any", OpCountNonzero: "count_nonzero",
	OpCumsum: "cumsum", OpCumprod: "cumprod",
	OpSoftmax: "softmax", OpLogSoftmax: "log_softmax", OpSoftmaxBackward: "softmax_backward",
	OpLogSoftmaxBackward: "log_softmax_backward",
	OpMm:                 "mm", OpBmm: "bmm", OpAddmm: "addmm", OpBaddbmm: "baddbmm", OpDot: "dot",
	OpCat: "cat", OpFlip: "flip",
	OpGather: "gather", OpScatter: "scatter", OpScatterAdd: "scatter_add",
	OpScatterReduce: "scatter_reduce", OpIndexSelect: "index_select", OpIndexAdd: "index_add",
	OpMaskedSelect: "masked_select", OpNonzero: "nonzero", OpSort: "sort",
	OpTopk: "topk", OpUnique: "unique", OpSearchsorted: "searchsorted",
}

// String is the op's name as PyTorch spells it.
func (op OpID) String() string {
	if op < NumOps && opNames[op] != "" {
		return opNames[op]
	}
	return "op(" + itoa(int(op)) + ")"
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	p := len(b)
	for ; i > 0; i /= 10 {
		p--
		b[p] = byte('0' + i%10)
	}
	return string(b[p:])
}
