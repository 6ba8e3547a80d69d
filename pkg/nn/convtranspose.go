package nn

import (
	"fmt"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

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
	core.convCore = convCore{nd: nd, kernel: k, mode: "zeros", err: w.Err(),
		cfg: ConvConfig{Stride: slices.Clone(cfg.Stride), Padding: slices.Clone(cfg.Padding),
			Dilation: slices.Clone(cfg.Dilation), Groups: cfg.Groups, NoBias: cfg.NoBias}}
	core.outPad = slices.Clone(cfg.OutputPadding)
	return w, b, core
}

func (c *transposeCore) options(outPad []int) torch.ConvTransposeOptions {
	return torch.ConvTransposeOptions{Stride: c.cfg.Stride, Padding: c.cfg.Padding, OutputPadding: outPad,
		Dilation: c.cfg.Dilation, Groups: c.cfg.Groups}
}

// forward is conv (torch.ConvTranspose1d or 2d) of x, with the output
// padding that gives outputSize when it is not nil.
func (c *transposeCore) forward(conv func(x, w, b *torch.Tensor, o torch.ConvTransposeOptions) *torch.Tensor,
	x, w, b *torch.Tensor, outputSize []int) *torch.Tensor {
	op := fmt.Sprintf("conv_transpose%dd", c.nd)
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	if c.err != nil {
		return torch.Failed(c.err)
	}
	outPad := c.outPad
	if outputSize != nil {
		var err error
		if outPad, err = c.outputPadding(op, x, outputSize); err != nil {
			return torch.Failed(err)
		}
	}
	return conv(x, w, b, c.options(outPad))
}

// outputPadding is PyTorch's _ConvTransposeNd._output_padding: the output
// padding that makes the output's spatial size outputSize (nd sizes, or
// the whole shape: nd+2 sizes for a batched input, nd+1 for an unbatched
// one), each within [min, min+stride-1] where min is the size without
// output padding. An input of another rank is left to the convolution to
// refuse.
func (c *transposeCore) outputPadding(op string, x *torch.Tensor, outputSize []int) ([]int, error) {
	nd := c.nd
	if x.Dim() != nd+1 && x.Dim() != nd+2 {
		return c.outPad, nil
	}
	nonSpatial := x.Dim() - nd
	size := outputSize
	if len(size) == nonSpatial+nd {
		size = size[nonSpatial:]
	}
	if len(size) != nd {
		return nil, torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x},
			"ConvTranspose%dD: for %dD input, output_size must have %d or %d elements (got %d)",
			nd, x.Dim(), nd, nonSpatial+nd, len(outputSize))
	}
	stride, pad, dil := c.expand(c.cfg.Stride, 1), c.expand(c.cfg.Padding, 0), c.expand(c.cfg.Dilation, 1)
	mins, maxs := make([]int, nd), make([]int, nd)
	for d := range nd {
		mins[d] = (x.Shape()[nonSpatial+d]-1)*stride[d] - 2*pad[d] + dil[d]*(c.kernel[d]-1) + 1
		maxs[d] = mins[d] + stride[d] - 1
	}
	out := make([]int, nd)
	for d := range nd {
		if size[d] < mins[d] || size[d] > maxs[d] {
			// PyTorch prints input.size()[2:], also for an unbatched input.
			return nil, torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x},
				"requested an output size of %s, but valid sizes range from %s to %s (for an input of %s)",
				shapeList(size), shapeList(mins), shapeList(maxs), sizeString(x.Shape()[2:]))
		}
		out[d] = size[d] - mins[d]
	}
	return out, nil
}

// Forward applies the layer to x ([N, Cin, H, W] or [Cin, H, W]).
func (c *ConvTranspose2d) Forward(x *torch.Tensor) *torch.Tensor {
	return c.ForwardWithOutputSize(x, nil)
}

// ForwardWithOutputSize is PyTorch's forward(input, output_size): the
// output padding is chosen to make the output's spatial size outputSize
// ([H, W], or the whole output shape), which must be reachable (PyTorch's
// error names the sizes that are). A nil outputSize is Forward.
func (c *ConvTranspose2d) ForwardWithOutputSize(x *torch.Tensor, outputSize []int) *torch.Tensor {
	if c == nil {
		return nilModule("conv_transpose2d", "ConvTranspose2d", x)
	}
	return c.forward(torch.ConvTranspose2d, x, c.Weight, c.Bias, outputSize)
}

// Forward applies the layer to x ([N, Cin, L] or [Cin, L]).
func (c *ConvTranspose1d) Forward(x *torch.Tensor) *torch.Tensor {
	return c.ForwardWithOutputSize(x, nil)
}

// ForwardWithOutputSize is ConvTranspose2d.ForwardWithOutputSize for one
// spatial dim: outputSize is [L], or the whole output shape.
func (c *ConvTranspose1d) ForwardWithOutputSize(x *torch.Tensor, outputSize []int) *torch.Tensor {
	if c == nil {
		return nilModule("conv_transpose1d", "ConvTranspose1d", x)
	}
	return c.forward(torch.ConvTranspose1d, x, c.Weight, c.Bias, outputSize)
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
