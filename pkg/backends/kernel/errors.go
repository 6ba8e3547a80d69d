package kernel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Kinds of failure. Every error of the library wraps exactly one of them, so
// that callers can test with errors.Is(err, kernel.ErrShape) (re-exported by
// pkg/torch as torch.ErrShape, ...).
var (
	ErrShape          = errors.New("invalid shape")
	ErrDType          = errors.New("unsupported dtype")
	ErrDevice         = errors.New("device error")
	ErrIndex          = errors.New("index out of range")
	ErrArgument       = errors.New("invalid argument")
	ErrNotImplemented = errors.New("not implemented")
	ErrAutograd       = errors.New("autograd error")
	ErrOutOfMemory    = errors.New("out of memory")
	ErrRuntime        = errors.New("runtime error")
)

// OpError is the error of a failed op: which op, what it was given, which
// kind of failure, and the details. errors.Is matches its Kind and its Err;
// errors.As finds it in a chain.
type OpError struct {
	Op      string          // the op's name as PyTorch spells it: "add", "matmul", "view"
	Shapes  [][]int         // the shapes of the tensor inputs
	DTypes  []dtype.DType   // their dtypes
	Devices []device.Device // their devices
	Kind    error           // one of the Err* kinds above
	Detail  string          // what went wrong, in words
	Err     error           // an underlying cause, if any (a native error, ...)
}

// Errorf makes an OpError of a kind with a formatted detail. The dispatcher
// and pkg/torch fill in the op and its inputs.
func Errorf(kind error, format string, args ...any) *OpError {
	return &OpError{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// Error formats the error as "mindtorch: add: invalid shape: <detail> (inputs:
// float32[2 3] cpu, float32[4] cpu)".
func (e *OpError) Error() string {
	var b strings.Builder
	b.WriteString("mindtorch: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	}
	if e.Detail != "" {
		if e.Kind != nil {
			b.WriteString(": ")
		}
		b.WriteString(e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if len(e.Shapes) > 0 {
		b.WriteString(" (inputs: ")
		for i, s := range e.Shapes {
			if i > 0 {
				b.WriteString(", ")
			}
			if i < len(e.DTypes) {
				b.WriteString(e.DTypes[i].Name())
			}
			fmt.Fprintf(&b, "%v", shapeString(s))
			if i < len(e.Devices) {
				b.WriteString(" ")
				b.WriteString(e.Devices[i].String())
			}
		}
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap exposes the kind and the cause to errors.Is and errors.As.
func (e *OpError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// AsOpError returns err as an *OpError, wrapping other errors as a runtime
// error, so that callers can fill in the op and inputs.
func AsOpError(err error) *OpError {
	var oe *OpError
	if errors.As(err, &oe) {
		return oe
	}
	return &OpError{Kind: ErrRuntime, Err: err}
}

// shapeString formats a shape compactly, as error summaries list inputs: [2 3].
func shapeString(s []int) string { return formatShape(s, " ") }

// ShapeString formats a shape as PyTorch prints sizes in messages: [2, 3].
func ShapeString(s []int) string { return formatShape(s, ", ") }

func formatShape(s []int, sep string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte(']')
	return b.String()
}

var pyNames = [dtype.NumDTypes]string{"Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"}

// PyName is the name PyTorch's messages give a dtype ("Float", "Long").
func PyName(d dtype.DType) string {
	if d.Valid() {
		return pyNames[d]
	}
	return d.String()
}
