package torch

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// More reductions, composed of existing tensor ops so that they run on
// every device that has those ops (sort, gather, where, cat, narrow and
// the pointwise ops) and get their gradients from the ops they use, or
// record PyTorch's own rule where it differs (the ops that select an
// element). Every argument is checked first, so that errors name the op
// the caller called and not one of the ops it is made of. kthvalue and
// mode, whose choice among ties is an algorithm's (PyTorch's quickselect,
// std::sort), have kernels instead (OpKthvalue, OpMode); a device without
// one runs their decomposition (decompose_more.go: a stable sort, for the
// slices where the sort's choice is the kernel's), else the host.

// Nansum returns the sum over dims (all when none) treating NaN as zero
// (torch.nansum): "Returns the sum of all elements, treating Not a Numbers
// (NaNs) as zero." Integer and bool inputs sum to int64, as Sum.
func (t *Tensor) Nansum(dims ...int) *Tensor { return t.nansum("nansum", false, dims) }

// NansumKeepDim is Nansum keeping the reduced dims as size 1.
func (t *Tensor) NansumKeepDim(dims ...int) *Tensor { return t.nansum("nansum", true, dims) }

func (t *Tensor) nansum(name string, keepDim bool, dims []int) *Tensor {
	if err := inputErr(name, t); err != nil {
		return failed(err)
	}
	if err := t.checkDims(name, dims); err != nil {
		return failed(err)
	}
	x := t
	if t.dtype.IsFloatingPoint() {
		// Zeroing the NaNs also gives PyTorch's gradient: g where x is
		// not NaN, 0 where it is.
		x = t.MaskedFill(t.IsNan(), 0)
	}
	if keepDim {
		return x.SumKeepDim(dims...)
	}
	return x.Sum(dims...)
}

// Nanmean returns the mean over dims (all when none) of the elements that
// are not NaN (torch.nanmean): nansum divided by the number of non-NaN
// elements, so NaN where every element is NaN or none is reduced. t must
// be floating ("nanmean(): expected input to have floating point dtype").
func (t *Tensor) Nanmean(dims ...int) *Tensor { return t.nanmean(false, dims) }

// NanmeanKeepDim is Nanmean keeping the reduced dims as size 1.
func (t *Tensor) NanmeanKeepDim(dims ...int) *Tensor { return t.nanmean(true, dims) }

func (t *Tensor) nanmean(keepDim bool, dims []int) *Tensor {
	const name = "nanmean"
	if err := inputErr(name, t); err != nil {
		return failed(err)
	}
	if !t.dtype.IsFloatingPoint() {
		return failed(t.opError(name, ErrDType, "nanmean(): expected input to have floating point dtype but got %s", dtypeTitle(t.dtype)))
	}
	if err := t.checkDims(name, dims); err != nil {
		return failed(err)
	}
	// As PyTorch: nansum(x) / count of non-NaN elements.
	count := t.IsNan().LogicalNot()
	if keepDim {
		return t.nansum(name, true, dims).Div(count.SumKeepDim(dims...))
	}
	return t.nansum(name, false, dims).Div(count.Sum(dims...))
}

// VarMean returns the variance (dividing by N - correction) and the mean
// over dims (all when none), torch.var_mean with correction= and keepdim=.
// t must be floating ("var_mean only support floating point and complex
// dtypes"). The gradients are Var's and Mean's.
func (t *Tensor) VarMean(correction float64, keepDim bool, dims ...int) (variance, mean *Tensor) {
	return t.momentMean("var_mean", correction, keepDim, dims)
}

// StdMean returns the standard deviation (dividing by N - correction) and
// the mean over dims (all when none), torch.std_mean with correction= and
// keepdim=; t must be floating.
func (t *Tensor) StdMean(correction float64, keepDim bool, dims ...int) (std, mean *Tensor) {
	return t.momentMean("std_mean", correction, keepDim, dims)
}

func (t *Tensor) momentMean(name string, correction float64, keepDim bool, dims []int) (*Tensor, *Tensor) {
	if err := inputErr(name, t); err != nil {
		return failed(err), failed(err)
	}
	if !t.dtype.IsFloatingPoint() {
		e := failed(t.opError(name, ErrDType, "%s only support floating point and complex dtypes", name))
		return e, e
	}
	if err := t.checkDims(name, dims); err != nil {
		return failed(err), failed(err)
	}
	var m *Tensor
	if keepDim {
		m = t.MeanKeepDim(dims...)
	} else {
		m = t.Mean(dims...)
	}
	if name == "std_mean" {
		return t.StdCorrection(correction, keepDim, dims...), m
	}
	return t.VarCorrection(correction, keepDim, dims...), m
}

// Aminmax returns the minimum and the maximum of t along *dim, or of all
// elements when dim is nil (torch.aminmax). With keepDim the reduced dims
// stay as size 1 (all of them when dim is nil). NaN propagates. An empty
// input fails ("cannot compute aminmax over an empty dimension as the
// operation has no identity"), as does a dim of size 0.
//
// PyTorch 1.13 (and every release up to 2.x) has no derivative for
// aminmax; the gradients here are Amin's and Amax's (shared evenly among
// ties), which is what PyTorch added later (pytorch/pytorch#175215).
// A 0-dim t with keepDim gives 0-dim results, as amin and amax; 1.13
// resizes them to [1] with a deprecation warning.
func (t *Tensor) Aminmax(dim *int, keepDim bool) (min, max *Tensor) {
	const name = "aminmax"
	if err := inputErr(name, t); err != nil {
		return failed(err), failed(err)
	}
	if dim == nil {
		if t.Numel() == 0 {
			e := failed(t.opError(name, ErrArgument, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."))
			return e, e
		}
		if keepDim {
			return t.AminKeepDim(), t.AmaxKeepDim()
		}
		return t.Amin(), t.Amax()
	}
	d, err := t.normDim(name, *dim)
	if err != nil {
		return failed(err), failed(err)
	}
	if t.Dim() > 0 && t.shape[d] == 0 {
		e := failed(t.opError(name, ErrIndex, "aminmax: Expected reduction dim %d to have non-zero size.", d))
		return e, e
	}
	if keepDim {
		return t.AminKeepDim(d), t.AmaxKeepDim(d)
	}
	return t.Amin(d), t.Amax(d)
}

// Median returns the median of all elements (torch.median without dim):
// the lower of the two middle values for an even count; NaN when t holds
// a NaN; NaN for an empty t (for integer dtypes, the value x86 gives for
// NaN: the smallest int32 or int64, 0 for narrower types, as PyTorch's CPU).
// The gradient is shared evenly among the elements equal to the median
// (the NaNs when it is NaN), as PyTorch's.
func (t *Tensor) Median() *Tensor { return t.medianAll("median", false) }

// Nanmedian is Median ignoring NaN (torch.nanmedian): the lower median of
// the non-NaN elements, NaN only when every element is NaN.
func (t *Tensor) Nanmedian() *Tensor { return t.medianAll("nanmedian", true) }

// MedianDim returns the lower medians along dim and their indices
// (torch.median(dim, keepdim)); a slice holding NaN has median NaN at the
// index of its first NaN. The index of a median that occurs several
// times is the one PyTorch's CPU returns (PyTorch documents it as
// unspecified): the index of the element that a stable sort puts at the
// median's position. The gradient goes to that index.
func (t *Tensor) MedianDim(dim int, keepDim bool) (values, indices *Tensor) {
	return t.selectAlongDim("median", dim, keepDim, 0, medianPos)
}

// NanmedianDim is MedianDim ignoring NaN (torch.nanmedian(dim, keepdim)):
// a slice of NaNs only has median NaN at index 0.
func (t *Tensor) NanmedianDim(dim int, keepDim bool) (values, indices *Tensor) {
	return t.selectAlongDim("nanmedian", dim, keepDim, 0, nanmedianPos)
}

// Kthvalue returns the k-th smallest values along dim (k counts from 1)
// and their indices (torch.kthvalue); NaN counts as larger than every
// number. The gradient goes to the index returned.
//
// Where the k-th value occurs several times, the index is the one
// PyTorch's CPU returns (its documentation leaves it unspecified, and CUDA
// differs): the kernel replays PyTorch 1.13's quickselect
// (quick_select_template, median-of-three pivot) on (value, index) pairs,
// on every device (the NPU sorts and picks where the k-th value is not
// tied, and runs the CPU kernel on host copies where it is).
func (t *Tensor) Kthvalue(k, dim int, keepDim bool) (values, indices *Tensor) {
	return t.selectOp(kernel.OpKthvalue, "kthvalue", dim, keepDim, k)
}

// Mode returns the most frequent value along dim and an index of it
// (torch.mode): among values equally frequent, the smallest (the first
// run of the sorted slice), with the index PyTorch's CPU kernel picks, on
// every device. That kernel sorts the slice's (value, index) pairs with
// std::sort comparing values with < and takes the last pair of the first
// longest run of equal values; the kernel here replays libstdc++'s
// std::sort step by step (the port behind SortStable(stable=false)), so
// that the index is PyTorch's for slices of any length: the last
// occurrence up to 16 elements (insertion sort), wherever introsort's
// partitions leave the run beyond. Each NaN is a run of its own (NaN !=
// NaN), and < cannot order NaN, so a NaN can keep equal numbers apart:
// [NaN, 3, NaN, 3, 1] has mode NaN at 0, as in PyTorch. The replay gives
// PyTorch's result with NaN too, except where, beyond 16 elements, NaN
// leads std::sort's unguarded insertion to read before the slice in
// PyTorch (undefined behaviour; MindTorch stops at the slice's start).
// The gradient goes to the index returned.
func (t *Tensor) Mode(dim int, keepDim bool) (values, indices *Tensor) {
	return t.selectOp(kernel.OpMode, "mode", dim, keepDim, 0)
}

// selectOp runs kthvalue and mode, ops with a kernel that picks one
// element of each slice along dim, and records the gradient of the
// values: each to the index it came from.
func (t *Tensor) selectOp(op kernel.OpID, name string, dim int, keepDim bool, k int) (*Tensor, *Tensor) {
	d, err := t.selectArgs(name, dim, k)
	if err != nil {
		return failed(err), failed(err)
	}
	values, idx := runOp2(op, func(c *kernel.Call) error {
		c.Dim, c.KeepDim = d, keepDim
		if op == kernel.OpKthvalue {
			c.Ints = c.NewInts(1)
			c.Ints[0] = k
		}
		return nil
	}, t)
	if err := inputErr(name, values, idx); err != nil {
		return failed(err), failed(err)
	}
	if recording(t) {
		gradName := map[string]string{"kthvalue": "KthvalueBackward0", "mode": "ModeBackward0"}[name]
		recordSelected(gradName, t, values, idx, d, keepDim)
	}
	return values, idx
}

// posFunc returns, for sorted values s (ascending, stable, NaN last) of
// x along d and the sorting permutation, the positions in sorted order of
// the element to pick, keeping d as size 1 (int64).
type posFunc func(x, s, order *Tensor, d, k int) *Tensor

// selectArgs checks the arguments of median, nanmedian, kthvalue and
// mode along dim (k for kthvalue) as PyTorch does, so that the errors name
// the op called, and returns dim normalized.
func (t *Tensor) selectArgs(name string, dim, k int) (int, error) {
	if err := inputErr(name, t); err != nil {
		return 0, err
	}
	d, err := t.normDim(name, dim)
	if err != nil {
		return 0, err
	}
	n := 1
	if t.Dim() > 0 {
		n = t.shape[d]
	}
	msgName := name
	if name == "nanmedian" {
		msgName = "median" // PyTorch's nanmedian reports as median
	}
	if n == 0 {
		return 0, t.opError(name, ErrIndex, "%s(): Expected reduction dim %d to have non-zero size.", msgName, d)
	}
	if t.dtype == Bool && name != "mode" {
		kernelName := map[string]string{"median": "median_out", "nanmedian": "median_out", "kthvalue": "kthvalue_cpu"}[name]
		return 0, t.opError(name, ErrDType, "\"%s\" not implemented for 'Bool'", kernelName)
	}
	if name == "kthvalue" && (k < 1 || k > n) {
		return 0, t.opError(name, ErrArgument, "kthvalue(): selected number k out of range for dimension %d", d)
	}
	return d, nil
}

// selectAlongDim runs median and nanmedian along dim: pos picks a
// position of the stably sorted slice, whose index in t is returned with
// t's value there. (PyTorch 1.13's median and nanmedian along a dim run
// std::nth_element with ties broken by index, which picks the element a
// stable sort puts there; kthvalue and mode, whose choice among ties is
// another, have kernels: selectOp.)
func (t *Tensor) selectAlongDim(name string, dim int, keepDim bool, k int, pos posFunc) (*Tensor, *Tensor) {
	d, err := t.selectArgs(name, dim, k)
	if err != nil {
		return failed(err), failed(err)
	}
	if t.Dim() == 0 {
		return t.Clone(), Zeros(nil, WithDType(Int64), OnDevice(t.Device()))
	}
	x := t.Detach() // the indices carry no gradient; values get theirs below
	s, order := x.Sort(d, false)
	idx := order.Gather(d, pos(x, s, order, d, k))
	values := x.Gather(d, idx)
	if !keepDim {
		values, idx = values.SqueezeDim(d), idx.SqueezeDim(d)
	}
	if err := inputErr(name, values, idx); err != nil {
		return failed(err), failed(err)
	}
	if recording(t) {
		gradName := map[string]string{"median": "MedianBackward1", "nanmedian": "NanmedianBackward1"}[name]
		recordSelected(gradName, t, values, idx, d, keepDim)
	}
	return values, idx
}

// keptShape is shape with dim d of size 1.
func keptShape(shape []int, d int) []int {
	out := append([]int(nil), shape...)
	out[d] = 1
	return out
}

// medianPos is the position of the lower median, (n-1)/2, or of the first
// NaN (sorted last, in their order) when the slice holds NaN: n - #NaN.
func medianPos(x, s, _ *Tensor, d, _ int) *Tensor {
	n := x.shape[d]
	if !x.dtype.IsFloatingPoint() {
		return Full(keptShape(x.shape, d), (n-1)/2, WithDType(Int64), OnDevice(x.Device()))
	}
	nans := x.IsNan().SumKeepDim(d)
	return nans.Neg().AddScalar(n).MaskedFill(nans.EqScalar(0), (n-1)/2)
}

// nanmedianPos is the position of the lower median of the m non-NaN
// elements, (m-1)/2. A slice of NaNs only gives the index where PyTorch's
// std::nth_element leaves its first element (see allNaNIndex); a stable
// sort leaves such a slice in place, so that position is that index.
func nanmedianPos(x, s, _ *Tensor, d, _ int) *Tensor {
	n := x.shape[d]
	if !x.dtype.IsFloatingPoint() {
		return Full(keptShape(x.shape, d), (n-1)/2, WithDType(Int64), OnDevice(x.Device()))
	}
	nans := x.IsNan().SumKeepDim(d)
	return nans.Neg().AddScalar(n-1).MaximumScalar(0).DivFloorScalar(2).MaskedFill(nans.EqScalar(n), allNaNIndex(n))
}

// allNaNIndex is the index PyTorch's CPU nanmedian returns for a slice of
// n NaNs: it runs std::nth_element for position 0 with a comparison under
// which all NaNs are equal, so the answer is wherever libstdc++'s
// introselect moves elements when no comparison holds, a function of n
// alone (0 up to n = 3, then 2, 2, 3, 5, 6, 7, 8, 8, ...). Each round on
// a range [0, l) with l > 3 swaps the first and middle elements (the
// median of three), then swaps the pairs (1+i, l-1-i) for i < k =
// (l-1)/2 (the partition, whose pointers meet in the middle), and keeps
// [0, k+1), which holds position 0. Position 0 is traced back through the
// rounds, in O(log n) steps; checked against PyTorch 1.13 for every n up
// to 3000.
func allNaNIndex(n int) int {
	var lens []int
	for l := n; l > 3; l = (l-1)/2 + 1 {
		lens = append(lens, l)
	}
	p := 0
	for i := len(lens) - 1; i >= 0; i-- {
		l := lens[i]
		if k := (l - 1) / 2; p >= 1 && p <= k {
			p = l - p // undo the partition's swap
		}
		switch mid := l / 2; p { // undo the median-of-three swap
		case 0:
			p = mid
		case mid:
			p = 0
		}
	}
	return p
}

// positionsAlong is 0, 1, ..., n-1 along dim d, broadcast to shape (int64).
func positionsAlong(shape []int, d int, dev Device) *Tensor {
	view := make([]int, len(shape))
	for i := range view {
		view[i] = 1
	}
	view[d] = shape[d]
	return Arange(shape[d], WithDType(Int64), OnDevice(dev)).Reshape(view...).Expand(shape...)
}

// medianAll is Median and Nanmedian over all elements.
func (t *Tensor) medianAll(name string, ignoreNaN bool) *Tensor {
	if err := inputErr(name, t); err != nil {
		return failed(err)
	}
	if t.dtype == Bool {
		return failed(t.opError(name, ErrDType, "\"median_cpu\" not implemented for 'Bool'"))
	}
	var y *Tensor
	if t.Numel() == 0 {
		y = Full([]int{}, emptyMedian(t.dtype), WithDType(t.dtype), OnDevice(t.Device()))
	} else {
		flat := t.Detach().Reshape(-1)
		if ignoreNaN {
			y, _ = flat.NanmedianDim(0, false)
		} else {
			y, _ = flat.MedianDim(0, false)
		}
	}
	if err := inputErr(name, y); err != nil {
		return failed(err)
	}
	if recording(t) {
		gradName := "MedianBackward0"
		if ignoreNaN {
			gradName = "NanmedianBackward0"
		}
		sx, sy := save(t), saveOutput(y)
		y.setGradFn(gradName, []*Tensor{t}, func(g *Tensor, _ []bool, create bool) []*Tensor {
			return []*Tensor{fitGrad(evenlyToEqual(g, sx.get(create, gradName), sy.get(create, gradName)), t)}
		})
	}
	return y
}

// emptyMedian is the median of no elements: NaN, converted to an integer
// dtype as x86 converts it (PyTorch's CPU casts its NaN).
func emptyMedian(d DType) any {
	switch d {
	case Int64:
		return int64(math.MinInt64)
	case Int32:
		return int64(math.MinInt32)
	case Int16, Int8, Uint8:
		return 0
	}
	return math.NaN()
}

// evenlyToEqual shares the gradient g of an all-element result y equally
// among the elements of x equal to it (the NaNs when y is NaN), PyTorch's
// evenly_distribute_backward.
func evenlyToEqual(g, x, y *Tensor) *Tensor {
	mask := x.Eq(y).LogicalOr(x.IsNan().LogicalAnd(y.IsNan()))
	return evenlyToTies(g, mask, nil)
}

// recordSelected records values taken from t at indices along d (d kept
// as size 1 unless keepDim): each value's gradient is added at its index,
// PyTorch's value_selecting_reduction_backward and cummax's backward.
func recordSelected(name string, t, values, indices *Tensor, d int, keepDim bool) {
	values.setGradFn(name, []*Tensor{t}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
		idx := indices
		if !keepDim {
			g, idx = g.Unsqueeze(d), idx.Unsqueeze(d)
		}
		z := Zeros(t.shape, WithDType(g.dtype), OnDevice(g.Device()))
		return []*Tensor{fitGrad(z.ScatterAdd(d, idx, g), t)}
	})
}

// Cummax returns the running maximum along dim and the index of each
// (torch.cummax). Among equal values the latest index wins (PyTorch
// compares with >=); a NaN wins over everything before it and stays
// until the next NaN, whose index then wins. A 0-dim t gives (t, 0) and
// an empty one empty results whatever dim is, as PyTorch (which checks
// dim only for non-empty tensors of at least one dim). The gradient of
// each value is added at its index.
func (t *Tensor) Cummax(dim int) (values, indices *Tensor) { return t.cumExtreme("cummax", dim, true) }

// Cummin is Cummax with the running minimum (<=; NaN as in Cummax).
func (t *Tensor) Cummin(dim int) (values, indices *Tensor) { return t.cumExtreme("cummin", dim, false) }

func (t *Tensor) cumExtreme(name string, dim int, isMax bool) (*Tensor, *Tensor) {
	if err := inputErr(name, t); err != nil {
		return failed(err), failed(err)
	}
	if t.Dim() == 0 {
		return t.Clone(), Zeros(nil, WithDType(Int64), OnDevice(t.Device()))
	}
	if t.Numel() == 0 {
		return t.Clone(), Zeros(t.shape, WithDType(Int64), OnDevice(t.Device()))
	}
	d, err := t.normDim(name, dim)
	if err != nil {
		return failed(err), failed(err)
	}
	values, indices := cumExtremeScan(t.Detach(), d, isMax)
	if err := inputErr(name, values, indices); err != nil {
		return failed(err), failed(err)
	}
	if recording(t) {
		gradName := "CummaxBackward0"
		if !isMax {
			gradName = "CumminBackward0"
		}
		recordSelected(gradName, t, values, indices, d, true)
	}
	return values, indices
}

// cumExtremeScan computes the running maximum (or minimum) of v along d
// and its indices by a log-step (Hillis-Steele) scan: at step s every
// element combines with the one s before it, which already holds the
// extreme of the s elements before that. Combining an earlier a with a
// later b keeps b when b is NaN, or when a is not NaN and b >= a (b <= a
// for the minimum): PyTorch's sequential rule, which is associative since
// it is the maximum of a total order (NaN above numbers, then later
// indices above earlier ones among equals and among NaNs).
func cumExtremeScan(v *Tensor, d int, isMax bool) (*Tensor, *Tensor) {
	if v.err != nil { // an op before failed: pass its error on
		return v, v
	}
	n := v.shape[d]
	idx := positionsAlong(v.shape, d, v.Device())
	floating := v.dtype.IsFloatingPoint()
	for s := 1; s < n; s *= 2 {
		av, bv := v.Narrow(d, 0, n-s), v.Narrow(d, s, n-s)
		ai, bi := idx.Narrow(d, 0, n-s), idx.Narrow(d, s, n-s)
		var take *Tensor
		if isMax {
			take = bv.Ge(av)
		} else {
			take = bv.Le(av)
		}
		if floating {
			take = bv.IsNan().LogicalOr(av.IsNan().LogicalNot().LogicalAnd(take))
		}
		v = Cat([]*Tensor{v.Narrow(d, 0, s), Where(take, bv, av)}, d)
		idx = Cat([]*Tensor{idx.Narrow(d, 0, s), Where(take, bi, ai)}, d)
	}
	return v, idx.Contiguous()
}

// Logcumsumexp returns log(cumsum(exp(t))) along dim (torch.logcumsumexp),
// accurate however far the earlier elements lie below the later ones
// ([-1000, 0] gives [-1000, 0]): a log-step scan of pairwise
// log-add-exps, each max(a, b) + log1p(exp(-|a-b|)), rather than one
// shift by a global maximum, whose exp would underflow. t must be
// floating; float16 and bfloat16 compute in float32 (PyTorch 1.13 lacks
// the float16 CPU kernel; 2.x has it). A 0-dim t gives a copy.
func (t *Tensor) Logcumsumexp(dim int) *Tensor {
	const name = "logcumsumexp"
	if err := inputErr(name, t); err != nil {
		return failed(err)
	}
	if !t.dtype.IsFloatingPoint() {
		return failed(t.opError(name, ErrDType, "\"logcumsumexp_out_cpu\" not implemented for '%s'", dtypeTitle(t.dtype)))
	}
	d, err := t.normDim(name, dim)
	if err != nil {
		return failed(err)
	}
	// + 0: PyTorch adds each element to -inf by log-add-exp, which turns
	// -0 into +0.
	if t.Dim() == 0 {
		return t.AddScalar(0)
	}
	x := t
	if t.dtype == Float16 || t.dtype == BFloat16 {
		if x = t.ToDType(Float32); x.err != nil {
			return x
		}
	}
	if x = x.AddScalar(0); x.err != nil {
		return x
	}
	n := x.shape[d]
	for s := 1; s < n; s *= 2 {
		x = Cat([]*Tensor{x.Narrow(d, 0, s), logAddExp(x.Narrow(d, 0, n-s), x.Narrow(d, s, n-s))}, d)
	}
	return x.ToDType(t.dtype)
}

// logAddExp is log(exp(a) + exp(b)) = m + log1p(exp(-|a-b|)) with m =
// max(a, b), NaN when either is. Where m is infinite (both -inf, or a
// +inf) the difference is taken as 0, so that -inf - -inf gives no NaN,
// in the value or in the gradient.
func logAddExp(a, b *Tensor) *Tensor {
	m := a.Maximum(b)
	diff := a.Sub(b).MaskedFill(m.IsInf(), 0)
	return m.Add(diff.Abs().Neg().Exp().Log1p())
}

// CumsumDType is Cumsum with the input cast to d first and the sums in d
// (torch.cumsum(dtype=d)); d may not be bool ("cumsum_out_cpu" not
// implemented for 'Bool').
func (t *Tensor) CumsumDType(d DType, dim int) *Tensor {
	return t.alongDimDType(kernel.OpCumsum, d, dim)
}

// CumprodDType is Cumprod with the input cast to d first and the products
// in d (torch.cumprod(dtype=d)); d may not be bool.
func (t *Tensor) CumprodDType(d DType, dim int) *Tensor {
	return t.alongDimDType(kernel.OpCumprod, d, dim)
}

// SoftmaxDType is Softmax with the input cast to the floating dtype d
// first (torch.softmax(dtype=d)), e.g. float16 data computed and returned
// in float32, or an integer tensor's softmax.
func (t *Tensor) SoftmaxDType(d DType, dim int) *Tensor {
	return t.alongDimDType(kernel.OpSoftmax, d, dim)
}

// LogSoftmaxDType is LogSoftmax with the input cast to the floating dtype
// d first (torch.log_softmax(dtype=d)).
func (t *Tensor) LogSoftmaxDType(d DType, dim int) *Tensor {
	return t.alongDimDType(kernel.OpLogSoftmax, d, dim)
}

// ProdDType is Prod with the input cast to d first and the product in d
// (torch.prod(dtype=d)); bool gives whether every element is non-zero.
func (t *Tensor) ProdDType(d DType, keepDim bool, dims ...int) *Tensor {
	return t.reduceAs(kernel.OpProd, d, keepDim, dims)
}

// reduceAs runs the reduction op with dtype d: the input cast to d first
// (which the kernels then need not do) and d as the result dtype. The
// checks come first so that they name op, not the cast.
func (t *Tensor) reduceAs(op kernel.OpID, d DType, keepDim bool, dims []int) *Tensor {
	name := op.String()
	if err := inputErr(name, t); err != nil {
		return failed(err)
	}
	if !d.Valid() {
		return failed(t.opError(name, ErrDType, "invalid dtype %d", d))
	}
	if err := t.checkDims(name, dims); err != nil {
		return failed(err)
	}
	if op == kernel.OpMean && !d.IsFloatingPoint() {
		// Refused by the meta function too; before the cast, which would
		// otherwise run for nothing.
		return reduction{op: op, dims: dims, keepDim: keepDim, dtype: d, hasDType: true}.run(t)
	}
	return reduction{op: op, dims: dims, keepDim: keepDim, dtype: d, hasDType: true}.run(t.ToDType(d))
}

// alongDimDType casts t to d (PyTorch: "the input tensor is casted to
// dtype before the operation is performed", so a device needs no kernel
// that converts) and runs op with d as its result dtype.
func (t *Tensor) alongDimDType(op kernel.OpID, d DType, dim int) *Tensor {
	name := op.String()
	if err := inputErr(name, t); err != nil {
		return failed(err)
	}
	if !d.Valid() {
		return failed(t.opError(name, ErrDType, "invalid dtype %d", d))
	}
	if d == Bool && (op == kernel.OpCumsum || op == kernel.OpCumprod) {
		return failed(t.opError(name, ErrDType, "\"%s_out_cpu\" not implemented for 'Bool'", name))
	}
	if _, err := t.normDim(name, dim); err != nil {
		return failed(err)
	}
	return t.ToDType(d).alongDimAs(op, dim, d, true)
}

// normDim normalizes one dim of t, failing with PyTorch's message under
// the name of op.
func (t *Tensor) normDim(op string, dim int) (int, error) {
	d, err := kernel.NormalizeDim(dim, t.Dim())
	if err != nil {
		return 0, t.opError(op, ErrIndex, "%s", kernel.AsOpError(err).Detail)
	}
	return d, nil
}

// checkDims checks the dims of a reduction of t (range, repeats).
func (t *Tensor) checkDims(op string, dims []int) error {
	if len(dims) == 0 {
		return nil
	}
	if _, err := kernel.NormalizeDims(dims, t.Dim()); err != nil {
		e := kernel.AsOpError(err)
		return t.opError(op, e.Kind, "%s", e.Detail)
	}
	return nil
}

// dtypeTitle is a dtype as PyTorch's C++ messages name it ("Long", "Float").
func dtypeTitle(d DType) string {
	names := map[DType]string{Bool: "Bool", Uint8: "Byte", Int8: "Char", Int16: "Short", Int32: "Int", Int64: "Long",
		Float16: "Half", BFloat16: "BFloat16", Float32: "Float", Float64: "Double"}
	return names[d]
}
