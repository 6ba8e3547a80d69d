package meta

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.RegisterMeta(kernel.OpCopy, copyMeta)
	kernel.RegisterMeta(kernel.OpFill, inPlaceMeta)
	kernel.RegisterMeta(kernel.OpArange, rangeMeta)
	kernel.RegisterMeta(kernel.OpLinspace, rangeMeta)
}

// copyMeta checks copy_: the source broadcasts to the destination; any
// dtype converts.
func copyMeta(c *kernel.Call) error {
	if !c.OutGiven {
		return kernel.Errorf(kernel.ErrArgument, "copy_ needs a destination")
	}
	o := &c.Out[0]
	shape := c.NewInts(len(o.Shape))
	if len(c.In[0].Shape) > len(o.Shape) {
		return kernel.Errorf(kernel.ErrShape, "output with shape %s doesn't match the broadcast shape %s",
			kernel.ShapeString(o.Shape), kernel.ShapeString(c.In[0].Shape))
	}
	if err := kernel.BroadcastInto(shape, o.Shape, c.In[0].Shape); err != nil {
		return err
	}
	if !slices.Equal(shape, o.Shape) {
		return kernel.Errorf(kernel.ErrShape, "output with shape %s doesn't match the broadcast shape %s",
			kernel.ShapeString(o.Shape), kernel.ShapeString(shape))
	}
	c.ComputeDType = o.DType
	return nil
}

// inPlaceMeta checks an op that writes a given output and reads nothing.
func inPlaceMeta(c *kernel.Call) error {
	if !c.OutGiven {
		return kernel.Errorf(kernel.ErrArgument, "%s is an in-place op and needs its tensor", c.Op)
	}
	c.ComputeDType = c.Out[0].DType
	return nil
}

// floatInPlaceMeta is inPlaceMeta for ops defined on floating dtypes only.
func floatInPlaceMeta(c *kernel.Call) error {
	if err := inPlaceMeta(c); err != nil {
		return err
	}
	if !c.Out[0].DType.IsFloatingPoint() {
		return unsupported(c, c.Out[0].DType)
	}
	return nil
}

// rangeMeta lays out arange and linspace: Ints[0] elements of DType.
func rangeMeta(c *kernel.Call) error {
	n := c.Ints[0]
	if n < 0 {
		return kernel.Errorf(kernel.ErrArgument, "number of elements must be non-negative, got %d", n)
	}
	if c.DType == dtype.Bool {
		return unsupported(c, c.DType)
	}
	if c.Op == kernel.OpLinspace { // start and end converted to the dtype first, checked (Scalar::to)
		for _, s := range c.Scalars[:2] {
			if err := s.CheckFits(c.DType); err != nil {
				return err
			}
		}
	}
	c.ComputeDType = c.DType
	o := &c.Out[0]
	o.DType = c.DType
	o.Shape = c.NewInts(1)
	o.Shape[0] = n
	o.Strides = c.NewInts(1)
	o.Strides[0] = 1
	_, err := kernel.CheckedNumel(o.Shape, o.DType.ItemSize())
	return err
}
