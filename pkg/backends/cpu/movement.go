package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpCat, device.CPU, catKernel)
	kernel.Register(kernel.OpFlip, device.CPU, flipKernel)
	kernel.Register(kernel.OpIndexSelect, device.CPU, indexSelectKernel)
	kernel.Register(kernel.OpGather, device.CPU, gatherKernel)
	kernel.Register(kernel.OpScatter, device.CPU, scatterKernel)
	kernel.Register(kernel.OpScatterAdd, device.CPU, scatterKernel)
	kernel.Register(kernel.OpScatterReduce, device.CPU, scatterKernel)
	kernel.Register(kernel.OpIndexAdd, device.CPU, indexAddKernel)
	kernel.Register(kernel.OpMaskedSelect, device.CPU, maskedSelectKernel)
	kernel.Register(kernel.OpNonzero, device.CPU, nonzeroKernel)
}

// catKernel copies each input into its slice of the output.
func catKernel(c *kernel.Call) error {
	o := &c.Out[0]
	at := 0
	for i := range c.In {
		in := &c.In[i]
		if len(in.Shape) == 1 && in.Shape[0] == 0 && len(o.Shape) != 1 {
			continue // an empty 1-D input, skipped as PyTorch does
		}
		if kernel.Numel(in.Shape) > 0 {
			part := *o
			part.Offset += at * o.Strides[c.Dim]
			part.Shape = in.Shape
			if err := castInto(opnd(&part), o.DType, opnd(in), in.DType, in.Shape); err != nil {
				return err
			}
		}
		if len(in.Shape) > c.Dim {
			at += in.Shape[c.Dim]
		}
	}
	return nil
}

// flipKernel copies the input read backwards along c.Dims: a view with
// negated strides starting at the last element of those dims.
func flipKernel(c *kernel.Call) error {
	in, o := &c.In[0], &c.Out[0]
	v := *in
	v.Strides = append([]int(nil), in.Strides...)
	for _, d := range c.Dims {
		v.Offset += (in.Shape[d] - 1) * in.Strides[d]
		v.Strides[d] = -in.Strides[d]
	}
	return castInto(opnd(o), o.DType, opnd(&v), in.DType, in.Shape)
}

// index reads element i of a contiguous int64 or int32 index.
func index(ix *kernel.Operand, i int) int {
	p := unsafe.Add(ix.Data(), i*ix.DType.ItemSize())
	if ix.DType == dtype.Int32 {
		return int(*(*int32)(p))
	}
	return int(*(*int64)(p))
}

// moveElem copies one element of es bytes.
func moveElem(dst, src unsafe.Pointer, es int) {
	switch es {
	case 1:
		*(*uint8)(dst) = *(*uint8)(src)
	case 2:
		*(*uint16)(dst) = *(*uint16)(src)
	case 4:
		*(*uint32)(dst) = *(*uint32)(src)
	default:
		*(*uint64)(dst) = *(*uint64)(src)
	}
}

// bytesAt is n bytes at p as a slice.
func bytesAt(p unsafe.Pointer, n int) []byte { return unsafe.Slice((*byte)(p), n) }

// indexSelectKernel copies the rows picked by the index along c.Dim: for
// each outer position, one memmove per index of the inner block.
func indexSelectKernel(c *kernel.Call) error {
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
		if j := index(&ix, i); j < 0 || j >= n {
			return kernel.Errorf(kernel.ErrIndex, "INDICES element is out of DATA bounds, id=%d axis_dim=%d", j, n)
		}
	}
	src, dst := self.Data(), o.Data()
	for r := range outer {
		for i := range k {
			j := index(&ix, i)
			copy(bytesAt(unsafe.Add(dst, (r*k+i)*block), block), bytesAt(unsafe.Add(src, (r*n+j)*block), block))
		}
	}
	return nil
}

// walk calls f for every position of shape in row-major order with the
// element offsets of each layout in strides (one stride list per operand).
func walk(shape []int, strides [][]int, f func(pos int, off []int) error) error {
	n := kernel.Numel(shape)
	if n == 0 {
		return nil
	}
	nd := len(shape)
	idx := make([]int, nd)
	off := make([]int, len(strides))
	for pos := range n {
		if err := f(pos, off); err != nil {
			return err
		}
		for d := nd - 1; d >= 0; d-- {
			idx[d]++
			for k := range strides {
				off[k] += strides[k][d]
			}
			if idx[d] < shape[d] {
				break
			}
			for k := range strides {
				off[k] -= idx[d] * strides[k][d]
			}
			idx[d] = 0
		}
	}
	return nil
}

// stridesAlong returns o's strides for a walk over an nd-dimensional
// index: a 0-dim operand reads as one element, and dim (when >= 0) gets
// stride 0, its position coming from the index instead.
func stridesAlong(o *kernel.Operand, nd, dim int) []int {
	st := make([]int, nd)
	if len(o.Strides) == nd {
		copy(st, o.Strides)
	}
	if dim >= 0 && dim < nd {
		st[dim] = 0
	}
	return st
}

// dimInfo is the size and stride of o in dim (1 and 0 for a 0-dim operand).
func dimInfo(o *kernel.Operand, dim int) (size, stride int) {
	if dim < len(o.Shape) {
		return o.Shape[dim], o.Strides[dim]
	}
	return 1, 0
}

// gatherKernel is out[i] = self[i with index[i] in dim].
func gatherKernel(c *kernel.Call) error {
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

// copySelf makes the output a copy of In[0] (unless it is In[0], in place).
func copySelf(c *kernel.Call) error {
	self, o := &c.In[0], &c.Out[0]
	if o.Data() == self.Data() && o.Mem == self.Mem {
		return nil
	}
	if kernel.Numel(o.Shape) == 0 {
		return nil
	}
	return castInto(opnd(o), o.DType, opnd(self), self.DType, o.Shape)
}

// scatterKernel is scatter, scatter_add and scatter_reduce: a copy of self
// with out[i with index[i] in dim] combined with src[i] (or the scalar).
func scatterKernel(c *kernel.Call) error {
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
		case hits != nil && !includeSelf && hits[at] == 0:
			moveElem(dst, src, es)
		default:
			combine(d, mode, dst, src)
		}
		if hits != nil {
			hits[at]++
		}
		return nil
	})
	if err != nil || mode != kernel.ReduceMean {
		return err
	}
	// Mean: divide the sums by the number of values (self counting once).
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
				storeInt(p, d, floorDiv(loadInt(p, d), cnt))
			}
		}
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// indexAddKernel is a copy of self with out[.., index[i], ..] += alpha * source[.., i, ..].
func indexAddKernel(c *kernel.Call) error {
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
		j := index(&ix, i)
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
		combine(d, kernel.ReduceSum, dst, scaled)
		return nil
	})
}

// maskedSelectKernel gathers the elements where the broadcast mask is true
// into a new 1-D output.
func maskedSelectKernel(c *kernel.Call) error {
	in, mask := &c.In[0], &c.In[1]
	shape, err := kernel.BroadcastShapes(in.Shape, mask.Shape)
	if err != nil {
		return err
	}
	m := broadcastView(mask, shape)
	v := broadcastView(in, shape)
	es := in.DType.ItemSize()
	count := 0
	mp := m.Data()
	_ = walk(shape, [][]int{m.Strides}, func(_ int, off []int) error {
		if *(*uint8)(unsafe.Add(mp, off[0])) != 0 {
			count++
		}
		return nil
	})
	o := &c.Out[0]
	o.Shape, o.Strides = c.NewInts(1), c.NewInts(1)
	o.Shape[0], o.Strides[0] = count, 1
	if err := bindNew(o, count*es); err != nil {
		return err
	}
	vp, op := v.Data(), o.Data()
	at := 0
	return walk(shape, [][]int{m.Strides, v.Strides}, func(_ int, off []int) error {
		if *(*uint8)(unsafe.Add(mp, off[0])) != 0 {
			moveElem(unsafe.Add(op, at*es), unsafe.Add(vp, off[1]*es), es)
			at++
		}
		return nil
	})
}

// broadcastView is o viewed with shape (zero strides for broadcast dims).
func broadcastView(o *kernel.Operand, shape []int) kernel.Operand {
	v := *o
	v.Shape = shape
	v.Strides = make([]int, len(shape))
	for d := range shape {
		od := d - (len(shape) - len(o.Shape))
		if od >= 0 && o.Shape[od] != 1 {
			v.Strides[d] = o.Strides[od]
		}
	}
	return v
}

// nonzeroKernel lists the indices of the non-zero elements: int64 [count, ndim].
func nonzeroKernel(c *kernel.Call) error {
	in := &c.In[0]
	b, err := contiguousCopy(in, dtype.Bool)
	if err != nil {
		return err
	}
	defer b.Mem.Release()
	n := kernel.Numel(in.Shape)
	flags := bytesAt(b.Data(), n)
	count := 0
	for _, f := range flags {
		count += int(f)
	}
	nd := len(in.Shape)
	o := &c.Out[0]
	o.Shape, o.Strides = c.NewInts(2), c.NewInts(2)
	o.Shape[0], o.Shape[1] = count, nd
	o.Strides[0], o.Strides[1] = nd, 1
	if err := bindNew(o, count*nd*8); err != nil {
		return err
	}
	out := unsafe.Slice((*int64)(o.Data()), count*nd)
	idx := make([]int, nd)
	row := 0
	for i := range n {
		if flags[i] != 0 {
			for d := range nd {
				out[row*nd+d] = int64(idx[d])
			}
			row++
		}
		for d := nd - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < in.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return nil
}
