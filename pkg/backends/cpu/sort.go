package cpu

import (
	"runtime"
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
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

// isNaN reports whether element a is NaN.
func (k *keys) isNaN(a int64) bool { return k.f != nil && k.f[a] != k.f[a] }

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

// sortKernel is sort (KeepDim: descending; Mode 1: stable) and topk
// (Ints[0] = k, KeepDim: largest), in one C call (cgo/cpukernels/sort.c):
// each row along c.Dim is ordered and its first k (all, for sort) values
// and indices are written. A stable sort keeps equal elements in index
// order (torch.sort with stable=True, an std::stable_sort in PyTorch); an
// unstable one is PyTorch 1.13's CPU kernel with stable=False, libstdc++'s
// std::sort of (value, index) pairs, replayed, so that equal elements end
// where they end in PyTorch: in index order for rows of up to 16 elements
// (insertion sort), in the order introsort's partitions leave them beyond.
// topk orders as PyTorch's CPU kernel: std::partial_sort when 64k <= n,
// else std::nth_element and std::sort of the k - 1 first.
func sortKernel(c *kernel.Call) error {
	in, vals, idxs := &c.In[0], &c.Out[0], &c.Out[1]
	nd := len(in.Shape)
	if nd > cpukernels.MaxDims {
		return kernel.Errorf(kernel.ErrArgument, "sort takes at most %d dimensions", cpukernels.MaxDims)
	}
	job := &cpukernels.SortJob{DType: int64(in.DType), Kind: cpukernels.SortStable}
	switch {
	case c.Op == kernel.OpTopk:
		job.Kind = cpukernels.SortTopk
	case c.Mode&1 == 0:
		job.Kind = cpukernels.SortStd
	}
	if c.KeepDim {
		job.Descending = 1
	}
	n, inStride := dimInfo(in, c.Dim)
	_, vStride := dimInfo(vals, c.Dim)
	_, iStride := dimInfo(idxs, c.Dim)
	job.N, job.K = int64(n), int64(n)
	if c.Op == kernel.OpTopk {
		job.K = int64(c.Ints[0])
	}
	es := int64(in.DType.ItemSize())
	job.Stride = [3]int64{int64(inStride) * es, int64(vStride) * es, int64(iStride) * 8}
	// The rows: every dim but c.Dim, the last one first.
	p := &job.Rows
	p.NOps, job.NRows = 3, 1
	for d := nd - 1; d >= 0; d-- {
		if d == c.Dim || in.Shape[d] == 1 {
			continue
		}
		p.Shape[p.NDim] = int64(in.Shape[d])
		p.Strides[0][p.NDim] = int64(in.Strides[d]) * es
		p.Strides[1][p.NDim] = int64(vals.Strides[d]) * es
		p.Strides[2][p.NDim] = int64(idxs.Strides[d]) * 8
		p.NDim++
		job.NRows *= int64(in.Shape[d])
	}
	if kernel.Numel(in.Shape) == 0 {
		return nil
	}
	if job.NRows > 1 && int(job.NRows)*n >= grain {
		beginLarge()
		job.Grain = int64(max(1, grain/8/max(n, 1)))
	}
	err := cpukernels.Sort(job, in.Data(), vals.Data(), idxs.Data())
	runtime.KeepAlive(job)
	if err != nil {
		return kernel.Errorf(kernel.ErrNotImplemented, "sort of %s rows of %d elements: %v", kernel.PyName(in.DType), n, err)
	}
	return nil
}

// uniqueKernel lists the sorted distinct values of the input, with the
// inverse indices (the input's shape) and the counts when Mode asks. Each
// NaN is distinct (NaN != NaN) and they come last, as in PyTorch 2.x
// (1.13's unique mixes NaNs up with the other values and miscounts them).
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
		if j == 0 || ks.compare(order[j-1], e) != 0 || ks.isNaN(e) {
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
// after them with KeepDim (right=True). The search is PyTorch's: it goes
// right unless sorted[mid] >= value (> with right), so a comparison with
// NaN, which is false, goes right.
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
			if cmp < 0 || right && cmp == 0 || ks.isNaN(int64(base+mid)) || vk.isNaN(int64(j)) {
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
