package torch_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mindtorch/mindtorch/pkg/backends/cpu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// processResources counts the process's memory mappings and open files.
func processResources(t *testing.T) (maps, fds int) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n"), len(entries)
}

// TestMappedStorageLifetimes makes 100 000 shared-memory and file-backed
// storages (10 000 with -short), half released at once and half dropped for
// the garbage collector, and checks that the process's mappings and open
// files come back to where they were.
func TestMappedStorageLifetimes(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	path := filepath.Join(t.TempDir(), "weights.bin")
	if err := os.WriteFile(path, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	maps0, fds0 := processResources(t)
	for i := range n {
		var u *torch.UntypedStorage
		var err error
		if i%2 == 0 {
			u, err = torch.NewUntypedStorage(256)
			if err == nil {
				err = u.ShareMemory_()
			}
		} else {
			u, err = torch.UntypedStorageFromFile(path, i%4 == 1, 4096)
		}
		if err != nil {
			t.Fatalf("storage %d: %v", i, err)
		}
		if i%8 < 4 {
			u.Release()
		}
	}
	// The dropped half goes with the cleanups after a collection.
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		m, f := cpu.MappedStats()
		if m == 0 && f == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if m, f := cpu.MappedStats(); m != 0 || f != 0 {
		t.Errorf("%d mappings and %d descriptors still live", m, f)
	}
	maps1, fds1 := processResources(t)
	// Allow for the runtime's own growth (heap arenas, threads), not for
	// thousands of leaked mappings or files.
	if maps1 > maps0+64 || fds1 > fds0+4 {
		t.Errorf("mappings %d -> %d, open files %d -> %d", maps0, maps1, fds0, fds1)
	}
}
