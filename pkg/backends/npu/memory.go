package npu

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// Memory is an allocation on an NPU: a device address and a size. It is
// returned to the caching allocator by Release, or by a cleanup when the
// garbage collector finds it unreachable (a safety net only: release
// device memory explicitly, with Tensor.Release, in loops).
type Memory struct {
	dev      int
	n        int
	blk      *block
	released atomic.Bool
	cleanup  runtime.Cleanup
}

// block is a device allocation the cache owns.
type block struct {
	dev    int
	ptr    uint64
	size   int    // rounded size
	stream uint64 // the stream current when it was allocated
}

// key is a free list: blocks of one size last used on one stream. A block
// is reused only on the stream it was allocated on, whose order makes the
// reuse safe without waiting (PyTorch's rule; using a block on another
// stream as well is not tracked in this version).
type key struct {
	size   int
	stream uint64
}

// Device is the NPU the memory is on.
func (m *Memory) Device() device.Device { return device.NPUDevice(m.dev) }

// Nbytes is the size asked for (the block may be larger).
func (m *Memory) Nbytes() int { return m.n }

// HostPtr is nil: the host cannot address device memory.
func (m *Memory) HostPtr() unsafe.Pointer { return nil }

// DevicePtr is the device address of the first byte (0 for an empty
// allocation).
func (m *Memory) DevicePtr() uintptr { return uintptr(m.blk.ptr) }

// Released reports whether Release was called.
func (m *Memory) Released() bool { return m.released.Load() }

// Release returns the block to the caching allocator now. Work already
// queued on the device's stream that uses it runs before any later user of
// the block, since one stream orders all of them. Releasing twice is harmless.
func (m *Memory) Release() {
	if !m.released.CompareAndSwap(false, true) {
		return
	}
	m.cleanup.Stop()
	caches[m.dev].put(m.blk)
}

// unit is the allocation granularity, as PyTorch's caching allocator.
const unit = 512

// cache is one device's caching allocator: blocks by rounded size, reused
// after release; statistics as torch.npu.memory_*.
type cache struct {
	mu        sync.Mutex
	free      map[key][]*block
	allocated int64 // bytes in blocks handed out
	reserved  int64 // bytes held from the device (handed out + cached)
	peak      int64
	mallocs   int64
}

var caches [16]cache

func roundSize(n int) int {
	if n <= 0 {
		return 0
	}
	return (n + unit - 1) / unit * unit
}

// maxCachedBytes bounds the cache (MINDTORCH_NPU_CACHE_MB, default no bound).
var maxCachedBytes = func() int64 {
	if v, err := strconv.Atoi(os.Getenv("MINDTORCH_NPU_CACHE_MB")); err == nil && v >= 0 {
		return int64(v) << 20
	}
	return -1
}()

// Allocate returns n bytes on device dev, from the cache when it has a
// block of the size. When the device is out of memory it waits for the
// stream, frees the cached blocks and tries once more.
func Allocate(dev, n int) (*Memory, error) {
	if err := ready(dev); err != nil {
		return nil, err
	}
	c := &caches[dev]
	size := roundSize(n)
	k := key{size, streamOf(dev)}
	c.mu.Lock()
	var b *block
	if l := c.free[k]; len(l) > 0 {
		b = l[len(l)-1]
		c.free[k] = l[:len(l)-1]
	}
	c.mu.Unlock()
	if b == nil && size > 0 {
		ptr, st := npushim.Malloc(dev, size)
		if st != nil {
			// Out of memory: wait for queued work, return the cache, retry once.
			_ = npushim.Synchronize(dev)
			c.empty()
			ptr, st = npushim.Malloc(dev, size)
		}
		if st != nil {
			err := statusError("malloc", st)
			e := kernel.AsOpError(err)
			e.Detail += " (after emptying the cache: " + strconv.FormatInt(c.stats().Reserved, 10) + " bytes still reserved)"
			return nil, e
		}
		b = &block{dev: dev, ptr: ptr, size: size, stream: k.stream}
		c.mu.Lock()
		c.reserved += int64(size)
		c.mallocs++
		c.mu.Unlock()
	} else if b == nil {
		b = &block{dev: dev}
	}
	c.mu.Lock()
	c.allocated += int64(b.size)
	c.peak = max(c.peak, c.allocated)
	c.mu.Unlock()
	m := &Memory{dev: dev, n: n, blk: b}
	m.cleanup = runtime.AddCleanup(m, func(b *block) { caches[b.dev].put(b) }, b)
	return m, nil
}

func (c *cache) put(b *block) {
	c.mu.Lock()
	c.allocated -= int64(b.size)
	if b.size == 0 {
		c.mu.Unlock()
		return
	}
	if c.free == nil {
		c.free = map[key][]*block{}
	}
	k := key{b.size, b.stream}
	c.free[k] = append(c.free[k], b)
	over := maxCachedBytes >= 0 && c.reserved-c.allocated > maxCachedBytes
	c.mu.Unlock()
	if over {
		c.empty()
	}
}

// empty frees the cached blocks after the stream is done with them.
func (c *cache) empty() {
	c.mu.Lock()
	free := c.free
	c.free = nil
	c.mu.Unlock()
	if len(free) == 0 {
		return
	}
	dev := -1
	for _, l := range free {
		if len(l) > 0 {
			dev = l[0].dev
		}
	}
	_ = npushim.Synchronize(dev)
	for _, l := range free {
		for _, b := range l {
			if npushim.Free(b.dev, b.ptr) == nil {
				c.mu.Lock()
				c.reserved -= int64(b.size)
				c.mu.Unlock()
			}
		}
	}
}

// MemoryStats are one device's allocator statistics, as
// torch.npu.memory_allocated, max_memory_allocated and memory_reserved.
type MemoryStats struct {
	Allocated     int64 // bytes in tensors' blocks
	PeakAllocated int64 // the most Allocated was since the last reset
	Reserved      int64 // bytes held from the device: allocated and cached
	Mallocs       int64 // device allocations made
}

func (c *cache) stats() MemoryStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return MemoryStats{Allocated: c.allocated, PeakAllocated: c.peak, Reserved: c.reserved, Mallocs: c.mallocs}
}

// Stats returns device dev's allocator statistics.
func Stats(dev int) MemoryStats {
	if dev < 0 || dev >= len(caches) {
		return MemoryStats{}
	}
	return caches[dev].stats()
}

// ResetPeakMemoryStats sets the peak to the current allocated bytes.
func ResetPeakMemoryStats(dev int) {
	if dev < 0 || dev >= len(caches) {
		return
	}
	c := &caches[dev]
	c.mu.Lock()
	c.peak = c.allocated
	c.mu.Unlock()
}

// EmptyCache frees device dev's cached blocks (after its stream is done).
func EmptyCache(dev int) {
	if dev >= 0 && dev < len(caches) && IsAvailable() {
		caches[dev].empty()
	}
}

func init() {
	kernel.RegisterAllocator(device.NPU, func(dev device.Device, n int) (kernel.Memory, error) {
		i := dev.Index
		if i < 0 {
			i = CurrentDevice()
		}
		return Allocate(i, n)
	})
}
