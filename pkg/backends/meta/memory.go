package meta

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// Memory is meta memory: a size and no data.
type Memory struct{ n int }

// Device is the meta device.
func (m *Memory) Device() device.Device { return device.MetaDevice }

// Nbytes is the size the memory would have.
func (m *Memory) Nbytes() int { return m.n }

// HostPtr is nil: meta memory has no data.
func (m *Memory) HostPtr() unsafe.Pointer { return nil }

// DevicePtr is 0: meta memory has no data.
func (m *Memory) DevicePtr() uintptr { return 0 }

// Release does nothing: there is nothing to free.
func (m *Memory) Release() {}

// Released is false: meta memory holds nothing to release.
func (m *Memory) Released() bool { return false }

func init() {
	kernel.RegisterAllocator(device.Meta, func(_ device.Device, n int) (kernel.Memory, error) {
		if err := kernel.CheckAllocation(n); err != nil {
			return nil, err
		}
		return &Memory{n: n}, nil
	})
}
