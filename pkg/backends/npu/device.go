package npu

import (
	"sync"
	"sync/atomic"
)

// currentDevice is the NPU that "npu" without an index names. Like the
// current stream it is process-wide (Go has no thread-local state).
var (
	currentDevice atomic.Int32
	useDevice     sync.Mutex
)

// SetDevice makes device dev the one "npu" names, as torch.npu.set_device.
func SetDevice(dev int) error {
	if err := ready(dev); err != nil {
		return err
	}
	currentDevice.Store(int32(dev))
	return nil
}

// CurrentDevice is the index "npu" names (0 unless SetDevice changed it).
func CurrentDevice() int { return int(currentDevice.Load()) }

// UseDevice runs f with dev as the current device, then restores the
// previous one: a device guard. Concurrent UseDevice calls run one after
// the other; other goroutines see dev as current while f runs.
func UseDevice(dev int, f func()) error {
	if err := ready(dev); err != nil {
		return err
	}
	useDevice.Lock()
	defer useDevice.Unlock()
	prev := currentDevice.Swap(int32(dev))
	defer currentDevice.Store(prev)
	f()
	return nil
}
