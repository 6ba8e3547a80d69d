package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// DType is the element type of a tensor.
type DType = dtype.DType

// The dtypes.
const (
	Bool     = dtype.Bool
	Uint8    = dtype.Uint8
	Int8     = dtype.Int8
	Int16    = dtype.Int16
	Int32    = dtype.Int32
	Int64    = dtype.Int64
	Float16  = dtype.Float16
	BFloat16 = dtype.BFloat16
	Float32  = dtype.Float32
	Float64  = dtype.Float64
)

// Aliases of the dtypes, as PyTorch has them.
const (
	Half   = Float16
	Float  = Float32
	Double = Float64
	Int    = Int32
	Long   = Int64
	Short  = Int16
)

// Device is where a tensor's data lives: cpu, meta, or npu:N.
type Device = device.Device

// ParseDevice parses "cpu", "meta", "npu", "npu:N" ("ascend" is an alias of npu).
func ParseDevice(s string) (Device, error) { return parseDevice(s) }

// DefaultDType is the dtype of floating tensors made without one (float32
// until SetDefaultDType changes it).
func DefaultDType() DType { return dtype.Default() }

// SetDefaultDType sets the default floating dtype (a floating dtype only).
// It is a process-wide setting, as in PyTorch.
func SetDefaultDType(d DType) error { return dtype.SetDefault(d) }

// PromoteTypes is the dtype of an op on two tensors of dtypes a and b.
func PromoteTypes(a, b DType) DType { return dtype.Promote(a, b) }

// ResultType is the dtype an op on the given operands gives, as
// torch.result_type: each operand is a *Tensor or a Go scalar (bool, an
// integer, a float). 0-dim tensors and scalars take part with less weight.
func ResultType(operands ...any) (DType, error) {
	var rt dtype.ResultType
	for _, v := range operands {
		if t, ok := v.(*Tensor); ok {
			if err := inputErr("result_type", t); err != nil {
				return 0, err
			}
			p := dtype.Dimensioned
			if t.Dim() == 0 {
				p = dtype.ZeroDim
			}
			rt.Add(t.dtype, p)
			continue
		}
		s, err := kernel.ScalarOf(v)
		if err != nil {
			return 0, err
		}
		rt.Add(s.DType(), dtype.Scalar)
	}
	return rt.Result(), nil
}

// CanCast reports whether an op may write a value of dtype from into an
// output of dtype to (torch.can_cast).
func CanCast(from, to DType) bool { return dtype.CanCast(from, to) }

// Error is the error of a failed op: errors.As(err, new(*torch.Error))
// gives its op, input shapes, dtypes and devices.
type Error = kernel.OpError

// Kinds of failure; every error of the library matches one with errors.Is.
var (
	ErrShape          = kernel.ErrShape
	ErrDType          = kernel.ErrDType
	ErrDevice         = kernel.ErrDevice
	ErrIndex          = kernel.ErrIndex
	ErrArgument       = kernel.ErrArgument
	ErrNotImplemented = kernel.ErrNotImplemented
	ErrAutograd       = kernel.ErrAutograd
	ErrOutOfMemory    = kernel.ErrOutOfMemory
	ErrRuntime        = kernel.ErrRuntime
)

// NewError makes the Error of op failing over the tensor inputs ins (their
// shapes, dtypes and devices go into it), of a kind such as ErrShape.
// Packages built on torch (nn, optim) and users' own ops report bad input
// with it.
func NewError(op string, kind error, ins []*Tensor, format string, args ...any) *Error {
	e := kernel.Errorf(kind, format, args...)
	e.Op = op
	for _, t := range ins {
		if t == nil || t.storage == nil {
			continue
		}
		e.Shapes = append(e.Shapes, append([]int(nil), t.shape...))
		e.DTypes = append(e.DTypes, t.dtype)
		e.Devices = append(e.Devices, t.Device())
	}
	return e
}

// Failed returns a tensor that carries err: ops on it pass err on without
// work, and Err and every terminal call report it.
func Failed(err error) *Tensor { return failed(err) }
