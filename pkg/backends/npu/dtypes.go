package npu

import (
	"os"
	"strconv"
	"strings"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// The ACLNN ops take only some dtypes, per op and per chip; a call with
// another one fails with 161002 (ACLNN_ERR_PARAM_INVALID). opRules is the
// one table of what each op the shim calls takes, written from the op's
// dtype lists in its op_api source (docs/npu-ops.md gives the sources).
// launch checks every call against it first and declines (ErrNotImplemented)
// a call the op would refuse, so that the dispatcher runs the op by its
// decomposition or on the host instead. The emulator refuses exactly what the
// table refuses: it includes csrc/testing/acl_dtypes.h, written from this
// table (TestDTypeHeaderIsCurrent fails when the two differ).
//
//go:generate env MINDTORCH_NPU_REAL=1 MINDTORCH_WRITE_DTYPE_HEADER=1 go test -run TestDTypeHeaderIsCurrent .

// dset is a set of dtypes, a bit per ACL dtype number.
type dset uint64

// The ACL numbers of the dtypes (aclDType) as sets.
const (
	f32  dset = 1 << 0
	f16  dset = 1 << 1
	i8   dset = 1 << 2
	i32  dset = 1 << 3
	u8   dset = 1 << 4
	i16  dset = 1 << 6
	i64  dset = 1 << 9
	f64  dset = 1 << 11
	bl   dset = 1 << 12
	bf16 dset = 1 << 27

	anyDType = f32 | f16 | i8 | i32 | u8 | i16 | i64 | f64 | bl | bf16
	floating = f32 | f16 | f64 | bf16
)

// has reports whether the ACL dtype number dt is in s.
func (s dset) has(dt int32) bool { return dt >= 0 && dt < 64 && s&(1<<uint(dt)) != 0 }

// chip is a family of SoCs with one set of dtype rules.
type chip int

const (
	// chipA2 is Atlas A2 and A3 (Ascend910B*, Ascend910_93*) and later.
	chipA2 chip = iota
	// chipA1 is Atlas training (the first Ascend910s) and Atlas inference
	// (Ascend310P*): no bfloat16, no float32 matmul kept in float32.
	chipA1
)

// chipOf is the family of the SoC aclrtGetSocName names. torch_npu's
// SocVersion orders the first Ascend910s (Ascend910A, Ascend910ProA,
// Ascend910PremiumA, Ascend910ProB, Ascend910B) and Ascend310P* before
// Ascend910B1 (Ascend/pytorch torch_npu/csrc/core/npu/NpuVariables.cpp); the
// rest, and an unknown name, are Atlas A2 or later. The emulator's soc_class
// (csrc/testing/acl_emulator.c) is the same function.
func chipOf(soc string) chip {
	switch {
	case strings.HasPrefix(soc, "Ascend310P"):
		return chipA1
	case soc == "Ascend910", soc == "Ascend910A", soc == "Ascend910ProA", soc == "Ascend910PremiumA",
		soc == "Ascend910ProB", soc == "Ascend910B":
		return chipA1
	}
	return chipA2
}

// opRule is what one ACLNN op takes: the dtypes of each tensor in the
// shim's order (the output first) on Atlas A2/A3, whether all its tensors
// must have one dtype, and the most dims. On Atlas training and inference
// chips bfloat16 is refused everywhere.
type opRule struct {
	name    string
	tensors []dset
	same    bool
	maxDims int
	// ---- nn and indexing ops ----
	like uint64 // bit i: tensor i must have tensor 0's dtype (OP_CHECK_DTYPE_NOT_MATCH against one tensor)
}

// ruleTensors is the most tensors a rule describes (acl_dtypes.h's array);
// a list op's inputs past the last take the last one's dtypes.
const ruleTensors = 10

// allows reports whether tensor i may have ACL dtype dt on chip c.
func (r *opRule) allows(i int, dt int32, c chip) bool {
	s := r.tensorSet(i)
	if c == chipA1 {
		s &^= bf16
	}
	return s.has(dt)
}

// Dtype sets shared by several ops. Each op's source is in docs/npu-ops.md.
const (
	negDTypes     = i8 | i32 | i64 | f16 | f32 | f64 | bf16
	expIn         = f32 | f16 | f64 | bl | i64 | bf16
	reluDTypes    = f32 | f16 | i8 | u8 | i32 | i64 | bf16
	tanhDTypes    = anyDType &^ f64
	thresholdDTs  = f32 | i32 | f16 | i8 | u8 | bf16
	softmaxDTypes = f32 | f16 | f64 | bf16
	cubeDTypes    = f32 | f16 | bf16
	geluDTypes    = f32 | f16 | bf16
	noBool        = anyDType &^ bl
)

func rule(name string, tensors ...dset) opRule {
	return opRule{name: name, tensors: tensors, maxDims: 8}
}

// sameRule is rule for an op whose tensors must all have one dtype
// (OP_CHECK_DTYPE_NOT_MATCH in its source).
func sameRule(name string, tensors ...dset) opRule {
	r := rule(name, tensors...)
	r.same = true
	return r
}

// opRules is indexed by the shim's op number.
var opRules = [npushim.NumOps]opRule{
	npushim.Add:                rule("aclnnAdd", anyDType, anyDType, anyDType),
	npushim.Sub:                rule("aclnnSub", anyDType, anyDType, anyDType),
	npushim.Mul:                rule("aclnnMul", anyDType, anyDType, anyDType),
	npushim.Div:                rule("aclnnDiv", anyDType, anyDType, anyDType),
	npushim.Maximum:            rule("aclnnMaximum", anyDType, anyDType, anyDType),
	npushim.Minimum:            rule("aclnnMinimum", anyDType, anyDType, anyDType),
	npushim.Adds:               rule("aclnnAdds", anyDType, anyDType),
	npushim.Muls:               rule("aclnnMuls", anyDType, anyDType),
	npushim.Neg:                rule("aclnnNeg", anyDType, negDTypes),
	npushim.Exp:                rule("aclnnExp", floating, expIn),
	npushim.Log:                rule("aclnnLog", floating, anyDType),
	npushim.Sqrt:               rule("aclnnSqrt", floating, anyDType),
	npushim.Abs:                sameRule("aclnnAbs", anyDType, anyDType),
	npushim.Relu:               sameRule("aclnnRelu", reluDTypes, reluDTypes),
	npushim.Sigmoid:            rule("aclnnSigmoid", floating, anyDType),
	npushim.Tanh:               rule("aclnnTanh", f32|f16|bf16, tanhDTypes),
	npushim.ThresholdBackward:  sameRule("aclnnThresholdBackward", thresholdDTs, thresholdDTs, thresholdDTs),
	npushim.Softmax:            rule("aclnnSoftmax", softmaxDTypes, softmaxDTypes),
	npushim.LogSoftmax:         rule("aclnnLogSoftmax", softmaxDTypes, softmaxDTypes),
	npushim.SoftmaxBackward:    rule("aclnnSoftmaxBackward", softmaxDTypes, softmaxDTypes, softmaxDTypes),
	npushim.LogSoftmaxBackward: rule("aclnnLogSoftmaxBackward", softmaxDTypes, softmaxDTypes, softmaxDTypes),
	npushim.ReduceSum:          rule("aclnnReduceSum", anyDType, anyDType),
	npushim.Mean:               rule("aclnnMean", noBool, noBool),
	npushim.Amax:               sameRule("aclnnAmax", anyDType, anyDType),
	npushim.Matmul:             {name: "aclnnMatmul", tensors: []dset{cubeDTypes, cubeDTypes, cubeDTypes}, maxDims: 6},
	npushim.Cast:               rule("aclnnCast", anyDType, anyDType),
	npushim.Copy:               rule("aclnnInplaceCopy", anyDType, anyDType),
	npushim.Fill:               rule("aclnnInplaceFillScalar", anyDType),
	npushim.Zero:               rule("aclnnInplaceZero", anyDType),
	npushim.Gelu:               sameRule("aclnnGelu", geluDTypes, geluDTypes),
	npushim.GeluV2:             sameRule("aclnnGeluV2", geluDTypes, geluDTypes),
	npushim.ArgMax:             rule("aclnnArgMax", i32|i64, noBool),
	npushim.Eq:                 rule("aclnnEqTensor", anyDType, anyDType, anyDType),
	npushim.Ne:                 rule("aclnnNeTensor", anyDType, anyDType, anyDType),
	npushim.Lt:                 rule("aclnnLtTensor", anyDType, anyDType, anyDType),
	npushim.Le:                 rule("aclnnLeTensor", anyDType, anyDType, anyDType),
	npushim.Gt:                 rule("aclnnGtTensor", anyDType, anyDType, anyDType),
	npushim.Ge:                 rule("aclnnGeTensor", anyDType, anyDType, anyDType),
	npushim.EqScalar:           rule("aclnnEqScalar", anyDType, anyDType),
	npushim.NeScalar:           rule("aclnnNeScalar", anyDType, anyDType),
	npushim.LtScalar:           rule("aclnnLtScalar", anyDType, anyDType),
	npushim.LeScalar:           rule("aclnnLeScalar", anyDType, anyDType),
	npushim.GtScalar:           rule("aclnnGtScalar", anyDType, anyDType),
	npushim.GeScalar:           rule("aclnnGeScalar", anyDType, anyDType),
	npushim.Where:              rule("aclnnSWhere", anyDType, bl|u8, anyDType, anyDType),
	npushim.Clamp:              rule("aclnnClamp", noBool, noBool),
	npushim.Pow:                rule("aclnnPowTensorTensor", noBool, noBool, noBool),
	npushim.PowScalar:          rule("aclnnPowTensorScalar", noBool, noBool),
	// ---- pointwise math ops ----
	// Sources (hicann/ops-math M:, hicann/ops-nn N:) per row in docs/npu-ops.md; the sets are in kernels_pointwise.go.
	npushim.Sin:         rule("aclnnSin", floating, anyDType),
	npushim.Cos:         rule("aclnnCos", floating, anyDType),
	npushim.Tan:         rule("aclnnTan", floating, anyDType),
	npushim.Asin:        rule("aclnnAsin", floating, anyDType),
	npushim.Acos:        rule("aclnnAcos", floating, anyDType),
	npushim.Atan:        rule("aclnnAtan", floating, anyDType),
	npushim.Asinh:       rule("aclnnAsinh", floating, anyDType),
	npushim.Acosh:       rule("aclnnAcosh", floating, anyDType),
	npushim.Atanh:       rule("aclnnAtanh", floating, anyDType),
	npushim.Sinh:        rule("aclnnSinh", floating, anyDType),
	npushim.Cosh:        rule("aclnnCosh", floating, anyDType),
	npushim.Erf:         rule("aclnnErf", floating, expIn),
	npushim.Erfc:        rule("aclnnErfc", floating, expIn),
	npushim.Erfinv:      rule("aclnnErfinv", floating, anyDType&^f64),
	npushim.Exp2:        rule("aclnnExp2", floating, anyDType),
	npushim.Expm1:       rule("aclnnExpm1", floating, expm1In),
	npushim.Log2:        rule("aclnnLog2", floating, anyDType),
	npushim.Log10:       rule("aclnnLog10", floating, anyDType),
	npushim.Log1p:       rule("aclnnLog1p", floating, anyDType),
	npushim.Rsqrt:       rule("aclnnRsqrt", floating, anyDType),
	npushim.Reciprocal:  rule("aclnnReciprocal", floating, anyDType),
	npushim.Sinc:        rule("aclnnSinc", floating, anyDType),
	npushim.Sign:        sameRule("aclnnSign", signDTypes, signDTypes),
	npushim.Floor:       sameRule("aclnnFloor", floorDTypes, floorDTypes),
	npushim.Ceil:        sameRule("aclnnCeil", floating, floating),
	npushim.Round:       sameRule("aclnnRound", roundDTypes, roundDTypes),
	npushim.Trunc:       sameRule("aclnnTrunc", actDTypes, actDTypes),
	npushim.Frac:        sameRule("aclnnFrac", fracDTypes, fracDTypes),
	npushim.IsInf:       rule("aclnnIsInf", bl, actDTypes),
	npushim.IsFinite:    rule("aclnnIsFinite", bl, anyDType),
	npushim.IsPosInf:    rule("aclnnIsPosInf", bl, anyDType&^f64),
	npushim.IsNegInf:    rule("aclnnIsNegInf", bl, anyDType&^f64),
	npushim.Signbit:     rule("aclnnSignbit", anyDType, anyDType),
	npushim.BitwiseNot:  sameRule("aclnnBitwiseNot", intOrBool, intOrBool),
	npushim.LogicalNot:  rule("aclnnLogicalNot", anyDType, anyDType),
	npushim.Silu:        sameRule("aclnnSilu", actDTypes, actDTypes),
	npushim.LogSigmoid:  sameRule("aclnnLogSigmoid", actDTypes, actDTypes),
	npushim.Hardswish:   rule("aclnnHardswish", actDTypes, actDTypes),
	npushim.Hardsigmoid: sameRule("aclnnHardsigmoid", actDTypes|i32, actDTypes|i32),
	npushim.Mish:        sameRule("aclnnMish", actDTypes, actDTypes),
	npushim.Selu:        rule("aclnnSelu", actDTypes|i32|i8, actDTypes|i32|i8),
	npushim.LeakyRelu:   rule("aclnnLeakyRelu", floating, floating),
	npushim.Celu:        rule("aclnnCelu", floating, actDTypes),
	npushim.Elu:         rule("aclnnElu", floating, floating),
	npushim.Softplus:    rule("aclnnSoftplus", floating, actDTypes),
	npushim.Hardtanh:    sameRule("aclnnHardtanh", noBool, noBool),
	npushim.Logit:       sameRule("aclnnLogit", actDTypes, actDTypes),
	npushim.NanToNum:    sameRule("aclnnNanToNum", anyDType&^f64, anyDType&^f64),
	npushim.Remainder:   rule("aclnnRemainderTensorTensor", remainderDTypes, anyDType, anyDType),
	npushim.Fmod:        rule("aclnnFmodTensor", fmodDTypes, fmodDTypes, fmodDTypes),
	npushim.Atan2:       rule("aclnnAtan2", floating, anyDType, anyDType),
	npushim.LogAddExp:   rule("aclnnLogAddExp", actDTypes, anyDType, anyDType),
	npushim.BitwiseAnd:  rule("aclnnBitwiseAndTensor", anyDType, intOrBool, intOrBool),
	npushim.BitwiseOr:   rule("aclnnBitwiseOrTensor", anyDType, intOrBool, intOrBool),
	npushim.BitwiseXor:  rule("aclnnBitwiseXorTensor", anyDType, intOrBool, intOrBool),
	npushim.LogicalAnd:  rule("aclnnLogicalAnd", anyDType, anyDType, anyDType),
	npushim.LogicalOr:   rule("aclnnLogicalOr", anyDType, anyDType, anyDType),
	npushim.LogicalXor:  rule("aclnnLogicalXor", anyDType, anyDType, anyDType),
	npushim.ClampTensor: rule("aclnnClampTensor", noBool, noBool, anyDType, anyDType),
	npushim.Lerp:        sameRule("aclnnLerp", actDTypes, actDTypes, actDTypes, actDTypes),
	npushim.Lerps:       rule("aclnnLerps", floating, actDTypes, actDTypes),
	npushim.All:         rule("aclnnAll", u8|bl, anyDType),
	npushim.Any:         rule("aclnnAny", u8|bl, anyDType),
	npushim.LogSumExp:   rule("aclnnLogSumExp", actDTypes, anyDType&^f64),
	npushim.Var:         rule("aclnnVarCorrection", actDTypes, actDTypes),
	npushim.Std:         rule("aclnnStd", actDTypes, actDTypes),
	// ---- nn and indexing ops ----
	npushim.IndexSelect:         likeRule("aclnnIndexSelect", 1<<1, anyDType, anyDType, indexDTypes),
	npushim.Gather:              likeRule("aclnnGather", 1<<1, anyDType, anyDType, indexDTypes),
	npushim.Scatter:             likeRule("aclnnScatter", 1<<1|1<<3, anyDType, anyDType, indexDTypes, anyDType),
	npushim.ScatterValue:        likeRule("aclnnScatterValue", 1<<1, anyDType, anyDType, indexDTypes),
	npushim.ScatterAdd:          likeRule("aclnnScatterAdd", 1<<1|1<<3, anyDType, anyDType, indexDTypes, anyDType),
	npushim.IndexAdd:            likeRule("aclnnIndexAdd", 1<<1|1<<3, anyDType, anyDType, indexDTypes, anyDType),
	npushim.MaskedFill:          rule("aclnnInplaceMaskedFillScalar", maskedFillDTypes, bl),
	npushim.Cumsum:              rule("aclnnCumsum", cumsumDTypes, anyDType),
	npushim.ArgMin:              rule("aclnnArgMin", i32|i64, noBool),
	npushim.Amin:                sameRule("aclnnAmin", anyDType, anyDType),
	npushim.MaxDim:              likeRule("aclnnMaxDim", 1<<2, withValueDTypes, indexDTypes, withValueDTypes),
	npushim.MinDim:              likeRule("aclnnMinDim", 1<<2, withValueDTypes, indexDTypes, withValueDTypes),
	npushim.Prod:                rule("aclnnProd", anyDType, anyDType),
	npushim.ProdDim:             rule("aclnnProdDim", anyDType, anyDType),
	npushim.Sort:                rule("aclnnSort", anyDType, i64, anyDType&^f64),
	npushim.Topk:                likeRule("aclnnTopk", 1<<2, noBool, i64, noBool),
	npushim.Cat:                 rule("aclnnCat", anyDType, anyDType),
	npushim.Flip:                sameRule("aclnnFlip", anyDType, anyDType),
	npushim.BatchNorm:           rule("aclnnBatchNorm", nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat),
	npushim.BatchNormBackward:   rule("aclnnBatchNormBackward", nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat),
	npushim.Convolution:         rule("aclnnConvolution", nnFloat, nnFloat, nnFloat, nnFloat),
	npushim.ConvolutionBackward: rule("aclnnConvolutionBackward", nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat),
	// ---- more ops ----
	// Sources per row in docs/npu-ops.md ("More ops"); the sets are in kernels_more.go.
	npushim.Dot:          sameRule("aclnnDot", dotDTypes, dotDTypes, dotDTypes),
	npushim.Cumprod:      rule("aclnnCumprod", cumprodDTypes, cumprodDTypes),
	npushim.SearchSorted: likeRule("aclnnSearchSorted", 0, i32|i64, searchDTypes, searchDTypes),
	npushim.Nonzero:      rule("aclnnNonzero", i64, anyDType),
	npushim.MaskedSelect: rule("aclnnMaskedSelect", anyDType, anyDType, bl|u8),
	// ---- norm ops ----
	// Sources per row in docs/npu-ops.md ("Norm ops"); the rules beyond dtypes are in kernels_norm.go.
	npushim.LayerNorm:         rule("aclnnLayerNorm", nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat),
	npushim.LayerNormBackward: rule("aclnnLayerNormBackward", nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat),
	npushim.GroupNorm:         sameRule("aclnnGroupNorm", nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat),
	npushim.GroupNormBackward: rule("aclnnGroupNormBackward", nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat, nnFloat),
	// ---- pool ops ----
	// Sources per row in docs/npu-ops.md ("Pool ops"); the set is in kernels_pool.go.
	npushim.AvgPool2d:                 sameRule("aclnnAvgPool2d", poolDTypes, poolDTypes),
	npushim.AvgPool2dBackward:         likeRule("aclnnAvgPool2dBackward", 1<<1, poolDTypes, poolDTypes, poolDTypes),
	npushim.AdaptiveAvgPool2d:         sameRule("aclnnAdaptiveAvgPool2d", poolDTypes, poolDTypes),
	npushim.AdaptiveAvgPool2dBackward: sameRule("aclnnAdaptiveAvgPool2dBackward", poolDTypes, poolDTypes, poolDTypes),
	// ---- creation ops ---- (CANN's dtypes; the native route takes fewer: kernels_creation.go)
	npushim.Arange:   rule("aclnnArange", arangeOut),
	npushim.Linspace: rule("aclnnLinspace", linspaceOut),
	// ---- svd ---- (kernels_svd.go; docs/npu-ops.md, "SVD")
	npushim.Svd: sameRule("aclnnSvd", svdDTypes, svdDTypes, svdDTypes, svdDTypes),
	// ---- random ops ---- (CANN's dtypes; the native route takes fewer: kernels_random.go)
	npushim.InplaceUniform:   rule("aclnnInplaceUniform", uniformDTypes),
	npushim.InplaceNormal:    rule("aclnnInplaceNormal", floating),
	npushim.InplaceRandom:    rule("aclnnInplaceRandom", anyDType),
	npushim.InplaceBernoulli: rule("aclnnInplaceBernoulli", anyDType),
	npushim.BernoulliTensor:  likeRule("aclnnBernoulliTensor", 1<<1, floating, floating, bernoulliProb),
}

// ---- nn and indexing ops ----

// Dtype sets of the nn and indexing ops (sources in docs/npu-ops.md).
const (
	indexDTypes      = i32 | i64
	maskedFillDTypes = f32 | i32 | i64 | f16 | i8 | bl | bf16
	cumsumDTypes     = anyDType &^ bl
	withValueDTypes  = f32 | f16 | i64 | bl | bf16 // ArgMaxWithValue, ArgMinWithValue
	nnFloat          = f32 | f16 | bf16            // batch norm, convolution
)

// likeRule is rule for an op whose tensors in the bit set like must have
// tensor 0's dtype.
func likeRule(name string, like uint64, tensors ...dset) opRule {
	r := rule(name, tensors...)
	r.like = like
	return r
}

// tensorSet is the dtypes tensor i of the op takes: a list op's inputs past
// the rule's last tensor take the last one's.
func (r *opRule) tensorSet(i int) dset {
	if i < len(r.tensors) {
		return r.tensors[i]
	}
	return r.tensors[len(r.tensors)-1]
}

// checkDTypes returns ErrNotImplemented, naming the op, the dtype and the
// chip, when op would refuse one of the operands (in the shim's order) on
// the loaded SoC.
func checkDTypes(op int, ops []*kernel.Operand) error {
	r := &opRules[op]
	c := chipOf(state.soc)
	for i, o := range ops {
		if o == nil { // an optional tensor left out
			continue
		}
		dt, ok := aclDType[o.DType]
		if ok && !r.allows(i, dt, c) {
			return kernel.Errorf(kernel.ErrNotImplemented, "%s takes no %s (tensor %d) on %s", r.name, o.DType.Name(), i, socName())
		}
		if r.same && o.DType != ops[0].DType {
			return kernel.Errorf(kernel.ErrNotImplemented, "%s needs one dtype for all its tensors, got %s and %s", r.name,
				ops[0].DType.Name(), o.DType.Name())
		}
		if i < 64 && r.like>>uint(i)&1 == 1 && o.DType != ops[0].DType {
			return kernel.Errorf(kernel.ErrNotImplemented, "%s needs tensor %d of tensor 0's dtype, got %s and %s", r.name, i,
				ops[0].DType.Name(), o.DType.Name())
		}
		if len(o.Shape) > r.maxDims {
			return kernel.Errorf(kernel.ErrNotImplemented, "%s takes at most %d dims, got %d", r.name, r.maxDims, len(o.Shape))
		}
	}
	return nil
}

// notOnInference are the ops whose docs mark the Atlas inference chips
// (Ascend310P*) unsupported, though their op_api sources may not check the
// SoC: aclnnLayerNorm&aclnnLayerNormWithImplMode.md, aclnnGroupNormBackward.md,
// aclnnInplaceNormal.md, aclnnInplaceRandom.md,
// aclnnBernoulli&aclnnInplaceBernoulli.md,
// aclnnBernoulliTensor&aclnnInplaceBernoulliTensor.md.
var notOnInference = map[int]bool{npushim.LayerNorm: true, npushim.GroupNormBackward: true,
	npushim.InplaceNormal: true, npushim.InplaceRandom: true, npushim.InplaceBernoulli: true, npushim.BernoulliTensor: true}

// onThisChip declines (ErrNotImplemented) an op of notOnInference on an
// Atlas inference chip.
func onThisChip(op int) error {
	if notOnInference[op] && strings.HasPrefix(state.soc, "Ascend310P") {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s is not supported on %s", opRules[op].name, socName())
	}
	return nil
}

// socName is the SoC for messages.
func socName() string {
	if state.soc == "" {
		return "this NPU (its SoC name is unknown)"
	}
	return state.soc
}

// The cubeMathType values of aclnnMatmul (ops-nn matmul/mat_mul_v3/docs/aclnnMatmul.md).
const (
	cubeKeepDType = 0 // compute in the input dtype
	cubeUseFP16   = 2 // float32 computed in float16
)

// cubeMathType is the cubeMathType passed to aclnnMatmul: what torch_npu
// passes by default, or MINDTORCH_NPU_CUBE_MATH_TYPE (0 to 4) when set.
// torch_npu's CalcuOpUtil::GetCubeMathType combines allow_hf32 (off for
// matmul by default) and allow_fp32_to_fp16, which is on for the SoCs before
// Ascend910B1 (EnvVariables.cpp IsAllowFP32ToFP16): 0 (KEEP_DTYPE) on Atlas
// A2/A3, 2 (USE_FP16) on Atlas training and inference chips, where float32
// with 0 is refused (Ascend/pytorch torch_npu/csrc/framework/utils/CalcuOpUtil.cpp).
func cubeMathType() int64 {
	if v, err := strconv.Atoi(os.Getenv("MINDTORCH_NPU_CUBE_MATH_TYPE")); err == nil && v >= 0 && v <= 4 {
		return int64(v)
	}
	if chipOf(state.soc) == chipA1 {
		return cubeUseFP16
	}
	return cubeKeepDType
}
