package cpu

import (
	"fmt"
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
// (up to 256 bytes in the same allocation as the Memory itself), large ones
// from the caching allocator (see cache.go). Go heap memory stays alive
// through ptr, which points into it. The struct is kept small because every
// small tensor carries one.
type Memory struct {
	ptr      unsafe.Pointer
	n        int
	cached   *cachedBlock // a block of the cache; nil otherwise
	released atomic.Bool
	zeroed   bool
}

// cachedBlock is a block of the cache lent to a Memory, and the cleanup
// that returns it if the Memory is dropped without Release.
type cachedBlock struct {
	blk     *block
	cleanup runtime.Cleanup
}

var empty [Alignment]byte

// Allocate returns n bytes of aligned CPU memory. Zeroed reports whether
// they hold zeros (fresh memory does; memory reused from the cache does not).
// More than kernel.MaxNbytes bytes, or memory the system refuses, is an error.
func Allocate(n int) (*Memory, error) {
	if err := kernel.CheckAllocation(n); err != nil {
		return nil, err
	}
	if n == 0 {
		return &Memory{ptr: unsafe.Pointer(&empty[0]), zeroed: true}, nil
	}
	if hostCache.enabled(n) {
		b, zeroed, err := hostCache.get(n)
		if err != nil {
			return nil, kernel.Errorf(kernel.ErrDevice, "cpu: cannot allocate %d bytes: %v", n, err)
		}
		m := &Memory{cached: &cachedBlock{blk: b}, ptr: unsafe.Pointer(unsafe.SliceData(b.data)), n: n, zeroed: zeroed}
		m.cached.cleanup = runtime.AddCleanup(m, hostCache.put, b)
		return m, nil
	}
	if n <= SmallMax {
		// The Memory is the owner of its bytes, in one allocation.
		if m, small := kernel.AllocateWith[Memory](n); m != nil {
			m.ptr, m.n, m.zeroed = small.HostPtr(), n, true
			return m, nil
		}
	}
	buf := make([]byte, n+Alignment-1)
	return &Memory{ptr: align(unsafe.Pointer(unsafe.SliceData(buf))), n: n, zeroed: true}, nil
}

// SmallMax is the largest allocation served from the Go heap together
// with its Memory (kernel.AllocateWith).
const SmallMax = kernel.SmallMax

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
	if !m.released.CompareAndSwap(false, true) || m.cached == nil {
		return
	}
	m.cached.cleanup.Stop()
	hostCache.put(m.cached.blk)
}

// Released reports whether Release was called.
func (m *Memory) Released() bool { return m.released.Load() }

func init() {
	kernel.RegisterAllocator(device.CPU, func(_ device.Device, n int) (kernel.Memory, error) {
		return Allocate(n)
	})
	kernel.RegisterHostMemory(kernel.HostMemory{
		Wrap:         func(p unsafe.Pointer, n int) kernel.Memory { return Wrap(p, n) },
		MapFile:      MapFile,
		SharedMemory: SharedMemory,
		OpenShared:   OpenShared,
	})
	kernel.RegisterGenerator(func() kernel.Generator { return new(Generator) })
	kernel.RegisterBackendInfo(device.CPU, backendInfo)
	kernel.RegisterSmallPolicy(func(n int) bool { return !hostCache.enabled(n) })
}

// backendInfo says what the CPU backend found: the instruction set of its
// kernels, its BLAS (OpenBLAS, loaded now if it was not yet, else gonum's)
// and the cores Go uses.
func backendInfo() kernel.BackendInfo {
	b := BLAS()
	blas := "gonum BLAS (pure Go)"
	if b.Name == "openblas" {
		blas = fmt.Sprintf("OpenBLAS %s (%s, %d threads)", b.Library, b.Detail, b.Threads)
	} else if b.Detail != "" {
		blas += "; OpenBLAS not loaded: " + b.Detail
	}
	return kernel.BackendInfo{Available: true, Detail: fmt.Sprintf("%s/%s, kernels %s, %s, %d cores used",
		runtime.GOOS, runtime.GOARCH, ISA(), blas, runtime.GOMAXPROCS(0))}
}
