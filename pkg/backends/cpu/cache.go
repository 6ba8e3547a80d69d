package cpu

import (
	"cmp"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// The CPU caching allocator.
//
// Writing into memory that the process has never touched costs a page fault
// per 4 KiB page: for a 4 MiB result that is more than the arithmetic that
// fills it. Large allocations therefore come from a cache of blocks mapped
// outside the Go heap and kept after use, in size classes a quarter of a
// power of two apart (at most 25% slack). A block returns to the cache when
// its memory is released (Memory.Release, which tensors' Release calls, and
// kernels for their temporaries) or, as a safety net, when the garbage
// collector finds its Memory unreachable.
//
// Because the Go heap does not see these blocks, the garbage collector would
// not know that dropped tensors hold a lot of memory. The cache runs a
// collection itself when the bytes handed out and not returned exceed
// twice the lowest level seen since the last collection, which is the
// policy of GOGC=100 applied to tensor memory: in the background, or in
// the allocating goroutine when GOMAXPROCS is 1 (see account).
//
// Environment: MINDTORCH_CPU_CACHE_MB bounds the idle bytes kept (default
// 1024; 0 turns the cache off and every allocation below 1 GiB comes from
// the Go heap).
// MINDTORCH_CPU_CACHE_DEBUG=1 sends every allocation, however small, through
// the cache and fills reused blocks with 0xFF bytes, to find kernels that
// wrongly expect fresh memory to hold zeros.

const (
	minCached  = 64 << 10 // smaller allocations come from the Go heap
	minTrigger = 64 << 20 // never collect for less outstanding memory than this
	mapAlways  = 1 << 30  // mapped even with the cache off: the Go heap's failure to find them would be fatal
)

// block is one mapping. It never refers to the Memory that uses it, so that
// the Memory can become unreachable while its cleanup holds the block.
type block struct {
	data []byte
	used uint64 // when it was last handed out (the cache's clock)
}

type cache struct {
	mu     sync.Mutex
	free   map[int][]*block // by size class, each list in the order of used
	idle   int64            // bytes in free
	limit  int64            // bound on idle
	min    int              // smallest size served from the cache
	poison bool
	clock  uint64 // counts the blocks handed out

	live                      atomic.Int64 // bytes handed out and not returned
	low                       atomic.Int64 // lowest live since the last collection
	collecting                atomic.Bool
	hits, misses, collections atomic.Int64
}

var hostCache = newCache()

func newCache() *cache {
	c := &cache{free: map[int][]*block{}, limit: 1 << 30, min: minCached}
	if v, err := strconv.Atoi(os.Getenv("MINDTORCH_CPU_CACHE_MB")); err == nil && v >= 0 {
		c.limit = int64(v) << 20
	}
	if os.Getenv("MINDTORCH_CPU_CACHE_DEBUG") == "1" {
		c.min, c.poison = 1, true
	}
	if !mappingSupported || c.limit == 0 {
		c.min = -1
	}
	return c
}

// sizeClass rounds n up to a multiple of a quarter of the largest power of
// two below it (and to whole pages).
func sizeClass(n int) int {
	if n <= 4096 {
		return 4096
	}
	step := 1 << (bits.Len(uint(n-1)) - 3)
	return (n + step - 1) &^ (step - 1)
}

// enabled reports whether an allocation of n bytes comes from the cache.
// Allocations of mapAlways bytes and more are mapped by it even when it is
// turned off (then put unmaps them at once): the system's refusal is an
// error there, where the Go heap's would end the program.
func (c *cache) enabled(n int) bool {
	return c.min >= 0 && n >= c.min || mappingSupported && n >= mapAlways
}

// get returns a block of at least n bytes and whether it holds zeros.
func (c *cache) get(n int) (*block, bool, error) {
	size := sizeClass(n)
	c.mu.Lock()
	var b *block
	if l := c.free[size]; len(l) > 0 {
		b = l[len(l)-1]
		l[len(l)-1] = nil
		c.free[size] = l[:len(l)-1]
		c.idle -= int64(size)
	}
	c.clock++
	if b != nil {
		b.used = c.clock
	}
	c.mu.Unlock()
	c.account(int64(size))
	if b != nil {
		c.hits.Add(1)
		if c.poison {
			for i := range b.data {
				b.data[i] = 0xFF
			}
		}
		return b, false, nil
	}
	c.misses.Add(1)
	data, err := mapAnonymous(size)
	if err != nil {
		c.live.Add(-int64(size))
		return nil, false, err
	}
	c.mu.Lock()
	c.clock++
	b = &block{data: data, used: c.clock}
	c.mu.Unlock()
	return b, true, nil
}

// put returns a block to the cache. When the idle bytes would exceed the
// limit, the blocks used longest ago are unmapped first, whatever their
// size: a program that moves from large tensors to small ones must not find
// the cache full of blocks it no longer uses.
func (c *cache) put(b *block) {
	size := int64(len(b.data))
	c.live.Add(-size)
	for {
		low, live := c.low.Load(), c.live.Load()
		if live >= low || c.low.CompareAndSwap(low, live) {
			break
		}
	}
	var drop []*block
	c.mu.Lock()
	if size > c.limit {
		drop = append(drop, b)
	} else {
		for c.idle+size > c.limit {
			drop = append(drop, c.evictOldest())
		}
		c.free[int(size)] = insertByUse(c.free[int(size)], b)
		c.idle += size
	}
	c.mu.Unlock()
	for _, d := range drop {
		unmap(d.data)
	}
}

// insertByUse inserts b into l, kept in the order of when the blocks were
// last handed out. The most recently used block is handed out first: the
// garbage collector returns the results it finds dead all at once and in
// no particular order, and the block written last is the one most likely
// to be still in the processor's caches.
func insertByUse(l []*block, b *block) []*block {
	i, _ := slices.BinarySearchFunc(l, b.used, func(x *block, used uint64) int { return cmp.Compare(x.used, used) })
	return slices.Insert(l, i, b)
}

// evictOldest removes the idle block used longest ago (the first of its
// size class's list) and returns it. c.mu is held and the
// cache is not empty.
func (c *cache) evictOldest() *block {
	oldest := -1
	for size, l := range c.free {
		if len(l) > 0 && (oldest < 0 || l[0].used < c.free[oldest][0].used) {
			oldest = size
		}
	}
	l := c.free[oldest]
	b := l[0]
	copy(l, l[1:])
	l[len(l)-1] = nil
	c.free[oldest] = l[:len(l)-1]
	c.idle -= int64(len(b.data))
	return b
}

// account adds n handed-out bytes and starts a collection when the
// outstanding bytes have doubled since the lowest point after the last one.
func (c *cache) account(n int64) {
	live := c.live.Add(n)
	if live <= max(minTrigger, 2*c.low.Load()) || !c.collecting.CompareAndSwap(false, true) {
		return
	}
	c.low.Store(live)
	c.collections.Add(1)
	if runtime.GOMAXPROCS(0) == 1 {
		// With one P, a collection in the background waits for the
		// allocating goroutine to be preempted, which allocates meanwhile
		// (the trigger overshot several times over, blocks reused cold):
		// collect now. Adds of 1e6 floats whose results are left to the
		// collector took 296-336 instead of 612-825 us (medians of
		// alternating runs in two sittings; 1e5: 60-65 instead of 76-80).
		// With more, in the background: collecting here made the 2-thread
		// inference loop slower (its median in one sitting, its p99 in
		// another).
		runtime.GC()
		c.collecting.Store(false)
		return
	}
	go func() {
		runtime.GC()
		c.collecting.Store(false)
	}()
}

// empty unmaps every idle block.
func (c *cache) empty() {
	c.mu.Lock()
	free := c.free
	c.free, c.idle = map[int][]*block{}, 0
	c.mu.Unlock()
	for _, l := range free {
		for _, b := range l {
			unmap(b.data)
		}
	}
}

// CacheStats describes the CPU caching allocator.
type CacheStats struct {
	Live        int64 // bytes of cached-size allocations in use
	Idle        int64 // bytes kept for reuse
	Limit       int64 // bound on Idle
	Hits        int64 // allocations served from the cache
	Misses      int64 // allocations that mapped new memory
	Collections int64 // garbage collections the cache started
}

// Stats returns the allocator's counters.
func Stats() CacheStats {
	c := hostCache
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	return CacheStats{Live: c.live.Load(), Idle: idle, Limit: c.limit,
		Hits: c.hits.Load(), Misses: c.misses.Load(), Collections: c.collections.Load()}
}

// EmptyCache returns every idle block of the CPU cache to the system.
func EmptyCache() { hostCache.empty() }
