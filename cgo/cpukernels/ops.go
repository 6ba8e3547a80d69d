package cpukernels

// #include "cpu_kernels.h"
import "C"

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
