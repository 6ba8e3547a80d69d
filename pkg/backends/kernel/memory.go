package kernel

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/device"
)

// Memory is the bytes of one storage on one device. Host memory (cpu, shared
// memory, mapped files) has a HostPtr; device memory (npu) has a DevicePtr;
// meta memory has a size and no data.
type Memory interface {
	// Device is where the bytes live.
	Device() device.Device
	// Nbytes is the size of the allocation in bytes.
	Nbytes() int
	// HostPtr is the address of the first byte when the host can address the
	// memory, else nil. It stays valid while the Memory is reachable and not
	// released.
	HostPtr() unsafe.Pointer
	// DevicePtr is the device address of the first byte for device memory, else 0.
	DevicePtr() uintptr
	// Release frees the bytes now (or returns them to a cache). Later use of
	// the memory is a bug of the caller; releasing twice is harmless.
	Release()
	// Released reports whether Release was called (ops refuse such memory).
	Released() bool
}

// Allocator makes memory of nbytes on dev. A zero size is valid.
type Allocator func(dev device.Device, nbytes int) (Memory, error)

var allocators [device.NumTypes]Allocator

// RegisterAllocator installs the allocator of a device type; backends call it
// from their init.
func RegisterAllocator(t device.Type, a Allocator) { allocators[t] = a }

// Allocate makes nbytes of memory on dev with the registered allocator.
func Allocate(dev device.Device, nbytes int) (Memory, error) {
	if nbytes < 0 {
		return nil, Errorf(ErrArgument, "negative allocation size %d", nbytes)
	}
	if int(dev.Type) >= len(allocators) || allocators[dev.Type] == nil {
		return nil, Errorf(ErrDevice, "no allocator for device %v (is its backend linked in?)", dev)
	}
	return allocators[dev.Type](dev, nbytes)
}
