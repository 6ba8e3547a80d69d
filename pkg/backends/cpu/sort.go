package cpu

import (
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpSort, device.CPU, sortKernel)
	kernel.Register(kernel.OpTopk, device.CPU, sortKernel)
	kernel.Register(kernel.OpUnique, device.CPU, uniqueKernel)
	kernel.Register(kernel.OpSearchsorted, device.CPU, searchsortedKernel)
}

// keys are the values of a row as an ordered Go type: float64 for floating
// dtypes (NaN ordered after +Inf, as PyTorch sorts), int64 for the others.
type keys struct {
	f []float64
	i []int64
}

func loadKeys(k *keys, p unsafe.Pointer, d dtype.DType, n, stride int) {
	es := d.ItemSize()
	if d.IsFloatingPoint() {
		k.f = k.f[:0]
		for j := range n {
			k.f = append(k.f, loadFloat(unsafe.Add(p, j*stride*es), d))
		}
		return
	}
	k.i = k.i[:0]
	for j := range n {
		k.i = append(k.i, loadInt(unsafe.Add(p, j*stride*es), d))
	}
}

// compare orders elements a and b ascending, NaN last.
func (k *keys) compare(a, b int64) int { return compareKeys(k, a, k, b) }

// compareKeys orders element a of k against element b of l (keys of one dtype).
func compareKeys(k *keys, a int64, l *keys, b int64) int {
	if k.f == nil {
		x, y := k.i[a], l.i[b]
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	x, y := k.f[a], l.f[b]
	xn, yn := x != x, y != y
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// sortKernel is sort (KeepDim: descending) and topk (Ints[0] = k, KeepDim:
// largest): each row along c.Dim is sorted stably by index and the first
// k (all, for sort) values and indices are written.
func sortKernel(c *kernel.Call) error {
	in, vals, idxs := &c.In[0], &c.Out[0], &c.Out[1]
	desc := c.KeepDim
	n, inStride := dimInfo(in, c.Dim)
	k := n
	if c.Op == kernel.OpTopk {
		k = c.Ints[0]
	}
	_, vStride := dimInfo(vals, c.Dim)
	_, iStride := dimInfo(idxs, c.Dim)
	// Walk the rows: every position with dim fixed at 0.
	rows := append([]int(nil), in.Shape...)
	if len(rows) > 0 {
		rows[c.Dim] = 1
	}
	nd := len(rows)
	es := in.DType.ItemSize()
	var ks keys
	order := make([]int64, n)
	ip, vp, xp := in.Data(), vals.Data(), idxs.Data()
	return walk(rows, [][]int{stridesAlong(in, nd, -1), stridesAlong(vals, nd, -1), stridesAlong(idxs, nd, -1)},
		func(_ int, off []int) error {
			loadKeys(&ks, unsafe.Add(ip, off[0]*es), in.DType, n, inStride)
			for j := range order {
				order[j] = int64(j)
			}
			slices.SortStableFunc(order, func(a, b int64) int {
				if desc {
					return ks.compare(b, a)
				}
				return ks.compare(a, b)
			})
			for j := range k {
				src := int(order[j])
				moveElem(unsafe.Add(vp, (off[1]+j*vStride)*es), unsafe.Add(ip, (off[0]+src*inStride)*es), es)
				*(*int64)(unsafe.Add(xp, (off[2]+j*iStride)*8)) = order[j]
			}
			return nil
		})
}

// uniqueKernel lists the sorted distinct values of the input, with the
// inverse indices (the input's shape) and the counts when Mode asks.
func uniqueKernel(c *kernel.Call) error {
	in := &c.In[0]
	x, err := asContiguous(in, in.DType)
	if err != nil {
		return err
	}
	defer releaseTemp(&x, in)
	n := kernel.Numel(x.Shape)
	var ks keys
	loadKeys(&ks, x.Data(), x.DType, n, 1)
	order := make([]int64, n)
	for j := range order {
		order[j] = int64(j)
	}
	slices.SortStableFunc(order, ks.compare)
	inverse := make([]int64, n)
	var firsts []int64
	var counts []int64
	for j, e := range order {
		if j == 0 || ks.compare(order[j-1], e) != 0 {
			firsts = append(firsts, e)
			counts = append(counts, 0)
		}
		inverse[e] = int64(len(firsts) - 1)
		counts[len(counts)-1]++
	}
	u := len(firsts)
	es := x.DType.ItemSize()
	vals := &c.Out[0]
	if err := setVector(c, vals, u, x.DType); err != nil {
		return err
	}
	for j, e := range firsts {
		moveElem(unsafe.Add(vals.Data(), j*es), unsafe.Add(x.Data(), int(e)*es), es)
	}
	inv := &c.Out[1]
	inv.Shape = in.Shape
	inv.Strides = kernel.ContiguousStrides(in.Shape, c.NewInts(len(in.Shape)))
	if err := bindNew(inv, n*8); err != nil {
		return err
	}
	copy(unsafe.Slice((*int64)(inv.Data()), n), inverse)
	cnt := &c.Out[2]
	if err := setVector(c, cnt, u, dtype.Int64); err != nil {
		return err
	}
	copy(unsafe.Slice((*int64)(cnt.Data()), u), counts)
	return nil
}

// setVector lays out and allocates a 1-D output of n elements.
func setVector(c *kernel.Call, o *kernel.Operand, n int, d dtype.DType) error {
	o.DType = d
	o.Shape, o.Strides = c.NewInts(1), c.NewInts(1)
	o.Shape[0], o.Strides[0] = n, 1
	return bindNew(o, n*d.ItemSize())
}

// searchsortedKernel finds, for each value, the position in its row of the
// sorted sequence where it would be inserted: before equal elements, or
// after them with KeepDim (right=True).
func searchsortedKernel(c *kernel.Call) error {
	seq, err := asContiguous(&c.In[0], c.In[0].DType)
	if err != nil {
		return err
	}
	defer releaseTemp(&seq, &c.In[0])
	v, o := &c.In[1], &c.Out[0]
	right := c.KeepDim
	n := seq.Shape[len(seq.Shape)-1]
	perRow := 0 // values per row of seq; 0: one sequence for all values
	if len(seq.Shape) > 1 {
		perRow = v.Shape[len(v.Shape)-1]
	}
	var ks, vk keys
	loadKeys(&ks, seq.Data(), seq.DType, kernel.Numel(seq.Shape), 1)
	nv := kernel.Numel(v.Shape)
	vc, err := asContiguous(v, v.DType)
	if err != nil {
		return err
	}
	defer releaseTemp(&vc, v)
	loadKeys(&vk, vc.Data(), vc.DType, nv, 1)
	op := o.Data()
	for j := range nv {
		base := 0
		if perRow > 0 {
			base = j / perRow * n
		}
		lo, hi := 0, n
		for lo < hi {
			mid := (lo + hi) / 2
			cmp := compareKeys(&ks, int64(base+mid), &vk, int64(j))
			if cmp < 0 || right && cmp == 0 {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if o.DType == dtype.Int32 {
			*(*int32)(unsafe.Add(op, j*4)) = int32(lo)
		} else {
			*(*int64)(unsafe.Add(op, j*8)) = int64(lo)
		}
	}
	return nil
}
