package cpukernels

// #include "cpu_kernels.h"
import "C"

// The pointwise ops of the C engine, by their C enum values.
const (
	OpAdd               = C.MT_ADD
	OpSub               = C.MT_SUB
	OpMul               = C.MT_MUL
	OpDiv               = C.MT_DIV
	OpDivTrunc          = C.MT_DIV_TRUNC
	OpDivFloor          = C.MT_DIV_FLOOR
	OpRemainder         = C.MT_REMAINDER
	OpFmod              = C.MT_FMOD
	OpPow               = C.MT_POW
	OpMaximum           = C.MT_MAXIMUM
	OpMinimum           = C.MT_MINIMUM
	OpAtan2             = C.MT_ATAN2
	OpBitand            = C.MT_BITAND
	OpBitor             = C.MT_BITOR
	OpBitxor            = C.MT_BITXOR
	OpLogand            = C.MT_LOGAND
	OpLogor             = C.MT_LOGOR
	OpLogxor            = C.MT_LOGXOR
	OpEq                = C.MT_EQ
	OpNe                = C.MT_NE
	OpLt                = C.MT_LT
	OpLe                = C.MT_LE
	OpGt                = C.MT_GT
	OpGe                = C.MT_GE
	OpNeg               = C.MT_NEG
	OpAbs               = C.MT_ABS
	OpSign              = C.MT_SIGN
	OpExp               = C.MT_EXP
	OpExp2              = C.MT_EXP2
	OpExpm1             = C.MT_EXPM1
	OpLog               = C.MT_LOG
	OpLog2              = C.MT_LOG2
	OpLog10             = C.MT_LOG10
	OpLog1p             = C.MT_LOG1P
	OpSqrt              = C.MT_SQRT
	OpRsqrt             = C.MT_RSQRT
	OpSquare            = C.MT_SQUARE
	OpReciprocal        = C.MT_RECIPROCAL
	OpSin               = C.MT_SIN
	OpCos               = C.MT_COS
	OpTan               = C.MT_TAN
	OpAsin              = C.MT_ASIN
	OpAcos              = C.MT_ACOS
	OpAtan              = C.MT_ATAN
	OpSinh              = C.MT_SINH
	OpCosh              = C.MT_COSH
	OpTanh              = C.MT_TANH
	OpSigmoid           = C.MT_SIGMOID
	OpRelu              = C.MT_RELU
	OpRelu6             = C.MT_RELU6
	OpLeakyRelu         = C.MT_LEAKY_RELU
	OpElu               = C.MT_ELU
	OpGelu              = C.MT_GELU
	OpGeluTanh          = C.MT_GELU_TANH
	OpSilu              = C.MT_SILU
	OpSoftplus          = C.MT_SOFTPLUS
	OpErf               = C.MT_ERF
	OpFloor             = C.MT_FLOOR
	OpCeil              = C.MT_CEIL
	OpRound             = C.MT_ROUND
	OpTrunc             = C.MT_TRUNC
	OpFrac              = C.MT_FRAC
	OpClamp             = C.MT_CLAMP
	OpNanToNum          = C.MT_NAN_TO_NUM
	OpBitnot            = C.MT_BITNOT
	OpPowScalar         = C.MT_POW_SCALAR
	OpIsnan             = C.MT_ISNAN
	OpIsinf             = C.MT_ISINF
	OpIsfinite          = C.MT_ISFINITE
	OpLognot            = C.MT_LOGNOT
	OpWhere             = C.MT_WHERE
	OpClampTensor       = C.MT_CLAMP_TENSOR
	OpLerp              = C.MT_LERP
	OpMaskedFill        = C.MT_MASKED_FILL
	OpThresholdBackward = C.MT_THRESHOLD_BACKWARD
	OpNumPointwise      = C.MT_NUM_POINTWISE
)

// The dtypes as the C engine numbers them (pkg/dtype numbers them the same).
const (
	DTypeBool = C.MT_BOOL
	DTypeU8   = C.MT_U8
	DTypeI8   = C.MT_I8
	DTypeI16  = C.MT_I16
	DTypeI32  = C.MT_I32
	DTypeI64  = C.MT_I64
	DTypeF16  = C.MT_F16
	DTypeBf16 = C.MT_BF16
	DTypeF32  = C.MT_F32
	DTypeF64  = C.MT_F64
)

// The reductions, scans and softmax ops of the C engine.
const (
	RSum                = C.MT_R_SUM
	RMean               = C.MT_R_MEAN
	RProd               = C.MT_R_PROD
	RAmax               = C.MT_R_AMAX
	RAmin               = C.MT_R_AMIN
	RArgmax             = C.MT_R_ARGMAX
	RArgmin             = C.MT_R_ARGMIN
	RVar                = C.MT_R_VAR
	RStd                = C.MT_R_STD
	RNorm               = C.MT_R_NORM
	RLogSumExp          = C.MT_R_LOGSUMEXP
	RAll                = C.MT_R_ALL
	RAny                = C.MT_R_ANY
	RCountNonzero       = C.MT_R_COUNT_NONZERO
	RCumsum             = C.MT_R_CUMSUM
	RCumprod            = C.MT_R_CUMPROD
	RSoftmax            = C.MT_R_SOFTMAX
	RLogSoftmax         = C.MT_R_LOG_SOFTMAX
	RSoftmaxBackward    = C.MT_R_SOFTMAX_BACKWARD
	RLogSoftmaxBackward = C.MT_R_LOG_SOFTMAX_BACKWARD
)
