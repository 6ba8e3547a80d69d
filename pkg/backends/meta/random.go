package meta

import (
	"math"
	"strconv"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The random ops' checks: PyTorch's argument errors (aten/src/ATen/native/
// DistributionTemplates.h, check_random_bounds; the messages of 1.13), here
// so that every device refuses the same arguments before it draws.

func init() {
	kernel.RegisterMeta(kernel.OpUniform, uniformMeta)
	kernel.RegisterMeta(kernel.OpNormal, normalMeta)
	kernel.RegisterMeta(kernel.OpRandomFromTo, randomFromToMeta)
	kernel.RegisterMeta(kernel.OpBernoulliScalar, bernoulliScalarMeta)
	kernel.RegisterMeta(kernel.OpBernoulliTensor, bernoulliMeta)
}

// typeMetaName is the name PyTorch's messages give a dtype (its C++ type's).
var typeMetaName = map[dtype.DType]string{dtype.Float32: "float", dtype.Float64: "double", dtype.Float16: "c10::Half",
	dtype.BFloat16: "c10::BFloat16", dtype.Int8: "signed char", dtype.Int16: "short int", dtype.Int32: "int",
	dtype.Int64: "long int", dtype.Uint8: "unsigned char", dtype.Bool: "bool"}

// scalarTypeName is the dtype's name as PyTorch's ScalarType prints it.
var scalarTypeName = map[dtype.DType]string{dtype.Float32: "Float", dtype.Float64: "Double", dtype.Float16: "Half",
	dtype.BFloat16: "BFloat16"}

// uniformMeta: floating dtypes, from and to finite values of the dtype,
// from <= to, and to - from within the dtype's range.
func uniformMeta(c *kernel.Call) error {
	if err := floatInPlaceMeta(c); err != nil {
		return err
	}
	d := c.Out[0].DType
	from, to := c.Scalars[0].Float(), c.Scalars[1].Float()
	if m := d.MaxFloat(); !(from >= -m && from <= m) {
		return kernel.Errorf(kernel.ErrArgument, "from is out of bounds for %s", typeMetaName[d])
	} else if !(to >= -m && to <= m) {
		return kernel.Errorf(kernel.ErrArgument, "to is out of bounds for %s", typeMetaName[d])
	}
	if from > to {
		return kernel.Errorf(kernel.ErrArgument, "uniform_ expects to return a [from, to) range, but found from=%s > to=%s",
			cxx(from), cxx(to))
	}
	if !(to-from <= d.MaxFloat()) {
		return kernel.Errorf(kernel.ErrArgument, "uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found "+
			"to=%s and from=%s which result in to-from to exceed the limit", scalarTypeName[d], cxx(to), cxx(from))
	}
	return nil
}

// normalMeta: floating dtypes and std >= 0 (NaN is refused too).
func normalMeta(c *kernel.Call) error {
	if err := floatInPlaceMeta(c); err != nil {
		return err
	}
	if std := c.Scalars[1].Float(); !(std >= 0) {
		return kernel.Errorf(kernel.ErrArgument, "normal expects std >= 0.0, but found std %s", cxx(std))
	}
	return nil
}

// randomFromToMeta: low < high, and low and high - 1 within the dtype's
// range (for floating dtypes, its finite range; bool: 0 and 1).
func randomFromToMeta(c *kernel.Call) error {
	if err := inPlaceMeta(c); err != nil {
		return err
	}
	low, high := c.Scalars[0].Int(), c.Scalars[1].Int()
	if low >= high {
		return kernel.Errorf(kernel.ErrArgument, "random_ expects 'from' to be less than 'to', but got from=%d >= to=%d", low, high)
	}
	d := c.Out[0].DType
	in := func(v int64) bool {
		switch {
		case d == dtype.Bool:
			return v == 0 || v == 1
		case d.IsFloatingPoint():
			return math.Abs(float64(v)) <= d.MaxFloat()
		}
		lo, hi := d.IntRange()
		return v >= lo && v <= hi
	}
	if !in(low) {
		return kernel.Errorf(kernel.ErrArgument, "from is out of bounds for %s", typeMetaName[d])
	}
	if !in(high - 1) {
		return kernel.Errorf(kernel.ErrArgument, "to - 1 is out of bounds for %s", typeMetaName[d])
	}
	return nil
}

// bernoulliScalarMeta: p in [0, 1] (NaN is refused).
func bernoulliScalarMeta(c *kernel.Call) error {
	if err := inPlaceMeta(c); err != nil {
		return err
	}
	if p := c.Scalars[0].Float(); !(p >= 0 && p <= 1) {
		return kernel.Errorf(kernel.ErrArgument, "bernoulli_ expects p to be in [0, 1], but got p=%s", cxx(p))
	}
	return nil
}

// bernoulliMeta: the output has the probabilities' shape and dtype. That
// they are in [0, 1] needs their values: the kernels check it.
func bernoulliMeta(c *kernel.Call) error {
	in := &c.In[0]
	if !in.DType.IsFloatingPoint() {
		return unsupported(c, in.DType)
	}
	c.ComputeDType = in.DType
	o := &c.Out[0]
	o.DType = in.DType
	o.Shape = in.Shape
	o.Strides = kernel.ContiguousStrides(in.Shape, c.NewInts(len(in.Shape)))
	return nil
}

// cxx formats v as C++'s stream does by default (six significant digits,
// "nan", "inf"), as PyTorch's messages print doubles.
func cxx(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
