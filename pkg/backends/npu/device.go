package npu

import (
	"sync/atomic"

	"github.com/mindtorch/mindtorch/internal/goroutine"
)

// The NPU that "npu" without an index names: the program's default, which
// SetDevice changes for every goroutine, and the device a goroutine chose
// for a while with UseDevice, which no other goroutine sees (PyTorch's
// current device is per thread).
var (
	defaultDevice atomic.Int32
	usedDevice    goroutine.Local[int]
)

// SetDevice makes device dev the one "npu" names in every goroutine that
// is not inside UseDevice, as torch.npu.set_device does at the start of a
// program.
func SetDevice(dev int) error {
	if err := ready(dev); err != nil {
		return err
	}
	defaultDevice.Store(int32(dev))
	return nil
}

// CurrentDevice is the index "npu" names in the calling goroutine: the
// device of the UseDevice it is inside, else the program's default (0
// unless SetDevice changed it).
func CurrentDevice() int {
	if dev, ok := usedDevice.Get(); ok {
		return dev
	}
	return int(defaultDevice.Load())
}

// UseDevice runs f with dev as the calling goroutine's current device,
// then restores the previous one: a device guard. Other goroutines do not
// see it, and guards in different goroutines run at the same time.
func UseDevice(dev int, f func()) error {
	if err := ready(dev); err != nil {
		return err
	}
	usedDevice.With(dev, f)
	return nil
}
