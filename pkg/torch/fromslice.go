package torch

import (
	"reflect"
	"strconv"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// wrapHost makes a contiguous CPU tensor over n bytes at p (owned by the caller).
func wrapHost(p unsafe.Pointer, n int, dt DType, shape []int) *Tensor {
	m, err := kernel.WrapHost(p, n)
	if err != nil {
		return failed(withOp("tensor", err))
	}
	t := newTensor(newStorage(m), dt, shape, nil, 0)
	kernel.ContiguousStrides(t.shape, t.strides)
	return t
}

// FromSlice makes a tensor from Go values: a 1-D tensor, or the shape given
// with WithShape. The Go type chooses the dtype ([]float32 is float32, []int
// is int64) unless WithDType converts it. The data is copied.
func FromSlice[T Element](data []T, opts ...Option) *Tensor {
	o := collect(opts)
	if o.err != nil {
		return failed(o.err)
	}
	shape := []int{len(data)}
	if o.hasShape {
		shape = o.shape
		if err := kernel.CheckShape(shape); err != nil {
			return failed(err)
		}
		if kernel.Numel(shape) != len(data) {
			return failed(&Error{Op: "tensor", Kind: ErrShape,
				Detail: "shape " + kernel.ShapeString(shape) + " is invalid for input of size " + itoa(len(data))})
		}
	}
	return fromSlice(data, shape, &o)
}

func fromSlice[T Element](data []T, shape []int, o *options) *Tensor {
	dt := dtypeOfElement[T]()
	var src *Tensor
	if len(data) > 0 {
		src = wrapHost(unsafe.Pointer(unsafe.SliceData(data)), len(data)*dt.ItemSize(), dt, shape)
	} else {
		src = wrapHost(nil, 0, dt, shape)
	}
	out := emptyOpts(shape, o.dtypeOr(dt), o)
	if out.err != nil {
		return out
	}
	return finishCreation(out.Copy_(src), o)
}

// Scalar makes a 0-dim tensor holding v (bool, an integer or a float).
func Scalar(v any, opts ...Option) *Tensor {
	s, err := kernel.ScalarOf(v)
	if err != nil {
		return failed(withOp("scalar_tensor", err))
	}
	o := collect(opts)
	dt := s.DType()
	if s.IsFloat() {
		dt = o.floatDType()
	}
	dt = o.dtypeOr(dt)
	if s.IsFloat() && dt.IsFloatingPoint() && dt != Float64 {
		// torch.tensor converts a float as a cast does (1e300 in float32
		// is inf), where fill_ refuses a value out of the dtype's range.
		return finishCreation(emptyOpts(nil, Float64, &o).Fill_(s).ToDType(dt), &o)
	}
	return finishCreation(emptyOpts(nil, dt, &o).Fill_(s), &o)
}

// FromNested makes a tensor from nested Go slices ([][]float32,
// [][][]int, ...) or a Go scalar; the innermost element type chooses the
// dtype. Ragged slices are an error.
func FromNested(v any, opts ...Option) *Tensor {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return Scalar(v, opts...)
	}
	var shape []int
	for x := rv; x.Kind() == reflect.Slice || x.Kind() == reflect.Array; {
		shape = append(shape, x.Len())
		if x.Len() == 0 {
			break
		}
		x = x.Index(0)
	}
	elem := rv.Type()
	for elem.Kind() == reflect.Slice || elem.Kind() == reflect.Array {
		elem = elem.Elem()
	}
	flat := reflect.MakeSlice(reflect.SliceOf(elem), 0, kernel.Numel(shape))
	var walk func(x reflect.Value, d int) bool
	walk = func(x reflect.Value, d int) bool {
		if d == len(shape) {
			flat = reflect.Append(flat, x)
			return true
		}
		if (x.Kind() != reflect.Slice && x.Kind() != reflect.Array) || x.Len() != shape[d] {
			return false
		}
		for i := range x.Len() {
			if !walk(x.Index(i), d+1) {
				return false
			}
		}
		return true
	}
	if !walk(rv, 0) {
		return failed(&Error{Op: "tensor", Kind: ErrShape, Detail: "expected a rectangular nested slice of shape " + kernel.ShapeString(shape)})
	}
	o := collect(opts)
	switch s := flat.Interface().(type) {
	case []bool:
		return fromSlice(s, shape, &o)
	case []uint8:
		return fromSlice(s, shape, &o)
	case []int8:
		return fromSlice(s, shape, &o)
	case []int16:
		return fromSlice(s, shape, &o)
	case []int32:
		return fromSlice(s, shape, &o)
	case []int64:
		return fromSlice(s, shape, &o)
	case []int:
		return fromSlice(s, shape, &o)
	case []float32:
		return fromSlice(s, shape, &o)
	case []float64:
		return fromSlice(s, shape, &o)
	case []dtype.F16:
		return fromSlice(s, shape, &o)
	case []dtype.BF16:
		return fromSlice(s, shape, &o)
	}
	return failed(&Error{Op: "tensor", Kind: ErrDType, Detail: "unsupported element type " + elem.String()})
}

func itoa(i int) string { return strconv.Itoa(i) }
