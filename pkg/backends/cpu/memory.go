package cpu

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// Alignment is the byte alignment of CPU allocations (a cache line, and the
// widest vector register).
const Alignment = 64

// Memory is CPU memory, 64-byte aligned: small allocations in the Go heap
// (up to 256 bytes in the same allocation as the Memory itself), large ones from the caching allocator (see cache.go). It holds no Go
// pointers, so the garbage collector never scans it, and C may read and
// write it during a call.
type Memory struct {
	buf      []byte // Go heap memory; nil otherwise
	blk      *block // cached block; nil otherwise
	cleanup  runtime.Cleanup
	released atomic.Bool
	ptr      unsafe.Pointer
	n        int
	zeroed   bool
}

var empty [Alignment]byte

// Allocate returns n bytes of aligned CPU memory. Zeroed reports whether
// they hold zeros (fresh memory does; memory reused from the cache does not).
func Allocate(n int) (*Memory, error) {
	if n == 0 {
		return &Memory{ptr: unsafe.Pointer(&empty[0]), zeroed: true}, nil
	}
	if hostCache.enabled(n) {
		b, zeroed, err := hostCache.get(n)
		if err != nil {
			return nil, kernel.Errorf(kernel.ErrDevice, "cpu: cannot allocate %d bytes: %v", n, err)
		}
		m := &Memory{blk: b, ptr: unsafe.Pointer(unsafe.SliceData(b.data)), n: n, zeroed: zeroed}
		m.cleanup = runtime.AddCleanup(m, hostCache.put, b)
		return m, nil
	}
	if n <= SmallMax {
		_, m := AllocateWith[struct{}](n)
		return m, nil
	}
	buf := make([]byte, n+Alignment-1)
	return &Memory{buf: buf, ptr: align(unsafe.Pointer(unsafe.SliceData(buf))), n: n, zeroed: true}, nil
}

// SmallMax is the largest allocation AllocateWith serves.
const SmallMax = 256

// AllocateWith allocates n <= SmallMax bytes of aligned, zeroed CPU memory
// and a zero O in one Go allocation, which stays alive while either is
// reachable: the tensor layer allocates a small result and the tensor that
// owns it together (and Allocate, with no owner, a small Memory and its
// bytes). It returns nils when n is larger (or negative) or when
// every allocation must come from the cache (MINDTORCH_CPU_CACHE_DEBUG).
func AllocateWith[O any](n int) (*O, *Memory) {
	if n < 0 || hostCache.enabled(n) {
		return nil, nil
	}
	switch {
	case n <= 64:
		w := new(withOwner[O, [64 + Alignment - 1]byte])
		w.m = Memory{ptr: align(unsafe.Pointer(&w.data)), n: n, zeroed: true}
		return &w.owner, &w.m
	case n <= SmallMax:
		w := new(withOwner[O, [SmallMax + Alignment - 1]byte])
		w.m = Memory{ptr: align(unsafe.Pointer(&w.data)), n: n, zeroed: true}
		return &w.owner, &w.m
	}
	return nil, nil
}

type withOwner[O, A any] struct {
	owner O
	m     Memory
	data  A
}

// align rounds p up to the next multiple of Alignment.
func align(p unsafe.Pointer) unsafe.Pointer {
	return unsafe.Add(p, (Alignment-int(uintptr(p)%Alignment))%Alignment)
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

// Release returns cached memory to the cache now (Go heap memory is left to
// the garbage collector) and marks the memory released, so that ops refuse
// it. Releasing twice is harmless.
func (m *Memory) Release() {
	if !m.released.CompareAndSwap(false, true) || m.blk == nil {
		return
	}
	m.cleanup.Stop()
	hostCache.put(m.blk)
}

// Released reports whether Release was called.
func (m *Memory) Released() bool { return m.released.Load() }

func init() {
	kernel.RegisterAllocator(device.CPU, func(_ device.Device, n int) (kernel.Memory, error) {
		return Allocate(n)
	})
}
