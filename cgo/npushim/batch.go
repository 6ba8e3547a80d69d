package npushim

/*
#include "npu_shim.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Launch is one op of a batch (layout of mt_npu_launch): its op and how
// many of the batch's tensors it takes.
type Launch struct {
	Op, NT int32
}

// RunBatch launches ls in order on a stream of dev (0: the default
// stream) in one C call: op k takes the next ls[k].NT tensors of ts and
// the attributes as[k]; their workspaces share the wsSize bytes at device
// address ws. It returns how many ops it launched: all, or fewer when op
// done needs a workspace of need bytes (then s is nil), or fewer with the
// failure of op done.
func RunBatch(dev int, stream uint64, ls []Launch, ts []Tensor, as []Attrs, ws uint64, wsSize int) (done int, need uint64, s *Status) {
	if len(ls) == 0 {
		return 0, 0, nil
	}
	if len(as) < len(ls) {
		return 0, 0, &Status{Code: C.MT_NPU_EARG, Msg: "RunBatch: fewer attributes than ops"}
	}
	nt := 0
	for _, l := range ls {
		nt += int(l.NT)
	}
	if nt > len(ts) {
		return 0, 0, &Status{Code: C.MT_NPU_EARG, Msg: "RunBatch: fewer tensors than the ops take"}
	}
	var st C.mt_npu_status
	var d C.int
	var w C.uint64_t
	var tp *Tensor
	if len(ts) > 0 {
		tp = &ts[0]
	}
	r := C.mt_npu_run_batch(C.int(dev), C.uint64_t(stream), (*C.mt_npu_launch)(unsafe.Pointer(&ls[0])), C.int(len(ls)),
		(*C.mt_npu_tensor)(unsafe.Pointer(tp)), (*C.mt_npu_attrs)(unsafe.Pointer(&as[0])), C.uint64_t(ws),
		C.uint64_t(wsSize), &d, &w, &st)
	runtime.KeepAlive(ls)
	runtime.KeepAlive(ts)
	runtime.KeepAlive(as)
	return int(d), uint64(w), status(r, &st)
}

// BatchCounters are the number of RunBatch calls that reached C and of
// the ops they launched, since the process started.
func BatchCounters() (calls, ops int64) {
	var v [2]C.longlong
	C.mt_npu_batch_counters(&v[0])
	return int64(v[0]), int64(v[1])
}

// The Go struct must match the C one.
var (
	_ [unsafe.Sizeof(Launch{}) - C.sizeof_mt_npu_launch]byte
	_ [C.sizeof_mt_npu_launch - unsafe.Sizeof(Launch{})]byte
)
