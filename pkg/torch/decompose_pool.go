package torch

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// Decompositions of the pooling ops and their gradients, for devices
// without pooling kernels: for each position (i, j) of the window, the
// elements it covers in every window are gathered at once by two
// index_selects ([planes, oH, oW]), and combined in the order of the CPU
// kernel (cgo/cpukernels/pooling.c), so that the results are the CPU's:
// the running maximum and its index with `v > max || isnan(v)`, sums in
// (h, w) order divided as the kernel divides, gradients scattered so that
// each input element receives its terms in the kernel's order. Positions
// outside the input (padding, shorter adaptive windows) are masked. Only
// floating dtypes decompose (float16 and bfloat16 compute in float32);
// integer ones go to the host.

func init() {
	for _, op := range []kernel.OpID{kernel.OpMaxPool2d, kernel.OpMaxPool2dBackward, kernel.OpAvgPool2d,
		kernel.OpAvgPool2dBackward, kernel.OpAdaptiveAvgPool2d, kernel.OpAdaptiveAvgPool2dBackward,
		kernel.OpAdaptiveMaxPool2d, kernel.OpAdaptiveMaxPool2dBackward} {
		dispatch.RegisterDecomposition(op, decomposePool)
	}
}

// poolAxis is one axis (H or W) of a pooling: for each window position k,
// the input index each output reads (clipped into the input), whether it
// is inside the window and the input, and the first index of each window.
type poolAxis struct {
	in, out, k int
	pos        [][]int64 // [k][out]
	valid      [][]bool  // [k][out]
	first      []int64   // [out]
}

// regularAxis is the axis of a window of k positions of dilation d,
// stride s, padding p over n inputs into m outputs.
func regularAxis(n, m, k, s, p, d int) *poolAxis {
	a := &poolAxis{in: n, out: m, k: k, first: make([]int64, m)}
	for o := range m {
		start := o*s - p
		for start < 0 {
			start += d
		}
		a.first[o] = int64(start)
	}
	for i := range k {
		pos, valid := make([]int64, m), make([]bool, m)
		for o := range m {
			at := o*s - p + i*d
			valid[o] = at >= 0 && at < n
			pos[o] = int64(min(max(at, 0), n-1))
		}
		a.pos, a.valid = append(a.pos, pos), append(a.valid, valid)
	}
	return a
}

// adaptiveAxis is the axis of adaptive windows of n inputs into m outputs:
// [floor(o n / m), ceil((o + 1) n / m)).
func adaptiveAxis(n, m int) (*poolAxis, []float64) {
	a := &poolAxis{in: n, out: m, first: make([]int64, m)}
	size := make([]float64, m)
	for o := range m {
		start, end := (o/m)*n+((o%m)*n)/m, 1+((o+1)*n-1)/m
		a.first[o], size[o] = int64(start), float64(end-start)
		a.k = max(a.k, end-start)
	}
	for i := range a.k {
		pos, valid := make([]int64, m), make([]bool, m)
		for o := range m {
			at := int(a.first[o]) + i
			valid[o] = float64(i) < size[o]
			pos[o] = int64(min(at, n-1))
		}
		a.pos, a.valid = append(a.pos, pos), append(a.valid, valid)
	}
	return a, size
}

// poolPlan is a pooling call read for its decomposition.
type poolPlan struct {
	c           *kernel.Call
	h, w        *poolAxis
	planes      int
	dev         Device
	compute     DType
	divisor     []float64 // avg_pool2d: per output (h, w); nil otherwise
	hSize       []float64 // adaptive avg: the windows' sizes
	wSize       []float64
	max         bool // a max pool; the others average
	adaptive    bool
	backward    bool
	selfOperand int
}

func decomposePool(c *kernel.Call) error {
	p := &poolPlan{c: c}
	switch c.Op {
	case kernel.OpMaxPool2d, kernel.OpAdaptiveMaxPool2d:
		p.max = true
	case kernel.OpMaxPool2dBackward, kernel.OpAdaptiveMaxPool2dBackward:
		p.max, p.backward = true, true
	case kernel.OpAvgPool2dBackward, kernel.OpAdaptiveAvgPool2dBackward:
		p.backward = true
	}
	p.adaptive = c.Op == kernel.OpAdaptiveAvgPool2d || c.Op == kernel.OpAdaptiveAvgPool2dBackward ||
		c.Op == kernel.OpAdaptiveMaxPool2d || c.Op == kernel.OpAdaptiveMaxPool2dBackward
	if p.backward {
		p.selfOperand = 1
	}
	self := &c.In[p.selfOperand]
	if !self.DType.IsFloatingPoint() {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s of %s has no decomposition", c.Op, kernel.PyName(self.DType))
	}
	p.compute = opMath(self.DType)
	nd := len(self.Shape)
	ih, iw := self.Shape[nd-2], self.Shape[nd-1]
	p.planes = kernel.Numel(self.Shape[:nd-2])
	var oh, ow int
	if p.backward {
		g := c.In[0].Shape
		oh, ow = g[len(g)-2], g[len(g)-1]
	} else {
		o := c.Out[0].Shape
		oh, ow = o[len(o)-2], o[len(o)-1]
	}
	if p.planes == 0 || ih == 0 || iw == 0 || oh == 0 || ow == 0 {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s of an empty tensor has no decomposition", c.Op)
	}
	iv := c.Ints
	switch {
	case p.adaptive:
		p.h, p.hSize = adaptiveAxis(ih, oh)
		p.w, p.wSize = adaptiveAxis(iw, ow)
	case p.max:
		p.h = regularAxis(ih, oh, iv[0], iv[2], iv[4], iv[6])
		p.w = regularAxis(iw, ow, iv[1], iv[3], iv[5], iv[7])
	default:
		p.h = regularAxis(ih, oh, iv[0], iv[2], iv[4], 1)
		p.w = regularAxis(iw, ow, iv[1], iv[3], iv[5], 1)
		p.divisor = avgDivisors(iv, ih, iw, oh, ow)
	}
	p.dev = operandTensor(self).Device()
	switch {
	case p.max && !p.backward:
		return p.maxForward()
	case p.max:
		return p.maxBackward()
	case !p.backward:
		return p.avgForward()
	}
	return p.avgBackward()
}

// avgDivisors is avg_pool2d's divisor of each output, as the CPU kernel's
// avg_win computes it; 1 for a window wholly in the padding (whose sum,
// 0, is the output).
func avgDivisors(iv []int, ih, iw, oh, ow int) []float64 {
	kh, kw, sh, sw, ph, pw := iv[0], iv[1], iv[2], iv[3], iv[4], iv[5]
	includePad, divisor := iv[7] != 0, 0
	if iv[8] != 0 {
		divisor = iv[9]
	}
	div := make([]float64, oh*ow)
	for y := range oh {
		for x := range ow {
			h0, w0 := y*sh-ph, x*sw-pw
			h1, w1 := min(h0+kh, ih+ph), min(w0+kw, iw+pw)
			size := (h1 - h0) * (w1 - w0)
			h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, ih), min(w1, iw)
			switch {
			case h0 >= h1 || w0 >= w1:
				div[y*ow+x] = 1
			case divisor != 0:
				div[y*ow+x] = float64(divisor)
			case includePad:
				div[y*ow+x] = float64(size)
			default:
				div[y*ow+x] = float64((h1 - h0) * (w1 - w0))
			}
		}
	}
	return div
}

// onDevice makes a tensor of host values on the call's device.
func (p *poolPlan) onDevice(t *Tensor) *Tensor {
	d, err := t.ToDevice(p.dev)
	if err != nil {
		return failed(err)
	}
	return d
}

// self is the pooled input as [planes, iH, iW] in the compute dtype.
func (p *poolPlan) self() *Tensor {
	return operandTensor(&p.c.In[p.selfOperand]).ToDType(p.compute).Reshape(p.planes, p.h.in, p.w.in)
}

// indices are an axis's input indices of each window position, on the
// device: x.IndexSelect with the H ones then the W ones gathers window
// position (i, j) of every window.
func (p *poolPlan) indices(a *poolAxis) []*Tensor {
	ix := make([]*Tensor, a.k)
	for i := range ix {
		ix[i] = p.onDevice(FromSlice(a.pos[i]))
	}
	return ix
}

// mask is whether window position (i, j) is inside each window and the
// input ([oH, oW]).
func (p *poolPlan) mask(i, j int) *Tensor {
	m := make([]bool, 0, p.h.out*p.w.out)
	for y := range p.h.out {
		for x := range p.w.out {
			m = append(m, p.h.valid[i][y] && p.w.valid[j][x])
		}
	}
	return p.onDevice(FromSlice(m).Reshape(p.h.out, p.w.out))
}

// flat is the index in the input plane of window position (i, j) of each
// window ([oH, oW]); positions outside the input get dummy (when not -1).
func (p *poolPlan) flat(i, j int, dummy int64) *Tensor {
	f := make([]int64, 0, p.h.out*p.w.out)
	for y := range p.h.out {
		for x := range p.w.out {
			v := p.h.pos[i][y]*int64(p.w.in) + p.w.pos[j][x]
			if dummy >= 0 && !(p.h.valid[i][y] && p.w.valid[j][x]) {
				v = dummy
			}
			f = append(f, v)
		}
	}
	return p.onDevice(FromSlice(f).Reshape(p.h.out, p.w.out))
}

// maxForward is the running maximum over the window positions and the
// index of the last NaN, else of the first maximum, else (a window of
// -inf) of the window's first element.
func (p *poolPlan) maxForward() error {
	x := p.self()
	opts := []Option{WithDType(p.compute), OnDevice(p.dev)}
	negInf := Full(nil, math.Inf(-1), opts...)
	best := Full([]int{p.planes, p.h.out, p.w.out}, math.Inf(-1), opts...)
	first := make([]int64, 0, p.h.out*p.w.out)
	for y := range p.h.out {
		for xw := range p.w.out {
			first = append(first, p.h.first[y]*int64(p.w.in)+p.w.first[xw])
		}
	}
	idx := p.onDevice(FromSlice(first).Reshape(p.h.out, p.w.out)).Expand(p.planes, p.h.out, p.w.out)
	hi, wi := p.indices(p.h), p.indices(p.w)
	for i := range p.h.k {
		rows := x.IndexSelect(1, hi[i])
		for j := range p.w.k {
			v := Where(p.mask(i, j), rows.IndexSelect(2, wi[j]), negInf)
			up := v.Gt(best).LogicalOr(v.Ne(v))
			best = Where(up, v, best)
			idx = Where(up, p.flat(i, j, -1), idx)
		}
	}
	if err := writeOutput(p.c, 0, best.Reshape(p.c.Out[0].Shape...)); err != nil {
		return err
	}
	return writeOutput(p.c, 1, idx.Reshape(p.c.Out[1].Shape...))
}

// maxBackward adds each output gradient at its index (indices outside the
// plane are skipped, as the CPU kernel skips them).
func (p *poolPlan) maxBackward() error {
	plane, n := p.h.in*p.w.in, p.h.out*p.w.out
	g := operandTensor(&p.c.In[0]).ToDType(p.compute).Reshape(p.planes, n)
	idx := operandTensor(&p.c.In[2]).Reshape(p.planes, n)
	idx = Where(idx.GeScalar(0).LogicalAnd(idx.LtScalar(plane)), idx, Scalar(int64(plane), OnDevice(p.dev)))
	gi := Zeros([]int{p.planes, plane + 1}, WithDType(p.compute), OnDevice(p.dev)).ScatterAdd(1, idx, g)
	return writeOutput(p.c, 0, gi.Narrow(1, 0, plane).Reshape(p.c.Out[0].Shape...))
}

// avgDivide divides window sums (or gradients) as the CPU kernel does: by
// avg_pool2d's divisor, or by the adaptive window's height, then width.
func (p *poolPlan) avgDivide(s *Tensor) *Tensor {
	if p.adaptive {
		hs := p.onDevice(FromSlice(p.hSize).ToDType(p.compute).Reshape(p.h.out, 1))
		ws := p.onDevice(FromSlice(p.wSize).ToDType(p.compute).Reshape(1, p.w.out))
		return s.Div(hs).Div(ws)
	}
	return s.Div(p.onDevice(FromSlice(p.divisor).ToDType(p.compute).Reshape(p.h.out, p.w.out)))
}

// avgForward sums each window in (h, w) order from +0 and divides.
func (p *poolPlan) avgForward() error {
	x := p.self()
	zero := Zeros(nil, WithDType(p.compute), OnDevice(p.dev))
	sum := Zeros([]int{p.planes, p.h.out, p.w.out}, WithDType(p.compute), OnDevice(p.dev))
	hi, wi := p.indices(p.h), p.indices(p.w)
	for i := range p.h.k {
		rows := x.IndexSelect(1, hi[i])
		for j := range p.w.k {
			sum = sum.Add(Where(p.mask(i, j), rows.IndexSelect(2, wi[j]), zero))
		}
	}
	return writeOutput(p.c, 0, p.avgDivide(sum).Reshape(p.c.Out[0].Shape...))
}

// avgBackward adds each output's gradient over its divisor to the inputs
// of its window: window positions in reverse order, so that each input
// receives the terms of its windows in the CPU kernel's order (windows in
// row-major order).
func (p *poolPlan) avgBackward() error {
	plane, n := p.h.in*p.w.in, p.h.out*p.w.out
	delta := p.avgDivide(operandTensor(&p.c.In[0]).ToDType(p.compute).Reshape(p.planes, p.h.out, p.w.out)).Reshape(p.planes, n)
	gi := Zeros([]int{p.planes, plane + 1}, WithDType(p.compute), OnDevice(p.dev))
	for i := p.h.k - 1; i >= 0; i-- {
		for j := p.w.k - 1; j >= 0; j-- {
			at := p.flat(i, j, int64(plane)).Reshape(1, n).Expand(p.planes, n)
			gi = gi.ScatterAdd(1, at, delta)
		}
	}
	return writeOutput(p.c, 0, gi.Narrow(1, 0, plane).Reshape(p.c.Out[0].Shape...))
}
