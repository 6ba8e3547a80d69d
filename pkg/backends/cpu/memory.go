package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// Alignment is the byte alignment of CPU allocations (a cache line, and the
// widest vector register).
const Alignment = 64

// Memory is CPU memory in the Go heap, 64-byte aligned. It holds no Go
// pointers, so the garbage collector never scans it, and C may read and
// write it during a call.
//
// Large buffers are recycled: when a Memory is released, or found
// unreachable by the garbage collector, its buffer goes back to a cache and
// the next allocation of its size class reuses it, without the page faults
// and zeroing of fresh memory.
type Memory struct {
	buf      *[]byte // nil for wrapped memory
	ptr      unsafe.Pointer
	n        int
	zeroed   bool
	released atomic.Bool
}

// cacheMin is the smallest size the cache keeps; smaller buffers come from
// the Go allocator's own caches.
const cacheMin = 1 << 62 // the cache is off: see docs/ARCHITECTURE.md (CPU memory)

// cacheMax bounds the bytes the cache holds.
const cacheMax = 1 << 30

var cache struct {
	sync.Mutex
	free  map[int][]*[]byte
	bytes int
}

// sizeClass rounds n up to one of four steps per power of two.
func sizeClass(n int) int {
	if n < cacheMin {
		return n
	}
	step := 1
	for step*8 <= n {
		step <<= 1
	}
	return (n + step - 1) / step * step
}

var empty [Alignment]byte

var cacheMisses atomic.Int64

// CacheMisses counts the large allocations the cache could not serve.
func CacheMisses() int64 { return cacheMisses.Load() }

// Allocate returns n bytes of aligned CPU memory. Its contents are
// unspecified unless Zeroed reports true.
func Allocate(n int) *Memory {
	if n == 0 {
		return &Memory{ptr: unsafe.Pointer(&empty[0]), zeroed: true}
	}
	size := sizeClass(n) + Alignment - 1
	var buf *[]byte
	zeroed := false
	if n >= cacheMin {
		cache.Lock()
		if l := cache.free[size]; len(l) > 0 {
			buf = l[len(l)-1]
			cache.free[size] = l[:len(l)-1]
			cache.bytes -= size
		}
		cache.Unlock()
	}
	if buf == nil {
		cacheMisses.Add(1)
		b := make([]byte, size)
		buf, zeroed = &b, true
	}
	p := unsafe.Pointer(unsafe.SliceData(*buf))
	pad := (Alignment - int(uintptr(p)%Alignment)) % Alignment
	m := &Memory{buf: buf, ptr: unsafe.Add(p, pad), n: n, zeroed: zeroed}
	if n >= cacheMin {
		runtime.AddCleanup(m, recycle, buf)
	}
	return m
}

// recycle puts a buffer back into the cache (when it has room).
func recycle(buf *[]byte) {
	size := len(*buf)
	cache.Lock()
	defer cache.Unlock()
	if cache.bytes+size > cacheMax {
		return
	}
	if cache.free == nil {
		cache.free = make(map[int][]*[]byte)
	}
	cache.free[size] = append(cache.free[size], buf)
	cache.bytes += size
}

// EmptyCache drops the recycled buffers, leaving them to the garbage collector.
func EmptyCache() {
	cache.Lock()
	cache.free, cache.bytes = nil, 0
	cache.Unlock()
}

// Wrap makes memory over bytes the caller owns (a mapped file, shared
// memory); the caller keeps them valid while the Memory is in use.
func Wrap(p unsafe.Pointer, n int) *Memory { return &Memory{ptr: p, n: n} }

// Device is the CPU.
func (m *Memory) Device() device.Device { return device.CPUDevice }

// Nbytes is the size in bytes.
func (m *Memory) Nbytes() int { return m.n }

// HostPtr is the address of the first byte.
func (m *Memory) HostPtr() unsafe.Pointer { return m.ptr }

// DevicePtr is 0: CPU memory has no device address.
func (m *Memory) DevicePtr() uintptr { return 0 }

// Zeroed reports whether the memory was freshly zeroed when allocated.
func (m *Memory) Zeroed() bool { return m.zeroed }

// Bytes is the memory as a byte slice.
func (m *Memory) Bytes() []byte { return unsafe.Slice((*byte)(m.ptr), m.n) }

// Release returns a large buffer to the cache now. Tensors over the memory
// must not be used afterwards; releasing twice is harmless.
func (m *Memory) Release() {
	if m.buf == nil || m.n < cacheMin || m.released.Swap(true) {
		return
	}
	// The cleanup registered at allocation recycles the buffer when m becomes
	// unreachable; releasing early would recycle it twice, so only the
	// cleanup recycles. Release drops the pointer so that it can run soon.
	m.ptr = nil
}

func init() {
	kernel.RegisterAllocator(device.CPU, func(_ device.Device, n int) (kernel.Memory, error) {
		return Allocate(n), nil
	})
}
