package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// Alignment is the byte alignment of CPU allocations (a cache line, and the
// widest vector register).
const Alignment = 64

// Memory is CPU memory in the Go heap, 64-byte aligned. It holds no Go
// pointers, so the garbage collector never scans it, and C may read and
// write it during a call. The garbage collector frees it once no tensor
// refers to it.
type Memory struct {
	buf    []byte // nil for wrapped memory
	ptr    unsafe.Pointer
	n      int
	zeroed bool
}

var empty [Alignment]byte

// Allocate returns n bytes of zeroed, aligned CPU memory.
func Allocate(n int) *Memory {
	if n == 0 {
		return &Memory{ptr: unsafe.Pointer(&empty[0]), zeroed: true}
	}
	buf := make([]byte, n+Alignment-1)
	p := unsafe.Pointer(unsafe.SliceData(buf))
	pad := (Alignment - int(uintptr(p)%Alignment)) % Alignment
	return &Memory{buf: buf, ptr: unsafe.Add(p, pad), n: n, zeroed: true}
}

// Wrap makes memory over bytes the caller owns (a mapped file, shared
// memory, a Go slice); the caller keeps them valid while the Memory is in use.
func Wrap(p unsafe.Pointer, n int) *Memory { return &Memory{ptr: p, n: n} }

// Device is the CPU.
func (m *Memory) Device() device.Device { return device.CPUDevice }

// Nbytes is the size in bytes.
func (m *Memory) Nbytes() int { return m.n }

// HostPtr is the address of the first byte.
func (m *Memory) HostPtr() unsafe.Pointer { return m.ptr }

// DevicePtr is 0: CPU memory has no device address.
func (m *Memory) DevicePtr() uintptr { return 0 }

// Zeroed reports whether the memory held zeros when it was allocated.
func (m *Memory) Zeroed() bool { return m.zeroed }

// Bytes is the memory as a byte slice.
func (m *Memory) Bytes() []byte { return unsafe.Slice((*byte)(m.ptr), m.n) }

// Release does nothing: Go memory is freed by the garbage collector once
// no tensor refers to it.
func (m *Memory) Release() {}

func init() {
	kernel.RegisterAllocator(device.CPU, func(_ device.Device, n int) (kernel.Memory, error) {
		return Allocate(n), nil
	})
}
