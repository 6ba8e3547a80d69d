package torch_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// dirtyKiB sums Shared_Dirty and Private_Dirty of the mapping holding addr
// in /proc/self/smaps: the pages written and not yet written back to the
// file. It skips the test where that cannot be measured: without smaps, or
// on tmpfs, where msync writes nothing back.
func dirtyKiB(t *testing.T, dir string, addr uintptr) int {
	t.Helper()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil || fs.Type == 0x01021994 { // TMPFS_MAGIC
		t.Skip("msync has no effect to measure on tmpfs")
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	in, dirty := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(sc.Text(), "%x-%x ", &lo, &hi); n == 2 {
			if in {
				break
			}
			in = lo <= addr && addr < hi
			continue
		}
		var kb int
		if _, err := fmt.Sscanf(strings.TrimPrefix(sc.Text(), "Shared"), "_Dirty: %d kB", &kb); in && err == nil {
			dirty += kb
		} else if _, err := fmt.Sscanf(strings.TrimPrefix(sc.Text(), "Private"), "_Dirty: %d kB", &kb); in && err == nil {
			dirty += kb
		}
	}
	return dirty
}

// mapBytes maps n bytes of the file at path shared, as a uint8 tensor.
func mapBytes(t *testing.T, path string, n int) (*torch.UntypedStorage, *torch.Tensor) {
	t.Helper()
	s, err := torch.UntypedStorageFromFile(path, true, n)
	if err != nil {
		t.Fatal(err)
	}
	return s, torch.FromStorage(torch.NewTypedStorage(s, torch.Uint8), 0, []int{n}, nil)
}

func TestFlushWritesSharedFileMapping(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	const n = 3 << 12
	s, x := mapBytes(t, path, n)
	defer s.Release()
	if err := x.Fill_(7).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, bytes.Repeat([]byte{7}, n)) {
		t.Errorf("the file after Flush: %v %v", b[:min(len(b), 8)], err)
	}
	p, _ := s.DataPtr()
	if d := dirtyKiB(t, dir, p); d != 0 {
		t.Errorf("%d KiB of the mapping are still dirty after Flush", d)
	}
}

// Releasing the last storage over a shared file mapping writes it back:
// another mapping of the file, kept alive, sees its pages clean.
func TestReleaseFlushesSharedFileMapping(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	const n = 3 << 12
	other, y := mapBytes(t, path, n)
	defer other.Release()
	if err := y.Sum().Err(); err != nil { // maps the pages into other
		t.Fatal(err)
	}
	s, x := mapBytes(t, path, n)
	if err := x.Fill_(9).Err(); err != nil {
		t.Fatal(err)
	}
	s.Release()
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, bytes.Repeat([]byte{9}, n)) {
		t.Errorf("the file after Release: %v %v", b[:min(len(b), 8)], err)
	}
	p, _ := other.DataPtr()
	if d := dirtyKiB(t, dir, p); d != 0 {
		t.Errorf("%d KiB of the file are still dirty after Release", d)
	}
}

func TestFlushOfOtherStorage(t *testing.T) {
	heap := torch.Ones([]int{1 << 16}).UntypedStorage()
	shm := torch.Ones([]int{4}).UntypedStorage()
	if err := shm.ShareMemory_(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(path, []byte("abcd"), 0o644); err != nil {
		t.Fatal(err)
	}
	private, err := torch.UntypedStorageFromFile(path, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := mapBytes(t, path, 4)
	slice, err := shared.Slice(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	meta := torch.Empty([]int{4}, torch.WithDevice("meta")).UntypedStorage()
	for name, s := range map[string]*torch.UntypedStorage{"heap": heap, "shared memory": shm, "private mapping": private,
		"slice of a shared mapping": slice, "meta": meta} {
		if err := s.Flush(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, s := range map[string]*torch.UntypedStorage{"heap": heap, "shared mapping": shared} {
		s.Release()
		if err := s.Flush(); err == nil || !strings.Contains(err.Error(), "flush") || !strings.Contains(err.Error(), "released") {
			t.Errorf("flushing released %s: %v", name, err)
		}
	}
	if err := shared.Flush(); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("flushing a released mapping must name the file: %v", err)
	}
	if err := slice.Flush(); err != nil { // the slice still holds the mapping
		t.Errorf("a slice outliving its parent: %v", err)
	}
	private.Release()
	slice.Release()
	shm.Release()
}
