package cpu

// The Go sort and topk kernel this package had before the C one (sort.c),
// kept as the reference the C kernel must match bit for bit: the stable
// sort by Go's slices.SortStableFunc, the unstable one and topk by the
// replay of libstdc++'s algorithms (stl, topkOrder).

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// refSort is sort (KeepDim: descending; Mode 1: stable) and topk (Ints[0]
// = k, KeepDim: largest), one row at a time along c.Dim.
func refSort(c *kernel.Call) error {
	in, vals, idxs := &c.In[0], &c.Out[0], &c.Out[1]
	desc := c.KeepDim
	n, inStride := dimInfo(in, c.Dim)
	k := n
	if c.Op == kernel.OpTopk {
		k = c.Ints[0]
	}
	_, vStride := dimInfo(vals, c.Dim)
	_, iStride := dimInfo(idxs, c.Dim)
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
			case c.Mode&1 == 0:
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

// sortValue draws a value with many ties: the few values of randValue, -0
// and NaNs of either sign and another payload, or (wide) any value of
// about the dtype's range.
func sortValue(r *rand.Rand, d dtype.DType, wide bool) float64 {
	switch {
	case wide && d.IsFloatingPoint():
		return r.NormFloat64() * math.Pow(10, float64(r.Intn(5)))
	case wide && d != dtype.Bool:
		bits := 8 * d.ItemSize()
		return float64(r.Int63n(1<<min(bits, 52)) - 1<<(min(bits, 52)-1))
	case d.IsFloatingPoint() && r.Intn(20) == 0:
		return []float64{math.Copysign(0, -1), -math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Inf(1),
			math.Inf(-1)}[r.Intn(5)]
	}
	return randValue(r, d)
}

// TestSortKernelMatchesReference runs random sorts (stable and not,
// ascending and descending) and topks of every dtype through the C kernel
// and through the Go one it replaced: rows short and long (introsort's
// partitions and its heap sort, the radix sort's passes, topk's two
// algorithms), of few distinct values (ties) or many, transposed and
// strided inputs and outputs, 0-dim and empty tensors. Values and indices
// must agree bit for bit.
func TestSortKernelMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	cases := 1500
	if testing.Short() {
		cases = 300
	}
	for i := range cases {
		d := allDTypes[r.Intn(len(allDTypes))]
		nd := r.Intn(4)
		shape := randShape(r, nd, 5)
		dim := 0
		if nd > 0 {
			dim = r.Intn(nd)
			if r.Intn(3) == 0 {
				shape[dim] = []int{17, 40, 300, 2000, 5000}[r.Intn(5)]
			}
		}
		wide := r.Intn(2) == 0
		in := ixTensor(t, d, shape, r.Intn(3), func(int) float64 { return sortValue(r, d, wide) })
		op := kernel.OpSort
		if d != dtype.Bool && r.Intn(2) == 0 {
			op = kernel.OpTopk
		}
		c := new(kernel.Call)
		c.Init(op, device.CPUDevice, 1, 2)
		c.In[0] = in
		c.Dim, c.KeepDim, c.Mode = dim, r.Intn(2) == 0, r.Intn(2)
		if op == kernel.OpTopk {
			n, _ := dimInfo(&in, dim)
			c.Ints = []int{min(n, []int{0, 1, 3, n / 65, n / 2, n}[r.Intn(6)])}
		}
		name := fmt.Sprintf("case %d: %s %s%v/%v dim=%d desc=%v mode=%d ints=%v", i, op, d, shape, in.Strides, dim,
			c.KeepDim, c.Mode, c.Ints)
		if err := kernel.Meta(op)(c); err != nil {
			t.Fatalf("%s: meta: %v", name, err)
		}
		transposed := r.Intn(2) == 0
		outs := make([][2][]byte, 2)
		for run, f := range []kernel.KernelFunc{sortKernel, refSort} {
			cc := *c
			cc.Out = slices.Clone(c.Out)
			for o := range cc.Out {
				layout := 0
				if transposed {
					layout = 1
				}
				cc.Out[o] = ixTensor(t, c.Out[o].DType, c.Out[o].Shape, layout, func(int) float64 { return 0 })
			}
			if err := f(&cc); err != nil {
				t.Fatalf("%s: run %d: %v", name, run, err)
			}
			outs[run] = [2][]byte{logicalBytes(t, &cc.Out[0]), logicalBytes(t, &cc.Out[1])}
		}
		for o := range 2 {
			if !bytes.Equal(outs[0][o], outs[1][o]) {
				t.Fatalf("%s: output %d differs\n got %v\nwant %v", name, o, outs[0][o][:min(len(outs[0][o]), 64)],
					outs[1][o][:min(len(outs[1][o]), 64)])
			}
		}
	}
}
