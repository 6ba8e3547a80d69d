package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// Pooling: max_pool2d, avg_pool2d, adaptive_avg_pool2d and
// adaptive_max_pool2d over the last two dims of (N, C, H, W) or unbatched
// (C, H, W) inputs, each one kernel per device with a backward kernel
// (MaxPool2DWithIndicesBackward0, AvgPool2DBackward0,
// AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0, PyTorch's
// names), and the 1-d forms through the 2-d kernels with a unit H, as
// PyTorch composes them (their grad_fn is then SqueezeBackward1).

// MaxPoolOptions are the settings of MaxPool1d and MaxPool2d besides the
// kernel size: a nil Stride is the kernel size (PyTorch's stride=None), a
// nil Padding 0 and a nil Dilation 1; each holds one value for every dim
// or one per dim.
type MaxPoolOptions struct {
	Stride, Padding, Dilation []int
	CeilMode                  bool
}

// AvgPoolOptions are the settings of AvgPool1d and AvgPool2d besides the
// kernel size: Stride and Padding as in MaxPoolOptions; ExcludePad is
// PyTorch's count_include_pad=False (padding then does not count in a
// window's divisor); DivisorOverride, when not nil, divides every window's
// sum instead (2-d only, as in PyTorch; 0 is an error).
type AvgPoolOptions struct {
	Stride, Padding []int
	CeilMode        bool
	ExcludePad      bool
	DivisorOverride *int
}

// pair expands an argument of one or two ints to two, or reports
// PyTorch's error for other lengths; an empty arg gives def.
func pair(op, what string, arg []int, def [2]int, omitted bool) ([2]int, error) {
	switch len(arg) {
	case 0:
		return def, nil
	case 1:
		return [2]int{arg[0], arg[0]}, nil
	case 2:
		return [2]int{arg[0], arg[1]}, nil
	}
	if omitted {
		return def, kernel.Errorf(ErrArgument, "%s: %s must either be omitted, a single int, or a tuple of two ints", op, what)
	}
	return def, kernel.Errorf(ErrArgument, "%s: %s must either be a single int, or a tuple of two ints", op, what)
}

// poolFail is the failure of op on x.
func poolFail(op string, x *Tensor, err error) *Tensor {
	e := *kernel.AsOpError(err)
	e.Op = op
	if x != nil && x.err == nil && x.storage != nil {
		e.Shapes = [][]int{append([]int(nil), x.shape...)}
		e.DTypes = []DType{x.dtype}
		e.Devices = []Device{x.Device()}
	}
	return failed(&e)
}

// poolRun runs a pooling op without autograd's automatic recording (the
// callers record their own nodes); it returns the op's outputs.
func poolRun(op kernel.OpID, ints []int, nOut int, ts ...*Tensor) (*Tensor, *Tensor) {
	set := func(c *kernel.Call) error {
		c.Ints = c.NewInts(len(ints))
		copy(c.Ints, ints)
		return nil
	}
	if nOut == 2 {
		return runOp2(op, set, ts...)
	}
	if r := passOn(op, ts...); r != nil {
		return r, nil
	}
	dev, err := deviceOf(op, ts...)
	if err != nil {
		return failed(err), nil
	}
	c, err := opCall(op, dev, set, ts)
	if err != nil {
		return failed(err), nil
	}
	return run(c), nil
}

// maxPoolInts are max_pool2d's call integers.
func maxPoolInts(op string, kernelSize []int, o MaxPoolOptions) ([]int, error) {
	k, err := pair(op, "kernel_size", kernelSize, [2]int{}, false)
	if err == nil && len(kernelSize) == 0 {
		err = kernel.Errorf(ErrArgument, "%s: kernel_size must either be a single int, or a tuple of two ints", op)
	}
	if err != nil {
		return nil, err
	}
	s, err := pair(op, "stride", o.Stride, k, true)
	if err != nil {
		return nil, err
	}
	p, err := pair(op, "padding", o.Padding, [2]int{}, false)
	if err != nil {
		return nil, err
	}
	d, err := pair(op, "dilation", o.Dilation, [2]int{1, 1}, false)
	if err != nil {
		return nil, err
	}
	return []int{k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], b2i(o.CeilMode)}, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MaxPool2d is torch.nn.functional.max_pool2d: the largest value of each
// (dilated) window of kernelSize over the last two dims of a (N, C, H, W)
// or (C, H, W) input. A NaN in a window wins (the last one, as
// PyTorch's CPU kernel); among equal values the first in row-major order.
// Padding counts as -inf and may be at most half the kernel size.
func MaxPool2d(x *Tensor, kernelSize []int, o MaxPoolOptions) *Tensor {
	y, _ := MaxPool2dWithIndices(x, kernelSize, o)
	return y
}

// MaxPool2dWithIndices is MaxPool2d with return_indices=True: also the
// int64 index of each maximum, flat in its (H, W) plane (h*W + w).
func MaxPool2dWithIndices(x *Tensor, kernelSize []int, o MaxPoolOptions) (values, indices *Tensor) {
	const op = "max_pool2d"
	if err := inputErr(op, x); err != nil {
		return failed(err), failed(err)
	}
	ints, err := maxPoolInts(op, kernelSize, o)
	if err != nil {
		f := poolFail(op, x, err)
		return f, f
	}
	return maxPoolRun(kernel.OpMaxPool2d, kernel.OpMaxPool2dBackward, "MaxPool2DWithIndicesBackward0", x, ints)
}

// maxPoolRun runs a max pool (fwd) and records its node (name), whose
// backward runs bwd with the saved indices.
func maxPoolRun(fwd, bwd kernel.OpID, name string, x *Tensor, ints []int) (*Tensor, *Tensor) {
	y, idx := poolRun(fwd, ints, 2, x)
	if y.err != nil {
		return y, y
	}
	if recording(x) {
		sx := save(x)
		y.setGradFn(name, []*Tensor{x}, func(g *Tensor, _ []bool, create bool) []*Tensor {
			self := sx.get(create, name)
			if create && recording(g) {
				// Double backward: the gradient of a max pool is gathered at its indices.
				return []*Tensor{fitGrad(poolGradByIndex(g, self, idx), x)}
			}
			gi, _ := poolRun(bwd, ints, 1, g, self, idx)
			return []*Tensor{fitGrad(gi, x)}
		})
	}
	return y, idx
}

// poolGradByIndex is the max pools' backward in differentiable ops: g
// added at each index of its plane (scatter_add over flattened planes).
func poolGradByIndex(g, self, idx *Tensor) *Tensor {
	nd := self.Dim()
	planeShape := append(append([]int(nil), self.shape[:nd-2]...), self.shape[nd-2]*self.shape[nd-1])
	outPlane := append(append([]int(nil), idx.shape[:nd-2]...), idx.shape[nd-2]*idx.shape[nd-1])
	z := Zeros(planeShape, WithDType(g.dtype), OnDevice(g.Device()))
	return z.ScatterAdd(nd-2, idx.Reshape(outPlane...), g.Reshape(outPlane...)).Reshape(self.shape...)
}

// MaxPool1d is torch.nn.functional.max_pool1d over the last dim of a
// (N, C, L) or (C, L) input (options of one value each).
//
// Without autograd recording, an input shorter than the (dilated) kernel
// gives an empty result, as PyTorch's max_pool1d_impl does (with
// recording, and in MaxPool1dWithIndices, it is an error, as in PyTorch).
func MaxPool1d(x *Tensor, kernelSize int, o MaxPoolOptions) *Tensor {
	if x != nil && x.err == nil && x.storage != nil && !recording(x) && (x.Dim() == 2 || x.Dim() == 3) && x.shape[x.Dim()-1] > 0 && x.shape[x.Dim()-2] > 0 &&
		len(o.Stride) <= 1 && len(o.Padding) <= 1 && len(o.Dilation) <= 1 {
		s, p, d := kernelSize, 0, 1
		if len(o.Stride) == 1 {
			s = o.Stride[0]
		}
		if len(o.Padding) == 1 {
			p = o.Padding[0]
		}
		if len(o.Dilation) == 1 {
			d = o.Dilation[0]
		}
		if kernelSize > 0 && s > 0 && d > 0 && p >= 0 && p <= kernelSize/2 && kernelSize < 1<<31 && d < 1<<31 && p < 1<<31 {
			l := x.shape[x.Dim()-1]
			num := l + 2*p - d*(kernelSize-1) - 1
			if o.CeilMode {
				num += s - 1
			}
			if num < 0 && num >= -s { // floor(num/s) + 1 == 0: no windows
				shape := append(append([]int(nil), x.shape[:x.Dim()-1]...), 0)
				return Empty(shape, WithDType(x.dtype), OnDevice(x.Device()))
			}
		}
	}
	y, _ := MaxPool1dWithIndices(x, kernelSize, o)
	return y
}

// MaxPool1dWithIndices is MaxPool1d with the index of each maximum.
func MaxPool1dWithIndices(x *Tensor, kernelSize int, o MaxPoolOptions) (values, indices *Tensor) {
	const op = "max_pool1d"
	if err := inputErr(op, x); err != nil {
		return failed(err), failed(err)
	}
	if x.Dim() != 2 && x.Dim() != 3 {
		f := poolFail(op, x, kernel.Errorf(ErrShape, "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking arguments for max_pool1d)", x.Dim()))
		return f, f
	}
	o2, err := oneDim(op, o.Stride, o.Padding, o.Dilation)
	if err != nil {
		f := poolFail(op, x, err)
		return f, f
	}
	o2.CeilMode = o.CeilMode
	y, idx := MaxPool2dWithIndices(x.Unsqueeze(-2), []int{1, kernelSize}, o2)
	if y.err != nil {
		f := poolFail(op, x, y.err)
		return f, f
	}
	return y.SqueezeDim(-2), idx.SqueezeDim(-2)
}

// oneDim turns 1-d options into 2-d ones over a unit H.
func oneDim(op string, stride, padding, dilation []int) (MaxPoolOptions, error) {
	var o MaxPoolOptions
	for _, a := range []struct {
		name string
		in   []int
		out  *[]int
		def  int
	}{{"stride", stride, &o.Stride, -1}, {"padding", padding, &o.Padding, 0}, {"dilation", dilation, &o.Dilation, 1}} {
		switch {
		case len(a.in) == 0:
			if a.def >= 0 {
				*a.out = []int{a.def, a.def}
			}
		case len(a.in) == 1:
			first := 1
			if a.name == "padding" {
				first = 0
			}
			*a.out = []int{first, a.in[0]}
		default:
			return o, kernel.Errorf(ErrArgument, "%s: %s must be a single int, got %d values", op, a.name, len(a.in))
		}
	}
	return o, nil
}

// avgPoolInts are avg_pool2d's call integers.
func avgPoolInts(op string, kernelSize []int, o AvgPoolOptions) ([]int, error) {
	k, err := pair(op, "kernel_size", kernelSize, [2]int{}, false)
	if err == nil && len(kernelSize) == 0 {
		err = kernel.Errorf(ErrArgument, "%s: kernel_size must either be a single int, or a tuple of two ints", op)
	}
	if err != nil {
		return nil, err
	}
	s, err := pair(op, "stride", o.Stride, k, true)
	if err != nil {
		return nil, err
	}
	p, err := pair(op, "padding", o.Padding, [2]int{}, false)
	if err != nil {
		return nil, err
	}
	div := 0
	if o.DivisorOverride != nil {
		div = *o.DivisorOverride
	}
	return []int{k[0], k[1], s[0], s[1], p[0], p[1], b2i(o.CeilMode), b2i(!o.ExcludePad), b2i(o.DivisorOverride != nil), div}, nil
}

// AvgPool2d is torch.nn.functional.avg_pool2d: the mean of each window of
// kernelSize over the last two dims of a (N, C, H, W) or (C, H, W) input.
// Padding counts as zeros in the divisor unless ExcludePad; windows that
// ceil_mode adds past the padding are clipped. int64 inputs divide with
// truncation, as PyTorch's CPU kernel.
func AvgPool2d(x *Tensor, kernelSize []int, o AvgPoolOptions) *Tensor {
	const op = "avg_pool2d"
	if err := inputErr(op, x); err != nil {
		return failed(err)
	}
	ints, err := avgPoolInts(op, kernelSize, o)
	if err != nil {
		return poolFail(op, x, err)
	}
	y, _ := poolRun(kernel.OpAvgPool2d, ints, 1, x)
	if y.err != nil || !recording(x) {
		return y
	}
	const name = "AvgPool2DBackward0"
	sx := save(x)
	return y.setGradFn(name, []*Tensor{x}, func(g *Tensor, _ []bool, create bool) []*Tensor {
		self := sx.get(create, name)
		gi, _ := poolRun(kernel.OpAvgPool2dBackward, ints, 1, g, self)
		return []*Tensor{fitGrad(gi, x)}
	})
}

// AvgPool1d is torch.nn.functional.avg_pool1d over the last dim of a
// (N, C, L) or (C, L) input (options of one value each; no divisor
// override, as in PyTorch).
func AvgPool1d(x *Tensor, kernelSize int, o AvgPoolOptions) *Tensor {
	const op = "avg_pool1d"
	if err := inputErr(op, x); err != nil {
		return failed(err)
	}
	if x.Dim() != 2 && x.Dim() != 3 {
		return poolFail(op, x, kernel.Errorf(ErrShape, "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)", x.Dim()))
	}
	if o.DivisorOverride != nil {
		return poolFail(op, x, kernel.Errorf(ErrArgument, "avg_pool1d() got an unexpected keyword argument 'divisor_override'"))
	}
	m, err := oneDim(op, o.Stride, o.Padding, nil)
	if err != nil {
		return poolFail(op, x, err)
	}
	y := AvgPool2d(x.Unsqueeze(-2), []int{1, kernelSize}, AvgPoolOptions{Stride: m.Stride, Padding: m.Padding, CeilMode: o.CeilMode, ExcludePad: o.ExcludePad})
	if y.err != nil {
		return poolFail(op, x, y.err)
	}
	return y.SqueezeDim(-2)
}

// outputSize2 reads an adaptive pool's output size: one value for both
// dims or one per dim.
func outputSize2(op string, size []int) ([2]int, error) {
	switch len(size) {
	case 1:
		return [2]int{size[0], size[0]}, nil
	case 2:
		return [2]int{size[0], size[1]}, nil
	}
	return [2]int{}, kernel.Errorf(ErrArgument, "%s: output_size must be 2", op)
}

// AdaptiveAvgPool2d is torch.nn.functional.adaptive_avg_pool2d: the mean
// of each of outputSize windows over the last two dims, window i of n
// over L inputs spanning [floor(i*L/n), ceil((i+1)*L/n)). An output of
// 1 x 1 is the mean over the two dims, as in PyTorch (MeanBackward1).
func AdaptiveAvgPool2d(x *Tensor, outputSize []int) *Tensor {
	const op = "adaptive_avg_pool2d"
	if err := inputErr(op, x); err != nil {
		return failed(err)
	}
	s, err := outputSize2(op, outputSize)
	if err != nil {
		return poolFail(op, x, err)
	}
	if s[0] < 0 || s[1] < 0 {
		return poolFail(op, x, kernel.Errorf(ErrArgument, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {%d, %d}", s[0], s[1]))
	}
	if s[0] == 1 && s[1] == 1 && x.Dim() >= 2 {
		return x.MeanKeepDim(-1, -2)
	}
	ints := []int{s[0], s[1]}
	y, _ := poolRun(kernel.OpAdaptiveAvgPool2d, ints, 1, x)
	if y.err != nil || !recording(x) {
		return y
	}
	const name = "AdaptiveAvgPool2DBackward0"
	sx := save(x)
	return y.setGradFn(name, []*Tensor{x}, func(g *Tensor, _ []bool, create bool) []*Tensor {
		self := sx.get(create, name)
		gi, _ := poolRun(kernel.OpAdaptiveAvgPool2dBackward, ints, 1, g, self)
		return []*Tensor{fitGrad(gi, x)}
	})
}

// AdaptiveMaxPool2d is torch.nn.functional.adaptive_max_pool2d with
// return_indices=True: the largest value of each adaptive window (as in
// AdaptiveAvgPool2d; NaN and ties as in MaxPool2d) and its index, flat in
// its (H, W) plane.
func AdaptiveMaxPool2d(x *Tensor, outputSize []int) (values, indices *Tensor) {
	const op = "adaptive_max_pool2d"
	if err := inputErr(op, x); err != nil {
		return failed(err), failed(err)
	}
	s, err := outputSize2(op, outputSize)
	if err != nil {
		f := poolFail(op, x, err)
		return f, f
	}
	return maxPoolRun(kernel.OpAdaptiveMaxPool2d, kernel.OpAdaptiveMaxPool2dBackward, "AdaptiveMaxPool2DBackward0", x, []int{s[0], s[1]})
}
