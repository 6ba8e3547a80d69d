package npu

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

var state struct {
	once     sync.Once
	ok       bool
	reason   string
	devices  int
	soc      string
	version  [3]int32
	blocking bool
}

// searchPath is where the libraries are looked for, in order.
func searchPath() string {
	var dirs []string
	if d := os.Getenv("MINDTORCH_NPU_LIB_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	for _, env := range []string{"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"} {
		if d := os.Getenv(env); d != "" {
			dirs = append(dirs, filepath.Join(d, "lib64"))
		}
	}
	dirs = append(dirs, "/usr/local/Ascend/cann/lib64", "/usr/local/Ascend/ascend-toolkit/latest/lib64", "")
	return strings.Join(dirs, ":")
}

// load opens CANN once.
func load() {
	state.once.Do(func() {
		state.blocking = os.Getenv("MINDTORCH_LAUNCH_BLOCKING") == "1"
		ok, why := npushim.Open(searchPath())
		if !ok {
			state.reason = why
			return
		}
		n, st := npushim.Init()
		if st != nil {
			state.reason = "aclInit: " + st.Msg
			return
		}
		state.devices = n
		state.soc, state.version = npushim.Info()
		if n == 0 {
			state.reason = "CANN is installed but reports no NPU device"
			return
		}
		state.ok = true
	})
}

// IsAvailable reports whether CANN was loaded and has at least one device.
func IsAvailable() bool { load(); return state.ok }

// UnavailableReason says why the NPU is unavailable ("" when it is available).
func UnavailableReason() string { load(); return state.reason }

// DeviceCount is the number of NPUs (0 when unavailable).
func DeviceCount() int { load(); return state.devices }

// ACLNNAvailable reports whether an ACLNN operator library was loaded.
func ACLNNAvailable() bool {
	load()
	for op := 0; op < npushim.NumOps; op++ {
		if npushim.OpAvailable(op) {
			return true
		}
	}
	return false
}

// SymbolsOK reports whether every symbol the backend needs was found, and
// lists the missing ones. Optional ops (aclnnGeluV2, which older CANN lacks,
// and the ops of kernels_pointwise.go, kernels_more.go, kernels_norm.go, kernels_pool.go, kernels_creation.go, kernels_svd.go and kernels_random.go) are
// not listed: without them their calls run by another route.
func SymbolsOK() (bool, []string) {
	load()
	var m []string
	for _, s := range strings.Fields(npushim.Missing()) {
		if s != opRules[npushim.GeluV2].name && !pwOptional(s) && !moreOptional(s) && !normOptional(s) &&
			!poolOptional(s) && !creationOptional(s) && !svdOptional(s) && !randomOptional(s) {
			m = append(m, s)
		}
	}
	return len(m) == 0, m
}

// Info describes the device: the SoC name and the ACL version.
func Info() string {
	load()
	if !state.ok {
		return state.reason
	}
	return fmt.Sprintf("%d device(s), %s, ACL %d.%d.%d", state.devices, state.soc, state.version[0], state.version[1], state.version[2])
}

// Synchronize waits until the work queued on device dev is done.
func Synchronize(dev int) error {
	if err := ready(dev); err != nil {
		return err
	}
	flushLaunches()
	return statusError("synchronize", npushim.Synchronize(dev))
}

// MemGetInfo returns the free and total memory of device dev.
func MemGetInfo(dev int) (free, total int, err error) {
	if err := ready(dev); err != nil {
		return 0, 0, err
	}
	f, t, st := npushim.MemInfo(dev)
	return f, t, statusError("mem_get_info", st)
}

// ready checks that the backend is available and dev exists.
func ready(dev int) error {
	load()
	if !state.ok {
		return kernel.Errorf(kernel.ErrDevice, "the NPU is not available: %s", state.reason)
	}
	if dev < 0 || dev >= state.devices {
		return kernel.Errorf(kernel.ErrDevice, "npu:%d does not exist (%d devices)", dev, state.devices)
	}
	return nil
}

// Error is the failure of a CANN call: its code and message, from the call
// that failed.
type Error struct {
	Code int
	Msg  string
}

// Error names the CANN status code; the message is in the OpError around it.
func (e *Error) Error() string { return fmt.Sprintf("CANN status %d", e.Code) }

// statusError turns a shim status into an error of the right kind.
func statusError(op string, st *npushim.Status) error {
	if st == nil {
		return nil
	}
	kind := kernel.ErrRuntime
	switch {
	case st.Code == npushim.ErrNoSymbol:
		kind = kernel.ErrNotImplemented
	case st.Code == npushim.ErrNoDevice || st.Code == npushim.ErrNoLib:
		kind = kernel.ErrDevice
	case st.Code == 207001 || st.Code == 207018 || st.Code == 200000:
		kind = kernel.ErrOutOfMemory
	case st.Code == 161002 || st.Code == 161001 || st.Code == 100000 || st.Code == 107000:
		kind = kernel.ErrArgument
	}
	e := kernel.Errorf(kind, "%s", st.Msg)
	e.Op = op
	e.Err = &Error{Code: st.Code, Msg: st.Msg}
	return e
}
