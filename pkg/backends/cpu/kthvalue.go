package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

func init() {
	kernel.Register(kernel.OpKthvalue, device.CPU, selectKernel)
	kernel.Register(kernel.OpMode, device.CPU, selectKernel)
}

// selectKernel is kthvalue (Ints[0] = k) and mode along c.Dim: for each
// slice, the index of the element PyTorch 1.13's CPU kernel picks, and
// that element. Both reproduce PyTorch's choice among equal values:
//
//   - kthvalue copies the slice as (value, index) pairs and runs
//     quick_select_template (aten/src/ATen/native/Sorting.cpp) for
//     position k-1 with the comparison gt_or_nan(x, y) = (isnan(x) &&
//     !isnan(y)) || x > y, moving values and indices together (quickSelect);
//   - mode sorts the (value, index) pairs with std::sort comparing values
//     with < (mode_kernel_impl, aten/src/ATen/native/cpu/
//     TensorCompareKernel.cpp), replayed by stl.sort, and returns the
//     last pair of the first longest run of values that compare equal
//     (each NaN a run of its own, NaN != NaN).
func selectKernel(c *kernel.Call) error {
	in, vals, idxs := &c.In[0], &c.Out[0], &c.Out[1]
	n, inStride := dimInfo(in, c.Dim)
	nd := len(in.Shape)
	rows := append([]int(nil), in.Shape...)
	if nd > 0 {
		rows[c.Dim] = 1
	}
	// The outputs lack c.Dim unless KeepDim: give them stride 0 there.
	outStrides := func(o *kernel.Operand) []int {
		if c.KeepDim || nd == 0 {
			return stridesAlong(o, nd, -1)
		}
		st := make([]int, 0, nd)
		st = append(st, o.Strides[:c.Dim]...)
		st = append(st, 0)
		return append(st, o.Strides[c.Dim:]...)
	}
	es := in.DType.ItemSize()
	var ks keys
	order := make([]int64, n)
	var pick func() int64
	if c.Op == kernel.OpKthvalue {
		k := c.Ints[0] - 1
		pick = func() int64 {
			for j := range order {
				order[j] = int64(j)
			}
			if ks.f != nil {
				quickSelect(ks.f, order, k, func(x, y float64) bool { return (x != x && y == y) || x > y })
			} else {
				quickSelect(ks.i, order, k, func(x, y int64) bool { return x > y })
			}
			return order[k]
		}
	} else {
		pick = func() int64 {
			for j := range order {
				order[j] = int64(j)
			}
			if ks.f != nil {
				f := ks.f
				stl{order, func(a, b int64) bool { return f[a] < f[b] }}.sort(0, n)
				return lastOfLongestRun(order, func(a, b int64) bool { return f[a] != f[b] })
			}
			v := ks.i
			stl{order, func(a, b int64) bool { return v[a] < v[b] }}.sort(0, n)
			return lastOfLongestRun(order, func(a, b int64) bool { return v[a] != v[b] })
		}
	}
	ip, vp, xp := in.Data(), vals.Data(), idxs.Data()
	return walk(rows, [][]int{stridesAlong(in, nd, -1), outStrides(vals), outStrides(idxs)},
		func(_ int, off []int) error {
			loadKeys(&ks, unsafe.Add(ip, off[0]*es), in.DType, n, inStride)
			src := pick()
			moveElem(unsafe.Add(vp, off[1]*es), unsafe.Add(ip, (off[0]+int(src)*inStride)*es), es)
			*(*int64)(unsafe.Add(xp, off[2]*8)) = src
			return nil
		})
}

// quickSelect is PyTorch's quick_select_template (aten/src/ATen/native/
// Sorting.cpp in 1.13, from TH, after Sedgewick): it moves the element
// of rank k (from 0) of arr to position k, swapping idx along with arr, by
// quickselect with the median of three as pivot. gt is PyTorch's
// gt_or_nan. Among equal values, the one left at k is the one PyTorch
// leaves there.
func quickSelect[T int64 | float64](arr []T, idx []int64, k int, gt func(x, y T) bool) {
	swap := func(i, j int) {
		arr[i], arr[j] = arr[j], arr[i]
		idx[i], idx[j] = idx[j], idx[i]
	}
	l, r := 0, len(arr)-1
	for {
		if r <= l { // one element only
			return
		}
		if r == l+1 { // two elements only
			if gt(arr[l], arr[r]) {
				swap(l, r)
			}
			return
		}
		// The median of three as pivot, at l.
		p := (l + r) >> 1
		swap(p, l+1)
		if gt(arr[l+1], arr[r]) {
			swap(l+1, r)
		}
		if gt(arr[l], arr[r]) {
			swap(l, r)
		}
		if gt(arr[l+1], arr[l]) {
			swap(l+1, l)
		}
		i, j := l+1, r
		piv := arr[l]
		for {
			i++
			for gt(piv, arr[i]) {
				i++
			}
			j--
			for gt(arr[j], piv) {
				j--
			}
			if j < i {
				break
			}
			swap(i, j)
		}
		swap(l, j)
		// The part that holds position k.
		if j <= k {
			l = i
		}
		if j >= k {
			r = j - 1
		}
	}
}

// lastOfLongestRun walks sorted (indices of a slice in sorted order) as
// PyTorch's mode kernel does: runs end where differs(this, next), and the
// last element of the first longest run wins.
func lastOfLongestRun(sorted []int64, differs func(a, b int64) bool) int64 {
	var best int64
	run, longest := 0, 0
	for i, e := range sorted {
		run++
		if i == len(sorted)-1 || differs(e, sorted[i+1]) {
			if run > longest {
				best, longest = e, run
			}
			run = 0
		}
	}
	return best
}
