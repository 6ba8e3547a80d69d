package torch

import (
	"math"
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Copy_ copies src into t (broadcasting src, converting its dtype, across
// devices) and returns t; when the copy fails, t carries the error.
func (t *Tensor) Copy_(src *Tensor) *Tensor { return t.keepFailure(t.copy_(src)) }

func (t *Tensor) copy_(src *Tensor) *Tensor {
	if err := inputErr("copy_", t, src); err != nil {
		return failed(err)
	}
	if err := t.checkWritable("copy_"); err != nil {
		return failed(err)
	}
	if src.IsMeta() && !t.IsMeta() {
		return failed(src.opError("copy_", ErrDevice, "Cannot copy out of meta tensor; no data!"))
	}
	dev := t.Device()
	if t.IsMeta() {
		dev = device.MetaDevice
	}
	return t.copyFrom(src, dev, "CopyBackwards")
}

// copyFrom runs the copy into t and records it under name.
func (t *Tensor) copyFrom(src *Tensor, dev Device, name string) *Tensor {
	rec := recording(t, src) || (t.base != nil && recording(t.base))
	if rec {
		if err := checkLeafWrite(t, "copy_"); err != nil {
			return failed(err)
		}
	}
	var y *Tensor
	if across(t, src) {
		y = t.copyAcross(src.Detach())
	} else {
		c := dispatch.NewCall(kernel.OpCopy, dev, 1, 1)
		c.In[0] = src.operand()
		y = runInPlace(c, t)
	}
	if y.err != nil || !rec {
		return y
	}
	recordCopy(t, src, name)
	return t
}

// across reports whether a copy goes between two devices with data (the
// host and an NPU, or two NPUs).
func across(t, src *Tensor) bool {
	a, b := t.Device(), src.Device()
	return a != b && a.Type != device.Meta && b.Type != device.Meta
}

// copyAcross copies src into t on another device. Backends move only dense
// bytes of one dtype between the host and a device, so the host side is
// converted, broadcast and made contiguous first (or afterwards), and a
// strided device side goes through a contiguous buffer on the device.
func (t *Tensor) copyAcross(src *Tensor) *Tensor {
	bytes := func(dst, from *Tensor) *Tensor {
		c := dispatch.NewCall(kernel.OpCopy, dst.Device(), 1, 1)
		c.In[0] = from.operand()
		return runInPlace(c, dst)
	}
	switch {
	case src.Device().Type == device.CPU: // host -> device
		host := src.Expand(t.shape...).ToDType(t.dtype).Contiguous()
		if host.err != nil {
			return host
		}
		if t.IsContiguous() {
			return bytes(t, host)
		}
		buf := Empty(t.shape, WithDType(t.dtype), OnDevice(t.Device()))
		if r := bytes(buf, host); r.err != nil {
			return r
		}
		defer buf.Release()
		if r := t.Detach().Copy_(buf); r.err != nil {
			return r
		}
		return t
	case t.Device().Type == device.CPU: // device -> host
		dense := src.Contiguous()
		if dense.err != nil {
			return dense
		}
		host := Empty(dense.shape, WithDType(dense.dtype))
		if r := bytes(host, dense); r.err != nil {
			return r
		}
		if dense != src {
			dense.Release()
		}
		if r := t.Detach().Copy_(host); r.err != nil {
			return r
		}
		return t
	}
	// device -> another device: through the host.
	host, err := src.ToDevice(device.CPUDevice)
	if err != nil {
		return failed(err)
	}
	return t.copyAcross(host)
}

// emptyLayout makes an uninitialised tensor shaped like t with dtype dt on
// dev, laid out as PyTorch's empty_like with preserve_format (which clone
// and to(dtype) use): t's strides when t is dense, else dense strides in
// t's memory order (likeStrides).
func (t *Tensor) emptyLayout(dt DType, dev Device) *Tensor {
	m, err := kernel.Allocate(dev, t.Numel()*dt.ItemSize())
	if err != nil {
		return t.fail("empty_like", err)
	}
	return newTensor(newMadeStorage(m), dt, t.shape, likeStrides(t), 0)
}

// Clone returns a copy of t with its own storage (laid out as t when t is
// dense, else contiguous).
func (t *Tensor) Clone() *Tensor {
	if err := inputErr("clone", t); err != nil {
		return failed(err)
	}
	if out, ok := t.clonePending(); ok {
		return out
	}
	out := t.emptyLayout(t.dtype, t.Device())
	if out.err != nil {
		return out
	}
	out.requiresGrad = false
	return out.copyFrom(t, out.Device(), "CloneBackward0")
}

// Contiguous returns t when it is contiguous, else a contiguous copy.
func (t *Tensor) Contiguous() *Tensor {
	if err := inputErr("contiguous", t); err != nil {
		return failed(err)
	}
	if t.IsContiguous() {
		return t
	}
	m, err := kernel.Allocate(t.Device(), t.Numel()*t.dtype.ItemSize())
	if err != nil {
		return t.fail("contiguous", err)
	}
	out := newTensor(newMadeStorage(m), t.dtype, t.shape, t.strides, 0)
	kernel.ContiguousStrides(out.shape, out.strides)
	return out.copyFrom(t, out.Device(), "CloneBackward0")
}

// ToDType returns t converted to dtype d (t itself when it already is),
// with PyTorch's casting rules: float to integer truncates, NaN and
// out-of-range values give what PyTorch gives on x86, anything to bool is
// "not zero", float16 and bfloat16 round to nearest even.
func (t *Tensor) ToDType(d DType) *Tensor {
	if err := inputErr("to", t); err != nil {
		return failed(err)
	}
	if t.dtype == d {
		return t
	}
	if !d.Valid() {
		return t.fail("to", kernel.Errorf(ErrDType, "invalid dtype %d", d))
	}
	out := t.emptyLayout(d, t.Device())
	if out.err != nil {
		return out
	}
	return out.copyFrom(t, out.Device(), "ToCopyBackward0")
}

// To returns t on the device given by name ("cpu", "meta", "npu:0"); t itself
// when it is there. Copying out of the meta device is an error (it has no data).
func (t *Tensor) To(name string) (*Tensor, error) {
	if err := inputErr("to", t); err != nil {
		return nil, err
	}
	d, err := parseDevice(name)
	if err != nil {
		return nil, err
	}
	return t.ToDevice(d)
}

// ToDevice returns t on device d (t itself when it is there).
func (t *Tensor) ToDevice(d Device) (*Tensor, error) {
	if err := inputErr("to", t); err != nil {
		return nil, err
	}
	if t.Device() == d {
		return t, nil
	}
	if t.IsMeta() {
		return nil, t.opError("to", ErrDevice, "Cannot copy out of meta tensor; no data!")
	}
	out := t.emptyLayout(t.dtype, d)
	if out.err != nil {
		return nil, out.err
	}
	out = out.copyFrom(t, d, "ToCopyBackward0")
	if out.err != nil {
		return nil, out.err
	}
	return out, nil
}

// Element is a Go type a tensor's elements can be read into or made from.
type Element interface {
	~bool | ~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~int | ~float32 | ~float64 | dtype.F16 | dtype.BF16
}

// dtypeOfElement is the dtype of Go type T: int is int64, as in PyTorch.
func dtypeOfElement[T Element]() DType {
	var z T
	switch any(z).(type) {
	case bool:
		return Bool
	case uint8:
		return Uint8
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64, int:
		return Int64
	case dtype.F16:
		return Float16
	case dtype.BF16:
		return BFloat16
	case float32:
		return Float32
	case float64:
		return Float64
	}
	switch unsafe.Sizeof(z) {
	case 1:
		return Uint8
	case 2:
		return Int16
	case 4:
		return Int32
	}
	return Int64
}

// ToSlice returns t's elements in row-major order as a []T, converting them
// to T's dtype as a cast does (int reads as int64).
func ToSlice[T Element](t *Tensor) ([]T, error) {
	if err := inputErr("tolist", t); err != nil {
		return nil, err
	}
	if t.IsMeta() {
		return nil, t.opError("tolist", ErrDevice, "Cannot copy out of meta tensor; no data!")
	}
	dt := dtypeOfElement[T]()
	out := make([]T, t.Numel())
	if len(out) == 0 {
		return out, nil
	}
	c := t
	if t.Device().Type != device.CPU {
		var err error
		if c, err = t.ToDevice(device.CPUDevice); err != nil {
			return nil, err
		}
	}
	// Copy into the slice's memory through a CPU tensor over it.
	var z T
	if unsafe.Sizeof(z) != uintptr(dt.ItemSize()) { // int on a 32-bit host
		return nil, t.opError("tolist", ErrDType, "unsupported element type %T", z)
	}
	dst := wrapHost(unsafe.Pointer(unsafe.SliceData(out)), len(out)*dt.ItemSize(), dt, t.shape)
	if r := dst.Copy_(c); r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// Item returns the value of a one-element tensor as a float64.
func (t *Tensor) Item() (float64, error) {
	v, err := t.item(Float64)
	return math.Float64frombits(v), err
}

// ItemInt returns the value of a one-element tensor as an int64.
func (t *Tensor) ItemInt() (int64, error) {
	v, err := t.item(Int64)
	return int64(v), err
}

// ItemBool returns the value of a one-element tensor as a bool.
func (t *Tensor) ItemBool() (bool, error) {
	v, err := t.item(Bool)
	return v&0xff != 0, err
}

func (t *Tensor) item(d DType) (uint64, error) {
	if err := inputErr("item", t); err != nil {
		return 0, err
	}
	if t.Numel() != 1 {
		return 0, t.opError("item", ErrShape, "a Tensor with %d elements cannot be converted to Scalar", t.Numel())
	}
	if t.IsMeta() {
		return 0, t.opError("item", ErrDevice, "Tensor.item() cannot be called on meta tensors")
	}
	var v uint64
	dst := wrapHost(unsafe.Pointer(&v), 8, d, nil)
	if r := dst.Copy_(t.Reshape()); r.err != nil {
		return 0, r.err
	}
	return v, nil
}

// Equal reports whether a and b have the same shape and the same elements
// (torch.equal; the dtypes may differ). It is false when they cannot be
// compared (see EqualErr).
func Equal(a, b *Tensor) bool {
	eq, err := EqualErr(a, b)
	return eq && err == nil
}

// EqualErr is Equal, with the error that kept a and b from being compared:
// a nil or failed tensor, two devices, a meta tensor (which has no data).
func EqualErr(a, b *Tensor) (bool, error) {
	if err := comparable("equal", a, b); err != nil {
		return false, err
	}
	if !slices.Equal(a.shape, b.shape) {
		return false, nil
	}
	if a.dtype.IsFloatingPoint() || b.dtype.IsFloatingPoint() {
		return allClose(a, b, 0, 0, false)
	}
	x, err := ToSlice[int64](a)
	if err != nil {
		return false, err
	}
	y, err := ToSlice[int64](b)
	if err != nil {
		return false, err
	}
	return slices.Equal(x, y), nil
}

// AllClose reports whether |a - b| <= atol + rtol*|b| elementwise, with a
// and b broadcast together; NaNs are equal only when equalNaN. It is false
// when they cannot be compared (see AllCloseErr).
func AllClose(a, b *Tensor, rtol, atol float64, equalNaN bool) bool {
	ok, err := AllCloseErr(a, b, rtol, atol, equalNaN)
	return ok && err == nil
}

// AllCloseErr is AllClose, with PyTorch's errors: a nil or failed tensor,
// two dtypes, two devices, shapes that do not broadcast, a negative
// tolerance, meta tensors (which have no data).
func AllCloseErr(a, b *Tensor, rtol, atol float64, equalNaN bool) (bool, error) {
	if err := comparable("allclose", a, b); err != nil {
		return false, err
	}
	switch {
	case a.dtype != b.dtype:
		return false, pairError(ErrDType, "allclose", a, b, "%s did not match %s", kernel.PyName(a.dtype), kernel.PyName(b.dtype))
	case !(rtol >= 0):
		return false, pairError(ErrArgument, "allclose", a, b, "rtol must be greater than or equal to zero, but got %v", rtol)
	case !(atol >= 0):
		return false, pairError(ErrArgument, "allclose", a, b, "atol must be greater than or equal to zero, but got %v", atol)
	}
	return allClose(a, b, rtol, atol, equalNaN)
}

// comparable is the error that keeps op from reading a and b: a nil or
// failed tensor, two devices, or the meta device.
func comparable(op string, a, b *Tensor) error {
	if err := inputErr(op, a, b); err != nil {
		return err
	}
	if a.Device() != b.Device() {
		return pairError(ErrDevice, op, a, b, "Expected all tensors to be on the same device, but found at least two devices, %s and %s",
			a.Device(), b.Device())
	}
	if a.IsMeta() {
		return pairError(ErrDevice, op, a, b, "%s cannot compare meta tensors: they have no data", op)
	}
	return nil
}

// allClose compares a and b, broadcast together, elementwise as float64.
func allClose(a, b *Tensor, rtol, atol float64, equalNaN bool) (bool, error) {
	shape, err := kernel.BroadcastShapes(a.shape, b.shape)
	if err != nil {
		return false, pairError(ErrShape, "allclose", a, b, "%s", kernel.AsOpError(err).Detail)
	}
	x, err := ToSlice[float64](a.Expand(shape...))
	if err != nil {
		return false, err
	}
	y, err := ToSlice[float64](b.Expand(shape...))
	if err != nil {
		return false, err
	}
	for i := range x {
		u, v := x[i], y[i]
		if math.IsNaN(u) || math.IsNaN(v) {
			if !(equalNaN && math.IsNaN(u) && math.IsNaN(v)) {
				return false, nil
			}
			continue
		}
		if u == v {
			continue
		}
		if math.IsInf(u, 0) || math.IsInf(v, 0) || math.Abs(u-v) > atol+rtol*math.Abs(v) {
			return false, nil
		}
	}
	return true, nil
}

// ToAny returns t's elements in row-major order as a slice of the Go type
// of t's dtype: []bool, []uint8, []int8, []int16, []int32, []int64,
// []dtype.F16, []dtype.BF16, []float32 or []float64.
func (t *Tensor) ToAny() (any, error) {
	if err := inputErr("tolist", t); err != nil {
		return nil, err
	}
	switch t.dtype {
	case Bool:
		return ToSlice[bool](t)
	case Uint8:
		return ToSlice[uint8](t)
	case Int8:
		return ToSlice[int8](t)
	case Int16:
		return ToSlice[int16](t)
	case Int32:
		return ToSlice[int32](t)
	case Int64:
		return ToSlice[int64](t)
	case Float16:
		return ToSlice[dtype.F16](t)
	case BFloat16:
		return ToSlice[dtype.BF16](t)
	case Float32:
		return ToSlice[float32](t)
	}
	return ToSlice[float64](t)
}
