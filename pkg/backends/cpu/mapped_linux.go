package cpu

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// Mapped is CPU memory mapped from a file or from a shared-memory object
// (memfd). Several Mapped values may view parts of one mapping (Slice); the
// mapping is unmapped and its descriptor closed when the last of them is
// released, by Release or, as a safety net, when the garbage collector
// finds them unreachable. A file mapped shared is written back to the file
// (msync) before it is unmapped, and by Sync.
type Mapped struct {
	m        *mapping
	ptr      unsafe.Pointer
	n        int
	released atomic.Bool
	cleanup  runtime.Cleanup
}

var _ kernel.Syncer = (*Mapped)(nil)

// mapping is one mmap of a file or memfd, reference counted.
type mapping struct {
	data   []byte
	fd     int // -1 once closed, or for file mappings (closed after mmap)
	path   string
	shared bool // MAP_SHARED: writes reach the file and other mappings
	memfd  bool
	refs   atomic.Int64
}

// Live counts of mappings and of descriptors they hold open, for tests.
var liveMappings, liveFds atomic.Int64

// MappedStats returns the number of live mappings and of the file
// descriptors they keep open.
func MappedStats() (mappings, fds int64) { return liveMappings.Load(), liveFds.Load() }

// Mappings dropped without Release are closed by cleanups after a garbage
// collection, but the Go heap does not see them, so the collector would
// run too rarely: like the cache, mapping starts a collection when the
// mappings and descriptors held have doubled since their lowest point
// after the last one, and a mapping that fails for want of descriptors or
// address space collects, waits for the cleanups and tries once more.
var (
	mapLow        atomic.Int64
	mapCollecting atomic.Bool
)

func held() int64 { return liveMappings.Load() + liveFds.Load() }

func mapPressure() {
	live := held()
	if live <= max(256, 2*mapLow.Load()) || !mapCollecting.CompareAndSwap(false, true) {
		return
	}
	mapLow.Store(live)
	go func() {
		runtime.GC()
		mapCollecting.Store(false)
	}()
}

// retry runs f; when it fails for want of resources it collects garbage,
// gives cleanups up to 100 ms to close what was dropped, and runs f again.
func retry(f func() error) error {
	err := f()
	if !errors.Is(err, unix.EMFILE) && !errors.Is(err, unix.ENFILE) && !errors.Is(err, unix.ENOMEM) {
		return err
	}
	before := held()
	runtime.GC()
	for i := 0; i < 100 && held() >= before; i++ {
		time.Sleep(time.Millisecond)
	}
	return f()
}

func newMapped(mp *mapping, off, n int) *Mapped {
	mapPressure()
	mp.refs.Add(1)
	var p unsafe.Pointer
	if len(mp.data) > 0 {
		p = unsafe.Add(unsafe.Pointer(unsafe.SliceData(mp.data)), off) // off may be len(data) when n is 0
	} else {
		p = unsafe.Pointer(&empty[0])
	}
	m := &Mapped{m: mp, ptr: p, n: n}
	m.cleanup = runtime.AddCleanup(m, (*mapping).unref, mp)
	return m
}

// discard closes a mapping that never got a reference (a failed open).
func (mp *mapping) discard() {
	mp.refs.Add(1)
	mp.unref()
}

func (mp *mapping) unref() {
	if mp.refs.Add(-1) != 0 {
		return
	}
	if len(mp.data) > 0 {
		_ = mp.sync() // Release has no error to return; Sync reports one
		_ = unix.Munmap(mp.data)
		liveMappings.Add(-1)
	}
	if mp.fd >= 0 {
		_ = unix.Close(mp.fd)
		liveFds.Add(-1)
		mp.fd = -1
	}
	if h := held(); h < mapLow.Load() {
		mapLow.Store(h)
	}
}

// sync writes a shared file mapping back to its file and waits for the
// write (msync MS_SYNC); other mappings have no file to write.
func (mp *mapping) sync() error {
	if !mp.shared || mp.memfd || len(mp.data) == 0 {
		return nil
	}
	if err := unix.Msync(mp.data, unix.MS_SYNC); err != nil {
		e := kernel.Errorf(kernel.ErrRuntime, "msync of %s: %v", mp.path, err)
		e.Op = "flush"
		return e
	}
	return nil
}

// mapFd maps n bytes of fd (shared or private copy-on-write).
func mapFd(fd, n int, shared bool) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	flags := unix.MAP_PRIVATE
	if shared {
		flags = unix.MAP_SHARED
	}
	data, err := unix.Mmap(fd, 0, n, unix.PROT_READ|unix.PROT_WRITE, flags)
	if err != nil {
		return nil, err
	}
	liveMappings.Add(1)
	return data, nil
}

// MapFile maps the file at path. With shared, writes reach the file and
// every other shared mapping of it, and a file shorter than nbytes grows to
// nbytes; without, the mapping is a private copy-on-write view and the file
// never changes. nbytes 0 maps the whole file.
func MapFile(path string, shared bool, nbytes int) (kernel.Memory, error) {
	fail := func(kind error, format string, args ...any) (kernel.Memory, error) {
		e := kernel.Errorf(kind, format, args...)
		e.Op = "from_file"
		return nil, e
	}
	if nbytes < 0 {
		return fail(kernel.ErrArgument, "nbytes must be non-negative, got %d", nbytes)
	}
	flags := os.O_RDONLY
	if shared {
		flags = os.O_RDWR | os.O_CREATE
	}
	var f *os.File
	err := retry(func() (err error) { f, err = os.OpenFile(path, flags, 0o644); return err })
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fail(kernel.ErrArgument, "unable to open %s: permission denied (a shared mapping needs write access)", path)
		}
		return fail(kernel.ErrArgument, "unable to open %s: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fail(kernel.ErrRuntime, "unable to stat %s: %v", path, err)
	}
	if st.IsDir() {
		return fail(kernel.ErrArgument, "unable to map %s: is a directory", path)
	}
	size := int(st.Size())
	if nbytes == 0 {
		nbytes = size
	}
	if nbytes > size {
		if !shared {
			return fail(kernel.ErrArgument, "file %s is %d bytes, smaller than the %d bytes asked for; "+
				"only a shared mapping may grow the file", path, size, nbytes)
		}
		if err := f.Truncate(int64(nbytes)); err != nil {
			return fail(kernel.ErrRuntime, "unable to grow %s to %d bytes: %v", path, nbytes, err)
		}
	}
	var data []byte
	if err := retry(func() (err error) { data, err = mapFd(int(f.Fd()), nbytes, shared); return err }); err != nil {
		return fail(kernel.ErrRuntime, "unable to mmap %d bytes of %s: %v", nbytes, path, err)
	}
	mp := &mapping{data: data, fd: -1, path: path, shared: shared}
	return newMapped(mp, 0, nbytes), nil
}

// SharedMemory makes n zeroed bytes of memory that other processes can map:
// an anonymous memfd, mapped shared. Fd gives its descriptor to hand over
// (for example as an exec.Cmd's ExtraFiles); OpenShared maps it there.
func SharedMemory(n int) (kernel.Memory, error) {
	var fd int
	err := retry(func() (err error) { fd, err = unix.MemfdCreate("mindtorch-storage", unix.MFD_CLOEXEC); return err })
	if err != nil {
		return nil, kernel.Errorf(kernel.ErrRuntime, "memfd_create: %v", err)
	}
	liveFds.Add(1)
	mp := &mapping{fd: fd, shared: true, memfd: true}
	if err := unix.Ftruncate(fd, int64(n)); err != nil {
		mp.discard()
		return nil, kernel.Errorf(kernel.ErrRuntime, "shared memory of %d bytes: %v", n, err)
	}
	if err := retry(func() (err error) { mp.data, err = mapFd(fd, n, true); return err }); err != nil {
		mp.discard()
		return nil, kernel.Errorf(kernel.ErrOutOfMemory, "shared memory of %d bytes: %v", n, err)
	}
	return newMapped(mp, 0, n), nil
}

// OpenShared maps n bytes of shared memory whose descriptor another
// process handed over (the descriptor is duplicated; the caller keeps its own).
func OpenShared(fd, n int) (kernel.Memory, error) {
	var own int
	err := retry(func() (err error) { own, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); return err })
	if err != nil {
		return nil, kernel.Errorf(kernel.ErrArgument, "shared memory descriptor %d: %v", fd, err)
	}
	liveFds.Add(1)
	mp := &mapping{fd: own, shared: true, memfd: true}
	var st unix.Stat_t
	if err := unix.Fstat(own, &st); err != nil || int(st.Size) < n {
		mp.discard()
		return nil, kernel.Errorf(kernel.ErrArgument, "shared memory descriptor %d holds %d bytes, fewer than %d", fd, st.Size, n)
	}
	if err := retry(func() (err error) { mp.data, err = mapFd(own, n, true); return err }); err != nil {
		mp.discard()
		return nil, kernel.Errorf(kernel.ErrRuntime, "mmap of shared memory descriptor %d: %v", fd, err)
	}
	return newMapped(mp, 0, n), nil
}

// Slice is n bytes of m from byte off, sharing the mapping: the mapping
// stays until m and every slice are released.
func (m *Mapped) Slice(off, n int) (kernel.Memory, error) {
	if off < 0 || n < 0 || off+n > m.n {
		return nil, kernel.Errorf(kernel.ErrIndex, "bytes [%d, %d) are outside a mapping of %d bytes", off, off+n, m.n)
	}
	if m.released.Load() {
		return nil, kernel.Errorf(kernel.ErrRuntime, "the mapping was released")
	}
	base := int(uintptr(m.ptr) - uintptr(unsafe.Pointer(unsafe.SliceData(m.m.data))))
	if len(m.m.data) == 0 {
		base = 0
	}
	return newMapped(m.m, base+off, n), nil
}

// Device is the CPU.
func (m *Mapped) Device() device.Device { return device.CPUDevice }

// Nbytes is the size in bytes.
func (m *Mapped) Nbytes() int { return m.n }

// HostPtr is the address of the first byte.
func (m *Mapped) HostPtr() unsafe.Pointer { return m.ptr }

// DevicePtr is 0: CPU memory has no device address.
func (m *Mapped) DevicePtr() uintptr { return 0 }

// Filename is the mapped file's path, or "" for shared memory.
func (m *Mapped) Filename() string { return m.m.path }

// IsShared reports whether writes are visible to other mappings (shared
// memory, and files mapped shared).
func (m *Mapped) IsShared() bool { return m.m.shared }

// Fd is the descriptor of shared memory, to hand to another process. The
// descriptor belongs to the mapping, which closes it when the last Mapped
// over it is released or collected: the caller must not close it, nor wrap
// it in os.NewFile (the *os.File would close it when it is collected, and
// the mapping would close the number again, by then perhaps another file's),
// and must keep m reachable and unreleased while it uses the number. File
// is a duplicate that the caller owns. A released m is an error.
func (m *Mapped) Fd() (int, error) {
	if !m.m.memfd {
		return -1, kernel.Errorf(kernel.ErrArgument, "only shared memory has a descriptor to hand over")
	}
	if m.released.Load() || m.m.fd < 0 {
		return -1, kernel.Errorf(kernel.ErrRuntime, "%s: the mapping was released", m)
	}
	return m.m.fd, nil
}

// File is a duplicate of Fd (close-on-exec) as an *os.File that the caller
// owns and closes, for example after handing it to a child process through
// exec.Cmd's ExtraFiles; it stays valid after m is released, and closing it
// (or its collection) leaves m's descriptor open.
func (m *Mapped) File() (*os.File, error) {
	fd, err := m.Fd()
	if err != nil {
		return nil, err
	}
	var dup int
	err = retry(func() (err error) { dup, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); return err })
	runtime.KeepAlive(m) // m's cleanup must not close fd before it is duplicated
	if err != nil {
		return nil, kernel.Errorf(kernel.ErrRuntime, "duplicating the descriptor of %s: %v", m, err)
	}
	return os.NewFile(uintptr(dup), "mindtorch-storage"), nil
}

// AliasOf identifies the mapping, whose bytes every Mapped sliced from it
// shares.
func (m *Mapped) AliasOf() any { return m.m }

// Released reports whether Release was called.
func (m *Mapped) Released() bool { return m.released.Load() }

// Release drops m's reference to the mapping now; the last one unmaps it
// and closes its descriptor. Releasing twice is harmless.
func (m *Mapped) Release() {
	if !m.released.CompareAndSwap(false, true) {
		return
	}
	m.cleanup.Stop()
	m.m.unref()
}

// Sync writes the changes made through a shared file mapping to the file
// and waits until they are written (the whole mapping, not only m's slice
// of it). Private mappings and shared memory have no file to write to:
// nil. A released m is an error.
func (m *Mapped) Sync() error {
	if m.released.Load() {
		e := kernel.Errorf(kernel.ErrRuntime, "%s: the mapping was released", m)
		e.Op = "flush"
		return e
	}
	return m.m.sync()
}

// String describes the mapping for messages.
func (m *Mapped) String() string {
	if m.m.memfd {
		return fmt.Sprintf("shared memory of %d bytes", m.n)
	}
	return fmt.Sprintf("%d bytes of %s", m.n, m.m.path)
}
