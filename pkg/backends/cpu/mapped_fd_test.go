//go:build linux

package cpu

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

func identity(t *testing.T, fd int) [2]uint64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatalf("descriptor %d: %v", fd, err)
	}
	return [2]uint64{st.Dev, st.Ino}
}

// TestMappedFile: File is a duplicate the caller owns; closing or
// collecting it leaves the mapping's descriptor open, and the mapping
// closes its own once, on the last release.
func TestMappedFile(t *testing.T) {
	mem, err := SharedMemory(64)
	if err != nil {
		t.Fatal(err)
	}
	m := mem.(*Mapped)
	fd, err := m.Fd()
	if err != nil {
		t.Fatal(err)
	}
	id := identity(t, fd)
	f, err := m.File()
	if err != nil {
		t.Fatal(err)
	}
	if int(f.Fd()) == fd || identity(t, int(f.Fd())) != id {
		t.Fatalf("File is not a duplicate of descriptor %d: %d", fd, f.Fd())
	}
	_, fds0 := MappedStats()
	f.Close()
	if _, err := m.File(); err != nil { // dropped: collected below
		t.Fatal(err)
	}
	for range 4 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if identity(t, fd) != id {
		t.Fatalf("descriptor %d no longer names the shared memory", fd)
	}
	if _, fds := MappedStats(); fds != fds0 {
		t.Errorf("duplicates are the caller's: the mapping's descriptors went %d -> %d", fds0, fds)
	}
	s, _ := m.Slice(0, 8)
	m.Release()
	if _, err := m.Fd(); err == nil {
		t.Error("Fd of a released mapping")
	}
	if _, err := m.File(); err == nil {
		t.Error("File of a released mapping")
	}
	if identity(t, fd) != id {
		t.Fatal("a slice keeps the descriptor open")
	}
	s.Release()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err == nil && [2]uint64{st.Dev, st.Ino} == id {
		t.Errorf("the last release leaves descriptor %d open", fd)
	}
}

// TestMappedDescriptorStress makes, slices, hands over (OpenShared, File),
// releases and drops shared memory and file mappings on several goroutines
// with the collector running all the time, while other goroutines open and
// read files: a descriptor closed twice, or closed by a cleanup after its
// number was reused, shows as a read that fails or returns other bytes, or
// as a long-lived file that no longer names its file.
func TestMappedDescriptorStress(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	iters := 2000
	if testing.Short() {
		iters = 300
	}
	dir := t.TempDir()
	sentinel := filepath.Join(dir, "sentinel")
	want := bytes.Repeat([]byte("0123456789abcdef"), 1024)
	if err := os.WriteFile(sentinel, want, 0o644); err != nil {
		t.Fatal(err)
	}
	long, err := os.Open(sentinel)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Close()
	longID := identity(t, int(long.Fd()))
	mappedPath := filepath.Join(dir, "mapped.bin")
	if err := os.WriteFile(mappedPath, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var failures atomic.Int64
	var firstErr sync.Once
	fail := func(format string, args ...any) {
		failures.Add(1)
		firstErr.Do(func() { t.Errorf(format, args...) })
	}
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for !stop.Load() {
				got, err := os.ReadFile(sentinel)
				if err != nil || !bytes.Equal(got, want) {
					fail("reading a file while mappings come and go: %d bytes, %v", len(got), err)
				}
			}
		})
	}
	readers.Go(func() {
		for !stop.Load() {
			runtime.GC()
			time.Sleep(100 * time.Microsecond)
		}
	})

	var workers sync.WaitGroup
	for w := range 4 {
		workers.Go(func() {
			for i := range iters {
				if err := churn(mappedPath, w+i); err != nil {
					fail("worker %d, iteration %d: %v", w, i, err)
					return
				}
			}
		})
	}
	workers.Wait()
	stop.Store(true)
	readers.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d failures", n)
	}

	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		m, f := MappedStats()
		if m == 0 && f == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if m, f := MappedStats(); m != 0 || f != 0 {
		t.Errorf("%d mappings and %d descriptors still live", m, f)
	}
	if got := identity(t, int(long.Fd())); got != longID {
		t.Errorf("a file open throughout now names another file")
	}
	buf := make([]byte, len(want))
	if n, err := long.ReadAt(buf, 0); err != nil || !bytes.Equal(buf[:n], want) {
		t.Errorf("a file open throughout: %d bytes, %v", n, err)
	}
}

// churn is one round of TestMappedDescriptorStress; k picks what is
// released and what is dropped for the collector.
func churn(path string, k int) error {
	mem, err := SharedMemory(4096)
	if err != nil {
		return err
	}
	m := mem.(*Mapped)
	fd, err := m.Fd()
	if err != nil {
		return err
	}
	other, err := OpenShared(fd, 4096) // as a child process would
	if err != nil {
		return err
	}
	*(*byte)(m.HostPtr()) = byte(k)
	if got := *(*byte)(other.HostPtr()); got != byte(k) {
		return fmt.Errorf("the other mapping reads %d, want %d", got, byte(k))
	}
	f, err := m.File()
	if err != nil {
		return err
	}
	if k%3 == 0 {
		f.Close()
	}
	s, err := m.Slice(8, 16)
	if err != nil {
		return err
	}
	runtime.KeepAlive(m) // fd was used above
	release := func(ms ...kernel.Memory) {
		for j, x := range ms {
			if (k>>j)&1 == 0 {
				x.Release()
			}
		}
	}
	release(m, other, s)

	file, err := MapFile(path, k%2 == 0, 4096)
	if err != nil {
		return err
	}
	fs, err := file.(*Mapped).Slice(0, 64)
	if err != nil {
		return err
	}
	_ = *(*byte)(unsafe.Add(fs.HostPtr(), 63))
	release(fs, file)
	return nil
}
