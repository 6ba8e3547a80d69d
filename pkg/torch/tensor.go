package torch

import (
	"sync/atomic"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/autograd"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Tensor is a strided view of a Storage: a dtype, a shape, strides (in
// elements) and a storage offset. Views share the storage and never copy.
//
// A Tensor is also the result of an op that failed: it then carries the
// error, every op on it passes the error on without work, and Err and the
// terminal calls (Item, ToSlice, To, ...) report it.
type Tensor struct {
	storage      *UntypedStorage
	dtype        DType
	requiresGrad bool
	retainsGrad  bool
	gradMade     bool // grad was made by backward passes, not given by SetGrad
	shape        []int
	strides      []int
	offset       int
	err          error
	base         *Tensor // the tensor t is a view of (nil when t owns its storage's layout)

	gradFn      *autograd.Node                // the op that made t; nil for leaves
	grad        *Tensor                       // accumulated gradient (leaves, RetainGrad)
	accumulator atomic.Pointer[autograd.Node] // a leaf's AccumulateGrad node, made on first use

	dims [8]int // inline backing of shape and strides up to 4 dims
}

// newTensor makes a tensor over s, copying shape and strides.
func newTensor(s *UntypedStorage, dt DType, shape, strides []int, offset int) *Tensor {
	t := &Tensor{storage: s, dtype: dt, offset: offset}
	t.setLayout(shape, strides)
	return t
}

// setLayout copies shape and strides into t (inline up to 4 dims).
func (t *Tensor) setLayout(shape, strides []int) {
	n := len(shape)
	if n <= 4 {
		t.shape = t.dims[0:n:n]
		t.strides = t.dims[4 : 4+n : 4+n]
	} else {
		b := make([]int, 2*n)
		t.shape, t.strides = b[:n:n], b[n:]
	}
	copy(t.shape, shape)
	copy(t.strides, strides)
}

// newOwner makes a tensor over new memory m, allocating the tensor and its
// storage together.
func newOwner(m kernel.Memory, dt DType, shape, strides []int, offset int) *Tensor {
	return new(tensorAndStorage).init(m, dt, shape, strides, offset)
}

// tensorAndStorage is a tensor and the storage it owns, allocated together.
type tensorAndStorage struct {
	t Tensor
	s UntypedStorage
}

// wrap makes the tensor over an output of a finished call.
func (both *tensorAndStorage) wrap(o *kernel.Operand) *Tensor {
	return both.init(o.Mem, o.DType, o.Shape, o.Strides, o.Offset)
}

func (both *tensorAndStorage) init(m kernel.Memory, dt DType, shape, strides []int, offset int) *Tensor {
	both.s.mem = m
	both.s.mark.Store(storageClock.Add(1))
	madeInScope(&both.s)
	t := &both.t
	t.storage, t.dtype, t.offset = &both.s, dt, offset
	t.setLayout(shape, strides)
	return t
}

// failed returns a tensor that carries err.
func failed(err error) *Tensor { return &Tensor{err: err} }

// Err is the error of the op that made t, or of the first failed op in the
// chain that led to it; nil for a valid tensor. Inside a Pipeline, the op
// that made t may not have run yet: Err flushes the pipeline first.
func (t *Tensor) Err() error {
	if t == nil {
		return nilTensor("err")
	}
	if t.err != nil || t.storage == nil {
		return t.err
	}
	return dispatch.Err(t.storage.mem)
}

// DType is the element type (float32 for a nil tensor).
func (t *Tensor) DType() DType {
	if t == nil {
		return Float32
	}
	return t.dtype
}

// Device is where the data lives (the CPU for a nil or failed tensor).
func (t *Tensor) Device() Device {
	if t == nil || t.storage == nil {
		return device.CPUDevice
	}
	return t.storage.Device()
}

// Shape is the size of each dimension (PyTorch's size()): a copy, which
// the caller may change freely. A nil or failed tensor has no dims.
func (t *Tensor) Shape() []int {
	if t == nil {
		return []int{}
	}
	return append([]int{}, t.shape...)
}

// Size is the size of dimension dim (negative dims count from the end). A
// dim out of range is an error with PyTorch's message, as is a nil or
// failed tensor.
func (t *Tensor) Size(dim int) (int, error) {
	if t == nil {
		return 0, nilTensor("size")
	}
	if t.err != nil {
		return 0, t.err
	}
	if len(t.shape) == 0 {
		return 0, t.opError("size", ErrArgument, "dimension specified as %d but tensor has no dimensions", dim)
	}
	d, err := t.dim("size", dim)
	if err != nil {
		return 0, withOp("size", err)
	}
	return t.shape[d], nil
}

// Stride is the stride of each dimension in elements: a copy, which the
// caller may change freely.
func (t *Tensor) Stride() []int {
	if t == nil {
		return []int{}
	}
	return append([]int{}, t.strides...)
}

// StorageOffset is the index of the first element in the storage.
func (t *Tensor) StorageOffset() int {
	if t == nil {
		return 0
	}
	return t.offset
}

// Dim is the number of dimensions (0 for a nil tensor).
func (t *Tensor) Dim() int {
	if t == nil {
		return 0
	}
	return len(t.shape)
}

// Numel is the number of elements (0 for a nil or failed tensor).
func (t *Tensor) Numel() int {
	if t == nil || t.err != nil {
		return 0
	}
	return kernel.Numel(t.shape)
}

// ElementSize is the size of one element in bytes.
func (t *Tensor) ElementSize() int { return t.DType().ItemSize() }

// IsContiguous reports whether the elements are laid out in row-major order
// without gaps.
func (t *Tensor) IsContiguous() bool {
	return t != nil && kernel.IsContiguous(t.shape, t.strides)
}

// IsFloatingPoint reports whether the dtype is a floating one.
func (t *Tensor) IsFloatingPoint() bool { return t.DType().IsFloatingPoint() }

// IsMeta reports whether the tensor lives on the meta device.
func (t *Tensor) IsMeta() bool { return t.Device().Type == device.Meta }

// Storage is the storage the tensor views, typed by its dtype, as
// PyTorch's Tensor.storage(). Two tensors share memory when their
// storages' Untyped() are the same.
func (t *Tensor) Storage() TypedStorage {
	if t == nil {
		return TypedStorage{dtype: Float32}
	}
	return TypedStorage{untyped: t.storage, dtype: t.dtype}
}

// UntypedStorage is the bytes the tensor views (nil for a nil or failed
// tensor).
func (t *Tensor) UntypedStorage() *UntypedStorage {
	if t == nil {
		return nil
	}
	return t.storage
}

// Version counts the in-place writes to the tensor's storage (PyTorch's
// Tensor._version).
func (t *Tensor) Version() int64 {
	if t == nil || t.storage == nil {
		return 0
	}
	return t.storage.Version()
}

// IsShared reports whether the tensor's storage is in shared memory (or a
// file mapped shared).
func (t *Tensor) IsShared() bool { return t != nil && t.storage != nil && t.storage.IsShared() }

// ShareMemory_ moves the tensor's storage into shared memory (see
// UntypedStorage.ShareMemory_) and returns t.
func (t *Tensor) ShareMemory_() *Tensor {
	if err := inputErr("share_memory_", t); err != nil {
		return t.keepFailure(failed(err))
	}
	if err := t.storage.ShareMemory_(); err != nil {
		return t.keepFailure(failed(err))
	}
	return t
}

// Release frees the tensor's storage now instead of when the garbage
// collector finds it unreachable: large CPU buffers return to the CPU
// caching allocator for the next op, device memory to the device's. The
// tensor and every view of its storage must not be used afterwards; ops on
// them report an error. Releasing twice, or a failed tensor, is harmless.
func (t *Tensor) Release() {
	if t != nil && t.storage != nil {
		t.storage.Release()
	}
}

// RecordStream marks the tensor's device memory as used by work on stream
// s too, so that after its release the allocator reuses it only once that
// work is done (PyTorch's Tensor.record_stream). It does nothing for memory
// that is not on an NPU.
//
// s is a stream of the tensor's backend (an *npu.Stream); the parameter is
// an interface so that this package imports no backend.
func (t *Tensor) RecordStream(s kernel.Stream) error {
	if err := inputErr("record_stream", t); err != nil {
		return err
	}
	if m, ok := t.storage.mem.(kernel.StreamRecorder); ok {
		m.RecordStreamOf(s)
	}
	return nil
}

// DataPtr is the address of the first element for CPU tensors, the device
// address for NPU tensors, and an error for meta tensors (which have no data).
func (t *Tensor) DataPtr() (uintptr, error) {
	if err := inputErr("data_ptr", t); err != nil {
		return 0, err
	}
	if err := t.checkBounds("data_ptr"); err != nil {
		return 0, err
	}
	m := t.storage.mem
	if err := dispatch.Settle(m); err != nil {
		return 0, err
	}
	if p := m.HostPtr(); p != nil {
		return uintptr(unsafe.Add(p, t.offset*t.dtype.ItemSize())), nil
	}
	if d := m.DevicePtr(); d != 0 {
		return d + uintptr(t.offset*t.dtype.ItemSize()), nil
	}
	if t.storage.Nbytes() == 0 && !t.IsMeta() {
		return 0, nil
	}
	return 0, t.opError("data_ptr", kernel.ErrDevice, "a tensor on the %s device has no data", t.Device())
}

// RequiresGrad reports whether gradients are recorded for the tensor.
func (t *Tensor) RequiresGrad() bool { return t != nil && t.requiresGrad }

// RequiresGrad_ sets whether gradients are recorded, in place, and returns t.
// Only floating-point tensors may require gradients.
func (t *Tensor) RequiresGrad_(on bool) *Tensor {
	if t != nil && t.err != nil {
		return t
	}
	if err := inputErr("requires_grad_", t); err != nil {
		return failed(err)
	}
	if on && !t.dtype.IsFloatingPoint() {
		return failed(t.opError("requires_grad_", kernel.ErrDType,
			"only Tensors of floating point dtype can require gradients"))
	}
	if !on && t.gradFn != nil {
		return failed(t.opError("requires_grad_", kernel.ErrAutograd,
			"you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph "+
				"that doesn't require differentiation use var_no_grad = var.detach()."))
	}
	if on && t.gradFn == nil && t.storage != nil {
		dispatch.Keep(t.storage.mem) // a parameter: read again, a pipeline stores it
		Keep(t)                      // and no Tidy scope releases it
	}
	t.requiresGrad = on
	return t
}

// operand is the tensor as kernels see it.
func (t *Tensor) operand() kernel.Operand {
	m := t.storage.mem
	return kernel.Operand{Mem: m, Ptr: dispatch.PeekHostPtr(m), DType: t.dtype, Shape: t.shape, Strides: t.strides, Offset: t.offset}
}

// opError makes an error of op on t.
func (t *Tensor) opError(op string, kind error, format string, args ...any) error {
	e := kernel.Errorf(kind, format, args...)
	e.Op = op
	e.Shapes = [][]int{append([]int(nil), t.shape...)}
	e.DTypes = []dtype.DType{t.dtype}
	e.Devices = []device.Device{t.Device()}
	return e
}
