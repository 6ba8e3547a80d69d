//go:build linux

package torch_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// fdIdentity is the device and inode descriptor fd refers to; an error if
// fd is not open.
func fdIdentity(fd int) ([2]uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return [2]uint64{}, err
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, nil
}

// collect runs the garbage collector a few times and gives the cleanups
// and finalizers it queues (those of unreachable *os.File values and
// storages among them) time to run.
func collect() {
	for range 4 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}

// TestShareMemoryDescriptorOwnership hands shared memory to a child process
// as TestShareMemoryAcrossProcesses does, then checks that the descriptor
// is closed once, by its owner: the storage's own descriptor survives the
// collection of the *os.File handed over (a File wrapping the storage's
// number, as os.NewFile(Fd()) does, would close it under the storage, and
// the storage would later close the number again, by then another file's:
// a test reading a JSON file once failed with "bad file descriptor"), and a
// file opened after the storage is released stays readable through further
// collections.
func TestShareMemoryDescriptorOwnership(t *testing.T) {
	for i := range 3 {
		x := torch.Arange(6, torch.WithDType(torch.Float32))
		if err := x.ShareMemory_().Err(); err != nil {
			t.Fatal(err)
		}
		u := x.UntypedStorage()
		fd, err := u.Fd()
		if err != nil {
			t.Fatal(err)
		}
		id, err := fdIdentity(fd)
		if err != nil {
			t.Fatalf("the storage's descriptor %d: %v", fd, err)
		}
		f, err := u.File()
		if err != nil {
			t.Fatal(err)
		}
		if int(f.Fd()) == fd {
			t.Fatalf("File returned the storage's own descriptor %d, not a duplicate", fd)
		}
		if got, err := fdIdentity(int(f.Fd())); err != nil || got != id {
			t.Fatalf("File is not the shared memory: %v, %v", got, err)
		}
		out, err := child(t, "writer", strconv.Itoa(u.Nbytes()), nil, f)
		if err != nil {
			t.Fatalf("child: %v: %s", err, out)
		}
		if i%2 == 0 {
			f.Close() // the caller's duplicate; the storage keeps its own
		} // else f is dropped: its collection closes only the duplicate
		if _, err := u.File(); err != nil { // dropped at once
			t.Fatal(err)
		}
		collect()
		if got, err := fdIdentity(fd); err != nil || got != id {
			t.Fatalf("after the handed-over files were closed or collected, the storage's descriptor %d "+
				"was closed under it or now names another file: %v, %v", fd, got, err)
		}
		if v, _ := torch.ToSlice[float32](x); !cmp.Equal(v, []float32{1, 11, 21, 31, 41, 51}) {
			t.Errorf("the parent sees the child's writes: %v", v)
		}

		// Release closes the descriptor, once: a file opened afterwards
		// (which likely gets the same number) stays open and readable.
		u.Release()
		if _, err := u.Fd(); !errors.Is(err, torch.ErrRuntime) {
			t.Errorf("Fd of a released storage: %v", err)
		}
		if _, err := u.File(); !errors.Is(err, torch.ErrRuntime) {
			t.Errorf("File of a released storage: %v", err)
		}
		sentinel := filepath.Join(t.TempDir(), "sentinel")
		want := bytes.Repeat([]byte("sentinel"), 512)
		if err := os.WriteFile(sentinel, want, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := os.Open(sentinel)
		if err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(f)
		f, x, u = nil, nil, nil
		collect()
		got, err := io.ReadAll(s)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("a file opened after the storage was released (descriptor %d, the storage's was %d) "+
				"was closed under it: %d bytes, %v", s.Fd(), fd, len(got), err)
		}
		s.Close()
	}
}

// TestShareMemoryFileErrors: only shared memory has a descriptor to hand
// over, and a released or nil storage has none.
func TestShareMemoryFileErrors(t *testing.T) {
	if _, err := torch.Ones([]int{2}).UntypedStorage().File(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("File of memory that is not shared: %v", err)
	}
	var nilStorage *torch.UntypedStorage
	if _, err := nilStorage.File(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("File of a nil storage: %v", err)
	}
	p := filepath.Join(t.TempDir(), "mapped.bin")
	if err := os.WriteFile(p, make([]byte, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := torch.UntypedStorageFromFile(p, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	if _, err := m.File(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("File of a mapped file: %v", err)
	}
	if _, err := m.Fd(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("Fd of a mapped file: %v", err)
	}
}
