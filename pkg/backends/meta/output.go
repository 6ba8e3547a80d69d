package meta

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// contiguousOut lays out output i as a new contiguous tensor (whose size
// it checks), or checks the one the caller gave.
func contiguousOut(c *kernel.Call, i int, d dtype.DType, shape []int) error {
	if c.OutGiven {
		o := &c.Out[i]
		if !slices.Equal(o.Shape, shape) {
			return kernel.Errorf(kernel.ErrShape, "output with shape %s doesn't match the result shape %s",
				kernel.ShapeString(o.Shape), kernel.ShapeString(shape))
		}
		if !dtype.CanCast(d, o.DType) {
			return kernel.Errorf(kernel.ErrDType, "result type %s can't be cast to the desired output type %s",
				kernel.PyName(d), kernel.PyName(o.DType))
		}
		return nil
	}
	if _, err := kernel.CheckedNumel(shape, d.ItemSize()); err != nil {
		return err
	}
	o := &c.Out[i]
	o.DType, o.Shape = d, shape
	o.Strides = kernel.ContiguousStrides(shape, c.NewInts(len(shape)))
	return nil
}
