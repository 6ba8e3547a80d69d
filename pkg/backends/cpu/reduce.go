package cpu

import (
	"runtime"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// rOps maps the reductions, scans and softmax ops to the C engine's.
var rOps = map[kernel.OpID]int{
	kernel.OpSum: cpukernels.RSum, kernel.OpMean: cpukernels.RMean, kernel.OpProd: cpukernels.RProd,
	kernel.OpAmax: cpukernels.RAmax, kernel.OpAmin: cpukernels.RAmin,
	kernel.OpMaxDim: cpukernels.RArgmax, kernel.OpMinDim: cpukernels.RArgmin,
	kernel.OpArgmax: cpukernels.RArgmax, kernel.OpArgmin: cpukernels.RArgmin,
	kernel.OpVar: cpukernels.RVar, kernel.OpStd: cpukernels.RStd, kernel.OpNorm: cpukernels.RNorm,
	kernel.OpLogSumExp: cpukernels.RLogSumExp, kernel.OpAll: cpukernels.RAll, kernel.OpAny: cpukernels.RAny,
	kernel.OpCountNonzero: cpukernels.RCountNonzero,
	kernel.OpCumsum:       cpukernels.RCumsum, kernel.OpCumprod: cpukernels.RCumprod,
	kernel.OpSoftmax: cpukernels.RSoftmax, kernel.OpLogSoftmax: cpukernels.RLogSoftmax,
	kernel.OpSoftmaxBackward: cpukernels.RSoftmaxBackward, kernel.OpLogSoftmaxBackward: cpukernels.RLogSoftmaxBackward,
}

// rOpOf is rOps indexed by op, for the hot path.
var rOpOf [kernel.NumOps]int

func init() {
	for op, r := range rOps {
		rOpOf[op] = r
		kernel.Register(op, device.CPU, reduceKernel)
	}
}

// reduceEngineDType is the dtype the C engine reduces in: float16 and
// bfloat16 in float32, integers in int64, and bool (for all, any and
// count_nonzero) as bytes.
func reduceEngineDType(op kernel.OpID, compute dtype.DType) dtype.DType {
	switch {
	case op == kernel.OpAll || op == kernel.OpAny || op == kernel.OpCountNonzero:
		return dtype.Bool
	case compute.IsFloatingPoint():
		return engineDType(compute)
	}
	return dtype.Int64
}

// reduceKernel runs every reduction, scan and softmax: it views (or copies)
// the input as a contiguous [outer, r, inner] array in the engine's dtype
// and lets the C engine work along the middle dimension.
func reduceKernel(c *kernel.Call) error {
	in := &c.In[0]
	eng := reduceEngineDType(c.Op, c.ComputeDType)
	along := c.Op >= kernel.OpCumsum && c.Op <= kernel.OpLogSoftmaxBackward
	var x, g kernel.Operand
	var outer, r, inner int
	var err error
	if along {
		if x, err = asContiguous(in, eng); err != nil {
			return err
		}
		outer, r, inner = split3(in.Shape, c.Dim)
		if c.Op == kernel.OpSoftmaxBackward || c.Op == kernel.OpLogSoftmaxBackward {
			// In[0] is the gradient, In[1] the forward output: the engine reads x = output, g = gradient.
			g = x
			defer releaseTemp(&g, in)
			if x, err = asContiguous(&c.In[1], eng); err != nil {
				return err
			}
			in = &c.In[1]
		}
	} else {
		mask := meta.ReducedMask(c, len(in.Shape))
		if x, outer, r, inner, err = reductionLayout(in, mask, eng); err != nil {
			return err
		}
	}
	defer releaseTemp(&x, in)

	var a cpukernels.Attrs
	a.F[0] = c.Scalars[0].Float()
	cop := rOpOf[c.Op]

	// The values go straight into Out[0] when its dtype is the engine's.
	outDT := eng
	if c.Op == kernel.OpCountNonzero {
		outDT = dtype.Int64
	}
	values := &c.Out[0]
	var idx unsafe.Pointer
	if c.Op == kernel.OpArgmax || c.Op == kernel.OpArgmin {
		idx = values.Data()
		values = nil
	} else if c.Op == kernel.OpMaxDim || c.Op == kernel.OpMinDim {
		idx = c.Out[1].Data()
	}
	var tmp kernel.Operand
	var outPtr unsafe.Pointer
	if values != nil {
		if values.DType == outDT && values.IsContiguous() {
			outPtr = values.Data()
		} else {
			if tmp, err = newContiguous(values.Shape, outDT); err != nil {
				return err
			}
			defer tmp.Mem.Release()
			outPtr = tmp.Data()
		}
	}
	if err := runReduce(cop, eng, x, g, outer, r, inner, outPtr, idx, &a); err != nil {
		return err
	}
	if values != nil && tmp.Mem != nil {
		return castInto(opnd(values), values.DType, opnd(&tmp), outDT, values.Shape)
	}
	return nil
}

// runReduce calls the engine over every output position, split across
// cores when the work is large: by output positions when there are enough
// of them, else (a reduction to one value) by chunks of the reduced
// dimension whose partial results are then reduced again.
func runReduce(cop int, eng dtype.DType, x, g kernel.Operand, outer, r, inner int, out, idx unsafe.Pointer, a *cpukernels.Attrs) error {
	positions := outer * inner
	workers := runtime.GOMAXPROCS(0)
	xp, gp := x.Data(), g.Data()
	if r == 0 || kernel.Numel(x.Shape) == 0 {
		xp, gp = nil, nil
	}
	work := positions * r
	if work < grain || workers == 1 {
		return reduceRange(cop, eng, xp, gp, outer, r, inner, out, idx, 0, positions, a)
	}
	beginLarge()
	if positions == 1 && splittable(cop) {
		return splitReduce(cop, eng, xp, r, out, a)
	}
	// Shares of whole output positions, each about grain/2 input elements.
	err := cpukernels.ReduceParallel(cop, int(eng), xp, gp, outer, r, inner, out, idx, positions, a, max(1, grain/2/max(r, 1)))
	if err != nil {
		return kernel.Errorf(kernel.ErrNotImplemented, "no CPU kernel for %s", kernel.PyName(eng))
	}
	return nil
}

// reduceRange runs the engine over output positions [b, e).
func reduceRange(cop int, eng dtype.DType, xp, gp unsafe.Pointer, outer, r, inner int, out, idx unsafe.Pointer, b, e int, a *cpukernels.Attrs) error {
	if err := cpukernels.Reduce(cop, int(eng), xp, gp, outer, r, inner, out, idx, b, e, a); err != nil {
		return kernel.Errorf(kernel.ErrNotImplemented, "no CPU kernel for %s", kernel.PyName(eng))
	}
	return nil
}

// splittable reports whether a reduction to one value can be computed as
// the same reduction of partial results.
func splittable(cop int) bool {
	switch cop {
	case cpukernels.RSum, cpukernels.RMean, cpukernels.RProd, cpukernels.RAmax, cpukernels.RAmin,
		cpukernels.RAll, cpukernels.RAny, cpukernels.RCountNonzero:
		return true
	}
	return false
}

// splitReduce reduces r contiguous elements to one value in chunks, one per
// pool thread, then reduces the partial results: sums (and the sums behind
// a mean and a count) by summing them.
func splitReduce(cop int, eng dtype.DType, x unsafe.Pointer, r int, out unsafe.Pointer, a *cpukernels.Attrs) error {
	partOp, partDT := cop, eng
	combine := cop
	switch cop {
	case cpukernels.RMean:
		partOp, combine = cpukernels.RSum, cpukernels.RSum
	case cpukernels.RCountNonzero:
		partDT, combine = dtype.Int64, cpukernels.RSum
	}
	if err := cpukernels.ReduceSplit(partOp, int(eng), int(partDT), combine, x, r, out, a, grain/2); err != nil {
		return kernel.Errorf(kernel.ErrNotImplemented, "no CPU kernel for %s", kernel.PyName(eng))
	}
	if cop == cpukernels.RMean { // divide in the result's precision, as the kernel does
		if eng == dtype.Float32 {
			*(*float32)(out) /= float32(r)
		} else {
			*(*float64)(out) /= float64(r)
		}
	}
	return nil
}

// split3 views shape as [outer, r, inner] around dim.
func split3(shape []int, dim int) (outer, r, inner int) {
	outer, r, inner = 1, 1, 1
	for d, n := range shape {
		switch {
		case d < dim:
			outer *= n
		case d == dim:
			r = n
		default:
			inner *= n
		}
	}
	return
}

// blockLayout views a contiguous array of shape as [outer, r, inner] with
// the dims that mask reduces in the middle, when they (size-1 dims aside)
// form one block.
func blockLayout(shape []int, mask []bool) (outer, r, inner int, ok bool) {
	first, last := -1, -1
	for d := range shape {
		if mask[d] && shape[d] != 1 {
			if first < 0 {
				first = d
			}
			last = d
		}
	}
	for d := first + 1; first >= 0 && d < last; d++ {
		if !mask[d] && shape[d] != 1 {
			return 0, 0, 0, false
		}
	}
	outer, r, inner = 1, 1, 1
	for d, n := range shape {
		switch {
		case first < 0 || d < first:
			outer *= n
		case d <= last:
			r *= n
		default:
			inner *= n
		}
	}
	return outer, r, inner, true
}

// reductionLayout returns the input as a contiguous [outer, r, inner] array
// of dtype eng with the reduced dims in the middle: the input itself when
// its dtype is eng and its memory already has that order (contiguous with
// the reduced dims adjacent, or reduced dims innermost after a
// permutation, as in a transposed matrix), else a copy.
func reductionLayout(in *kernel.Operand, mask []bool, eng dtype.DType) (x kernel.Operand, outer, r, inner int, err error) {
	nd := len(in.Shape)
	outer, r, inner = 1, 1, 1
	if in.DType == eng && in.IsContiguous() {
		if outer, r, inner, ok := blockLayout(in.Shape, mask); ok {
			return *in, outer, r, inner, nil
		}
	}
	// Kept dims first, then reduced dims, each in their order.
	perm := make([]int, 0, nd)
	for d := range nd {
		if !mask[d] {
			perm = append(perm, d)
			outer *= in.Shape[d]
		}
	}
	for d := range nd {
		if mask[d] {
			perm = append(perm, d)
			r *= in.Shape[d]
		}
	}
	pv := kernel.Operand{Mem: in.Mem, Ptr: in.Ptr, DType: in.DType, Offset: in.Offset,
		Shape: make([]int, nd), Strides: make([]int, nd)}
	for i, d := range perm {
		pv.Shape[i], pv.Strides[i] = in.Shape[d], in.Strides[d]
	}
	if in.DType == eng && pv.IsContiguous() {
		return pv, outer, r, 1, nil
	}
	x, err = contiguousCopy(&pv, eng)
	return x, outer, r, 1, err
}

// asContiguous returns o itself when it is contiguous in dtype d, else a
// contiguous copy in d.
func asContiguous(o *kernel.Operand, d dtype.DType) (kernel.Operand, error) {
	if o.DType == d && o.IsContiguous() {
		return *o, nil
	}
	return contiguousCopy(o, d)
}
