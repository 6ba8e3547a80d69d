package meta

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.RegisterMeta(kernel.OpSvd, Svd)
}

// SvdDims returns the batch shape, m, n and k = min(m, n) of the input of
// an svd call (In[0] with at least 2 dims).
func SvdDims(c *kernel.Call) (batch []int, m, n, k int) {
	s := c.In[0].Shape
	nd := len(s)
	m, n = s[nd-2], s[nd-1]
	return s[:nd-2], m, n, min(m, n)
}

// Svd is the meta function of linalg_svd: In[0] (..., m, n) of a floating
// dtype gives U (..., m, k), or (..., m, m) with kernel.SvdFull, S (..., k)
// and Vh (..., k, n), or (..., n, n) with SvdFull, where k = min(m, n); with
// kernel.SvdValuesOnly the call has S alone as Out[0]. S has the real dtype
// of the input (its dtype, as MindTorch has no complex dtypes). U and Vh are
// laid out as PyTorch's CPU and meta backends lay them out: each matrix in
// column-major order (LAPACK's), the batch dims row-major around them; S is
// contiguous. float16 and bfloat16 pass here, as on PyTorch's meta device;
// the CPU kernel refuses them as PyTorch's CPU does.
func Svd(c *kernel.Call) error {
	in := &c.In[0]
	if len(in.Shape) < 2 {
		return kernel.Errorf(kernel.ErrShape, "linalg.svd: The input tensor A must have at least 2 dimensions.")
	}
	if !in.DType.IsFloatingPoint() {
		return kernel.Errorf(kernel.ErrDType, "linalg.svd: Expected a floating point or complex tensor as input. Got %s", kernel.PyName(in.DType))
	}
	batch, m, n, k := SvdDims(c)
	nb := len(batch)
	valuesOnly := c.Mode&kernel.SvdValuesOnly != 0
	want := 3
	if valuesOnly {
		want = 1
	}
	if len(c.Out) != want {
		return kernel.Errorf(kernel.ErrArgument, "linalg.svd: the call has %d outputs, expected %d", len(c.Out), want)
	}
	sShape := c.NewInts(nb + 1)
	copy(sShape, batch)
	sShape[nb] = k
	c.ComputeDType = in.DType
	if valuesOnly {
		return contiguousOut(c, 0, in.DType, sShape)
	}
	ucols, vrows := k, k
	if c.Mode&kernel.SvdFull != 0 {
		ucols, vrows = m, n
	}
	if err := columnMajorOut(c, 0, in.DType, batch, m, ucols); err != nil {
		return err
	}
	if err := contiguousOut(c, 1, in.DType, sShape); err != nil {
		return err
	}
	return columnMajorOut(c, 2, in.DType, batch, vrows, n)
}

// columnMajorOut lays out output i as a new batch of rows x cols matrices,
// each column-major (the strides of a contiguous (..., cols, rows) tensor
// with its last two dims swapped), or checks the one the caller gave.
func columnMajorOut(c *kernel.Call, i int, d dtype.DType, batch []int, rows, cols int) error {
	nb := len(batch)
	shape := c.NewInts(nb + 2)
	copy(shape, batch)
	shape[nb], shape[nb+1] = rows, cols
	if c.OutGiven {
		return contiguousOut(c, i, d, shape) // checks shape and dtype only
	}
	if _, err := kernel.CheckedNumel(shape, d.ItemSize()); err != nil {
		return err
	}
	strides := c.NewInts(nb + 2)
	shape[nb], shape[nb+1] = cols, rows
	kernel.ContiguousStrides(shape, strides)
	shape[nb], shape[nb+1] = rows, cols
	strides[nb], strides[nb+1] = strides[nb+1], strides[nb]
	o := &c.Out[i]
	o.DType, o.Shape, o.Strides = d, shape, strides
	return nil
}
