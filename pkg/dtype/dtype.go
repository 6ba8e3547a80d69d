// Package dtype defines the element types of tensors, PyTorch's type
// promotion rules, and exact conversions for the 16-bit float formats.
//
// It is a leaf package: every other package of the module may import it,
// and pkg/torch re-exports its names (torch.Float32 is dtype.Float32).
package dtype

import (
	"fmt"
	"sync/atomic"
)

// DType is the element type of a tensor.
type DType uint8

// The element types, in the order PyTorch numbers its scalar types
// (bool last there; the order here only matters for table layout).
const (
	Bool DType = iota
	Uint8
	Int8
	Int16
	Int32
	Int64
	Float16
	BFloat16
	Float32
	Float64

	// NumDTypes is the number of element types; valid DTypes are below it.
	NumDTypes = iota
)

// Kind is the category of a dtype used by type promotion: bool < integer < floating.
type Kind uint8

// The kinds, ordered as PyTorch orders its promotion categories.
const (
	KindBool Kind = iota
	KindInt
	KindFloat
)

type info struct {
	name     string
	itemSize int
	kind     Kind
	signed   bool
}

var infos = [NumDTypes]info{
	Bool:     {"bool", 1, KindBool, false},
	Uint8:    {"uint8", 1, KindInt, false},
	Int8:     {"int8", 1, KindInt, true},
	Int16:    {"int16", 2, KindInt, true},
	Int32:    {"int32", 4, KindInt, true},
	Int64:    {"int64", 8, KindInt, true},
	Float16:  {"float16", 2, KindFloat, true},
	BFloat16: {"bfloat16", 2, KindFloat, true},
	Float32:  {"float32", 4, KindFloat, true},
	Float64:  {"float64", 8, KindFloat, true},
}

// Valid reports whether d is one of the defined element types.
func (d DType) Valid() bool { return d < NumDTypes }

// Name is the short name of the dtype: "float32", "int64", "bool".
func (d DType) Name() string {
	if !d.Valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return infos[d].name
}

// String is the name as PyTorch prints it: "torch.float32".
func (d DType) String() string { return "torch." + d.Name() }

// ItemSize is the size of one element in bytes.
func (d DType) ItemSize() int {
	if !d.Valid() {
		return 0
	}
	return infos[d].itemSize
}

// Kind is the promotion category of the dtype.
func (d DType) Kind() Kind { return infos[d].kind }

// IsFloatingPoint reports whether d is float16, bfloat16, float32 or float64.
func (d DType) IsFloatingPoint() bool { return d.Valid() && infos[d].kind == KindFloat }

// IsIntegral reports whether d is an integer type; with includeBool, bool counts too.
func (d DType) IsIntegral(includeBool bool) bool {
	if !d.Valid() {
		return false
	}
	k := infos[d].kind
	return k == KindInt || (includeBool && k == KindBool)
}

// IsSigned reports whether d can hold negative values.
func (d DType) IsSigned() bool { return d.Valid() && infos[d].signed }

// Parse returns the dtype with the given name. It accepts the names
// PyTorch accepts, with or without the "torch." prefix: "float32", "float",
// "half", "double", "long", "int", "short", "bool", ...
func Parse(name string) (DType, error) {
	if len(name) > 6 && name[:6] == "torch." {
		name = name[6:]
	}
	switch name {
	case "bool":
		return Bool, nil
	case "uint8":
		return Uint8, nil
	case "int8":
		return Int8, nil
	case "int16", "short":
		return Int16, nil
	case "int32", "int":
		return Int32, nil
	case "int64", "long":
		return Int64, nil
	case "float16", "half":
		return Float16, nil
	case "bfloat16":
		return BFloat16, nil
	case "float32", "float":
		return Float32, nil
	case "float64", "double":
		return Float64, nil
	}
	return 0, fmt.Errorf("dtype: unknown dtype %q", name)
}

var defaultFloat atomic.Uint32

func init() { defaultFloat.Store(uint32(Float32)) }

// Default is the default floating dtype (float32 unless SetDefault changed it).
// Float literals and float Go scalars take this dtype.
func Default() DType { return DType(defaultFloat.Load()) }

// SetDefault sets the default floating dtype, as torch.set_default_dtype.
// Only floating dtypes are accepted.
func SetDefault(d DType) error {
	if !d.IsFloatingPoint() {
		return fmt.Errorf("dtype: only floating-point types are supported as the default type, got %s", d)
	}
	defaultFloat.Store(uint32(d))
	return nil
}
