package npu

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
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
	size   int      // rounded size
	stream uint64   // the stream current when it was allocated
	usedOn []uint64 // other streams that use it (RecordStream)
	events []uint64 // after release: events on usedOn that must complete before reuse
}

// key is a free list: blocks of one size allocated on one stream. A block
// is reused only on the stream it was allocated on, whose order makes the
// reuse safe without waiting (PyTorch's rule); a block that other streams
// also used (RecordStream) waits, after its release, until the work they
// had queued is done, watched by one event per stream, destroyed then.
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

// RecordStream marks the memory as used by work on s as well as on the
// stream it was allocated on: after Release, the block is reused only when
// the work queued on s by then is done (PyTorch's record_stream).
func (m *Memory) RecordStream(s *Stream) {
	if s.h == m.blk.stream || s.dev != m.dev {
		return
	}
	c := &caches[m.dev]
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(m.blk.usedOn, s.h) {
		m.blk.usedOn = append(m.blk.usedOn, s.h)
	}
}

// ReadHost copies len(dst) bytes from byte off of the memory into dst,
// after the device's stream is done (kernel.HostTransfer: the dispatcher
// runs ops the NPU lacks on the host with it).
func (m *Memory) ReadHost(dst []byte, off int) error {
	if err := m.checkRange("read", off, len(dst)); err != nil || len(dst) == 0 {
		return err
	}
	flushLaunches()
	return statusError("copy_", npushim.CopyToHost(m.dev, unsafe.Pointer(unsafe.SliceData(dst)), m.blk.ptr+uint64(off), len(dst)))
}

// WriteHost copies src into the memory from byte off (kernel.HostTransfer).
func (m *Memory) WriteHost(off int, src []byte) error {
	if err := m.checkRange("write", off, len(src)); err != nil || len(src) == 0 {
		return err
	}
	flushLaunches()
	return statusError("copy_", npushim.CopyToDevice(m.dev, m.blk.ptr+uint64(off), unsafe.Pointer(unsafe.SliceData(src)), len(src)))
}

// checkRange refuses a transfer of n bytes at off outside the memory, or
// from released memory.
func (m *Memory) checkRange(what string, off, n int) error {
	if m.Released() {
		return kernel.Errorf(kernel.ErrArgument, "cannot %s NPU memory that was released", what)
	}
	if off < 0 || n < 0 || off > m.n || n > m.n-off {
		return kernel.Errorf(kernel.ErrArgument, "cannot %s %d bytes at byte %d of an NPU allocation of %d bytes", what, n, off, m.n)
	}
	return nil
}

// RecordStreamOf is RecordStream for a stream given as a kernel.Stream
// (kernel.StreamRecorder); a stream of another backend is ignored.
func (m *Memory) RecordStreamOf(s kernel.Stream) {
	if st, ok := s.(*Stream); ok && st != nil {
		m.RecordStream(st)
	}
}

// Release returns the block to the caching allocator now. Work already
// queued on the device's stream that uses it runs before any later user of
// the block, since one stream orders all of them. Releasing twice is harmless.
func (m *Memory) Release() {
	if !m.released.CompareAndSwap(false, true) {
		return
	}
	m.cleanup.Stop()
	if toBatchPool(m.blk) {
		return
	}
	caches[m.dev].put(m.blk)
}

// unit is the allocation granularity, as PyTorch's caching allocator.
const unit = 512

// cache is one device's caching allocator: blocks by rounded size, reused
// after release; statistics as torch.npu.memory_*.
type cache struct {
	dev       int
	mu        sync.Mutex
	free      map[key][]*block
	pending   []*block // released, waiting for other streams' work
	allocated int64    // bytes in blocks handed out
	reserved  int64    // bytes held from the device (handed out + cached)
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

// The allocator's configuration, from MINDTORCH_NPU_ALLOC_CONF (PyTorch's
// PYTORCH_NPU_ALLOC_CONF syntax: "key:value,key:value"):
//   - garbage_collection_threshold:F (0 < F < 1): before allocating, free the
//     cached blocks when the reserved bytes exceed F of the device memory;
//   - max_split_size_mb:N: the allocator never splits blocks, so any value
//     is accepted and blocks are only reused at their own size;
//   - max_cached_mb:N: free the cache when its idle bytes pass N MiB.
var gcThreshold, maxCachedBytes = allocConf(os.Getenv("MINDTORCH_NPU_ALLOC_CONF"))

// allocConf parses the allocator's configuration; malformed entries are
// reported once on standard error and ignored.
func allocConf(conf string) (gc float64, maxCached int64) {
	maxCached = -1
	for _, kv := range strings.Split(conf, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		bad := false
		switch k {
		case "garbage_collection_threshold":
			f, err := strconv.ParseFloat(v, 64)
			bad = err != nil || f <= 0 || f >= 1
			if !bad {
				gc = f
			}
		case "max_split_size_mb":
			n, err := strconv.Atoi(v)
			bad = err != nil || n <= 0
		case "max_cached_mb":
			n, err := strconv.Atoi(v)
			bad = err != nil || n < 0
			if !bad {
				maxCached = int64(n) << 20
			}
		default:
			bad = true
		}
		if bad {
			fmt.Fprintf(os.Stderr, "mindtorch: MINDTORCH_NPU_ALLOC_CONF: ignoring %q\n", kv)
		}
	}
	return gc, maxCached
}

// Allocate returns n bytes on device dev, from the cache when it has a
// block of the size. When the device is out of memory it waits for the
// stream, frees the cached blocks and tries once more.
func Allocate(dev, n int) (*Memory, error) {
	if err := kernel.CheckAllocation(n); err != nil {
		return nil, err
	}
	if err := ready(dev); err != nil {
		return nil, err
	}
	c := &caches[dev]
	c.sweep()
	if gcThreshold > 0 {
		c.collect(dev)
	}
	size := roundSize(n)
	k := key{size, streamOf(dev)}
	b := fromBatchPool(dev, k) // a block the goroutine's batch gave back
	c.mu.Lock()
	if l := c.free[k]; b == nil && len(l) > 0 {
		b = l[len(l)-1]
		c.free[k] = l[:len(l)-1]
	}
	c.mu.Unlock()
	if b == nil && size > 0 {
		ptr, st := npushim.Malloc(dev, size)
		if st != nil {
			// Out of memory: wait for queued work, return the cache, retry once.
			flushLaunches()
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
	usedOn := b.usedOn
	b.usedOn = nil
	c.mu.Unlock()
	if len(usedOn) > 0 && b.size > 0 {
		for _, s := range usedOn {
			flushLaunches()
			e, st := npushim.EventCreate(b.dev)
			if st == nil && npushim.EventRecord(b.dev, e, s) == nil {
				b.events = append(b.events, e)
			} else if st == nil {
				_ = npushim.EventDestroy(b.dev, e)
				_ = npushim.StreamSynchronize(b.dev, s) // cannot watch: wait now
			}
		}
		c.mu.Lock()
		c.allocated -= int64(b.size)
		c.pending = append(c.pending, b)
		c.mu.Unlock()
		return
	}
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

// sweep moves the pending blocks whose streams are done to the free lists,
// destroying their events.
func (c *cache) sweep() {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	var still []*block
	for _, b := range pending {
		done := true
		for _, e := range b.events {
			if ok, st := npushim.EventDone(b.dev, e); st != nil || !ok {
				done = false
				break
			}
		}
		if !done {
			still = append(still, b)
			continue
		}
		for _, e := range b.events {
			_ = npushim.EventDestroy(b.dev, e)
		}
		b.events = nil
		c.mu.Lock()
		c.allocated += int64(b.size) // put takes it off again
		c.mu.Unlock()
		c.put(b)
	}
	c.mu.Lock()
	c.pending = append(c.pending, still...)
	c.mu.Unlock()
}

// collect frees the cached blocks when the reserved bytes pass the
// garbage_collection_threshold share of the device's memory.
func (c *cache) collect(dev int) {
	_, total, st := npushim.MemInfo(dev)
	if st != nil || total == 0 {
		return
	}
	if float64(c.stats().Reserved) > gcThreshold*float64(total) {
		c.empty()
	}
}

// empty frees the cached blocks after the stream is done with them.
func (c *cache) empty() {
	flushLaunches()
	_ = npushim.Synchronize(c.dev)
	c.sweep()
	c.mu.Lock()
	free := c.free
	c.free = nil
	c.mu.Unlock()
	if len(free) == 0 {
		return
	}
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
	for i := range caches {
		caches[i].dev = i
	}
	kernel.RegisterAllocator(device.NPU, func(dev device.Device, n int) (kernel.Memory, error) {
		i := dev.Index
		if i < 0 {
			i = CurrentDevice()
		}
		return Allocate(i, n)
	})
	kernel.RegisterBackendInfo(device.NPU, func() kernel.BackendInfo {
		return kernel.BackendInfo{Available: IsAvailable(), Detail: Info()}
	})
}
