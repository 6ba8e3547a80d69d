package torch

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// Decompositions of hypot, the shifts, kthvalue, mode, scatter_reduce and
// unique, for devices without their kernels (the NPU): each computes with
// pointwise ops, sort, gather, scatter, scatter_add, cumsum, reductions and
// masked_select, and gives the CPU kernel's results, bit for bit except
// hypot of float64 (within 2 ulp). Where the CPU kernel's choice among
// equal values is an algorithm's that tensor ops cannot replay (kthvalue's
// quickselect, mode's std::sort beyond 16 elements or with NaN), the
// decomposition declines and the op runs on the host.
//
// ACLNN has native ops for some of these, which the shim does not bind:
// aclnnLeftShift, aclnnLeftShifts and aclnnRightShift (hicann/ops-math
// math/left_shift, math/right_shift), aclnnScatterReduce (what op-plugin's
// scatter_reduce calls), aclnnUnique2 (hicann/ops-nn
// index/scatter_elements/docs/aclnnUnique2.md) and aclnnKthvalue, which is
// a stable sort and a gather, so that its index among equal values is not
// the CPU's. aclnnHypot and aclnnMode appear only in third-party code.

func init() {
	dispatch.RegisterDecomposition(kernel.OpHypot, decomposeHypot)
	dispatch.RegisterDecomposition(kernel.OpBitwiseLeftShift, func(c *kernel.Call) error { return decomposeShift(c, true) })
	dispatch.RegisterDecomposition(kernel.OpBitwiseRightShift, func(c *kernel.Call) error { return decomposeShift(c, false) })
	dispatch.RegisterDecomposition(kernel.OpKthvalue, decomposeKthvalue)
	dispatch.RegisterDecomposition(kernel.OpMode, decomposeMode)
	dispatch.RegisterDecomposition(kernel.OpScatterReduce, decomposeScatterReduce)
	dispatch.RegisterDecomposition(kernel.OpUnique, decomposeUnique)
}

// inputOn is input i of c as a tensor on c's device (a 0-dim CPU operand
// is copied there).
func inputOn(c *kernel.Call, i int) (*Tensor, error) {
	return operandTensor(&c.In[i]).ToDevice(c.Device)
}

// constant is the 0-dim tensor v of dtype d on dev.
func constant(v any, d DType, dev Device) *Tensor { return Scalar(v, WithDType(d), OnDevice(dev)) }

// sizedAlong is shape with size n at dim d.
func sizedAlong(shape []int, d, n int) []int {
	s := append([]int(nil), shape...)
	s[d] = n
	return s
}

// arangeAlong is 0, 1, ..., n-1 (int64) along dim d of a tensor of nd dims
// (size 1 elsewhere), by a cumsum of ones on dev.
func arangeAlong(n, d, nd int, dev Device) *Tensor {
	shape := make([]int, nd)
	for i := range shape {
		shape[i] = 1
	}
	shape[d] = n
	return Ones([]int{n}, WithDType(Int64), OnDevice(dev)).Cumsum(0).AddScalar(-1).Reshape(shape...)
}

// ---- hypot ----

// decomposeHypot is hypot. For float32, float16 and bfloat16 it is glibc's
// hypotf, which the CPU kernel calls: sqrt(x² + y²) in double, rounded to
// float (then to the output's dtype); the squares of floats neither
// overflow nor underflow in double. For float64 it scales by the larger
// magnitude, m sqrt(1 + (s/m)²), 0 where both are 0, within 2 ulp of
// glibc's hypot. An infinite operand gives +inf, even with a NaN.
func decomposeHypot(c *kernel.Call) error {
	cd := c.ComputeDType
	if !cd.IsFloatingPoint() {
		return kernel.Errorf(kernel.ErrNotImplemented, "hypot of %s has no decomposition", kernel.PyName(cd))
	}
	a, b, err := pointwiseInputs(c, opMath(cd))
	if err != nil {
		return err
	}
	a, b = a.ToDType(Float64), b.ToDType(Float64)
	var r *Tensor
	if cd == Float64 {
		x, y := a.Abs(), b.Abs()
		m, s := x.Maximum(y), x.Minimum(y)
		q := s.Div(m)
		r = Where(m.EqScalar(0), m, m.Mul(q.Mul(q).AddScalar(1.0).Sqrt()))
	} else {
		r = a.Mul(a).Add(b.Mul(b)).Sqrt().ToDType(Float32)
	}
	inf := a.Abs().EqScalar(math.Inf(1)).LogicalOr(b.Abs().EqScalar(math.Inf(1)))
	return writeOutput(c, 0, Where(inf, constant(math.Inf(1), r.dtype, c.Device), r))
}

// pointwiseInputs are a binary pointwise call's operands on its device in
// dtype d (the dtype the CPU's loop computes in): the second is the Go
// scalar of the scalar form, converted as that loop converts it.
func pointwiseInputs(c *kernel.Call, d DType) (a, b *Tensor, err error) {
	if a, err = inputOn(c, 0); err != nil {
		return nil, nil, err
	}
	a = a.ToDType(d)
	if len(c.In) > 1 {
		if b, err = inputOn(c, 1); err != nil {
			return nil, nil, err
		}
		return a, b.ToDType(d), nil
	}
	s := c.Scalars[0]
	if d.IsFloatingPoint() {
		return a, constant(s.Float(), d, c.Device), nil
	}
	return a, constant(wrapInt(s.Bits(d), d), d, c.Device), nil
}

// ---- shifts ----

// decomposeShift is bitwise_left_shift (left) or bitwise_right_shift as
// the CPU kernel computes them (cgo/cpukernels/pointwise.c SHL, SHR): a
// left shift by a count outside [0, width) gives 0, a right shift by one
// outside [0, width - 1] for signed types ([0, width] for uint8) shifts by
// that bound, leaving the sign. The count's bits drive a barrel shifter:
// for each bit 2^j set in the count, left, a multiplication by 2^(2^j),
// which wraps in the dtype as the shift does; right, a multiplication of
// the value in float64 by 2^-(2^j), then floor, exact for values of up to
// 32 bits, and for int64 applied to its two 32-bit halves. A Go scalar
// count is taken in the dtype as the CPU's loop takes it (its low bits).
func decomposeShift(c *kernel.Call, left bool) error {
	d := c.ComputeDType
	if d.IsFloatingPoint() || d == Bool {
		return kernel.Errorf(kernel.ErrNotImplemented, "shifts of %s have no decomposition", kernel.PyName(d))
	}
	x, y, err := pointwiseInputs(c, d)
	if err != nil {
		return err
	}
	width := 8 * d.ItemSize()
	if left {
		r := barrel(x, y, width-1, func(r *Tensor, s int) *Tensor { return r.MulScalar(int64(1) << s) })
		valid := y.GeScalar(0).LogicalAnd(y.LtScalar(width))
		return writeOutput(c, 0, Where(valid, r, constant(0, d, c.Device)))
	}
	bound := width
	if d.IsSigned() {
		bound--
	}
	n := Where(y.LtScalar(0).LogicalOr(y.GeScalar(bound)), constant(bound, d, c.Device), y)
	if d == Int64 {
		return writeOutput(c, 0, shiftRight64(x, n))
	}
	return writeOutput(c, 0, shiftDown(x.ToDType(Float64), n, bound).Floor().ToDType(d))
}

// wrapInt is the integer of dtype d whose bits are the low bits of b.
func wrapInt(b uint64, d DType) int64 {
	switch d {
	case Uint8:
		return int64(uint8(b))
	case Int8:
		return int64(int8(b))
	case Int16:
		return int64(int16(b))
	case Int32:
		return int64(int32(b))
	}
	return int64(b)
}

// barrel applies step(r, s) where bit s of n (s = 1, 2, 4, ... up to
// most) is set, elementwise (r and n broadcast).
func barrel(r, n *Tensor, most int, step func(r *Tensor, s int) *Tensor) *Tensor {
	for s := 1; s <= most; s <<= 1 {
		bit := n.BitwiseAnd(constant(s, n.dtype, n.Device())).NeScalar(0)
		r = Where(bit, step(r, s), r)
	}
	return r
}

// shiftDown is the float64 values v times 2^-n (n in [0, most]), exact.
func shiftDown(v, n *Tensor, most int) *Tensor {
	return barrel(v, n, most, func(r *Tensor, s int) *Tensor { return r.MulScalar(math.Ldexp(1, -s)) })
}

// shiftRight64 is the int64 x >> n, n in [0, 63]: with x = h 2^32 + lo
// (lo in [0, 2^32), both exact in float64), h >> (n - 32) for n >= 32,
// else h 2^(32-n) + lo >> n.
func shiftRight64(x, n *Tensor) *Tensor {
	dev := x.Device()
	lo := x.BitwiseAnd(constant(int64(math.MaxUint32), Int64, dev))
	h := x.Sub(lo).ToDType(Float64).MulScalar(math.Ldexp(1, -32))
	low := n.LtScalar(32)
	high := shiftDown(h, Where(low, constant(0, Int64, dev), n.AddScalar(-32)), 31).Floor().ToDType(Int64)
	up := Where(low, n.Neg().AddScalar(32), constant(0, Int64, dev)) // 32 - n, in [1, 32]
	hUp := barrel(h, up, 32, func(r *Tensor, s int) *Tensor { return r.MulScalar(math.Ldexp(1, s)) })
	loDown := shiftDown(lo.ToDType(Float64), Where(low, n, constant(0, Int64, dev)), 31).Floor()
	return Where(low, hUp.ToDType(Int64).Add(loDown.ToDType(Int64)), high)
}

// ---- kthvalue and mode ----

// sortAlong sorts x along d stably (NaN last ascending, first descending),
// returning the values and the int64 order. float64, which the NPU's
// sort does not take, is sorted by int64 keys of the same order: the bits
// with the magnitude bits of negative values flipped, after -0 is made +0
// and every NaN one positive NaN (so that equal values stay equal).
func sortAlong(x *Tensor, d int, descending bool) (values, order *Tensor) {
	if x.dtype != Float64 {
		return x.SortStable(d, descending, true)
	}
	dev := x.Device()
	clean := Where(x.Ne(x), constant(math.NaN(), Float64, dev), x.AddScalar(0.0))
	if clean.err != nil {
		return clean, clean
	}
	bits := newTensor(clean.storage, Int64, clean.shape, clean.strides, clean.offset)
	key := Where(bits.LtScalar(0), bits.BitwiseXor(constant(int64(math.MaxInt64), Int64, dev)), bits)
	_, order = key.SortStable(d, descending, true)
	return x.Gather(d, order), order
}

// selectInput is the input of kthvalue or mode on the call's device, 1-D
// when it is 0-dim, and whether there is anything to select (no output
// elements: nothing to write).
func selectInput(c *kernel.Call) (*Tensor, bool, error) {
	x, err := inputOn(c, 0)
	if err != nil {
		return nil, false, err
	}
	if x.Dim() == 0 {
		x = x.Reshape(1)
	}
	return x, x.Numel() > 0, nil
}

// writeSelected writes the picked values and indices (size 1 along the
// dim) into kthvalue's or mode's outputs.
func writeSelected(c *kernel.Call, v, i *Tensor) error {
	return writeOutputs(c, v.Reshape(c.Out[0].Shape...), i.Reshape(c.Out[1].Shape...))
}

// runStarts is true where a run of equal values of s along d begins (each
// NaN a run of its own, NaN != NaN); s has at least one element along d.
func runStarts(s *Tensor, d int) *Tensor {
	n := s.shape[d]
	first := Ones(sizedAlong(s.shape, d, 1), WithDType(Bool), OnDevice(s.Device()))
	if n < 2 {
		return first
	}
	return Cat([]*Tensor{first, s.Narrow(d, 1, n-1).Ne(s.Narrow(d, 0, n-1))}, d)
}

// anyOf reads whether any element of the masks (nil ones left out) is true.
func anyOf(masks ...*Tensor) (bool, error) {
	for _, m := range masks {
		if m == nil {
			continue
		}
		if b, err := m.Any().ItemBool(); err != nil || b {
			return b, err
		}
	}
	return false, nil
}

// sameValue is a == b, NaN counting as equal to NaN.
func sameValue(a, b *Tensor) *Tensor { return a.Eq(b).LogicalOr(a.Ne(a).LogicalAnd(b.Ne(b))) }

// decomposeKthvalue is kthvalue by a stable sort along the dim: the value
// at position k-1 and its index. The CPU kernel's quickselect decides
// which of several equal values it returns; where the k-th value has an
// equal neighbour in the sorted slice (NaN equal to NaN), the
// decomposition declines.
func decomposeKthvalue(c *kernel.Call) error {
	x, some, err := selectInput(c)
	if err != nil || !some {
		return err
	}
	d, k := c.Dim, c.Ints[0]
	n := x.shape[d]
	s, order := sortAlong(x, d, false)
	at := s.Narrow(d, k-1, 1)
	var prev, next *Tensor
	if k > 1 {
		prev = sameValue(at, s.Narrow(d, k-2, 1))
	}
	if k < n {
		next = sameValue(at, s.Narrow(d, k, 1))
	}
	if tie, err := anyOf(prev, next); err != nil || tie {
		if err != nil {
			return err
		}
		return kernel.Errorf(kernel.ErrNotImplemented, "kthvalue of a repeated value picks its index by quickselect")
	}
	return writeSelected(c, at, order.Narrow(d, k-1, 1))
}

// decomposeMode is mode by a stable sort along the dim: runs of equal
// values are numbered (a cumsum of where the value changes), counted (a
// scatter_add), and the first longest run wins, at its last element, the
// one with the largest index. That is the CPU kernel's pick wherever
// std::sort, which it replays, keeps equal values in index order: slices
// of up to 16 elements (insertion sort), or where no value repeats. A
// slice of more elements with a repeated value, or a NaN anywhere (which
// < cannot order), declines.
func decomposeMode(c *kernel.Call) error {
	x, some, err := selectInput(c)
	if err != nil || !some {
		return err
	}
	d, dev := c.Dim, c.Device
	n := x.shape[d]
	s, order := sortAlong(x, d, false)
	run := runStarts(s, d).ToDType(Int64).Cumsum(d).AddScalar(-1)
	counts := ZerosLike(run).ScatterAdd(d, run, OnesLike(run))
	longest := counts.AmaxKeepDim(d)
	var nans, repeated *Tensor
	if x.dtype.IsFloatingPoint() {
		nans = s.Ne(s)
	}
	if n > 16 {
		repeated = longest.GtScalar(1)
	}
	if bad, err := anyOf(nans, repeated); err != nil || bad {
		if err != nil {
			return err
		}
		return kernel.Errorf(kernel.ErrNotImplemented, "mode of this slice picks its index by std::sort")
	}
	ids := arangeAlong(n, d, x.Dim(), dev)
	winner := Where(counts.Eq(longest), ids, constant(n, Int64, dev)).AminKeepDim(d)
	end := run.Le(winner).SumKeepDim(d).AddScalar(-1)
	return writeSelected(c, s.Gather(d, end), order.Gather(d, end))
}

// ---- scatter_reduce ----

// decomposeScatterReduce is scatter_reduce as the CPU kernel computes it
// (cgo/cpukernels/index.c): for each position of self, the values of src
// that the index sends there combine in the index's order along the dim,
// after self's value (include_self) or starting from the first of them.
// sum, prod and mean use scatter_add and scatter with multiply, which
// combine in that order in the dtype's arithmetic, from PyTorch's start
// where self is excluded (0 for the sum, so 0 + -0.0 is +0.0; 1 for the
// product); mean then divides the positions hit more than
// once (counting self) by their count, in the compute dtype, or by floor
// division for integers. amax and amin take the first extreme value of
// each position, by two stable sorts (values, then index), NaN winning.
// bool declines.
func decomposeScatterReduce(c *kernel.Call) error {
	var ops [3]*Tensor
	for i := range ops {
		t, err := inputOn(c, i)
		if err != nil {
			return err
		}
		if t.Dim() == 0 {
			t = t.Reshape(1)
		}
		ops[i] = t
	}
	self, index, src := ops[0], ops[1], ops[2]
	d, mode, include := c.Dim, c.Mode, c.KeepDim
	if self.dtype == Bool {
		return kernel.Errorf(kernel.ErrNotImplemented, "scatter_reduce of bool has no decomposition")
	}
	if index.Numel() == 0 {
		return writeOutput(c, 0, self.Clone().Reshape(c.Out[0].Shape...))
	}
	if err := checkIndexRange(index, d, self.shape[d]); err != nil {
		return err
	}
	var r *Tensor
	switch mode {
	case kernel.ReduceSum, kernel.ReduceMean:
		base := self
		if !include {
			base = self.ScatterValue(d, index, 0)
		}
		r = base.ScatterAdd(d, index, src)
		if mode == kernel.ReduceMean {
			r = scatterMean(r, self, index, d, include)
		}
	case kernel.ReduceProd:
		base := self
		if !include {
			base = self.ScatterValue(d, index, 1)
		}
		r = runOp(kernel.OpScatter, func(c *kernel.Call) error {
			c.Mode, c.Dim = kernel.ReduceProd, d
			return nil
		}, base, index, src)
	case kernel.ReduceAmax, kernel.ReduceAmin:
		r = scatterExtreme(self, index, src, d, include, mode == kernel.ReduceAmax)
	default:
		return kernel.Errorf(kernel.ErrNotImplemented, "scatter_reduce with reduction %d has no decomposition", mode)
	}
	return writeOutput(c, 0, r.Reshape(c.Out[0].Shape...))
}

// scatterMean divides the sums r by the count of values each position
// received (plus one with include), where that count is above 1: in the
// compute dtype for floats (float32 for float16 and bfloat16, rounded once
// to the dtype, as the CPU's division in double then float), by exact
// floor division for integers.
func scatterMean(r, self, index *Tensor, d int, include bool) *Tensor {
	count := ZerosLike(self, WithDType(Int64))
	if include {
		count = OnesLike(self, WithDType(Int64))
	}
	count = count.ScatterAdd(d, index, OnesLike(index, WithDType(Int64)))
	several := count.GtScalar(1)
	if cd := opMath(r.dtype); r.dtype.IsFloatingPoint() {
		v := r.ToDType(cd)
		return Where(several, v.Div(count.ToDType(cd)), v)
	}
	v := r.ToDType(Int64)
	two := constant(2, Int64, r.Device())
	return Where(several, floorDivide64(v, Where(several, count, two)), v)
}

// floorDivide64 is floor(v / n) for int64 v and n >= 2, exactly: a
// quotient estimated in float64, then corrected by the floor of the
// remainder's quotient, which is small enough to be exact in float64.
func floorDivide64(v, n *Tensor) *Tensor {
	fn := n.ToDType(Float64)
	q := v.ToDType(Float64).Div(fn).Floor().ToDType(Int64)
	rem := v.Sub(q.Mul(n))
	return q.Add(rem.ToDType(Float64).Div(fn).Floor().ToDType(Int64))
}

// scatterExtreme is scatter_reduce's amax (max) or amin: src's values
// (those the index covers) sorted stably by value (descending for amax),
// then by index, so that each target's values form a run whose first is
// its extreme, the earliest of equal ones (which decides -0.0 against
// 0.0, as the CPU's `v > d`); the runs' first elements are scattered to
// their targets (the others to a spare slot past the end), NaN put where a
// target received one, and combined with self where it is included (a
// NaN or a strictly better value replaces it).
func scatterExtreme(self, index, src *Tensor, d int, include, max bool) *Tensor {
	dev, n := self.Device(), self.shape[d]
	v := src
	for i, size := range index.shape {
		if v.shape[i] != size {
			v = v.Narrow(i, 0, size)
		}
	}
	byValue, order := sortAlong(v, d, max)
	sorted, order2 := index.Gather(d, order).SortStable(d, false, true)
	values := byValue.Gather(d, order2)
	first := runStarts(sorted, d)
	target := Where(first, sorted, constant(n, Int64, dev))
	wide := sizedAlong(self.shape, d, n+1)
	best := Zeros(wide, WithDType(self.dtype), OnDevice(dev)).Scatter(d, target, values).Narrow(d, 0, n)
	hit := Zeros(wide, WithDType(Bool), OnDevice(dev)).Scatter(d, target, first).Narrow(d, 0, n)
	float := self.dtype.IsFloatingPoint()
	if float {
		nans := ZerosLike(self, WithDType(Int64)).ScatterAdd(d, index, v.Ne(v).ToDType(Int64))
		best = Where(nans.GtScalar(0), constant(math.NaN(), self.dtype, dev), best)
	}
	if include {
		better := best.Lt(self)
		if max {
			better = best.Gt(self)
		}
		if float {
			better = better.LogicalOr(best.Ne(best))
		}
		hit = hit.LogicalAnd(better)
	}
	return Where(hit, best, self)
}

// ---- unique ----

// decomposeUnique is unique (sorted, with inverse and counts) of the
// flattened input: a stable sort, runs of equal values numbered by a
// cumsum of where the value changes (NaN != NaN, so each NaN is its own),
// each run's first value kept by masked_select (of -0.0 and 0.0, the one
// that comes first), the inverse scattered back through the sort's order
// and the counts by scatter_add. The outputs, whose sizes depend on the
// values, are allocated here (the call is Dynamic).
func decomposeUnique(c *kernel.Call) error {
	x, err := inputOn(c, 0)
	if err != nil {
		return err
	}
	dev, n := c.Device, x.Numel()
	flat := x.Reshape(n)
	var values, inverse, counts *Tensor
	if n == 0 {
		values, inverse, counts = flat, Zeros(x.shape, WithDType(Int64), OnDevice(dev)), Zeros([]int{0}, WithDType(Int64), OnDevice(dev))
	} else {
		s, order := sortAlong(flat, 0, false)
		starts := runStarts(s, 0)
		run := starts.ToDType(Int64).Cumsum(0).AddScalar(-1)
		u, err := starts.Sum().ItemInt()
		if err != nil {
			return err
		}
		values = s.MaskedSelect(starts)
		inverse = ZerosLike(run).Scatter(0, order, run).Reshape(x.shape...)
		counts = Zeros([]int{int(u)}, WithDType(Int64), OnDevice(dev)).ScatterAdd(0, run, OnesLike(run))
	}
	if err := firstErr(values, inverse, counts); err != nil {
		return err
	}
	for i, r := range []*Tensor{values, inverse, counts} {
		if err := bindDynamic(c, i, r); err != nil {
			for j := range i {
				c.Out[j].Mem.Release()
				c.Out[j].Mem = nil
			}
			return err
		}
	}
	return nil
}

// firstErr is the first error of ts.
func firstErr(ts ...*Tensor) error {
	for _, t := range ts {
		if t.err != nil {
			return t.err
		}
	}
	return nil
}

// bindDynamic binds output i of the Dynamic call c to new contiguous memory
// of r's shape on c's device and copies r into it.
func bindDynamic(c *kernel.Call, i int, r *Tensor) error {
	o := &c.Out[i]
	m, err := kernel.Allocate(c.Device, r.Numel()*o.DType.ItemSize())
	if err != nil {
		return err
	}
	o.Shape = append(c.NewInts(r.Dim())[:0], r.shape...)
	o.Strides = kernel.ContiguousStrides(o.Shape, c.NewInts(r.Dim()))
	o.Offset = 0
	o.Bind(m)
	if err := operandTensor(o).Copy_(r).err; err != nil {
		m.Release()
		o.Mem = nil
		return err
	}
	return nil
}
