package torch

import (
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// UntypedStorage is the bytes tensors view, on one device, as PyTorch's
// torch.UntypedStorage: CPU memory (the Go heap, the caching allocator, a
// mapped file or shared memory), device memory, or (meta) a size without
// data. Tensors over one storage see each other's writes.
//
// A storage is not safe for concurrent Resize_ or ShareMemory_ while ops
// use it; reads and writes through tensors follow the rules of the ops.
type UntypedStorage struct {
	mem     kernel.Memory
	version atomic.Int64 // bumped by every in-place write (autograd checks it)
	// mark is when the storage was made (a count of storageClock: a
	// backward pass frees what it made) and, in its top bits, whether Tidy
	// scopes must leave it alone (keptBit, gradBit).
	mark atomic.Uint64
}

const (
	keptBit  = 1 << 63 // passed to Keep: no scope releases it
	gradBit  = 1 << 62 // a leaf's gradient: no scope releases it until SetGrad(nil) drops it
	markBits = keptBit | gradBit
)

// born is when s was made (a count of storageClock).
func (s *UntypedStorage) born() uint64 { return s.mark.Load() &^ markBits }

// storageClock counts the storages made.
var storageClock atomic.Uint64

func newStorage(m kernel.Memory) *UntypedStorage {
	s := &UntypedStorage{mem: m}
	s.mark.Store(storageClock.Add(1))
	return s
}

// newMadeStorage is newStorage for memory an op just allocated: a Tidy
// scope releases it.
func newMadeStorage(m kernel.Memory) *UntypedStorage {
	s := newStorage(m)
	madeInScope(s)
	return s
}

// NewUntypedStorage allocates nbytes of zeroed bytes on the device of opts
// (the CPU by default).
func NewUntypedStorage(nbytes int, opts ...Option) (*UntypedStorage, error) {
	if nbytes < 0 {
		e := kernel.Errorf(ErrArgument, "negative size %d", nbytes)
		e.Op = "UntypedStorage"
		return nil, e
	}
	t := Zeros([]int{nbytes}, append(append([]Option(nil), opts...), WithDType(Uint8))...)
	if t.err != nil {
		return nil, t.err
	}
	return t.storage, nil
}

// UntypedStorageFromFile maps the file at path as PyTorch's
// UntypedStorage.from_file: with shared, writes reach the file (and other
// shared mappings of it), and a file shorter than nbytes grows to nbytes;
// without, the storage is a private copy-on-write view and the file never
// changes. nbytes 0 maps the whole file. The file stays mapped until
// Release (or until the garbage collector finds the storage unreachable).
func UntypedStorageFromFile(path string, shared bool, nbytes int) (*UntypedStorage, error) {
	mapFile := kernel.Host().MapFile
	if mapFile == nil {
		return nil, withOp("from_file", kernel.Errorf(ErrDevice, "the cpu backend is not linked in"))
	}
	m, err := mapFile(path, shared, nbytes)
	if err != nil {
		return nil, err
	}
	return newStorage(m), nil
}

// OpenSharedStorage maps nbytes of the shared memory that another process
// made with ShareMemory_ and handed over as the descriptor fd (Fd), for
// example through exec.Cmd's ExtraFiles. fd is duplicated: the caller still
// owns it.
func OpenSharedStorage(fd, nbytes int) (*UntypedStorage, error) {
	openShared := kernel.Host().OpenShared
	if openShared == nil {
		return nil, withOp("open_shared", kernel.Errorf(ErrDevice, "the cpu backend is not linked in"))
	}
	m, err := openShared(fd, nbytes)
	if err != nil {
		return nil, withOp("open_shared", err)
	}
	return newStorage(m), nil
}

// storageErr is the error, naming op, of a nil storage or a zero
// UntypedStorage{} (made without torch's functions: it has no memory);
// nil for a usable storage.
func storageErr(op string, s *UntypedStorage) error {
	var e *Error
	switch {
	case s == nil:
		e = kernel.Errorf(ErrArgument, "expected an UntypedStorage but got nil")
	case s.mem == nil:
		e = kernel.Errorf(ErrArgument, "expected an UntypedStorage but got a zero UntypedStorage{}, which has no memory "+
			"(make storages with torch's functions)")
	default:
		return nil
	}
	e.Op = op
	return e
}

// Device is where the bytes live (the CPU for a nil or zero storage).
func (s *UntypedStorage) Device() Device {
	if s == nil || s.mem == nil {
		return device.CPUDevice
	}
	return s.mem.Device()
}

// Nbytes is the size in bytes (0 for a nil or zero storage).
func (s *UntypedStorage) Nbytes() int {
	if s == nil || s.mem == nil {
		return 0
	}
	return s.mem.Nbytes()
}

// Version counts the in-place writes to the storage (0 for nil).
func (s *UntypedStorage) Version() int64 {
	if s == nil {
		return 0
	}
	return s.version.Load()
}

// Release frees the storage's memory now: large CPU allocations and device
// memory return to their caching allocator, mapped files and shared memory
// are unmapped. Ops on tensors over the storage report an error afterwards.
// Releasing is optional on the CPU (the garbage collector reclaims memory no
// tensor refers to, only later) and releasing twice is harmless, as is
// releasing a nil or zero storage.
func (s *UntypedStorage) Release() {
	if s == nil || s.mem == nil {
		return
	}
	dispatch.BeforeRelease(s.mem)
	s.mem.Release()
}

// Close is Release for use with defer and io.Closer, which reports what
// Release cannot: a storage mapped shared from a file is flushed first
// (see Flush), and Close returns Flush's error (the storage is released
// either way). Closing a released storage does nothing and returns nil; a
// nil or zero storage is an error.
func (s *UntypedStorage) Close() error {
	if err := storageErr("close", s); err != nil {
		return err
	}
	if s.mem.Released() {
		return nil
	}
	err := s.Flush()
	dispatch.BeforeRelease(s.mem)
	s.mem.Release()
	return err
}

func (s *UntypedStorage) bump() { s.version.Add(1) }

// DataPtr is the address of the first byte: a host address on the CPU, a
// device address on an NPU; meta storage has none (an error).
func (s *UntypedStorage) DataPtr() (uintptr, error) {
	if err := storageErr("data_ptr", s); err != nil {
		return 0, err
	}
	if err := dispatch.Settle(s.mem); err != nil {
		return 0, err
	}
	if p := s.mem.HostPtr(); p != nil {
		return uintptr(p), nil
	}
	if d := s.mem.DevicePtr(); d != 0 {
		return d, nil
	}
	if s.Device().Type == device.Meta {
		return 0, s.errorf("data_ptr", ErrDevice, "Cannot access data pointer of Tensor that doesn't have storage (meta storage has no data)")
	}
	return 0, nil
}

// bytes is the storage as a 1-D uint8 tensor (no copy); s is usable (see
// storageErr).
func (s *UntypedStorage) bytes() *Tensor {
	return newTensor(s, Uint8, []int{s.Nbytes()}, []int{1}, 0)
}

// Tolist copies the bytes to the host.
func (s *UntypedStorage) Tolist() ([]byte, error) {
	if err := storageErr("tolist", s); err != nil {
		return nil, err
	}
	if s.Device().Type == device.Meta {
		return nil, s.errorf("tolist", ErrDevice, "Cannot read the data of meta storage; it has none")
	}
	return ToSlice[uint8](s.bytes())
}

// Fill_ sets every byte to v.
func (s *UntypedStorage) Fill_(v byte) error {
	if err := storageErr("fill_", s); err != nil {
		return err
	}
	return s.bytes().Fill_(v).Err()
}

// Copy_ copies src's bytes into s (across devices); the sizes must match.
func (s *UntypedStorage) Copy_(src *UntypedStorage) error {
	if err := storageErr("copy_", s); err != nil {
		return err
	}
	if err := storageErr("copy_", src); err != nil {
		return err
	}
	if src.Nbytes() != s.Nbytes() {
		return s.errorf("copy_", ErrShape, "size mismatch: copying %d bytes into a storage of %d", src.Nbytes(), s.Nbytes())
	}
	return s.bytes().Copy_(src.bytes()).Err()
}

// Clone is a new storage on the same device with a copy of the bytes.
func (s *UntypedStorage) Clone() (*UntypedStorage, error) {
	if err := storageErr("clone", s); err != nil {
		return nil, err
	}
	c := s.bytes().Clone()
	if c.err != nil {
		return nil, c.err
	}
	return c.storage, nil
}

// Resize_ changes the size to nbytes, keeping the first bytes (new bytes
// are zero). Mapped and shared storage cannot be resized (an error), as in
// PyTorch. A storage may shrink under tensors that view it: ops on those
// whose elements no longer fit then fail (PyTorch's "setStorage: ... out of
// bounds for storage of size ...") instead of touching the missing bytes.
func (s *UntypedStorage) Resize_(nbytes int) error {
	if err := storageErr("resize_", s); err != nil {
		return err
	}
	if nbytes < 0 {
		return s.errorf("resize_", ErrArgument, "negative size %d", nbytes)
	}
	if err := kernel.CheckAllocation(nbytes); err != nil {
		e := kernel.AsOpError(err)
		e.Op, e.Devices = "resize_", []Device{s.Device()}
		return e
	}
	if s.IsShared() || s.Filename() != "" {
		return s.errorf("resize_", ErrArgument, "Trying to resize storage that is not resizable (%s)", s.describe())
	}
	if nbytes == s.Nbytes() {
		return nil
	}
	fresh, err := NewUntypedStorage(nbytes, OnDevice(s.Device()))
	if err != nil {
		return err
	}
	n := min(nbytes, s.Nbytes())
	if n > 0 && s.Device().Type != device.Meta {
		if err := fresh.bytes().Narrow(0, 0, n).Copy_(s.bytes().Narrow(0, 0, n)).Err(); err != nil {
			fresh.Release()
			return err
		}
	}
	old := s.mem
	dispatch.BeforeRelease(old)
	s.mem = fresh.mem
	s.bump()
	old.Release()
	return nil
}

// IsShared reports whether the bytes are in memory other processes can map
// (ShareMemory_, or a file mapped shared); false for a nil or zero storage.
func (s *UntypedStorage) IsShared() bool {
	if s == nil {
		return false
	}
	sh, ok := s.mem.(interface{ IsShared() bool })
	return ok && sh.IsShared()
}

// Filename is the path of the mapped file, or "" when the storage is not
// file-backed (or is nil or zero).
func (s *UntypedStorage) Filename() string {
	if s == nil {
		return ""
	}
	f, ok := s.mem.(interface{ Filename() string })
	if !ok {
		return ""
	}
	return f.Filename()
}

// ShareMemory_ moves the bytes into shared memory that another process can
// map (see Fd and OpenSharedStorage); tensors over the storage follow.
// Storage already shared, and storage not on the CPU, stays as it is.
func (s *UntypedStorage) ShareMemory_() error {
	if err := storageErr("share_memory_", s); err != nil {
		return err
	}
	if s.IsShared() || s.Device().Type != device.CPU {
		return nil
	}
	sharedMemory := kernel.Host().SharedMemory
	if sharedMemory == nil {
		return withOp("share_memory_", kernel.Errorf(ErrDevice, "the cpu backend is not linked in"))
	}
	m, err := sharedMemory(s.Nbytes())
	if err != nil {
		return err
	}
	fresh := newStorage(m)
	if err := fresh.bytes().Copy_(s.bytes()).Err(); err != nil {
		m.Release()
		return err
	}
	old := s.mem
	s.mem = m
	old.Release()
	return nil
}

// Fd is the descriptor of shared memory (after ShareMemory_), to hand to
// another process, which maps it with OpenSharedStorage. The descriptor
// belongs to the storage: it stays open until the storage is released (or
// collected), and the caller must not close it. Do not wrap it in
// os.NewFile: the *os.File closes the descriptor when it is collected, and
// the storage closes the number again on release, by then perhaps another
// file's. Use File for exec.Cmd's ExtraFiles, and keep the storage reachable
// (runtime.KeepAlive) while the number is in use. A released storage is an
// error.
func (s *UntypedStorage) Fd() (int, error) {
	if err := storageErr("fd", s); err != nil {
		return -1, err
	}
	f, ok := s.mem.(interface{ Fd() (int, error) })
	if !ok {
		return -1, s.errorf("fd", ErrArgument, "the storage is not in shared memory; call ShareMemory_ first")
	}
	fd, err := f.Fd()
	if err != nil {
		return -1, withOp("fd", err)
	}
	return fd, nil
}

// File is a duplicate of the shared memory's descriptor (see Fd) as an
// *os.File that the caller owns and closes, for example once a child
// process that got it through exec.Cmd's ExtraFiles has started (the child
// maps it with OpenSharedStorage). It stays valid after the storage is
// released; closing it leaves the storage's own descriptor open.
func (s *UntypedStorage) File() (*os.File, error) {
	if err := storageErr("file", s); err != nil {
		return nil, err
	}
	f, ok := s.mem.(interface{ File() (*os.File, error) })
	if !ok {
		return nil, s.errorf("file", ErrArgument, "the storage is not in shared memory; call ShareMemory_ first")
	}
	file, err := f.File()
	if err != nil {
		return nil, withOp("file", err)
	}
	return file, nil
}

func (s *UntypedStorage) describe() string {
	if f := s.Filename(); f != "" {
		return "mapped from " + f
	}
	if s.IsShared() {
		return "in shared memory"
	}
	return fmt.Sprintf("%d bytes on %s", s.Nbytes(), s.Device())
}

func (s *UntypedStorage) errorf(op string, kind error, format string, args ...any) error {
	e := kernel.Errorf(kind, format, args...)
	e.Op = op
	e.Devices = []Device{s.Device()}
	return e
}

// TypedStorage is an UntypedStorage seen as elements of one dtype, as
// PyTorch's torch.TypedStorage (what Tensor.Storage returns). Two typed
// storages compare equal when they view the same bytes as the same dtype.
type TypedStorage struct {
	untyped *UntypedStorage
	dtype   DType
}

// NewTypedStorage views u as elements of dt.
func NewTypedStorage(u *UntypedStorage, dt DType) TypedStorage {
	return TypedStorage{untyped: u, dtype: dt}
}

// check is the error, naming op, of a typed storage without a usable
// untyped storage (a zero TypedStorage{}, or one over a nil or zero
// UntypedStorage) or with an invalid dtype; nil for a usable one.
func (s TypedStorage) check(op string) error {
	if s.untyped == nil {
		e := kernel.Errorf(ErrArgument, "expected a TypedStorage over an UntypedStorage but got none "+
			"(a zero TypedStorage{}, or NewTypedStorage of nil)")
		e.Op = op
		return e
	}
	if err := storageErr(op, s.untyped); err != nil {
		return err
	}
	if !s.dtype.Valid() {
		return s.untyped.errorf(op, ErrDType, "invalid dtype %d", s.dtype)
	}
	return nil
}

// Untyped is the underlying byte storage.
func (s TypedStorage) Untyped() *UntypedStorage { return s.untyped }

// DType is the element type.
func (s TypedStorage) DType() DType { return s.dtype }

// ElementSize is the size of one element in bytes.
func (s TypedStorage) ElementSize() int { return s.dtype.ItemSize() }

// Size is the number of whole elements (0 without a usable storage).
func (s TypedStorage) Size() int {
	n := s.dtype.ItemSize()
	if n == 0 { // an invalid dtype
		return 0
	}
	return s.untyped.Nbytes() / n
}

// Nbytes is the size of the underlying bytes (0 without a usable storage).
func (s TypedStorage) Nbytes() int { return s.untyped.Nbytes() }

// Device is where the bytes live.
func (s TypedStorage) Device() Device { return s.untyped.Device() }

// DataPtr is the address of the first byte (see UntypedStorage.DataPtr).
func (s TypedStorage) DataPtr() (uintptr, error) { return s.untyped.DataPtr() }

// Version counts the in-place writes to the storage.
func (s TypedStorage) Version() int64 { return s.untyped.Version() }

// Tensor is a 1-D tensor over all the elements (no copy); a failed tensor
// without a usable storage.
func (s TypedStorage) Tensor() *Tensor {
	if err := s.check("set_"); err != nil {
		return failed(err)
	}
	return newTensor(s.untyped, s.dtype, []int{s.Size()}, []int{1}, 0)
}

// Tolist copies the elements to the host as a Go slice of the dtype's Go
// type ([]float32, []int64, []bool, ...).
func (s TypedStorage) Tolist() (any, error) {
	if err := s.check("tolist"); err != nil {
		return nil, err
	}
	if s.Device().Type == device.Meta {
		return nil, s.untyped.errorf("tolist", ErrDevice, "Cannot read the data of meta storage; it has none")
	}
	return s.Tensor().ToAny()
}

// Fill_ sets every element to v.
func (s TypedStorage) Fill_(v any) error {
	if err := s.check("fill_"); err != nil {
		return err
	}
	return s.Tensor().Fill_(v).Err()
}

// Copy_ copies src's elements into s, converting dtypes and across devices;
// the sizes must match.
func (s TypedStorage) Copy_(src TypedStorage) error {
	if err := s.check("copy_"); err != nil {
		return err
	}
	if err := src.check("copy_"); err != nil {
		return err
	}
	if src.Size() != s.Size() {
		return s.untyped.errorf("copy_", ErrShape, "size mismatch: copying %d elements into a storage of %d", src.Size(), s.Size())
	}
	return s.Tensor().Copy_(src.Tensor()).Err()
}

// Clone copies the storage.
func (s TypedStorage) Clone() (TypedStorage, error) {
	if err := s.check("clone"); err != nil {
		return TypedStorage{dtype: s.dtype}, err
	}
	u, err := s.untyped.Clone()
	return TypedStorage{untyped: u, dtype: s.dtype}, err
}

// Resize_ changes the size to n elements.
func (s TypedStorage) Resize_(n int) error {
	if err := s.check("resize_"); err != nil {
		return err
	}
	if n < 0 {
		return s.untyped.errorf("resize_", ErrArgument, "negative size %d", n)
	}
	nbytes, err := kernel.CheckedNbytes([]int{n}, s.dtype.ItemSize())
	if err != nil {
		e := kernel.AsOpError(err)
		e.Op, e.Devices = "resize_", []Device{s.Device()}
		return e
	}
	return s.untyped.Resize_(nbytes)
}

// IsShared reports whether the bytes are shared (see UntypedStorage.IsShared).
func (s TypedStorage) IsShared() bool { return s.untyped.IsShared() }

// ShareMemory_ moves the bytes into shared memory.
func (s TypedStorage) ShareMemory_() error { return s.untyped.ShareMemory_() }

// Filename is the mapped file's path, or "".
func (s TypedStorage) Filename() string { return s.untyped.Filename() }

// FromStorage makes a tensor over s with the given shape, strides (nil:
// contiguous) and offset in elements, as torch.tensor([]).set_(storage,
// offset, size, stride). The elements must lie within the storage.
func FromStorage(s TypedStorage, offset int, shape, strides []int) *Tensor {
	if err := s.check("set_"); err != nil {
		return failed(err)
	}
	t := newTensor(s.untyped, s.dtype, nil, nil, 0)
	return t.Set_(s, offset, shape, strides)
}

// Set_ makes t view s with the given offset, shape and strides (nil:
// contiguous), dropping its previous storage; it returns t. The elements
// must lie within s; t carries the error of a failure.
func (t *Tensor) Set_(s TypedStorage, offset int, shape, strides []int) *Tensor {
	return t.keepFailure(t.set(s, offset, shape, strides))
}

func (t *Tensor) set(s TypedStorage, offset int, shape, strides []int) *Tensor {
	if err := inputErr("set_", t); err != nil {
		return failed(err)
	}
	if err := s.check("set_"); err != nil {
		return failed(err)
	}
	if len(strides) != len(shape) && strides != nil {
		return failed(t.opError("set_", ErrArgument, "mismatch in length of strides and shape"))
	}
	if offset < 0 {
		return failed(t.opError("set_", ErrArgument, "Tensor: invalid storage offset %d", offset))
	}
	if s.dtype != t.dtype {
		return failed(t.opError("set_", ErrDType, "Expected a storage of type %s but got type %s", t.dtype, s.dtype))
	}
	if _, err := kernel.CheckedNumel(shape, s.dtype.ItemSize()); err != nil { // before strides are made from it
		return t.fail("set_", err)
	}
	if strides == nil {
		strides = kernel.ContiguousStrides(shape, make([]int, len(shape)))
	}
	if err := kernel.CheckView(shape, strides, offset, s.dtype.ItemSize(), s.Nbytes()); err != nil {
		return t.fail("set_", err)
	}
	if t.requiresGrad && t.gradFn == nil && IsGradEnabled() {
		return failed(t.opError("set_", ErrAutograd, "a leaf Variable that requires grad is being used in an in-place operation."))
	}
	t.storage, t.offset, t.base = s.untyped, offset, nil
	t.setLayout(shape, strides)
	s.untyped.bump()
	return t
}

// Slice is a storage over bytes [off, off+n) of s, sharing its memory
// (writes through either are seen by both). A slice of a mapped file or of
// shared memory keeps the mapping alive after s is released; other slices
// keep s's memory reachable and are freed with it.
func (s *UntypedStorage) Slice(off, n int) (*UntypedStorage, error) {
	if err := storageErr("slice", s); err != nil {
		return nil, err
	}
	if off < 0 || n < 0 || n > s.Nbytes()-off {
		return nil, s.errorf("slice", ErrIndex, "%d bytes at offset %d are outside a storage of %d bytes", n, off, s.Nbytes())
	}
	if sl, ok := s.mem.(interface {
		Slice(off, n int) (kernel.Memory, error)
	}); ok {
		m, err := sl.Slice(off, n)
		if err != nil {
			return nil, err
		}
		return newStorage(m), nil
	}
	return newStorage(&subMemory{parent: s.mem, off: off, n: n}), nil
}

// subMemory is bytes [off, off+n) of a parent memory.
type subMemory struct {
	parent kernel.Memory
	off, n int
}

func (m *subMemory) Device() Device { return m.parent.Device() }
func (m *subMemory) Nbytes() int    { return m.n }
func (m *subMemory) HostPtr() unsafe.Pointer {
	if p := m.parent.HostPtr(); p != nil {
		return unsafe.Add(p, m.off)
	}
	return nil
}
func (m *subMemory) DevicePtr() uintptr {
	if d := m.parent.DevicePtr(); d != 0 {
		return d + uintptr(m.off)
	}
	return 0
}

// AliasOf identifies the parent's bytes, which m shares.
func (m *subMemory) AliasOf() any { return kernel.AliasKey(m.parent) }

// Release does not free the parent, which other storages may still use.
func (m *subMemory) Release() {}

// Released reports whether the parent was released.
func (m *subMemory) Released() bool { return m.parent.Released() }
