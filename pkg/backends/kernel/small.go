package kernel

import (
	"sync/atomic"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Small host memory: the bytes of a small CPU tensor live in the Go heap,
// in the same allocation as the object that owns them (the CPU backend's
// Memory, or the tensor layer's Tensor), so that an op on small tensors
// costs one allocation. The CPU backend registers its policy (its cache's
// debug mode serves every allocation) and its small-tensor arithmetic.

// SmallMax is the largest allocation AllocateWith serves.
const SmallMax = 256

// HostAlignment is the byte alignment of CPU memory (a cache line, and
// the widest vector register).
const HostAlignment = 64

// SmallMemory is host memory of at most SmallMax bytes made by
// AllocateWith. Release only marks it released: the garbage collector
// frees it with its owner.
type SmallMemory struct {
	ptr      unsafe.Pointer
	n        int
	released atomic.Bool
}

// Device is the CPU.
func (m *SmallMemory) Device() device.Device { return device.CPUDevice }

// Nbytes is the size in bytes.
func (m *SmallMemory) Nbytes() int { return m.n }

// HostPtr is the address of the first byte.
func (m *SmallMemory) HostPtr() unsafe.Pointer { return m.ptr }

// DevicePtr is 0: host memory has no device address.
func (m *SmallMemory) DevicePtr() uintptr { return 0 }

// Release marks the memory released, so that ops refuse it.
func (m *SmallMemory) Release() { m.released.Store(true) }

// Released reports whether Release was called.
func (m *SmallMemory) Released() bool { return m.released.Load() }

// Zeroed reports true: the memory held zeros when it was allocated.
func (m *SmallMemory) Zeroed() bool { return true }

// Bytes is the memory as a byte slice.
func (m *SmallMemory) Bytes() []byte { return unsafe.Slice((*byte)(m.ptr), m.n) }

var smallServed func(n int) bool

// RegisterSmallPolicy installs the function that says whether
// AllocateWith may serve n bytes (the CPU backend's: not when its cache
// must serve every allocation, MINDTORCH_CPU_CACHE_DEBUG). Backends call
// it from their init.
func RegisterSmallPolicy(f func(n int) bool) { smallServed = f }

// AllocateWith allocates n <= SmallMax bytes of aligned, zeroed host
// memory and a zero O in one Go allocation, which stays alive while either
// is reachable. It returns nils when n is larger (or negative) or when the
// CPU backend's policy declines n.
//
// The bytes come first in the allocation. Go places objects of a size class
// at multiples of the class size from a page boundary, so when the whole
// allocation rounds up to a multiple of HostAlignment (as a small tensor's
// does: 304 bytes in the class of 320), the bytes are aligned without
// slack. Otherwise the allocation is made again with HostAlignment-1 bytes
// of slack.
func AllocateWith[O any](n int) (*O, *SmallMemory) {
	if n < 0 {
		return nil, nil
	}
	if smallServed != nil && !smallServed(n) {
		return nil, nil
	}
	switch {
	case n <= 64:
		return allocateWith[O, [64]byte, [64 + HostAlignment - 1]byte](n)
	case n <= SmallMax:
		return allocateWith[O, [SmallMax]byte, [SmallMax + HostAlignment - 1]byte](n)
	}
	return nil, nil
}

// allocateWith is AllocateWith with bytes of type A, or S (with slack)
// when A's place is not aligned.
func allocateWith[O, A, S any](n int) (*O, *SmallMemory) {
	if w := new(withOwner[O, A]); uintptr(unsafe.Pointer(&w.data))%HostAlignment == 0 {
		w.m.ptr, w.m.n = unsafe.Pointer(&w.data), n
		return &w.owner, &w.m
	}
	unaligned.Add(1)
	w := new(withOwner[O, S])
	p := unsafe.Pointer(&w.data)
	w.m.ptr, w.m.n = unsafe.Add(p, (HostAlignment-int(uintptr(p)%HostAlignment))%HostAlignment), n
	return &w.owner, &w.m
}

type withOwner[O, A any] struct {
	data  A
	owner O
	m     SmallMemory
}

// unaligned counts small allocations that needed slack.
var unaligned atomic.Int64

// UnalignedSmall is the number of AllocateWith calls whose first try was
// not aligned and that were made again with slack (tests keep it at 0 for
// the allocations made most often).
func UnalignedSmall() int64 { return unaligned.Load() }

var smallBinary func(op OpID, dt dtype.DType, out, x, y unsafe.Pointer, n int) bool

// RegisterSmallBinary installs the CPU backend's arithmetic on small
// tensors (see SmallBinary).
func RegisterSmallBinary(f func(op OpID, dt dtype.DType, out, x, y unsafe.Pointer, n int) bool) {
	smallBinary = f
}

// SmallBinary computes out = x op y over n contiguous host elements of
// dtype dt with the CPU backend's Go loops (its small-tensor path, which
// its pointwise kernel also runs) and reports whether it did: it declines
// ops other than add, sub, mul and div, dtypes other than float32 and
// float64, and everything when no CPU backend is linked in.
func SmallBinary(op OpID, dt dtype.DType, out, x, y unsafe.Pointer, n int) bool {
	return smallBinary != nil && smallBinary(op, dt, out, x, y, n)
}
