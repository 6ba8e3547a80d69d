package cpu

// The Go index kernels this package had before the C ones (index.c), kept
// as the reference the C kernels must match bit for bit: same values, same
// order of combination for duplicate indices, same errors.

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// index reads element i of a contiguous int64 or int32 index.
func refIndex(ix *kernel.Operand, i int) int {
	p := unsafe.Add(ix.Data(), i*ix.DType.ItemSize())
	if ix.DType == dtype.Int32 {
		return int(*(*int32)(p))
	}
	return int(*(*int64)(p))
}

// refIndexSelect copies the rows picked by the index along c.Dim: for
// each outer position, one memmove per index of the inner block.
func refIndexSelect(c *kernel.Call) error {
	self, err := asContiguous(&c.In[0], c.In[0].DType)
	if err != nil {
		return err
	}
	defer releaseTemp(&self, &c.In[0])
	ix, err := asContiguous(&c.In[1], c.In[1].DType)
	if err != nil {
		return err
	}
	defer releaseTemp(&ix, &c.In[1])
	o := &c.Out[0]
	outer, n, inner := split3(self.Shape, c.Dim)
	if len(self.Shape) == 0 {
		outer, n, inner = 1, 1, 1
	}
	block := inner * self.DType.ItemSize()
	k := kernel.Numel(ix.Shape)
	for i := range k {
		if j := refIndex(&ix, i); j < 0 || j >= n {
			return kernel.Errorf(kernel.ErrIndex, "INDICES element is out of DATA bounds, id=%d axis_dim=%d", j, n)
		}
	}
	src, dst := self.Data(), o.Data()
	for r := range outer {
		for i := range k {
			j := refIndex(&ix, i)
			copy(bytesAt(unsafe.Add(dst, (r*k+i)*block), block), bytesAt(unsafe.Add(src, (r*n+j)*block), block))
		}
	}
	return nil
}

// refGather is out[i] = self[i with index[i] in dim].
func refGather(c *kernel.Call) error {
	self, ix, o := &c.In[0], &c.In[1], &c.Out[0]
	nd := len(ix.Shape)
	n, dimStride := dimInfo(self, c.Dim)
	es := self.DType.ItemSize()
	sp, ip, op := self.Data(), ix.Data(), o.Data()
	strides := [][]int{stridesAlong(self, nd, c.Dim), stridesAlong(ix, nd, -1), stridesAlong(o, nd, -1)}
	return walk(ix.Shape, strides, func(_ int, off []int) error {
		j := int(*(*int64)(unsafe.Add(ip, off[1]*8)))
		if j < 0 || j >= n {
			return kernel.Errorf(kernel.ErrIndex, "index %d is out of bounds for dimension %d with size %d", j, c.Dim, n)
		}
		moveElem(unsafe.Add(op, off[2]*es), unsafe.Add(sp, (off[0]+j*dimStride)*es), es)
		return nil
	})
}

// refScatter is scatter, scatter_add and scatter_reduce: a copy of self
// with out[i with index[i] in dim] combined with src[i] (or the scalar).
func refScatter(c *kernel.Call) error {
	if err := copySelf(c); err != nil {
		return err
	}
	ix, o := &c.In[1], &c.Out[0]
	nd := len(ix.Shape)
	n, dimStride := dimInfo(o, c.Dim)
	d := o.DType
	es := d.ItemSize()
	mode := c.Mode
	if c.Op == kernel.OpScatterAdd {
		mode = kernel.ReduceSum
	}
	includeSelf := c.Op != kernel.OpScatterReduce || c.KeepDim
	var srcPtr unsafe.Pointer
	srcStrides := make([]int, nd)
	if len(c.In) > 2 {
		srcPtr = c.In[2].Data()
		srcStrides = stridesAlong(&c.In[2], nd, -1)
	} else {
		srcPtr = unsafe.Pointer(new(uint64)) // the scalar as a one-element source
		if d.IsFloatingPoint() {
			storeFloat(srcPtr, d, c.Scalars[0].Float())
		} else {
			storeInt(srcPtr, d, c.Scalars[0].Int())
		}
	}
	// Reductions that skip self, and mean, track how often each output was hit.
	var hits []int32
	if c.Op == kernel.OpScatterReduce && (!includeSelf || mode == kernel.ReduceMean) {
		hits = make([]int32, kernel.Numel(o.Shape))
	}
	ip, op := ix.Data(), o.Data()
	outStrides := stridesAlong(o, nd, c.Dim)
	strides := [][]int{outStrides, stridesAlong(ix, nd, -1), srcStrides}
	err := walk(ix.Shape, strides, func(_ int, off []int) error {
		j := int(*(*int64)(unsafe.Add(ip, off[1]*8)))
		if j < 0 || j >= n {
			return kernel.Errorf(kernel.ErrIndex, "index %d is out of bounds for dimension %d with size %d", j, c.Dim, n)
		}
		at := off[0] + j*dimStride
		dst, src := unsafe.Add(op, at*es), unsafe.Add(srcPtr, off[2]*es)
		switch {
		case mode == kernel.ReduceNone:
			moveElem(dst, src, es)
		case hits != nil && !includeSelf && hits[at] == 0 && (mode == kernel.ReduceSum || mode == kernel.ReduceMean):
			// PyTorch starts a sum without self from 0 (0 + -0.0 is +0.0).
			clear(unsafe.Slice((*byte)(dst), es))
			refCombine(d, mode, dst, src)
		case hits != nil && !includeSelf && hits[at] == 0:
			moveElem(dst, src, es)
		default:
			refCombine(d, mode, dst, src)
		}
		if hits != nil {
			hits[at]++
		}
		return nil
	})
	if err != nil || mode != kernel.ReduceMean {
		return err
	}
	// Mean: divide the sums by the refNumber of values (self counting once).
	for at, h := range hits {
		cnt := int64(h)
		if includeSelf {
			cnt++
		}
		if cnt > 1 {
			p := unsafe.Add(op, at*es)
			if d.IsFloatingPoint() {
				storeFloat(p, d, loadFloat(p, d)/float64(cnt))
			} else {
				storeInt(p, d, refFloorDiv(loadInt(p, d), cnt))
			}
		}
	}
	return nil
}

func refFloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// refIndexAdd is a copy of self with out[.., index[i], ..] += alpha * source[.., i, ..].
func refIndexAdd(c *kernel.Call) error {
	if err := copySelf(c); err != nil {
		return err
	}
	ix, err := asContiguous(&c.In[1], c.In[1].DType)
	if err != nil {
		return err
	}
	defer releaseTemp(&ix, &c.In[1])
	src, err := asContiguous(&c.In[2], c.In[2].DType)
	if err != nil {
		return err
	}
	defer releaseTemp(&src, &c.In[2])
	o := &c.Out[0]
	d := o.DType
	es := d.ItemSize()
	n, _ := dimInfo(o, c.Dim)
	k := kernel.Numel(ix.Shape)
	// Walk the source; its position in dim picks the index.
	nd := len(src.Shape)
	outStrides := stridesAlong(o, nd, c.Dim)
	_, dimStride := dimInfo(o, c.Dim)
	srcStrides := stridesAlong(&src, nd, -1)
	dimOfSrc := make([]int, nd) // the position in dim, as an offset walk
	if c.Dim < nd {
		dimOfSrc[c.Dim] = 1
	}
	alpha := c.Scalars[0]
	scaled := unsafe.Pointer(new(uint64))
	op, sp := o.Data(), src.Data()
	return walk(src.Shape, [][]int{outStrides, srcStrides, dimOfSrc}, func(_ int, off []int) error {
		i := off[2]
		if i >= k {
			i = 0
		}
		j := refIndex(&ix, i)
		if j < 0 {
			j += n
		}
		if j < 0 || j >= n {
			return kernel.Errorf(kernel.ErrIndex, "index out of range in self")
		}
		dst, s := unsafe.Add(op, (off[0]+j*dimStride)*es), unsafe.Add(sp, off[1]*es)
		if d.IsFloatingPoint() {
			storeFloat(scaled, d, alpha.Float()*loadFloat(s, d))
		} else {
			storeInt(scaled, d, alpha.Int()*loadInt(s, d))
		}
		refCombine(d, kernel.ReduceSum, dst, scaled)
		return nil
	})
}

// combine folds the element at src into the one at dst with a reduction
// of scatter (kernel.ReduceSum, ...), in dtype d.
func refCombine(d dtype.DType, mode int, dst, src unsafe.Pointer) {
	switch d {
	case dtype.Float32:
		refCombineT((*float32)(dst), *(*float32)(src), mode)
	case dtype.Float64:
		refCombineT((*float64)(dst), *(*float64)(src), mode)
	case dtype.Float16, dtype.BFloat16:
		a, b := float32(loadFloat(dst, d)), float32(loadFloat(src, d))
		refCombineT(&a, b, mode)
		storeFloat(dst, d, float64(a))
	case dtype.Bool:
		a, b := *(*uint8)(dst) != 0, *(*uint8)(src) != 0
		switch mode {
		case kernel.ReduceSum, kernel.ReduceAmax, kernel.ReduceMean:
			a = a || b
		case kernel.ReduceProd, kernel.ReduceAmin:
			a = a && b
		}
		*(*uint8)(dst) = b2u(a)
	case dtype.Uint8:
		refCombineT((*uint8)(dst), *(*uint8)(src), mode)
	case dtype.Int8:
		refCombineT((*int8)(dst), *(*int8)(src), mode)
	case dtype.Int16:
		refCombineT((*int16)(dst), *(*int16)(src), mode)
	case dtype.Int32:
		refCombineT((*int32)(dst), *(*int32)(src), mode)
	case dtype.Int64:
		refCombineT((*int64)(dst), *(*int64)(src), mode)
	}
}

type refNumber interface {
	~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

func refCombineT[T refNumber](dst *T, v T, mode int) {
	switch mode {
	case kernel.ReduceSum, kernel.ReduceMean:
		*dst += v
	case kernel.ReduceProd:
		*dst *= v
	case kernel.ReduceAmax:
		if v > *dst || v != v {
			*dst = v
		}
	case kernel.ReduceAmin:
		if v < *dst || v != v {
			*dst = v
		}
	}
}
