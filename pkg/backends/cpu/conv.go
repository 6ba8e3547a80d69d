package cpu

import (
	"errors"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The convolutions: float32 ones of dilation 1, their input gradients
// (stride 1) and (on AVX-512 CPUs) their weight gradients by the direct
// kernels (conv_direct.go); the others as PyTorch's slow_conv2d: im2col
// (C, split across the pool by image planes) and one matrix product per
// chunk of images and group, the input gradient the transposed product
// and col2im, the weight gradient the product of the output gradient with
// the columns, summed over the batch.

func init() {
	kernel.Register(kernel.OpConv2d, device.CPU, convKernel)
	kernel.Register(kernel.OpConv2dBackwardInput, device.CPU, convBackwardInputKernel)
	kernel.Register(kernel.OpConv2dBackwardWeight, device.CPU, convBackwardWeightKernel)
}

// colBudget bounds the column buffer, in elements: the images of a batch
// are unfolded a chunk at a time.
const colBudget = 1 << 20

// convInput is an operand as a contiguous array of dtype d: itself when it
// is one, else a copy (released by release).
type convInput struct {
	op   kernel.Operand
	temp bool
}

func contiguousIn(o *kernel.Operand, d dtype.DType) (convInput, error) {
	if o.DType == d && kernel.IsContiguous(o.Shape, o.Strides) {
		return convInput{op: *o}, nil
	}
	t, err := contiguousCopy(o, d)
	return convInput{op: t, temp: true}, err
}

func (c convInput) ptr() unsafe.Pointer { return c.op.Data() }

func (c convInput) release() {
	if c.temp {
		c.op.Mem.Release()
	}
}

// convResult is where a kernel writes its contiguous result in dtype eng:
// the output itself, or a temporary that finish copies into it.
type convResult struct {
	res    kernel.Operand
	direct bool
}

func newConvResult(o *kernel.Operand, eng dtype.DType) (convResult, error) {
	if o.DType == eng && kernel.IsContiguous(o.Shape, o.Strides) {
		return convResult{res: *o, direct: true}, nil
	}
	t, err := newContiguous(o.Shape, eng)
	return convResult{res: t}, err
}

func (r convResult) finish(o *kernel.Operand, eng dtype.DType) error {
	if r.direct {
		return nil
	}
	defer r.res.Mem.Release()
	return castInto(opnd(o), o.DType, opnd(&r.res), eng, o.Shape)
}

// convGeom is the plane geometry of a convolution of [.., h, w] planes by
// a kh x kw kernel into oh x ow outputs.
func convGeom(p meta.ConvParams, h, w, kh, kw, oh, ow int) cpukernels.ConvGeom {
	return cpukernels.ConvGeom{H: h, W: w, KH: kh, KW: kw, OH: oh, OW: ow, SH: p.SH, SW: p.SW,
		PT: p.PT, PL: p.PL, DH: p.DH, DW: p.DW}
}

// chunkOf is the number of images unfolded at once.
func chunkOf(perImage, n int) int {
	return max(1, min(n, colBudget/max(perImage, 1)))
}

// fillRows writes, for n blocks of o rows of l elements at p (dtype d),
// the value v[j] (0 without v) into row j of each block.
func fillRows(p unsafe.Pointer, d dtype.DType, v unsafe.Pointer, n, o, l int) {
	total := n * o * l
	switch d {
	case dtype.Float32:
		fillRowsOf(unsafe.Slice((*float32)(p), total), v, o, l)
	case dtype.Float64:
		fillRowsOf(unsafe.Slice((*float64)(p), total), v, o, l)
	default:
		fillRowsOf(unsafe.Slice((*int64)(p), total), v, o, l)
	}
}

func fillRowsOf[T float32 | float64 | int64](dst []T, v unsafe.Pointer, o, l int) {
	var vals []T
	if v != nil {
		vals = unsafe.Slice((*T)(v), o)
	}
	for i := 0; i < len(dst); i += o * l {
		for j := range o {
			var x T
			if vals != nil {
				x = vals[j]
			}
			row := dst[i+j*l : i+(j+1)*l]
			for k := range row {
				row[k] = x
			}
		}
	}
}

// convKernel is the forward convolution of In[0] [N, C, H, W] by In[1]
// [O, C/g, kH, kW] plus the optional bias In[2].
func convKernel(c *kernel.Call) error {
	p, err := meta.ConvParamsOf(c)
	if err != nil {
		return err
	}
	o := &c.Out[0]
	if kernel.Numel(o.Shape) == 0 {
		return nil
	}
	eng := gemmDType(o.DType)
	xs, ws := c.In[0].Shape, c.In[1].Shape
	n, ch, h, w := xs[0], xs[1], xs[2], xs[3]
	oc, cg, kh, kw := ws[0], ws[1], ws[2], ws[3]
	oh, ow := o.Shape[2], o.Shape[3]
	l, k, og := oh*ow, cg*kh*kw, oc/p.Groups
	es := eng.ItemSize()

	r, err := newConvResult(o, eng)
	if err != nil {
		return err
	}
	var bias unsafe.Pointer
	if len(c.In) == 3 {
		b, err := contiguousIn(&c.In[2], eng)
		if err != nil {
			return err
		}
		defer b.release()
		bias = b.ptr()
	}
	out := r.res.Data()
	if k == 0 {
		fillRows(out, eng, bias, n, oc, l)
	} else if directConv(eng, p, kh, kw, cg, og) {
		dp := cpukernels.ConvDirectParams{N: n, Groups: p.Groups, C: ch, H: h, W: w, OC: oc, OH: oh, OW: ow,
			KH: kh, KW: kw, SH: p.SH, SW: p.SW, PT: p.PT, PL: p.PL}
		if err := convDirect(&dp, &c.In[0], &c.In[1], bias, out); err != nil {
			return err
		}
	} else if err := convForward(eng, &c.In[0], &c.In[1], p, out, bias, n, ch, h, w, oc, kh, kw, oh, ow, l, k, og, es); err != nil {
		return err
	}
	return r.finish(o, eng)
}

// convForward writes the convolution into out: per chunk of images, the
// bias rows (when there is a bias: filled just before the products, so
// that they read them from cache, and added with beta 1 as PyTorch's
// slow_conv2d does), the columns and one product per image and group.
func convForward(eng dtype.DType, xo, wo *kernel.Operand, p meta.ConvParams, out, bias unsafe.Pointer,
	n, ch, h, w, oc, kh, kw, oh, ow, l, k, og, es int) error {
	x, err := contiguousIn(xo, eng)
	if err != nil {
		return err
	}
	defer x.release()
	wt, err := contiguousIn(wo, eng)
	if err != nil {
		return err
	}
	defer wt.release()
	per := ch * kh * kw * l
	nb := chunkOf(per, n)
	col, err := newContiguous([]int{nb * per}, eng)
	if err != nil {
		return err
	}
	defer col.Mem.Release()
	g := convGeom(p, h, w, kh, kw, oh, ow)
	for n0 := 0; n0 < n; n0 += nb {
		b := min(nb, n-n0)
		resched()
		if err := cpukernels.Im2col(int(eng), unsafe.Add(x.ptr(), n0*ch*h*w*es), col.Data(), b*ch, &g); err != nil {
			return convError(eng)
		}
		beta := 0.0
		if bias != nil {
			fillRows(unsafe.Add(out, n0*oc*l*es), eng, bias, b, oc, l)
			beta = 1
		}
		for gi := range p.Groups {
			a := matrices{ptr: unsafe.Add(wt.ptr(), gi*og*k*es), ld: k, mem: wt.op.Mem}
			bm := matrices{ptr: unsafe.Add(col.Data(), gi*k*l*es), ld: l, bs: per, mem: col.Mem}
			if err := gemm(eng, og, l, k, 1, a, bm, beta, unsafe.Add(out, (n0*oc*l+gi*og*l)*es), l, oc*l, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func convError(d dtype.DType) error {
	return kernel.Errorf(kernel.ErrNotImplemented, "no CPU convolution for %s", kernel.PyName(d))
}

// convBackwardInputKernel is the input gradient [N, C, H, W] of a
// convolution, from the output gradient In[0] and the weight In[1].
func convBackwardInputKernel(c *kernel.Call) error {
	p, err := meta.ConvParamsOf(c)
	if err != nil {
		return err
	}
	o := &c.Out[0]
	if kernel.Numel(o.Shape) == 0 {
		return nil
	}
	eng := gemmDType(o.DType)
	gs, ws := c.In[0].Shape, c.In[1].Shape
	n, oc, oh, ow := gs[0], gs[1], gs[2], gs[3]
	cg, kh, kw := ws[1], ws[2], ws[3]
	ch, h, w := o.Shape[1], o.Shape[2], o.Shape[3]
	l, k, og := oh*ow, cg*kh*kw, oc/p.Groups
	es := eng.ItemSize()
	r, err := newConvResult(o, eng)
	if err != nil {
		return err
	}
	out := r.res.Data()
	if og == 0 {
		fillRows(out, eng, nil, n, ch, h*w)
		return r.finish(o, eng)
	}
	if directInputGrad(eng, p, kh, kw, cg, og) {
		// The input gradient is the output gradient, padded by k-1-p,
		// convolved with the weight transposed and flipped.
		dp := cpukernels.ConvDirectParams{N: n, Groups: p.Groups, C: oc, H: oh, W: ow, OC: ch, OH: h, OW: w,
			KH: kh, KW: kw, SH: 1, SW: 1, PT: kh - 1 - p.PT, PL: kw - 1 - p.PL, Transposed: true}
		err := convDirect(&dp, &c.In[0], &c.In[1], nil, out)
		if !errors.Is(err, cpukernels.ErrNonFinite) {
			if err != nil {
				return err
			}
			return r.finish(o, eng)
		}
		// NaN or infinite weights: col2im never multiplies them by padding.
	}
	gr, err := contiguousIn(&c.In[0], eng)
	if err != nil {
		return err
	}
	defer gr.release()
	wt, err := contiguousIn(&c.In[1], eng)
	if err != nil {
		return err
	}
	defer wt.release()
	per := ch * kh * kw * l
	nb := chunkOf(per, n)
	col, err := newContiguous([]int{nb * per}, eng)
	if err != nil {
		return err
	}
	defer col.Mem.Release()
	g := convGeom(p, h, w, kh, kw, oh, ow)
	for n0 := 0; n0 < n; n0 += nb {
		b := min(nb, n-n0)
		for gi := range p.Groups {
			a := matrices{ptr: unsafe.Add(wt.ptr(), gi*og*k*es), trans: true, ld: k, mem: wt.op.Mem}
			bm := matrices{ptr: unsafe.Add(gr.ptr(), (n0*oc*l+gi*og*l)*es), ld: l, bs: oc * l, mem: gr.op.Mem}
			if err := gemm(eng, k, l, og, 1, a, bm, 0, unsafe.Add(col.Data(), gi*k*l*es), l, per, b); err != nil {
				return err
			}
		}
		resched()
		if err := cpukernels.Col2im(int(eng), col.Data(), unsafe.Add(out, n0*ch*h*w*es), b*ch, &g); err != nil {
			return convError(eng)
		}
	}
	return r.finish(o, eng)
}

// convBackwardWeightKernel is the weight gradient [O, C/g, kH, kW] of a
// convolution, from the output gradient In[0] and the input In[1].
func convBackwardWeightKernel(c *kernel.Call) error {
	p, err := meta.ConvParamsOf(c)
	if err != nil {
		return err
	}
	o := &c.Out[0]
	if kernel.Numel(o.Shape) == 0 {
		return nil
	}
	eng := gemmDType(o.DType)
	gs, xs := c.In[0].Shape, c.In[1].Shape
	n, oc, oh, ow := gs[0], gs[1], gs[2], gs[3]
	ch, h, w := xs[1], xs[2], xs[3]
	cg, kh, kw := o.Shape[1], o.Shape[2], o.Shape[3]
	l, k, og := oh*ow, cg*kh*kw, oc/p.Groups
	es := eng.ItemSize()
	r, err := newConvResult(o, eng)
	if err != nil {
		return err
	}
	out := r.res.Data()
	if n > 0 && directWeightGrad(eng, p, kh, kw, cg, og) {
		dp := cpukernels.ConvDirectParams{N: n, Groups: p.Groups, C: ch, H: h, W: w, OC: oc, OH: oh, OW: ow,
			KH: kh, KW: kw, SH: p.SH, SW: p.SW, PT: p.PT, PL: p.PL}
		if err := convWeightGradDirect(&dp, &c.In[0], &c.In[1], out); err != nil {
			return err
		}
		return r.finish(o, eng)
	}
	fillRows(out, eng, nil, 1, oc, k)
	if n > 0 {
		gr, err := contiguousIn(&c.In[0], eng)
		if err != nil {
			return err
		}
		defer gr.release()
		x, err := contiguousIn(&c.In[1], eng)
		if err != nil {
			return err
		}
		defer x.release()
		per := ch * kh * kw * l
		nb := chunkOf(per, n)
		col, err := newContiguous([]int{nb * per}, eng)
		if err != nil {
			return err
		}
		defer col.Mem.Release()
		g := convGeom(p, h, w, kh, kw, oh, ow)
		for n0 := 0; n0 < n; n0 += nb {
			b := min(nb, n-n0)
			resched()
			if err := cpukernels.Im2col(int(eng), unsafe.Add(x.ptr(), n0*ch*h*w*es), col.Data(), b*ch, &g); err != nil {
				return convError(eng)
			}
			for i := range b {
				// One product per image, batched over the groups:
				// dW_g += dY_g [og, l] @ col_g^T [l, k].
				a := matrices{ptr: unsafe.Add(gr.ptr(), (n0+i)*oc*l*es), ld: l, bs: og * l, mem: gr.op.Mem}
				bm := matrices{ptr: unsafe.Add(col.Data(), i*per*es), trans: true, ld: l, bs: k * l, mem: col.Mem}
				if err := gemm(eng, og, k, l, 1, a, bm, 1, out, k, og*k, p.Groups); err != nil {
					return err
				}
			}
		}
	}
	return r.finish(o, eng)
}
