package cpu

import (
	"math/bits"
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
// (Ints[0] = k, KeepDim: largest): each row along c.Dim is ordered and its
// first k (all, for sort) values and indices are written. A stable sort
// keeps equal elements in index order (torch.sort with stable=True, an
// std::stable_sort in PyTorch); an unstable one is PyTorch 1.13's CPU
// kernel with stable=False, libstdc++'s std::sort of (value, index) pairs
// (stl.sort), so that equal elements end where they end in PyTorch: in
// index order for rows of up to 16 elements (insertion sort), in the order
// introsort's partitions leave them beyond. topk orders as PyTorch's CPU
// kernel (topkOrder).
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
	// before is PyTorch's comparator: a before b, NaN the largest value.
	before := func(a, b int64) bool { return ks.compare(a, b) < 0 }
	if desc {
		before = func(a, b int64) bool { return ks.compare(a, b) > 0 }
	}
	ip, vp, xp := in.Data(), vals.Data(), idxs.Data()
	return walk(rows, [][]int{stridesAlong(in, nd, -1), stridesAlong(vals, nd, -1), stridesAlong(idxs, nd, -1)},
		func(_ int, off []int) error {
			loadKeys(&ks, unsafe.Add(ip, off[0]*es), in.DType, n, inStride)
			for j := range order {
				order[j] = int64(j)
			}
			switch {
			case c.Op == kernel.OpTopk:
				topkOrder(order, k, before)
			case c.Mode&1 == 0: // unstable: std::sort, as PyTorch's CPU kernel
				stl{order, before}.sort(0, len(order))
			default:
				slices.SortStableFunc(order, func(a, b int64) int {
					if desc {
						return ks.compare(b, a)
					}
					return ks.compare(a, b)
				})
			}
			for j := range k {
				src := int(order[j])
				moveElem(unsafe.Add(vp, (off[1]+j*vStride)*es), unsafe.Add(ip, (off[0]+src*inStride)*es), es)
				*(*int64)(unsafe.Add(xp, (off[2]+j*iStride)*8)) = order[j]
			}
			return nil
		})
}

// topkOrder puts the k first elements of q (indices of a row) in front,
// sorted by before, as PyTorch's topk_impl_loop (aten/src/ATen/native/
// TopKImpl.h) does with GCC's libstdc++: std::partial_sort when 64k <= n,
// else std::nth_element at k-1 and std::sort of the k-1 before it. Among
// equal values the order is theirs, which is neither by index nor stable.
// (topk with sorted=False skips that std::sort; MindTorch's Topk is always
// sorted.)
func topkOrder(q []int64, k int, before func(a, b int64) bool) {
	if k == 0 {
		return
	}
	s := stl{q, before}
	if 64*k <= len(q) {
		s.heapSelect(0, k, len(q))
		s.sortHeap(0, k)
		return
	}
	s.nthElement(k - 1)
	s.sort(0, k-1)
}

// stl holds libstdc++'s (GCC 12) sorting algorithms on q, with less as the
// comparator, step by step, so that elements equal under less end where
// they end in C++. Positions are indices into q.
type stl struct {
	q    []int64
	less func(a, b int64) bool
}

func (s stl) swap(i, j int) { s.q[i], s.q[j] = s.q[j], s.q[i] }

// lg is std::__lg: floor(log2(n)) for n > 0.
func lg(n int) int { return bits.Len(uint(n)) - 1 }

// sort is std::sort of [first, last): introsort, then insertion sort.
func (s stl) sort(first, last int) {
	if first == last {
		return
	}
	s.introsortLoop(first, last, 2*lg(last-first))
	s.finalInsertionSort(first, last)
}

// threshold is libstdc++'s _S_threshold.
const threshold = 16

func (s stl) introsortLoop(first, last, depth int) {
	for last-first > threshold {
		if depth == 0 {
			s.heapSelect(first, last, last) // std::__partial_sort(first, last, last)
			s.sortHeap(first, last)
			return
		}
		depth--
		cut := s.partitionPivot(first, last)
		s.introsortLoop(cut, last, depth)
		last = cut
	}
}

func (s stl) finalInsertionSort(first, last int) {
	if last-first <= threshold {
		s.insertionSort(first, last)
		return
	}
	s.insertionSort(first, first+threshold)
	for i := first + threshold; i < last; i++ {
		s.linearInsert(first, i)
	}
}

// nthElement is std::nth_element(begin, begin+nth, end): introselect.
func (s stl) nthElement(nth int) {
	first, last := 0, len(s.q)
	if first == last || nth == last {
		return
	}
	depth := 2 * lg(last-first)
	for last-first > 3 {
		if depth == 0 {
			s.heapSelect(first, nth+1, last)
			s.swap(first, nth) // the nth element to its place
			return
		}
		depth--
		if cut := s.partitionPivot(first, last); cut <= nth {
			first = cut
		} else {
			last = cut
		}
	}
	s.insertionSort(first, last)
}

// partitionPivot is std::__unguarded_partition_pivot: the median of
// first+1, mid and last-1 moved to first, then a partition around it.
func (s stl) partitionPivot(first, last int) int {
	mid := first + (last-first)/2
	a, b, c := first+1, mid, last-1
	q, less := s.q, s.less
	switch {
	case less(q[a], q[b]):
		switch {
		case less(q[b], q[c]):
			s.swap(first, b)
		case less(q[a], q[c]):
			s.swap(first, c)
		default:
			s.swap(first, a)
		}
	case less(q[a], q[c]):
		s.swap(first, a)
	case less(q[b], q[c]):
		s.swap(first, c)
	default:
		s.swap(first, b)
	}
	// std::__unguarded_partition(first+1, last, first); the bounds checks
	// never fail for a strict weak order, which less is.
	pivot, lo, hi := first, first+1, last
	for {
		for lo < last && less(q[lo], q[pivot]) {
			lo++
		}
		hi--
		for hi > first && less(q[pivot], q[hi]) {
			hi--
		}
		if lo >= hi {
			return lo
		}
		s.swap(lo, hi)
		lo++
	}
}

// insertionSort is std::__insertion_sort of [first, last).
func (s stl) insertionSort(first, last int) {
	for i := first + 1; i < last; i++ {
		if s.less(s.q[i], s.q[first]) {
			v := s.q[i]
			copy(s.q[first+1:i+1], s.q[first:i])
			s.q[first] = v
		} else {
			s.linearInsert(first, i)
		}
	}
}

// linearInsert is std::__unguarded_linear_insert of position i (first
// bounds the walk, which a smaller element before i stops anyway).
func (s stl) linearInsert(first, i int) {
	v := s.q[i]
	for i > first && s.less(v, s.q[i-1]) {
		s.q[i] = s.q[i-1]
		i--
	}
	s.q[i] = v
}

// heapSelect is std::__heap_select: a heap of [first, mid) that keeps the
// elements that come first of [first, last).
func (s stl) heapSelect(first, mid, last int) {
	s.makeHeap(first, mid)
	for i := mid; i < last; i++ {
		if s.less(s.q[i], s.q[first]) {
			s.popHeap(first, mid, i)
		}
	}
}

// sortHeap is std::__sort_heap of [first, last).
func (s stl) sortHeap(first, last int) {
	for last-first > 1 {
		last--
		s.popHeap(first, last, last)
	}
}

func (s stl) makeHeap(first, last int) {
	n := last - first
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		s.adjustHeap(first, parent, n, s.q[first+parent])
		if parent == 0 {
			return
		}
	}
}

// popHeap is std::__pop_heap(first, last, result): the top to result,
// result's element into the heap [first, last).
func (s stl) popHeap(first, last, result int) {
	v := s.q[result]
	s.q[result] = s.q[first]
	s.adjustHeap(first, 0, last-first, v)
}

// adjustHeap is std::__adjust_heap: the hole at hole (relative to first)
// sinks to a leaf, then v rises from it (std::__push_heap).
func (s stl) adjustHeap(first, hole, n int, v int64) {
	q := s.q[first : first+n]
	top, child := hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if s.less(q[child], q[child-1]) {
			child--
		}
		q[hole] = q[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		q[hole] = q[child-1]
		hole = child - 1
	}
	for parent := (hole - 1) / 2; hole > top && s.less(q[parent], v); parent = (hole - 1) / 2 {
		q[hole] = q[parent]
		hole = parent
	}
	q[hole] = v
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
