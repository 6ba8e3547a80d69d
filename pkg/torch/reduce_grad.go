package torch

import (
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// The derivatives of the reductions and of the ops along one dim.

// reducedDims normalizes the dims of a reduction of t (none: every dim).
func reducedDims(t *Tensor, dims []int, out []int) []int {
	if len(dims) == 0 {
		for i := range t.Dim() {
			out = append(out, i)
		}
		return out
	}
	for _, d := range dims {
		if n, err := kernel.NormalizeDim(d, max(t.Dim(), 1)); err == nil && t.Dim() > 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// expandBack brings a reduction's output (or its gradient) back to the
// input's shape: the reduced dims are put back as size 1 (unless kept) and
// expanded.
func expandBack(g, t *Tensor, dims []int, keepDim bool) *Tensor {
	return expandTo(g, t.shape, dims, keepDim)
}

// expandTo is expandBack to an input of the given shape.
func expandTo(g *Tensor, shape, dims []int, keepDim bool) *Tensor {
	if !keepDim && g.Dim() > 0 { // a 0-dim g expands to any shape as it is
		for _, d := range dims {
			g = g.Unsqueeze(d)
		}
	}
	return g.Expand(shape...)
}

// record records y = r(t).
func (r reduction) record(t, y *Tensor) {
	if r.op == kernel.OpSum || r.op == kernel.OpMean {
		r.recordSum(t, y)
		return
	}
	dims := reducedDims(t, r.dims, nil)
	count := 1
	for _, d := range dims {
		count *= t.shape[d]
	}
	// Save only what the derivative reads, as PyTorch (var reads no output).
	sx := save(t)
	var sy saved
	if r.op != kernel.OpVar {
		sy = saveOutput(y)
	}
	back := func(g *Tensor) *Tensor { return expandBack(g, t, dims, r.keepDim) }
	var name string
	var fn func(g, x, y *Tensor) *Tensor
	switch r.op {
	case kernel.OpProd:
		name, fn = "ProdBackward1", func(g, x, y *Tensor) *Tensor { return prodGrad(back(g), x, back(y), dims) }
	case kernel.OpAmax, kernel.OpAmin:
		name = "AmaxBackward0"
		if r.op == kernel.OpAmin {
			name = "AminBackward0"
		}
		fn = func(g, x, y *Tensor) *Tensor { return evenlyToTies(back(g), x.Eq(back(y)), dims) }
	case kernel.OpVar:
		name, fn = "VarBackward0", func(g, x, _ *Tensor) *Tensor { return varGrad(back(g), x, dims, float64(count)-r.scalar) }
	case kernel.OpStd:
		// PyTorch's std_backward (1.13 and 2.x): var's gradient of
		// g/(2 std), with 0 where std is 0 (a constant slice), not 0/0.
		name, fn = "StdBackward0", func(g, x, y *Tensor) *Tensor {
			gv := g.Div(y.MulScalar(2)).MaskedFill(y.EqScalar(0), 0)
			return varGrad(back(gv), x, dims, float64(count)-r.scalar)
		}
	case kernel.OpNorm:
		name, fn = "NormBackward1", func(g, x, y *Tensor) *Tensor { return normGrad(back(g), x, back(y), r.scalar, dims) }
	case kernel.OpLogSumExp:
		name, fn = "LogsumexpBackward0", func(g, x, y *Tensor) *Tensor { return back(g).Mul(x.Sub(back(y)).Exp()) }
	default:
		y.setGradFn(r.op.String()+"Backward", []*Tensor{t}, notDifferentiable(r.op))
		return
	}
	if r.op == kernel.OpProd && len(r.dims) == 0 {
		name = "ProdBackward0" // PyTorch's name of the product of all elements
	}
	y.setGradFn(name, []*Tensor{t}, func(g *Tensor, _ []bool, create bool) []*Tensor {
		return []*Tensor{fitGrad(fn(g, sx.get(create, name), sy.get(create, name)), t)}
	})
}

// varGrad is the derivative of var over dims with dof degrees of freedom
// (g expanded to x's shape): 2/dof * g * (x - mean), as PyTorch's var_backward.
func varGrad(g, x *Tensor, dims []int, dof float64) *Tensor {
	return g.MulScalar(2 / math.Max(dof, 0)).Mul(x.Sub(x.MeanKeepDim(dims...)))
}

// prodGrad is the derivative of y = prod(x) over dims (g and y expanded to
// x's shape), as PyTorch's prod_backward: g*(y/x) when x has no zero, else
// g times the product of the other elements of each element's slice,
// computed without dividing, so that it is not NaN: with one zero in a
// slice the zero's gradient is the product of the others and the rest 0,
// with two zeros or more all 0. The meta device always takes the second
// way, as PyTorch's.
func prodGrad(g, x, y *Tensor, dims []int) *Tensor {
	if x.Dim() == 0 || x.Numel() == 0 {
		return g
	}
	if x.Device().Type != device.Meta {
		hasZero, err := x.EqScalar(0).Any().ItemBool()
		if err != nil {
			return failed(err)
		}
		if !hasZero {
			return g.Mul(y.Div(x))
		}
	}
	return g.Mul(productOfOthers(x, dims))
}

// productOfOthers returns, for each element of x, the product of the other
// elements of its slice over dims: the reduced dims are moved last and
// flattened into one of size k, along which the exclusive products from
// the front and from the back are multiplied ([1, a, ab] * [bc, c, 1] for
// [a, b, c], PyTorch's prod_safe_zeros_backward).
func productOfOthers(x *Tensor, dims []int) *Tensor {
	perm := make([]int, 0, x.Dim())
	for d := range x.Dim() {
		if !slices.Contains(dims, d) {
			perm = append(perm, d)
		}
	}
	kept := len(perm)
	perm = append(perm, dims...)
	inv := make([]int, len(perm))
	for i, d := range perm {
		inv[d] = i
	}
	xp := x.Permute(perm...)
	shape := append(append([]int(nil), xp.shape[:kept]...), -1)
	flat := xp.Reshape(shape...)
	k := flat.shape[kept]
	ones := Ones(flat.Narrow(kept, 0, 1).shape, WithDType(x.dtype), OnDevice(x.Device()))
	before := Cat([]*Tensor{ones, flat.Narrow(kept, 0, k-1)}, kept).Cumprod(kept)
	after := Cat([]*Tensor{ones, flat.Narrow(kept, 1, k-1).Flip(kept)}, kept).Cumprod(kept).Flip(kept)
	return before.Mul(after).Reshape(xp.shape...).Permute(inv...)
}

// recordSum records sum and mean, whose node needs no closure (see opNode).
func (r reduction) recordSum(t, y *Tensor) {
	var buf [8]int
	dims := reducedDims(t, r.dims, buf[:0])
	name, kind := "SumBackward1", sumNode // PyTorch's names: ...0 when reducing over all
	switch {
	case r.op == kernel.OpSum && len(r.dims) == 0:
		name = "SumBackward0"
	case r.op == kernel.OpMean && len(r.dims) == 0:
		name, kind = "MeanBackward0", meanNode
	case r.op == kernel.OpMean:
		name, kind = "MeanBackward1", meanNode
	}
	if o := y.newNode(name, []*Tensor{t}); o != nil {
		o.kind, o.keepDim = kind, r.keepDim
		count := 1
		for _, d := range dims {
			count *= t.shape[d]
		}
		o.alpha = kernel.IntScalar(int64(count))
		o.keepInput(0, t, nil)
		o.keepDims(dims)
	}
}

// evenlyToTies shares g equally among the elements that reach the extreme
// (mask), as PyTorch's amax/amin and max()/min() without a dim.
func evenlyToTies(g, mask *Tensor, dims []int) *Tensor {
	m := mask.ToDType(g.dtype)
	return g.Mul(m).Div(m.SumKeepDim(dims...))
}

// normGrad is the gradient of the p-norm n of x (both expanded to x's shape).
func normGrad(g, x, n *Tensor, p float64, dims []int) *Tensor {
	switch {
	case p == 0:
		return ZerosLike(x)
	case p == 1:
		return g.Mul(x.Sign())
	case p == 2:
		return g.Mul(x).Div(n).MaskedFill(n.EqScalar(0), 0)
	case math.IsInf(p, 0):
		a := x.Abs()
		return evenlyToTies(g.Mul(x.Sign()), a.Eq(n), dims)
	}
	a := x.Abs()
	return g.Mul(x.Mul(a.PowScalar(p-2))).Div(n.PowScalar(p-1)).MaskedFill(n.EqScalar(0), 0)
}

// recordAlongDim records the ops along one dim: softmax, log_softmax,
// cumsum, cumprod.
func recordAlongDim(op kernel.OpID, t, y *Tensor, dim int) {
	d, _ := kernel.NormalizeDim(dim, max(t.Dim(), 1))
	sy := saveOutput(y)
	var name string
	var fn func(g, y *Tensor, create bool) *Tensor
	switch op {
	case kernel.OpSoftmax:
		name, fn = "SoftmaxBackward0", func(g, y *Tensor, _ bool) *Tensor { return SoftmaxBackward(g, y, d) }
	case kernel.OpLogSoftmax:
		name, fn = "LogSoftmaxBackward0", func(g, y *Tensor, _ bool) *Tensor { return LogSoftmaxBackward(g, y, d) }
	case kernel.OpCumsum:
		name, fn = "CumsumBackward0", func(g, _ *Tensor, _ bool) *Tensor {
			if t.Dim() == 0 {
				return g
			}
			return g.Flip(d).Cumsum(d).Flip(d)
		}
	case kernel.OpCumprod:
		sx := save(t)
		name = "CumprodBackward0"
		fn = func(g, y *Tensor, create bool) *Tensor { return cumprodGrad(g, sx.get(create, name), y, d) }
	default:
		y.setGradFn(op.String()+"Backward", []*Tensor{t}, notDifferentiable(op))
		return
	}
	y.setGradFn(name, []*Tensor{t}, func(g *Tensor, _ []bool, create bool) []*Tensor {
		return []*Tensor{fitGrad(fn(g, sy.get(create, name), create), t)}
	})
}

// recordExtremeDim records the values of max/min along a dim: the gradient
// goes to the index that was picked.
func recordExtremeDim(op kernel.OpID, t, values, indices *Tensor, dim int, keepDim bool) {
	d, _ := kernel.NormalizeDim(dim, max(t.Dim(), 1))
	name := "MaxBackward0"
	if op == kernel.OpMinDim {
		name = "MinBackward0"
	}
	values.setGradFn(name, []*Tensor{t}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
		idx := indices
		if !keepDim && t.Dim() > 0 {
			g, idx = g.Unsqueeze(d), idx.Unsqueeze(d)
		}
		z := Zeros(t.shape, WithDType(g.dtype), WithDevice(g.Device().String()))
		return []*Tensor{z.Scatter(d, idx, g)}
	})
}

// cumprodGrad is the derivative of y = cumprod(x, d): dx_i = sum over k >= i
// of g_k * prod(x_j, j <= k, j != i). Without zeros in x that is the
// reversed cumsum of g*y divided by x; with zeros it is computed exactly by
// one scan, dx_i = y_(i-1) * r_i with r_i = g_i + x_(i+1) * r_(i+1).
// The meta device, which has no values to look for zeros in, takes the
// first way: both give the gradient's shape and dtype, all it computes.
func cumprodGrad(g, x, y *Tensor, d int) *Tensor {
	if x.Dim() == 0 || x.Numel() == 0 {
		return g
	}
	hasZero := false
	if !x.IsMeta() {
		var err error
		if hasZero, err = x.EqScalar(0).Any().ItemBool(); err != nil {
			return failed(err)
		}
	}
	if !hasZero {
		return g.Mul(y).Flip(d).Cumsum(d).Flip(d).Div(x)
	}
	n := x.shape[d]
	r := make([]*Tensor, n)
	r[n-1] = g.Narrow(d, n-1, 1)
	for i := n - 2; i >= 0; i-- {
		r[i] = g.Narrow(d, i, 1).Add(x.Narrow(d, i+1, 1).Mul(r[i+1]))
	}
	out := make([]*Tensor, n)
	out[0] = r[0]
	for i := 1; i < n; i++ {
		out[i] = y.Narrow(d, i-1, 1).Mul(r[i])
	}
	return Cat(out, d)
}
