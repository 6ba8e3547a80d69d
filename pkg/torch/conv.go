package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// ConvOptions are the arguments of Conv1d and Conv2d after the tensors
// (torch.nn.functional.conv1d/conv2d). A nil Stride, Padding or Dilation
// is PyTorch's default (1, 0, 1); one value applies to every spatial dim.
// PaddingMode "same" or "valid" replaces Padding, as PyTorch's padding
// strings (other strings are refused); Groups 0 means 1.
type ConvOptions struct {
	Stride      []int
	Padding     []int
	PaddingMode string
	Dilation    []int
	Groups      int
}

// ConvTransposeOptions are the arguments of ConvTranspose1d and
// ConvTranspose2d after the tensors (torch.nn.functional.conv_transpose2d):
// as ConvOptions, with OutputPadding (nil: 0) and no padding strings.
type ConvTransposeOptions struct {
	Stride        []int
	Padding       []int
	OutputPadding []int
	Dilation      []int
	Groups        int
}

// convParams are the attributes of the convolution ops (their Call.Ints):
// stride, padding (top, left, bottom, right), dilation and groups.
type convParams struct {
	stride  [2]int
	pad     [4]int
	dil     [2]int
	groups  int
	extra   [2]int // the backward ops' sizes
	nExtras int
}

func (p convParams) set(c *kernel.Call) error {
	c.Ints = c.NewInts(9 + p.nExtras)
	v := c.Ints
	v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8] = p.stride[0], p.stride[1], p.pad[0], p.pad[1], p.pad[2],
		p.pad[3], p.dil[0], p.dil[1], p.groups
	if p.nExtras == 2 {
		v[9], v[10] = p.extra[0], p.extra[1]
	}
	return nil
}

func (p convParams) with(a, b int) convParams {
	p.extra, p.nExtras = [2]int{a, b}, 2
	return p
}

// convError is an error of a convolution op naming its tensors.
func convError(kind error, op string, ts []*Tensor, format string, args ...any) error {
	e := kernel.Errorf(kind, format, args...)
	e.Op = op
	for _, t := range ts {
		if t == nil {
			continue
		}
		e.Shapes = append(e.Shapes, append([]int(nil), t.shape...))
		e.DTypes = append(e.DTypes, t.dtype)
		e.Devices = append(e.Devices, t.Device())
	}
	return e
}

// expandParam spreads a stride, padding or dilation over nd spatial dims.
func expandParam(op, name string, v []int, def, nd int, ts []*Tensor) ([]int, error) {
	switch len(v) {
	case 0:
		out := make([]int, nd)
		for i := range out {
			out[i] = def
		}
		return out, nil
	case 1:
		out := make([]int, nd)
		for i := range out {
			out[i] = v[0]
		}
		return out, nil
	case nd:
		return v, nil
	}
	return nil, convError(kernel.ErrArgument, op, ts, "expected %s to be a single integer value or a list of %d values to match "+
		"the convolution dimensions, but got %s=%s", name, nd, name, kernel.ShapeString(v))
}

// convArgs checks the tensors and options of a convolution of nd spatial
// dims and returns the batched 4-D input and weight, the parameters, and
// whether the input was unbatched.
func convArgs(op string, nd int, input, weight, bias *Tensor, stride, padding, dilation []int, mode string, groups int,
	transposed bool) (x, w *Tensor, p convParams, unbatched bool, err error) {
	ts := []*Tensor{input, weight}
	if bias != nil {
		ts = append(ts, bias)
	}
	if err = inputErr(op, ts...); err != nil {
		return
	}
	if input.Dim() != nd+1 && input.Dim() != nd+2 {
		err = convError(kernel.ErrShape, op, ts, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s",
			nd+1, nd+2, op, kernel.ShapeString(input.shape))
		return
	}
	unbatched = input.Dim() == nd+1
	if weight.Dim() != nd+2 {
		n := input.Dim()
		if unbatched {
			n++
		}
		err = convError(kernel.ErrShape, op, ts, "Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s instead",
			weight.Dim(), weight.Dim(), kernel.ShapeString(weight.shape), n, kernel.ShapeString(input.shape))
		return
	}
	if groups == 0 {
		groups = 1
	}
	var s, pd, d []int
	if s, err = expandParam(op, "stride", stride, 1, nd, ts); err != nil {
		return
	}
	if d, err = expandParam(op, "dilation", dilation, 1, nd, ts); err != nil {
		return
	}
	pads := make([]int, 2*nd) // before, after per dim
	switch mode {
	case "":
		if pd, err = expandParam(op, "padding", padding, 0, nd, ts); err != nil {
			return
		}
		for i, v := range pd {
			pads[2*i], pads[2*i+1] = v, v
		}
	case "valid":
	case "same":
		for _, v := range s {
			if v != 1 {
				err = convError(kernel.ErrArgument, op, ts, "padding='same' is not supported for strided convolutions")
				return
			}
		}
		for i := range nd {
			total := d[i] * (weight.shape[2+i] - 1)
			pads[2*i], pads[2*i+1] = total/2, total-total/2
		}
	default:
		err = convError(kernel.ErrArgument, op, ts, "Invalid padding string: '%s'", mode)
		return
	}
	for _, v := range s {
		if v <= 0 {
			err = convError(kernel.ErrArgument, op, ts, "non-positive stride is not supported")
			return
		}
	}
	for _, v := range pads {
		if v < 0 {
			err = convError(kernel.ErrArgument, op, ts, "negative padding is not supported")
			return
		}
	}
	for _, v := range d {
		if v <= 0 {
			err = convError(kernel.ErrArgument, op, ts, "non-positive dilation is not supported")
			return
		}
	}
	if groups < 0 {
		err = convError(kernel.ErrArgument, op, ts, "non-positive groups is not supported")
		return
	}
	x, w = input, weight
	if unbatched {
		x = x.Unsqueeze(0) // the caller records its own Unsqueeze of input
	}
	p.groups = groups
	if nd == 1 {
		x, w = x.Unsqueeze(2), w.Unsqueeze(2)
		p.stride, p.dil = [2]int{1, s[0]}, [2]int{1, d[0]}
		p.pad = [4]int{0, pads[0], 0, pads[1]}
	} else {
		p.stride, p.dil = [2]int{s[0], s[1]}, [2]int{d[0], d[1]}
		p.pad = [4]int{pads[0], pads[2], pads[1], pads[3]}
	}
	if bias != nil && transposed {
		// PyTorch's transposed convolution checks the bias against the
		// output channels.
		if oc := weight.shape[1] * groups; bias.Dim() != 1 || bias.shape[0] != oc {
			err = convError(kernel.ErrShape, op, ts, "Given transposed=1, weight of size %s, expected bias to be 1-dimensional with %d elements, but got bias of size %s instead",
				kernel.ShapeString(weight.shape), oc, kernel.ShapeString(bias.shape))
		}
	}
	return x, w, p, unbatched, err
}

// Conv2d is torch.nn.functional.conv2d: the 2-D cross-correlation of input
// ([N, C, H, W], or [C, H, W] unbatched) with weight [O, C/groups, kH, kW],
// plus bias [O] when it is not nil. Its gradient is ConvolutionBackward0,
// for the input, the weight and the bias.
func Conv2d(input, weight, bias *Tensor, opts ConvOptions) *Tensor {
	return convN("conv2d", 2, input, weight, bias, opts)
}

// Conv1d is torch.nn.functional.conv1d: input [N, C, L] (or [C, L]),
// weight [O, C/groups, k], computed as a 2-D convolution with a unit dim.
func Conv1d(input, weight, bias *Tensor, opts ConvOptions) *Tensor {
	return convN("conv1d", 1, input, weight, bias, opts)
}

func convN(op string, nd int, input, weight, bias *Tensor, opts ConvOptions) *Tensor {
	var x, w *Tensor
	var p convParams
	var unbatched bool
	var err error
	NoGrad(func() {
		x, w, p, unbatched, err = convArgs(op, nd, input, weight, bias, opts.Stride, opts.Padding, opts.Dilation,
			opts.PaddingMode, opts.Groups, false)
	})
	if err != nil {
		return failed(err)
	}
	if unbatched { // PyTorch's unsqueeze before the convolution and squeeze after
		input = input.Unsqueeze(0)
	}
	ins := []*Tensor{input, weight}
	if bias != nil {
		ins = append(ins, bias)
	}
	y4 := runConvOp(kernel.OpConv2d, p, append([]*Tensor{x, w}, ins[2:]...)...)
	if y4.err != nil {
		return failed(withOp(op, y4.err))
	}
	y := squeezeOwn(y4, nd)
	if !recording(ins...) {
		return squeezeBatch(y, unbatched)
	}
	sx, sw := save(input), save(weight)
	xs, ws, ys := x.Shape(), w.Shape(), y4.Shape()
	return squeezeBatch(y.setGradFn("ConvolutionBackward0", ins, func(g *Tensor, need []bool, create bool) []*Tensor {
		out := make([]*Tensor, len(ins))
		g4 := g.Reshape(ys...)
		if need[0] {
			w4 := sw.get(create, "ConvolutionBackward0").Reshape(ws...)
			out[0] = runConvOp(kernel.OpConv2dBackwardInput, p.with(xs[2], xs[3]), g4, w4).Reshape(input.shape...)
		}
		if need[1] {
			x4 := sx.get(create, "ConvolutionBackward0").Reshape(xs...)
			out[1] = runConvOp(kernel.OpConv2dBackwardWeight, p.with(ws[2], ws[3]), g4, x4).Reshape(weight.shape...)
		}
		if len(ins) == 3 && need[2] {
			out[2] = g4.Sum(0, 2, 3)
		}
		return out
	}), unbatched)
}

// squeezeBatch removes the batch dim of an unbatched convolution's result.
func squeezeBatch(y *Tensor, unbatched bool) *Tensor {
	if unbatched {
		return y.SqueezeDim(0)
	}
	return y
}

// squeezeOwn is y (4-D) without the unit dim of a 1-D convolution, as a
// tensor of its own (not a view), which the caller records.
func squeezeOwn(y *Tensor, nd int) *Tensor {
	if nd == 2 {
		return y
	}
	var shape, strides []int
	for i := range 4 {
		if i == 2 {
			continue
		}
		shape, strides = append(shape, y.shape[i]), append(strides, y.strides[i])
	}
	return newTensor(y.storage, y.dtype, shape, strides, y.offset)
}

// runConvOp runs a convolution op without recording it (the callers record).
func runConvOp(op kernel.OpID, p convParams, ts ...*Tensor) *Tensor {
	if r := passOn(op, ts...); r != nil {
		return r
	}
	dev, err := deviceOf(op, ts...)
	if err != nil {
		return failed(err)
	}
	c, err := opCall(op, dev, p.set, ts)
	if err != nil {
		return failed(err)
	}
	return run(c)
}

// ConvTranspose2d is torch.nn.functional.conv_transpose2d: the gradient
// of a 2-D convolution with respect to its input, of input [N, Cin, H, W]
// (or unbatched) with weight [Cin, Cout/groups, kH, kW], plus bias [Cout].
// The output is (H-1)*stride - 2*padding + dilation*(kH-1) +
// output_padding + 1 high, and as wide by the same rule.
func ConvTranspose2d(input, weight, bias *Tensor, opts ConvTransposeOptions) *Tensor {
	return convTransposeN("conv_transpose2d", 2, input, weight, bias, opts)
}

// ConvTranspose1d is torch.nn.functional.conv_transpose1d: input [N, Cin,
// L] (or unbatched), weight [Cin, Cout/groups, k].
func ConvTranspose1d(input, weight, bias *Tensor, opts ConvTransposeOptions) *Tensor {
	return convTransposeN("conv_transpose1d", 1, input, weight, bias, opts)
}

func convTransposeN(op string, nd int, input, weight, bias *Tensor, opts ConvTransposeOptions) *Tensor {
	var x, w *Tensor
	var p convParams
	var unbatched bool
	var err error
	NoGrad(func() {
		x, w, p, unbatched, err = convArgs(op, nd, input, weight, bias, opts.Stride, opts.Padding, opts.Dilation, "", opts.Groups, true)
	})
	if err != nil {
		return failed(err)
	}
	if unbatched { // PyTorch's unsqueeze before the convolution and squeeze after
		input = input.Unsqueeze(0)
	}
	ins := []*Tensor{input, weight}
	if bias != nil {
		ins = append(ins, bias)
	}
	outPad, err := expandParam(op, "output_padding", opts.OutputPadding, 0, nd, ins)
	if err != nil {
		return failed(err)
	}
	op2 := [2]int{0, 0}
	if nd == 1 {
		op2[1] = outPad[0]
	} else {
		op2 = [2]int{outPad[0], outPad[1]}
	}
	for i := range 2 {
		if op2[i] < 0 || op2[i] >= p.stride[i] && op2[i] >= p.dil[i] {
			return failed(convError(kernel.ErrArgument, op, ins, "output padding must be smaller than either stride or dilation, "+
				"but got output_padding_height: %d output_padding_width: %d stride_height: %d stride_width: %d dilation_height: %d dilation_width: %d",
				op2[0], op2[1], p.stride[0], p.stride[1], p.dil[0], p.dil[1]))
		}
	}
	if w.shape[0] != x.shape[1] {
		return failed(convError(kernel.ErrShape, op, ins, "Given transposed=1, weight of size %s, expected input%s to have %d channels, but got %d channels instead",
			kernel.ShapeString(weight.shape), kernel.ShapeString(x.shape), w.shape[0], x.shape[1]))
	}
	var size [2]int
	for i := range 2 {
		size[i] = (x.shape[2+i]-1)*p.stride[i] - p.pad[i] - p.pad[i+2] + p.dil[i]*(w.shape[2+i]-1) + op2[i] + 1
	}
	if size[0] < 1 || size[1] < 1 {
		return failed(convError(kernel.ErrShape, op, ins, "Given input size per channel: (%d x %d). Calculated output size per channel: (%d x %d). Output size is too small",
			x.shape[2], x.shape[3], size[0], size[1]))
	}
	y4 := runConvOp(kernel.OpConv2dBackwardInput, p.with(size[0], size[1]), x, w)
	if y4.err == nil && bias != nil {
		NoGrad(func() { y4 = y4.Add_(bias.View(1, -1, 1, 1)) })
	}
	if y4.err != nil {
		return failed(withOp(op, y4.err))
	}
	y := squeezeOwn(y4, nd)
	if !recording(ins...) {
		return squeezeBatch(y, unbatched)
	}
	sx, sw := save(input), save(weight)
	xs, ws, ys := x.Shape(), w.Shape(), y4.Shape()
	return squeezeBatch(y.setGradFn("ConvolutionBackward0", ins, func(g *Tensor, need []bool, create bool) []*Tensor {
		out := make([]*Tensor, len(ins))
		g4 := g.Reshape(ys...)
		if need[0] {
			w4 := sw.get(create, "ConvolutionBackward0").Reshape(ws...)
			out[0] = runConvOp(kernel.OpConv2d, p, g4, w4).Reshape(input.shape...)
		}
		if need[1] {
			x4 := sx.get(create, "ConvolutionBackward0").Reshape(xs...)
			out[1] = runConvOp(kernel.OpConv2dBackwardWeight, p.with(ws[2], ws[3]), x4, g4).Reshape(weight.shape...)
		}
		if len(ins) == 3 && need[2] {
			out[2] = g4.Sum(0, 2, 3)
		}
		return out
	}), unbatched)
}

// Conv2dWeightGrad is torch.nn.grad.conv2d_weight: the gradient of
// Conv2d(input, weight) with respect to a weight of weightSize ([O,
// C/groups, kH, kW]) for the output gradient gradOutput. Padding strings
// are refused.
func Conv2dWeightGrad(input *Tensor, weightSize []int, gradOutput *Tensor, opts ConvOptions) *Tensor {
	const op = "conv2d_weight"
	if err := inputErr(op, input, gradOutput); err != nil {
		return failed(err)
	}
	ts := []*Tensor{input, gradOutput}
	if len(weightSize) != 4 || input.Dim() != 4 || gradOutput.Dim() != 4 {
		return failed(convError(kernel.ErrShape, op, ts, "expected a 4-D input and grad_output and a weight size of 4 dims, got input %s, weight size %s, grad_output %s",
			kernel.ShapeString(input.shape), kernel.ShapeString(weightSize), kernel.ShapeString(gradOutput.shape)))
	}
	if opts.PaddingMode != "" {
		return failed(convError(kernel.ErrArgument, op, ts, "padding strings are not supported by %s, got %q", op, opts.PaddingMode))
	}
	var p convParams
	s, err := expandParam(op, "stride", opts.Stride, 1, 2, ts)
	if err != nil {
		return failed(err)
	}
	pd, err := expandParam(op, "padding", opts.Padding, 0, 2, ts)
	if err != nil {
		return failed(err)
	}
	d, err := expandParam(op, "dilation", opts.Dilation, 1, 2, ts)
	if err != nil {
		return failed(err)
	}
	p.stride, p.pad, p.dil, p.groups = [2]int{s[0], s[1]}, [4]int{pd[0], pd[1], pd[0], pd[1]}, [2]int{d[0], d[1]}, max(opts.Groups, 1)
	if opts.Groups < 0 {
		p.groups = opts.Groups
	}
	if weightSize[1]*p.groups != input.shape[1] {
		return failed(convError(kernel.ErrShape, op, ts, "Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d channels instead",
			p.groups, kernel.ShapeString(weightSize), kernel.ShapeString(input.shape), weightSize[1]*p.groups, input.shape[1]))
	}
	if gradOutput.shape[1] != weightSize[0] {
		return failed(convError(kernel.ErrShape, op, ts, "expected grad_output%s to have %d channels, but got %d channels instead",
			kernel.ShapeString(gradOutput.shape), weightSize[0], gradOutput.shape[1]))
	}
	y := runConvOp(kernel.OpConv2dBackwardWeight, p.with(weightSize[2], weightSize[3]), gradOutput, input)
	if y.err != nil {
		return failed(withOp(op, y.err))
	}
	return y
}
