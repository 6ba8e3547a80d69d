package nn

import (
	"fmt"
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// ConvConfig are a convolution module's settings after its channels and
// kernel size, as torch.nn.Conv2d's keyword arguments: nil Stride,
// Padding, Dilation are 1, 0, 1 (one value for every dim), Groups 0 means
// 1, NoBias drops the bias.
//
// PaddingMode holds either of PyTorch's two padding arguments that are
// strings: "same" or "valid" replaces Padding (torch.nn.Conv2d's
// padding='same'), and "reflect", "replicate" or "circular" is
// torch.nn.Conv2d's padding_mode: the input is padded by Padding with
// nn.Pad in that mode and then convolved without padding, as PyTorch does.
// "" and "zeros" are zero padding (padding_mode='zeros'). One string
// cannot say both, so padding='same' with a padding_mode other than
// zeros has no form here. Other strings make a layer whose tensors carry
// PyTorch's error.
type ConvConfig struct {
	Stride      []int
	Padding     []int
	PaddingMode string
	Dilation    []int
	Groups      int
	NoBias      bool
}

// Conv2d is torch.nn.Conv2d.
type Conv2d struct {
	Base
	Weight *torch.Tensor // [out, in/groups, kH, kW]
	Bias   *torch.Tensor // [out]; nil for none

	convCore
}

// Conv1d is torch.nn.Conv1d.
type Conv1d struct {
	Base
	Weight *torch.Tensor // [out, in/groups, k]
	Bias   *torch.Tensor // [out]; nil for none

	convCore
}

// convCore is a convolution module's configuration.
type convCore struct {
	nd     int
	kernel []int
	cfg    ConvConfig
}

// NewConv2d makes a Conv2d layer from in to out channels with a kernel of
// kernel (one size for both dims, or two), initialised as PyTorch's:
// Kaiming-uniform weights (a = sqrt(5)) and a bias uniform in ±1/sqrt(fan_in),
// drawn from the generator of opts, so that a seeded layer has PyTorch's
// values. An invalid configuration gives a layer whose tensors carry the error.
func NewConv2d(in, out int, kernel []int, cfg ConvConfig, opts ...torch.Option) *Conv2d {
	return newConv(2, in, out, kernel, cfg, opts)
}

// NewConv1d makes a Conv1d layer (kernel: one size).
func NewConv1d(in, out int, kernel []int, cfg ConvConfig, opts ...torch.Option) *Conv1d {
	c := newConv(1, in, out, kernel, cfg, opts)
	return &Conv1d{Weight: c.Weight, Bias: c.Bias, convCore: c.convCore}
}

func newConv(nd, in, out int, kernel []int, cfg ConvConfig, opts []torch.Option) *Conv2d {
	name := fmt.Sprintf("Conv%dd", nd)
	var err error
	switch cfg.PaddingMode {
	case "", "zeros", "same", "valid", "reflect", "replicate", "circular":
	default:
		err = fmt.Errorf("nn.%s: padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'} "+
			"(or padding 'same', 'valid'), but got padding_mode='%s'", name, cfg.PaddingMode)
	}
	w, b, k := convTensors(name, nd, in, out, kernel, cfg.Groups, false, cfg.NoBias, err, opts)
	cfg.Stride, cfg.Padding, cfg.Dilation = slices.Clone(cfg.Stride), slices.Clone(cfg.Padding), slices.Clone(cfg.Dilation)
	return &Conv2d{Weight: w, Bias: b, convCore: convCore{nd: nd, kernel: k, cfg: cfg}}
}

// convTensors makes a convolution module's weight and bias as PyTorch's
// _ConvNd.reset_parameters: Kaiming-uniform weights (a = sqrt(5)), then a
// bias uniform in ±1/sqrt(fan_in), fan_in being the weight's size(1)
// times the kernel's. The weight is [out, in/groups, k...], or [in,
// out/groups, k...] when transposed. With an invalid configuration (or
// err) both tensors carry the error. k is the kernel size per dim.
func convTensors(name string, nd, in, out int, kernel []int, groups int, transposed, noBias bool, err error,
	opts []torch.Option) (w, b *torch.Tensor, k []int) {
	k = make([]int, nd)
	for i := range k {
		switch len(kernel) {
		case 1:
			k[i] = kernel[0]
		case nd:
			k[i] = kernel[i]
		}
	}
	g := max(groups, 1)
	switch {
	case err != nil:
	case groups < 0:
		err = fmt.Errorf("nn.%s: groups must be a positive integer, got %d", name, groups)
	case in < 0 || out < 0:
		err = fmt.Errorf("nn.%s: negative channels %d, %d", name, in, out)
	case in%g != 0:
		err = fmt.Errorf("nn.%s: in_channels must be divisible by groups", name)
	case out%g != 0:
		err = fmt.Errorf("nn.%s: out_channels must be divisible by groups", name)
	case len(kernel) != 1 && len(kernel) != nd:
		err = fmt.Errorf("nn.%s: kernel_size must have 1 or %d values, got %v", name, nd, kernel)
	}
	for _, v := range k {
		if v <= 0 && err == nil {
			err = fmt.Errorf("nn.%s: kernel size must be positive, got %v", name, kernel)
		}
	}
	if err != nil {
		f := torch.Failed(err)
		return f, f, k
	}
	shape := append([]int{out, in / g}, k...)
	if transposed {
		shape[0], shape[1] = in, out/g
	}
	wt := torch.Empty(shape, opts...)
	KaimingUniform_(wt, math.Sqrt(5), "fan_in", "leaky_relu", opts...)
	w = Parameter(wt)
	if !noBias {
		fanIn := shape[1]
		for _, v := range k {
			fanIn *= v
		}
		bound := 0.0
		if fanIn > 0 {
			bound = 1 / math.Sqrt(float64(fanIn))
		}
		bt := torch.Empty([]int{out}, opts...)
		Uniform_(bt, -bound, bound, opts...)
		b = Parameter(bt)
	}
	return w, b, k
}

// padMode is the mode nn.Pad pads the input in before a convolution
// without padding, "" for zero padding done by the convolution.
func (c *convCore) padMode() string {
	switch c.cfg.PaddingMode {
	case "reflect", "replicate", "circular":
		return c.cfg.PaddingMode
	}
	return ""
}

func (c *convCore) options() torch.ConvOptions {
	o := torch.ConvOptions{Stride: c.cfg.Stride, Padding: c.cfg.Padding, PaddingMode: c.cfg.PaddingMode,
		Dilation: c.cfg.Dilation, Groups: c.cfg.Groups}
	switch c.cfg.PaddingMode {
	case "zeros":
		o.PaddingMode = ""
	case "reflect", "replicate", "circular":
		o.Padding, o.PaddingMode = nil, ""
	}
	return o
}

// forward is conv (torch.Conv1d or Conv2d) of x, after PyTorch's F.pad
// for a padding mode other than zeros: by
// _reversed_padding_repeated_twice, the last dim's (left, right) first.
func (c *convCore) forward(conv func(x, w, b *torch.Tensor, o torch.ConvOptions) *torch.Tensor, x, w, b *torch.Tensor) *torch.Tensor {
	if mode := c.padMode(); mode != "" {
		if err := inputErr(fmt.Sprintf("conv%dd", c.nd), x, w); err != nil {
			return torch.Failed(err)
		}
		p := c.expand(c.cfg.Padding, 0)
		pad := make([]int, 0, 2*c.nd)
		for i := c.nd - 1; i >= 0; i-- {
			pad = append(pad, p[i], p[i])
		}
		x = Pad(x, pad, mode, 0)
	}
	return conv(x, w, b, c.options())
}

// expand is a size argument with one value per dim (def for none).
func (c *convCore) expand(v []int, def int) []int {
	r := make([]int, c.nd)
	for i := range r {
		switch len(v) {
		case 0:
			r[i] = def
		case 1:
			r[i] = v[0]
		default:
			r[i] = v[min(i, len(v)-1)]
		}
	}
	return r
}

// Forward applies the layer to x ([N, C, H, W] or [C, H, W]).
func (c *Conv2d) Forward(x *torch.Tensor) *torch.Tensor {
	if c == nil {
		return nilModule("conv2d", "Conv2d", x)
	}
	return c.forward(torch.Conv2d, x, c.Weight, c.Bias)
}

// Forward applies the layer to x ([N, C, L] or [C, L]).
func (c *Conv1d) Forward(x *torch.Tensor) *torch.Tensor {
	if c == nil {
		return nilModule("conv1d", "Conv1d", x)
	}
	return c.forward(torch.Conv1d, x, c.Weight, c.Bias)
}

// ExtraRepr is PyTorch's: "3, 8, kernel_size=(3, 3), stride=(1, 1), ...".
func (c *Conv2d) ExtraRepr() string {
	if c == nil {
		return ""
	}
	return c.extraRepr(c.Weight, c.Bias != nil)
}

// ExtraRepr is PyTorch's: "3, 8, kernel_size=(3,), stride=(1,)".
func (c *Conv1d) ExtraRepr() string {
	if c == nil {
		return ""
	}
	return c.extraRepr(c.Weight, c.Bias != nil)
}

func (c *convCore) extraRepr(weight *torch.Tensor, bias bool) string {
	in, out := 0, 0
	if s := weight.Shape(); len(s) == c.nd+2 {
		out, in = s[0], s[1]*max(c.cfg.Groups, 1)
	}
	return c.reprArgs(in, out, nil, bias)
}

// reprArgs is PyTorch's _ConvNd.extra_repr; outPad is a transposed
// convolution's output_padding.
func (c *convCore) reprArgs(in, out int, outPad []int, bias bool) string {
	allEq := func(v []int, x int) bool {
		for _, e := range v {
			if e != x {
				return false
			}
		}
		return true
	}
	s := fmt.Sprintf("%d, %d, kernel_size=%s, stride=%s", in, out, pyTuple(c.kernel), pyTuple(c.expand(c.cfg.Stride, 1)))
	switch c.cfg.PaddingMode {
	case "same", "valid":
		s += ", padding=" + c.cfg.PaddingMode
	default:
		if p := c.expand(c.cfg.Padding, 0); !allEq(p, 0) {
			s += ", padding=" + pyTuple(p)
		}
	}
	if d := c.expand(c.cfg.Dilation, 1); !allEq(d, 1) {
		s += ", dilation=" + pyTuple(d)
	}
	if outPad != nil && !allEq(outPad, 0) {
		s += ", output_padding=" + pyTuple(outPad)
	}
	if c.cfg.Groups > 1 {
		s += fmt.Sprintf(", groups=%d", c.cfg.Groups)
	}
	if !bias {
		s += ", bias=False"
	}
	if mode := c.padMode(); mode != "" {
		s += ", padding_mode=" + mode
	}
	return s
}

// String prints the module as PyTorch does.
func (c *Conv2d) String() string { return Repr(c) }

// String prints the module as PyTorch does.
func (c *Conv1d) String() string { return Repr(c) }

// ConvTransposeConfig are a transposed convolution module's settings
// after its channels and kernel size, as torch.nn.ConvTranspose2d's
// keyword arguments: nil Stride, Padding, OutputPadding, Dilation are 1,
// 0, 0, 1 (one value for every dim, or one per dim), Groups 0 means 1,
// NoBias drops the bias. PyTorch allows only zero padding
// (padding_mode='zeros') here, so there is no PaddingMode.
type ConvTransposeConfig struct {
	Stride        []int
	Padding       []int
	OutputPadding []int
	Dilation      []int
	Groups        int
	NoBias        bool
}

// ConvTranspose2d is torch.nn.ConvTranspose2d: torch.ConvTranspose2d
// with the module's weight and bias.
type ConvTranspose2d struct {
	Base
	Weight *torch.Tensor // [in, out/groups, kH, kW]
	Bias   *torch.Tensor // [out]; nil for none

	transposeCore
}

// ConvTranspose1d is torch.nn.ConvTranspose1d.
type ConvTranspose1d struct {
	Base
	Weight *torch.Tensor // [in, out/groups, k]
	Bias   *torch.Tensor // [out]; nil for none

	transposeCore
}

// transposeCore is a transposed convolution module's configuration.
type transposeCore struct {
	convCore
	outPad []int
}

// NewConvTranspose2d makes a ConvTranspose2d layer from in to out
// channels with a kernel of kernel (one size for both dims, or two),
// initialised as PyTorch's (Kaiming-uniform weights, a = sqrt(5), and a
// bias uniform in ±1/sqrt(fan_in), fan_in = out/groups*kH*kW) from the
// generator of opts. An invalid configuration gives a layer whose tensors
// carry the error.
func NewConvTranspose2d(in, out int, kernel []int, cfg ConvTransposeConfig, opts ...torch.Option) *ConvTranspose2d {
	w, b, core := newConvTranspose(2, in, out, kernel, cfg, opts)
	return &ConvTranspose2d{Weight: w, Bias: b, transposeCore: core}
}

// NewConvTranspose1d makes a ConvTranspose1d layer (kernel: one size).
func NewConvTranspose1d(in, out int, kernel []int, cfg ConvTransposeConfig, opts ...torch.Option) *ConvTranspose1d {
	w, b, core := newConvTranspose(1, in, out, kernel, cfg, opts)
	return &ConvTranspose1d{Weight: w, Bias: b, transposeCore: core}
}

func newConvTranspose(nd, in, out int, kernel []int, cfg ConvTransposeConfig, opts []torch.Option) (w, b *torch.Tensor, core transposeCore) {
	name := fmt.Sprintf("ConvTranspose%dd", nd)
	w, b, k := convTensors(name, nd, in, out, kernel, cfg.Groups, true, cfg.NoBias, nil, opts)
	core.convCore = convCore{nd: nd, kernel: k, cfg: ConvConfig{Stride: slices.Clone(cfg.Stride), Padding: slices.Clone(cfg.Padding),
		Dilation: slices.Clone(cfg.Dilation), Groups: cfg.Groups, NoBias: cfg.NoBias}}
	core.outPad = slices.Clone(cfg.OutputPadding)
	return w, b, core
}

func (c *transposeCore) options() torch.ConvTransposeOptions {
	return torch.ConvTransposeOptions{Stride: c.cfg.Stride, Padding: c.cfg.Padding, OutputPadding: c.outPad,
		Dilation: c.cfg.Dilation, Groups: c.cfg.Groups}
}

// Forward applies the layer to x ([N, Cin, H, W] or [Cin, H, W]).
func (c *ConvTranspose2d) Forward(x *torch.Tensor) *torch.Tensor {
	if c == nil {
		return nilModule("conv_transpose2d", "ConvTranspose2d", x)
	}
	return torch.ConvTranspose2d(x, c.Weight, c.Bias, c.options())
}

// Forward applies the layer to x ([N, Cin, L] or [Cin, L]).
func (c *ConvTranspose1d) Forward(x *torch.Tensor) *torch.Tensor {
	if c == nil {
		return nilModule("conv_transpose1d", "ConvTranspose1d", x)
	}
	return torch.ConvTranspose1d(x, c.Weight, c.Bias, c.options())
}

// ExtraRepr is PyTorch's: "4, 6, kernel_size=(3, 3), stride=(2, 2),
// padding=(1, 1), output_padding=(1, 1)".
func (c *ConvTranspose2d) ExtraRepr() string {
	if c == nil {
		return ""
	}
	return c.extraRepr(c.Weight, c.Bias != nil)
}

// ExtraRepr is PyTorch's: "4, 6, kernel_size=(3,), stride=(1,)".
func (c *ConvTranspose1d) ExtraRepr() string {
	if c == nil {
		return ""
	}
	return c.extraRepr(c.Weight, c.Bias != nil)
}

func (c *transposeCore) extraRepr(weight *torch.Tensor, bias bool) string {
	in, out := 0, 0
	if s := weight.Shape(); len(s) == c.nd+2 {
		in, out = s[0], s[1]*max(c.cfg.Groups, 1)
	}
	return c.reprArgs(in, out, c.expand(c.outPad, 0), bias)
}

// String prints the module as PyTorch does.
func (c *ConvTranspose2d) String() string { return Repr(c) }

// String prints the module as PyTorch does.
func (c *ConvTranspose1d) String() string { return Repr(c) }
