// Package npushim is the NPU shim, in C (shim.c, its API in npu_shim.h), and
// its cgo binding: CANN's libraries loaded with dlopen, one C call per
// operation. The Go side holds no logic beyond converting arguments; the NPU
// backend (pkg/backends/npu) builds on it.
//
// Every C file and header the package compiles is in this directory, the
// one Go's build cache looks at, so that an edit to any of them rebuilds the
// package (cgo/cpukernels/layout_test.go checks it).
package npushim

/*
#cgo CFLAGS: -O2
#cgo LDFLAGS: -ldl -lpthread
#include <stdlib.h>
#include "npu_shim.h"
// Host addresses cross as integers, as in package cpukernels: the data of a
// small CPU tensor shares an allocation with Go pointers, which cgo's
// conservative check would reject although the bytes passed hold none.
static inline int mt_npu_copy_to_device_u(int dev, uint64_t dst, uintptr_t src, size_t n, mt_npu_status *st) {
	return mt_npu_copy_to_device(dev, dst, (const void *)src, n, st);
}
static inline int mt_npu_copy_to_host_u(int dev, uintptr_t dst, uint64_t src, size_t n, mt_npu_status *st) {
	return mt_npu_copy_to_host(dev, (void *)dst, src, n, st);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// MaxDims is the most dimensions a tensor passed to the shim has.
const MaxDims = C.MT_NPU_MAX_DIMS

// MaxTensors is the most tensors one op takes (cat's inputs and output);
// Ext is the length of Attrs.Ext.
const (
	MaxTensors = C.MT_NPU_MAX_TENSORS
	Ext        = C.MT_NPU_EXT
)

// The ops of Run (the C enum MT_NPU_*).
const (
	Add                = C.MT_NPU_ADD
	Sub                = C.MT_NPU_SUB
	Mul                = C.MT_NPU_MUL
	Div                = C.MT_NPU_DIV
	Maximum            = C.MT_NPU_MAXIMUM
	Minimum            = C.MT_NPU_MINIMUM
	Adds               = C.MT_NPU_ADDS
	Muls               = C.MT_NPU_MULS
	Neg                = C.MT_NPU_NEG
	Exp                = C.MT_NPU_EXP
	Log                = C.MT_NPU_LOG
	Sqrt               = C.MT_NPU_SQRT
	Abs                = C.MT_NPU_ABS
	Relu               = C.MT_NPU_RELU
	Sigmoid            = C.MT_NPU_SIGMOID
	Tanh               = C.MT_NPU_TANH
	ThresholdBackward  = C.MT_NPU_THRESHOLD_BACKWARD
	Softmax            = C.MT_NPU_SOFTMAX
	LogSoftmax         = C.MT_NPU_LOG_SOFTMAX
	SoftmaxBackward    = C.MT_NPU_SOFTMAX_BACKWARD
	LogSoftmaxBackward = C.MT_NPU_LOG_SOFTMAX_BACKWARD
	ReduceSum          = C.MT_NPU_REDUCE_SUM
	Mean               = C.MT_NPU_MEAN
	Amax               = C.MT_NPU_AMAX
	Matmul             = C.MT_NPU_MATMUL
	Cast               = C.MT_NPU_CAST
	Copy               = C.MT_NPU_COPY
	Fill               = C.MT_NPU_FILL
	Zero               = C.MT_NPU_ZERO
	Gelu               = C.MT_NPU_GELU
	ArgMax             = C.MT_NPU_ARGMAX
	Eq                 = C.MT_NPU_EQ
	Ne                 = C.MT_NPU_NE
	Lt                 = C.MT_NPU_LT
	Le                 = C.MT_NPU_LE
	Gt                 = C.MT_NPU_GT
	Ge                 = C.MT_NPU_GE
	EqScalar           = C.MT_NPU_EQ_SCALAR
	NeScalar           = C.MT_NPU_NE_SCALAR
	LtScalar           = C.MT_NPU_LT_SCALAR
	LeScalar           = C.MT_NPU_LE_SCALAR
	GtScalar           = C.MT_NPU_GT_SCALAR
	GeScalar           = C.MT_NPU_GE_SCALAR
	Where              = C.MT_NPU_WHERE
	Clamp              = C.MT_NPU_CLAMP
	Pow                = C.MT_NPU_POW
	PowScalar          = C.MT_NPU_POW_SCALAR
	GeluV2             = C.MT_NPU_GELU_V2
	// ---- pointwise math ops ----
	Sin         = C.MT_NPU_SIN
	Cos         = C.MT_NPU_COS
	Tan         = C.MT_NPU_TAN
	Asin        = C.MT_NPU_ASIN
	Acos        = C.MT_NPU_ACOS
	Atan        = C.MT_NPU_ATAN
	Asinh       = C.MT_NPU_ASINH
	Acosh       = C.MT_NPU_ACOSH
	Atanh       = C.MT_NPU_ATANH
	Sinh        = C.MT_NPU_SINH
	Cosh        = C.MT_NPU_COSH
	Erf         = C.MT_NPU_ERF
	Erfc        = C.MT_NPU_ERFC
	Erfinv      = C.MT_NPU_ERFINV
	Exp2        = C.MT_NPU_EXP2
	Expm1       = C.MT_NPU_EXPM1
	Log2        = C.MT_NPU_LOG2
	Log10       = C.MT_NPU_LOG10
	Log1p       = C.MT_NPU_LOG1P
	Rsqrt       = C.MT_NPU_RSQRT
	Reciprocal  = C.MT_NPU_RECIPROCAL
	Sinc        = C.MT_NPU_SINC
	Sign        = C.MT_NPU_SIGN
	Floor       = C.MT_NPU_FLOOR
	Ceil        = C.MT_NPU_CEIL
	Round       = C.MT_NPU_ROUND
	Trunc       = C.MT_NPU_TRUNC
	Frac        = C.MT_NPU_FRAC
	IsInf       = C.MT_NPU_IS_INF
	IsFinite    = C.MT_NPU_IS_FINITE
	IsPosInf    = C.MT_NPU_IS_POS_INF
	IsNegInf    = C.MT_NPU_IS_NEG_INF
	Signbit     = C.MT_NPU_SIGNBIT
	BitwiseNot  = C.MT_NPU_BITWISE_NOT
	LogicalNot  = C.MT_NPU_LOGICAL_NOT
	Silu        = C.MT_NPU_SILU
	LogSigmoid  = C.MT_NPU_LOG_SIGMOID
	Hardswish   = C.MT_NPU_HARDSWISH
	Hardsigmoid = C.MT_NPU_HARDSIGMOID
	Mish        = C.MT_NPU_MISH
	Selu        = C.MT_NPU_SELU
	LeakyRelu   = C.MT_NPU_LEAKY_RELU
	Celu        = C.MT_NPU_CELU
	Elu         = C.MT_NPU_ELU
	Softplus    = C.MT_NPU_SOFTPLUS
	Hardtanh    = C.MT_NPU_HARDTANH
	Logit       = C.MT_NPU_LOGIT
	NanToNum    = C.MT_NPU_NAN_TO_NUM
	Remainder   = C.MT_NPU_REMAINDER
	Fmod        = C.MT_NPU_FMOD
	Atan2       = C.MT_NPU_ATAN2
	LogAddExp   = C.MT_NPU_LOGADDEXP
	BitwiseAnd  = C.MT_NPU_BITWISE_AND
	BitwiseOr   = C.MT_NPU_BITWISE_OR
	BitwiseXor  = C.MT_NPU_BITWISE_XOR
	LogicalAnd  = C.MT_NPU_LOGICAL_AND
	LogicalOr   = C.MT_NPU_LOGICAL_OR
	LogicalXor  = C.MT_NPU_LOGICAL_XOR
	ClampTensor = C.MT_NPU_CLAMP_TENSOR
	Lerp        = C.MT_NPU_LERP
	Lerps       = C.MT_NPU_LERPS
	All         = C.MT_NPU_ALL
	Any         = C.MT_NPU_ANY
	LogSumExp   = C.MT_NPU_LOGSUMEXP
	Var         = C.MT_NPU_VAR
	Std         = C.MT_NPU_STD
	NumOps      = C.MT_NPU_NUM_OPS
)

// ---- nn and indexing ops ----
const (
	IndexSelect         = C.MT_NPU_INDEX_SELECT
	Gather              = C.MT_NPU_GATHER
	Scatter             = C.MT_NPU_SCATTER
	ScatterValue        = C.MT_NPU_SCATTER_VALUE
	ScatterAdd          = C.MT_NPU_SCATTER_ADD
	IndexAdd            = C.MT_NPU_INDEX_ADD
	MaskedFill          = C.MT_NPU_MASKED_FILL
	Cumsum              = C.MT_NPU_CUMSUM
	ArgMin              = C.MT_NPU_ARGMIN
	Amin                = C.MT_NPU_AMIN
	MaxDim              = C.MT_NPU_MAX_DIM
	MinDim              = C.MT_NPU_MIN_DIM
	Prod                = C.MT_NPU_PROD
	ProdDim             = C.MT_NPU_PROD_DIM
	Sort                = C.MT_NPU_SORT
	Topk                = C.MT_NPU_TOPK
	Cat                 = C.MT_NPU_CAT
	Flip                = C.MT_NPU_FLIP
	BatchNorm           = C.MT_NPU_BATCH_NORM
	BatchNormBackward   = C.MT_NPU_BATCH_NORM_BACKWARD
	Convolution         = C.MT_NPU_CONVOLUTION
	ConvolutionBackward = C.MT_NPU_CONVOLUTION_BACKWARD
)

// ---- more ops ----
const (
	Dot          = C.MT_NPU_DOT
	Cumprod      = C.MT_NPU_CUMPROD
	SearchSorted = C.MT_NPU_SEARCHSORTED
	Nonzero      = C.MT_NPU_NONZERO
	MaskedSelect = C.MT_NPU_MASKED_SELECT
)

// ---- norm ops ----
const (
	LayerNorm         = C.MT_NPU_LAYER_NORM
	LayerNormBackward = C.MT_NPU_LAYER_NORM_BACKWARD
	GroupNorm         = C.MT_NPU_GROUP_NORM
	GroupNormBackward = C.MT_NPU_GROUP_NORM_BACKWARD
)

// ---- pool ops ----
const (
	AvgPool2d                 = C.MT_NPU_AVG_POOL2D
	AvgPool2dBackward         = C.MT_NPU_AVG_POOL2D_BACKWARD
	AdaptiveAvgPool2d         = C.MT_NPU_ADAPTIVE_AVG_POOL2D
	AdaptiveAvgPool2dBackward = C.MT_NPU_ADAPTIVE_AVG_POOL2D_BACKWARD
)

// ---- creation ops ----
const (
	Arange   = C.MT_NPU_ARANGE
	Linspace = C.MT_NPU_LINSPACE
)

// ---- svd ----
const (
	Svd = C.MT_NPU_SVD
)

// ---- random ops ----
const (
	InplaceUniform   = C.MT_NPU_INPLACE_UNIFORM
	InplaceNormal    = C.MT_NPU_INPLACE_NORMAL
	InplaceRandom    = C.MT_NPU_INPLACE_RANDOM
	InplaceBernoulli = C.MT_NPU_INPLACE_BERNOULLI
	BernoulliTensor  = C.MT_NPU_BERNOULLI_TENSOR
)

// Shim error codes (CANN's are positive).
const (
	ErrNoLib    = C.MT_NPU_ENOLIB
	ErrNoSymbol = C.MT_NPU_ENOSYM
	ErrArg      = C.MT_NPU_EARG
	ErrNoDevice = C.MT_NPU_ENODEVICE
)

// Status is a failure: CANN's code (or a shim code) and the message of the
// call that failed.
type Status struct {
	Code int
	Msg  string
}

func status(r C.int, st *C.mt_npu_status) *Status {
	if r == 0 {
		return nil
	}
	return &Status{Code: int(st.code), Msg: C.GoString(&st.msg[0])}
}

// Tensor is a tensor as the shim sees it (layout of mt_npu_tensor).
type Tensor struct {
	Data    uint64
	DType   int32
	NDim    int32
	Shape   [MaxDims]int64
	Strides [MaxDims]int64
	Offset  int64
	Storage int64
}

// Attrs are an op's attributes (layout of mt_npu_attrs): scalar k is F[k]
// when SK[k] is ScalarFloat, else SI[k] (an integer, or a bool as 0 or 1).
type Attrs struct {
	F     [2]float64
	SI    [2]int64
	SK    [2]int32
	I     [MaxDims]int64
	NI    int32
	Flag  int32
	DType int32
	// ---- nn and indexing ops ----
	Ext [Ext]int64 // the nn ops' int arrays and flags (npu_shim.h)
}

// The kinds of scalar attributes (Attrs.SK).
const (
	ScalarFloat = C.MT_NPU_SCALAR_FLOAT
	ScalarInt   = C.MT_NPU_SCALAR_INT
	ScalarBool  = C.MT_NPU_SCALAR_BOOL
)

// Open loads the libraries from the colon-separated directories ("" is the
// loader's search path). It returns why they are unusable, or "".
func Open(dirs string) (ok bool, why string) {
	cd := C.CString(dirs)
	defer C.free(unsafe.Pointer(cd))
	var buf [1024]C.char
	r := C.mt_npu_open(cd, &buf[0], C.int(len(buf)))
	return r == 0, C.GoString(&buf[0])
}

// GlobalSymbol reports whether name resolves in the process's global
// scope: the runtime's and libnnopbase's symbols do, the operator
// libraries', kept behind their handles, do not.
func GlobalSymbol(name string) bool {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	return C.mt_npu_global_symbol(cn) != 0
}

// OpAvailable reports whether op's symbols were found.
func OpAvailable(op int) bool { return C.mt_npu_op_available(C.int(op)) != 0 }

// Missing lists the symbols that were not found.
func Missing() string {
	var buf [2048]C.char
	C.mt_npu_missing(&buf[0], C.int(len(buf)))
	return C.GoString(&buf[0])
}

// Init initialises ACL once and returns the number of devices.
func Init() (int, *Status) {
	var st C.mt_npu_status
	var n C.int
	r := C.mt_npu_init(&n, &st)
	return int(n), status(r, &st)
}

// Info returns the SoC name and the ACL version.
func Info() (soc string, version [3]int32) {
	var buf [128]C.char
	var v [3]C.int32_t
	C.mt_npu_info(&buf[0], C.int(len(buf)), &v[0])
	return C.GoString(&buf[0]), [3]int32{int32(v[0]), int32(v[1]), int32(v[2])}
}

// Malloc allocates n bytes on dev.
func Malloc(dev, n int) (uint64, *Status) {
	var st C.mt_npu_status
	var p C.uint64_t
	r := C.mt_npu_malloc(C.int(dev), C.size_t(n), &p, &st)
	return uint64(p), status(r, &st)
}

// Free frees a device allocation (without waiting for the stream).
func Free(dev int, p uint64) *Status {
	var st C.mt_npu_status
	return status(C.mt_npu_free(C.int(dev), C.uint64_t(p), &st), &st)
}

// CopyToDevice copies host bytes src to device address dst after the
// device's stream is done.
func CopyToDevice(dev int, dst uint64, src unsafe.Pointer, n int) *Status {
	var st C.mt_npu_status
	r := C.mt_npu_copy_to_device_u(C.int(dev), C.uint64_t(dst), C.uintptr_t(uintptr(src)), C.size_t(n), &st)
	runtime.KeepAlive(src)
	return status(r, &st)
}

// CopyToHost copies n bytes at device address src to host memory dst after
// the device's stream is done.
func CopyToHost(dev int, dst unsafe.Pointer, src uint64, n int) *Status {
	var st C.mt_npu_status
	r := C.mt_npu_copy_to_host_u(C.int(dev), C.uintptr_t(uintptr(dst)), C.uint64_t(src), C.size_t(n), &st)
	runtime.KeepAlive(dst)
	return status(r, &st)
}

// Synchronize waits for dev's stream.
func Synchronize(dev int) *Status {
	var st C.mt_npu_status
	return status(C.mt_npu_synchronize(C.int(dev), &st), &st)
}

// MemInfo returns dev's free and total memory.
func MemInfo(dev int) (free, total int, s *Status) {
	var st C.mt_npu_status
	var f, t C.size_t
	r := C.mt_npu_mem_info(C.int(dev), &f, &t, &st)
	return int(f), int(t), status(r, &st)
}

// WorkspaceBytes is the size of dev's workspace arenas (one per stream).
func WorkspaceBytes(dev int) int { return int(C.mt_npu_workspace_bytes(C.int(dev))) }

// Run launches op on a stream of dev (0: the default stream) over ts
// (output first).
func Run(dev int, stream uint64, op int, ts []Tensor, a *Attrs, blocking bool) *Status {
	var st C.mt_npu_status
	b := C.int(0)
	if blocking {
		b = 1
	}
	var p *Tensor
	if len(ts) > 0 {
		p = &ts[0]
	}
	r := C.mt_npu_run(C.int(dev), C.uint64_t(stream), C.int(op), (*C.mt_npu_tensor)(unsafe.Pointer(p)), C.int(len(ts)),
		(*C.mt_npu_attrs)(unsafe.Pointer(a)), b, &st)
	runtime.KeepAlive(ts)
	return status(r, &st)
}

// EmulatorCounters are the test emulator's counters of live allocations,
// their bytes, live tensor, scalar and int-array descriptors, live
// executors, user streams, total launches and mallocs, live events, and
// the misuses of CANN it refused (an executor run twice, an event destroyed
// while a stream waits on it, a workspace two streams share, ...).
type EmulatorCounters struct {
	Allocs, Bytes, Tensors, Scalars, IntArrays, Executors, Streams, Launches, Mallocs, Events, Misuses int64
}

// Counters reads the emulator's counters; ok is false with real CANN.
func Counters() (c EmulatorCounters, ok bool) {
	var v [11]C.longlong
	if C.mt_npu_emulator_counters(&v[0], C.int(len(v))) == 0 {
		return c, false
	}
	return EmulatorCounters{int64(v[0]), int64(v[1]), int64(v[2]), int64(v[3]), int64(v[4]), int64(v[5]), int64(v[6]),
		int64(v[7]), int64(v[8]), int64(v[9]), int64(v[10])}, true
}

// The Go structs must match the C ones.
var (
	_ [unsafe.Sizeof(Tensor{}) - C.sizeof_mt_npu_tensor]byte
	_ [C.sizeof_mt_npu_tensor - unsafe.Sizeof(Tensor{})]byte
	_ [unsafe.Sizeof(Attrs{}) - C.sizeof_mt_npu_attrs]byte
	_ [C.sizeof_mt_npu_attrs - unsafe.Sizeof(Attrs{})]byte
)

// StreamCreate makes a stream on dev.
func StreamCreate(dev int) (uint64, *Status) {
	var st C.mt_npu_status
	var h C.uint64_t
	r := C.mt_npu_stream_create(C.int(dev), &h, &st)
	return uint64(h), status(r, &st)
}

// StreamDestroy waits for a stream, frees its workspace and destroys it.
func StreamDestroy(dev int, s uint64) *Status {
	var st C.mt_npu_status
	return status(C.mt_npu_stream_destroy(C.int(dev), C.uint64_t(s), &st), &st)
}

// StreamSynchronize waits for one stream.
func StreamSynchronize(dev int, s uint64) *Status {
	var st C.mt_npu_status
	return status(C.mt_npu_stream_synchronize(C.int(dev), C.uint64_t(s), &st), &st)
}

// StreamWaitEvent makes later work on s wait for event e.
func StreamWaitEvent(dev int, s, e uint64) *Status {
	var st C.mt_npu_status
	return status(C.mt_npu_stream_wait_event(C.int(dev), C.uint64_t(s), C.uint64_t(e), &st), &st)
}

// EventCreate makes an event on dev.
func EventCreate(dev int) (uint64, *Status) {
	var st C.mt_npu_status
	var h C.uint64_t
	r := C.mt_npu_event_create(C.int(dev), &h, &st)
	return uint64(h), status(r, &st)
}

// EventDestroy waits for an event, and for the streams waiting on it to
// pass the wait, then destroys it.
func EventDestroy(dev int, e uint64) *Status {
	var st C.mt_npu_status
	return status(C.mt_npu_event_destroy(C.int(dev), C.uint64_t(e), &st), &st)
}

// EventRecord records e on stream s.
func EventRecord(dev int, e, s uint64) *Status {
	var st C.mt_npu_status
	return status(C.mt_npu_event_record(C.int(dev), C.uint64_t(e), C.uint64_t(s), &st), &st)
}

// EventSynchronize waits for the work e captured.
func EventSynchronize(dev int, e uint64) *Status {
	var st C.mt_npu_status
	return status(C.mt_npu_event_synchronize(C.int(dev), C.uint64_t(e), &st), &st)
}

// EventElapsed is the time in milliseconds between two completed events.
func EventElapsed(dev int, start, end uint64) (float32, *Status) {
	var st C.mt_npu_status
	var ms C.float
	r := C.mt_npu_event_elapsed(C.int(dev), C.uint64_t(start), C.uint64_t(end), &ms, &st)
	return float32(ms), status(r, &st)
}

// EventDone reports whether the work e captured is done, without waiting.
func EventDone(dev int, e uint64) (bool, *Status) {
	var st C.mt_npu_status
	var d C.int
	r := C.mt_npu_event_done(C.int(dev), C.uint64_t(e), &d, &st)
	return d != 0, status(r, &st)
}
