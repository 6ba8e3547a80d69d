package meta

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	for _, op := range []kernel.OpID{
		kernel.OpMaxPool2d, kernel.OpMaxPool2dBackward, kernel.OpAvgPool2d, kernel.OpAvgPool2dBackward,
		kernel.OpAdaptiveAvgPool2d, kernel.OpAdaptiveAvgPool2dBackward,
		kernel.OpAdaptiveMaxPool2d, kernel.OpAdaptiveMaxPool2dBackward,
	} {
		kernel.RegisterMeta(op, Pool2d)
	}
}

// PoolKind is the family of a pooling op.
type PoolKind uint8

// The pooling families.
const (
	PoolMax PoolKind = iota
	PoolAvg
	PoolAdaptiveAvg
	PoolAdaptiveMax
)

// Pool2dGeometry is the geometry of a pooling op: the input (N, C, H, W),
// N = 1 for an unbatched (C, H, W) input, the output's H and W, and the
// window's attributes from the call's Ints.
type Pool2dGeometry struct {
	Kind                           PoolKind
	Backward                       bool
	Batched                        bool
	N, C, IH, IW, OH, OW           int
	KH, KW, SH, SW, PH, PW, DH, DW int
	Ceil, CountIncludePad          bool
	Divisor                        int // avg_pool2d's divisor_override, 0 when none (it cannot be 0)
}

// Planes is the number of (H, W) planes.
func (g *Pool2dGeometry) Planes() int { return g.N * g.C }

// OutShape is the forward output's shape (unbatched for an unbatched input).
func (g *Pool2dGeometry) OutShape(dst []int) []int {
	if g.Batched {
		return append(dst[:0], g.N, g.C, g.OH, g.OW)
	}
	return append(dst[:0], g.C, g.OH, g.OW)
}

// maxPoolArg bounds kernel sizes, strides, paddings, dilations and
// adaptive output sizes, so that no window arithmetic overflows int64.
const maxPoolArg = 1<<31 - 1

// poolKind is the family of op and whether it is a backward op.
func poolKind(op kernel.OpID) (PoolKind, bool) {
	switch op {
	case kernel.OpMaxPool2d:
		return PoolMax, false
	case kernel.OpMaxPool2dBackward:
		return PoolMax, true
	case kernel.OpAvgPool2d:
		return PoolAvg, false
	case kernel.OpAvgPool2dBackward:
		return PoolAvg, true
	case kernel.OpAdaptiveAvgPool2d:
		return PoolAdaptiveAvg, false
	case kernel.OpAdaptiveAvgPool2dBackward:
		return PoolAdaptiveAvg, true
	case kernel.OpAdaptiveMaxPool2d:
		return PoolAdaptiveMax, false
	}
	return PoolAdaptiveMax, true
}

// forwardName is the name of the forward op in PyTorch's messages.
func (k PoolKind) forwardName() string {
	return [...]string{"max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d"}[k]
}

// PoolOutputSize is PyTorch's pooling_output_shape: the number of windows
// of kernel k, dilation d and stride s over n inputs padded by p on both
// sides, with ceil_mode's last window kept only when it starts inside the
// input or its left padding. It checks stride and padding first, as PyTorch.
func PoolOutputSize(n, k, p, s, d int, ceil bool) (int, error) {
	if s == 0 {
		return 0, kernel.Errorf(kernel.ErrArgument, "stride should not be zero")
	}
	if p < 0 {
		return 0, kernel.Errorf(kernel.ErrArgument, "pad must be non-negative, but got pad: %d", p)
	}
	if p > k/2 {
		return 0, kernel.Errorf(kernel.ErrArgument, "pad should be at most half of kernel size, but got pad=%d and kernel_size=%d", p, k)
	}
	num := n + 2*p - d*(k-1) - 1
	if ceil {
		num += s - 1
	}
	out := floorDiv(num, s) + 1
	if ceil && (out-1)*s >= n+p {
		out--
	}
	return out, nil
}

// floorDiv is a / b rounded toward negative infinity (PyTorch's div_rtn).
func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// PoolGeometry reads and checks the geometry of a pooling call with
// PyTorch 1.13's errors, in its order. The input is In[0] for the forward
// ops and In[1] (self) for the backward ones. Ints are: for max_pool2d kH,
// kW, sH, sW, pH, pW, dH, dW, ceil_mode; for avg_pool2d kH, kW, sH, sW, pH,
// pW, ceil_mode, count_include_pad, has_divisor, divisor_override; for the
// adaptive pools the output's H and W.
func PoolGeometry(c *kernel.Call) (Pool2dGeometry, error) {
	var g Pool2dGeometry
	g.Kind, g.Backward = poolKind(c.Op)
	self := 0
	if g.Backward {
		self = 1
	}
	want := map[PoolKind]int{PoolMax: 9, PoolAvg: 10, PoolAdaptiveAvg: 2, PoolAdaptiveMax: 2}[g.Kind]
	if len(c.In) <= self || len(c.Ints) != want {
		return g, kernel.Errorf(kernel.ErrArgument, "%s: expected %d integer attributes, got %d", g.Kind.forwardName(), want, len(c.Ints))
	}
	in := &c.In[self]
	shape := in.Shape
	nd := len(shape)
	name := g.Kind.forwardName()
	switch g.Kind {
	case PoolAdaptiveAvg, PoolAdaptiveMax:
		g.OH, g.OW = c.Ints[0], c.Ints[1]
		if g.Kind == PoolAdaptiveAvg && (g.OH < 0 || g.OW < 0) {
			return g, kernel.Errorf(kernel.ErrArgument, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {%d, %d}", g.OH, g.OW)
		}
		sep := ""
		if g.Kind == PoolAdaptiveMax {
			sep = ":"
		}
		if nd != 3 && nd != 4 {
			return g, kernel.Errorf(kernel.ErrShape, "%s(): Expected 3D or 4D tensor, but got%s %s", name, sep, kernel.ShapeString(shape))
		}
		for i := 1; i < nd; i++ {
			if shape[i] <= 0 {
				return g, kernel.Errorf(kernel.ErrShape, "%s(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %s with dimension %d being empty",
					name, kernel.ShapeString(shape), i)
			}
		}
		if g.OH < 0 || g.OW < 0 {
			return g, kernel.Errorf(kernel.ErrArgument, "Trying to create tensor with negative dimension %d: %s",
				min(g.OH, g.OW), kernel.ShapeString(append(slices.Clone(shape[:nd-2]), g.OH, g.OW)))
		}
		if g.OH > maxPoolArg || g.OW > maxPoolArg {
			return g, kernel.Errorf(kernel.ErrArgument, "%s: output_size (%d, %d) is too large", name, g.OH, g.OW)
		}
		g.fillInput(shape)
		return g, nil
	}
	iv := c.Ints
	for _, v := range iv[:8] {
		if v > maxPoolArg || v < -maxPoolArg {
			return g, kernel.Errorf(kernel.ErrArgument, "%s: kernel_size, stride, padding and dilation must be below 2^31 in magnitude, got %d", name, v)
		}
	}
	g.KH, g.KW, g.SH, g.SW, g.PH, g.PW = iv[0], iv[1], iv[2], iv[3], iv[4], iv[5]
	g.DH, g.DW = 1, 1
	if g.Kind == PoolMax {
		g.DH, g.DW, g.Ceil = iv[6], iv[7], iv[8] != 0
	} else {
		g.Ceil, g.CountIncludePad = iv[6] != 0, iv[7] != 0
		if iv[8] != 0 {
			if iv[9] == 0 {
				return g, kernel.Errorf(kernel.ErrArgument, "divisor must be not zero")
			}
			g.Divisor = iv[9]
		}
	}
	if nd != 3 && nd != 4 {
		if g.Kind == PoolMax {
			return g, kernel.Errorf(kernel.ErrShape, "non-empty 3D or 4D (batch mode) tensor expected for input")
		}
		return g, kernel.Errorf(kernel.ErrShape, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:%s",
			kernel.ShapeString(shape))
	}
	g.fillInput(shape)
	var err error
	if g.OH, err = PoolOutputSize(g.IH, g.KH, g.PH, g.SH, g.DH, g.Ceil); err != nil {
		return g, err
	}
	if g.OW, err = PoolOutputSize(g.IW, g.KW, g.PW, g.SW, g.DW, g.Ceil); err != nil {
		return g, err
	}
	// pool2d_shape_check.
	switch {
	case g.KW <= 0 || g.KH <= 0:
		return g, kernel.Errorf(kernel.ErrArgument, "kernel size should be greater than zero, but got kH: %d kW: %d", g.KH, g.KW)
	case g.SW <= 0 || g.SH <= 0:
		return g, kernel.Errorf(kernel.ErrArgument, "stride should be greater than zero, but got dH: %d dW: %d", g.SH, g.SW)
	case g.DH <= 0 || g.DW <= 0:
		return g, kernel.Errorf(kernel.ErrArgument, "dilation should be greater than zero, but got dilationH: %d dilationW: %d", g.DH, g.DW)
	}
	validDims := shape[nd-2] != 0 && shape[nd-1] != 0
	if !(nd == 3 && shape[0] != 0 && validDims) && !(nd == 4 && shape[1] != 0 && validDims) {
		return g, kernel.Errorf(kernel.ErrShape, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:%s",
			kernel.ShapeString(shape))
	}
	if g.OW < 1 || g.OH < 1 {
		return g, kernel.Errorf(kernel.ErrShape, "Given input size: (%dx%dx%d). Calculated output size: (%dx%dx%d). Output size is too small",
			g.C, g.IH, g.IW, g.C, g.OH, g.OW)
	}
	return g, nil
}

// fillInput sets N, C, H and W from an input of 3 or 4 dims.
func (g *Pool2dGeometry) fillInput(shape []int) {
	nd := len(shape)
	g.Batched = nd == 4
	g.N = 1
	if g.Batched {
		g.N = shape[0]
	}
	g.C, g.IH, g.IW = shape[nd-3], shape[nd-2], shape[nd-1]
}

// poolDTypeOK reports whether PyTorch 1.13's CPU has the pooling op for d:
// float32, float64 and bfloat16, and int64 for avg_pool2d's forward.
func poolDTypeOK(k PoolKind, backward bool, d dtype.DType) bool {
	switch d {
	case dtype.Float32, dtype.Float64, dtype.BFloat16:
		return true
	case dtype.Int64:
		return k == PoolAvg && !backward
	}
	return false
}

// Pool2d is the meta function of the pooling ops and their gradients.
// Forward: Out[0] the pooled values in the input's dtype, (N, C, OH, OW)
// or (C, OH, OW), and for the max pools Out[1] the int64 indices. Backward
// (In[0] the output's gradient, In[1] self, In[2] the max pools' indices):
// Out[0] the input's gradient, of self's shape and dtype.
func Pool2d(c *kernel.Call) error {
	g, err := PoolGeometry(c)
	if err != nil {
		return err
	}
	name := g.Kind.forwardName()
	self := &c.In[0]
	if g.Backward {
		self = &c.In[1]
	}
	if !poolDTypeOK(g.Kind, g.Backward, self.DType) {
		return kernel.Errorf(kernel.ErrDType, "\"%s\" not implemented for '%s'", name, kernel.PyName(self.DType))
	}
	out := g.OutShape(c.NewInts(4))
	if !g.Backward {
		withIndices := g.Kind == PoolMax || g.Kind == PoolAdaptiveMax
		if withIndices {
			c.SetOutputs(2)
		} else {
			c.SetOutputs(1)
		}
		if err := contiguousOut(c, 0, self.DType, out); err != nil {
			return err
		}
		if withIndices {
			return contiguousOut(c, 1, dtype.Int64, out)
		}
		return nil
	}
	grad := &c.In[0]
	if !slices.Equal(grad.Shape, out) {
		return kernel.Errorf(kernel.ErrShape, "%s_backward: expected a gradient of shape %s, got %s",
			name, kernel.ShapeString(out), kernel.ShapeString(grad.Shape))
	}
	if !grad.DType.IsFloatingPoint() {
		return kernel.Errorf(kernel.ErrDType, "\"%s_backward\" not implemented for '%s'", name, kernel.PyName(grad.DType))
	}
	if g.Kind == PoolMax || g.Kind == PoolAdaptiveMax {
		if len(c.In) < 3 {
			return kernel.Errorf(kernel.ErrArgument, "%s_backward: no indices given", name)
		}
		idx := &c.In[2]
		if idx.DType != dtype.Int64 || !slices.Equal(idx.Shape, out) {
			return kernel.Errorf(kernel.ErrShape, "%s_backward: expected int64 indices of shape %s, got %s of shape %s",
				name, kernel.ShapeString(out), kernel.PyName(idx.DType), kernel.ShapeString(idx.Shape))
		}
	}
	c.SetOutputs(1)
	return contiguousOut(c, 0, self.DType, slices.Clone(self.Shape))
}
