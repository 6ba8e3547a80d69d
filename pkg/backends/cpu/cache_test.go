package cpu

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"
)

func TestSizeClass(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{1, 4096}, {4096, 4096}, {4097, 5120}, {64 << 10, 64 << 10}, {(64 << 10) + 1, 80 << 10},
		{400_000, 458_752}, {4_000_000, 4_194_304}, {64_000_000, 67_108_864},
	} {
		if got := sizeClass(tc.n); got != tc.want {
			t.Errorf("sizeClass(%d) = %d, want %d", tc.n, got, tc.want)
		}
		if got := sizeClass(tc.n); got < tc.n || float64(got) > 1.25*float64(tc.n)+4096 {
			t.Errorf("sizeClass(%d) = %d: outside [n, 1.25n]", tc.n, got)
		}
	}
}

func TestReleaseReusesTheBlock(t *testing.T) {
	if !hostCache.enabled(1 << 20) {
		t.Skip("the CPU cache is turned off (MINDTORCH_CPU_CACHE_MB=0)")
	}
	a, err := Allocate(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Zeroed() {
		t.Error("fresh cached memory should be zeroed")
	}
	p := a.HostPtr()
	a.Release()
	a.Release() // twice is harmless
	if !a.Released() {
		t.Error("Released() = false after Release")
	}
	b, err := Allocate(1<<20 - 100) // same size class
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if b.HostPtr() != p {
		t.Error("a released block was not reused")
	}
	if b.Zeroed() {
		t.Error("reused memory must not claim to be zeroed")
	}
}

func TestSmallAllocationsUseTheGoHeap(t *testing.T) {
	if hostCache.enabled(100) {
		t.Skip("debug mode sends every allocation through the cache")
	}
	for _, n := range []int{1, 64, 65, 100, 256, 257, 1000} {
		m, err := Allocate(n)
		if err != nil {
			t.Fatal(err)
		}
		if m.cached != nil || uintptr(m.HostPtr())%Alignment != 0 || !m.Zeroed() || len(m.Bytes()) != n {
			t.Errorf("Allocate(%d): cached block %v, aligned %v, zeroed %v, %d bytes", n, m.cached != nil,
				uintptr(m.HostPtr())%Alignment == 0, m.Zeroed(), len(m.Bytes()))
		}
		for i := range m.Bytes() { // the whole range is writable
			m.Bytes()[i] = byte(i)
		}
		m.Release()
		if !m.Released() {
			t.Errorf("Allocate(%d): Released() = false after Release of heap memory", n)
		}
	}
}

// Memory that is dropped without Release comes back through the garbage
// collector: allocating far more than the idle bound must not grow the
// bytes in use without limit.
func TestDroppedMemoryReturns(t *testing.T) {
	if !hostCache.enabled(1 << 20) {
		t.Skip("the CPU cache is turned off")
	}
	before := Stats()
	for range 400 { // 400 MiB in total
		m, err := Allocate(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		*(*byte)(m.HostPtr()) = 1
	}
	deadline := time.Now().Add(5 * time.Second)
	for Stats().Live-before.Live > 64<<20 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if live := Stats().Live - before.Live; live > 64<<20 {
		t.Errorf("%d bytes still live after dropping every allocation", live)
	}
	if s := Stats(); s.Hits == before.Hits {
		t.Error("no allocation reused a block")
	}
}

// getAndPut takes count blocks of size bytes from c, all at once, then
// returns them.
func getAndPut(t *testing.T, c *cache, count, size int) {
	t.Helper()
	var bs []*block
	for range count {
		b, _, err := c.get(size)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	for _, b := range bs {
		c.put(b)
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := &cache{free: map[int][]*block{}, limit: 3 << 20, min: 1}
	getAndPut(t, c, 5, 1<<20)
	if c.idle != 3<<20 || c.live.Load() != 0 {
		t.Errorf("idle %d live %d, want %d and 0", c.idle, c.live.Load(), 3<<20)
	}
	c.empty()
	if c.idle != 0 || len(c.free) != 0 {
		t.Errorf("after empty: idle %d, %d classes", c.idle, len(c.free))
	}
}

// TestCacheEvictsTheOldest fills the cache with large blocks, then cycles
// small ones: the small ones must stay cached (hits), the large ones go.
func TestCacheEvictsTheOldest(t *testing.T) {
	c := &cache{free: map[int][]*block{}, limit: 8 << 20, min: 1}
	getAndPut(t, c, 2, 4<<20)
	if c.idle != 8<<20 {
		t.Fatalf("idle %d after putting two 4 MiB blocks, want 8 MiB", c.idle)
	}
	for range 10 {
		b, _, err := c.get(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		c.put(b)
	}
	if c.hits.Load() < 9 {
		t.Errorf("%d hits for 10 cycles of a 1 MiB block: the cache dropped the small block instead of an old large one", c.hits.Load())
	}
	if n := len(c.free[4<<20]); n != 1 || c.idle != 5<<20 {
		t.Errorf("%d large blocks and %d idle bytes left, want 1 and 5 MiB", n, c.idle)
	}
	// A block larger than the limit is never kept.
	b, _, err := c.get(16 << 20)
	if err != nil {
		t.Fatal(err)
	}
	c.put(b)
	if len(c.free[16<<20]) != 0 || c.idle > c.limit {
		t.Errorf("a block above the limit was kept (idle %d)", c.idle)
	}
	c.empty()
}

// TestCacheHandsOutTheMostRecentlyUsed returns blocks in an order other
// than their use, as the garbage collector does, and expects them back
// most recently used first.
func TestCacheHandsOutTheMostRecentlyUsed(t *testing.T) {
	c := &cache{free: map[int][]*block{}, limit: 64 << 20, min: 1}
	defer c.empty()
	blocks := make([]*block, 5)
	for i := range blocks {
		b, _, err := c.get(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		blocks[i] = b
	}
	for _, i := range []int{2, 4, 0, 3, 1} {
		c.put(blocks[i])
	}
	for want := 4; want >= 0; want-- {
		b, _, err := c.get(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		if b != blocks[want] {
			t.Errorf("got block %d, want %d (the most recently used of the rest)", slices.Index(blocks, b), want)
		}
	}
}

// Many goroutines allocating and releasing concurrently (run with -race).
func TestCacheConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				m, err := Allocate((g + 1) * (i%7 + 1) * 40_000)
				if err != nil {
					t.Error(err)
					return
				}
				b := unsafe.Slice((*byte)(m.HostPtr()), m.Nbytes())
				b[0], b[len(b)-1] = byte(g), byte(i)
				m.Release()
			}
		})
	}
	wg.Wait()
}
