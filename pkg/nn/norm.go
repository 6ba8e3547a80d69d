package nn

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// LayerNorm normalises the last dims of its input to mean 0 and variance 1
// (biased), then scales by Weight and shifts by Bias, as torch.nn.LayerNorm.
type LayerNorm struct {
	Shape  []int
	Eps    float64
	Weight *torch.Tensor // ones at first; nil without an elementwise affine
	Bias   *torch.Tensor // zeros at first
}

// NewLayerNorm normalises over the trailing dims shape, with eps 1e-5.
func NewLayerNorm(shape []int, opts ...torch.Option) *LayerNorm {
	return &LayerNorm{Shape: append([]int(nil), shape...), Eps: 1e-5,
		Weight: Parameter(torch.Ones(shape, opts...)), Bias: Parameter(torch.Zeros(shape, opts...))}
}

// Forward normalises x.
func (l *LayerNorm) Forward(x *torch.Tensor) *torch.Tensor {
	if l == nil {
		return nilModule("layer_norm", "LayerNorm", x)
	}
	if err := inputErr("layer_norm", x); err != nil {
		return torch.Failed(err)
	}
	n, s := len(l.Shape), x.Shape()
	if n == 0 {
		return torch.Failed(torch.NewError("layer_norm", torch.ErrShape, []*torch.Tensor{x}, "Expected normalized_shape to be at least "+
			"1-dimensional, i.e., containing at least one element, but got normalized_shape = []"))
	}
	if len(s) < n || !slices.Equal(s[len(s)-n:], l.Shape) {
		return torch.Failed(torch.NewError("layer_norm", torch.ErrShape, []*torch.Tensor{x},
			"Given normalized_shape=%v, expected input with shape [*, %v], but got input of size%v", l.Shape, l.Shape, s))
	}
	dims := make([]int, n)
	for i := range dims {
		dims[i] = -1 - i
	}
	mean := x.MeanKeepDim(dims...)
	v := x.VarCorrection(0, true, dims...)
	y := x.Sub(mean).Mul(v.AddScalar(l.Eps).Rsqrt())
	if l.Weight != nil {
		y = y.Mul(l.Weight)
	}
	if l.Bias != nil {
		y = y.Add(l.Bias)
	}
	return y
}

// NamedParameters lists weight and bias.
func (l *LayerNorm) NamedParameters() []Named {
	if l == nil {
		return nil
	}
	var ps []Named
	if l.Weight != nil {
		ps = append(ps, Named{"weight", l.Weight})
	}
	if l.Bias != nil {
		ps = append(ps, Named{"bias", l.Bias})
	}
	return ps
}

// Train does nothing.
func (l *LayerNorm) Train(bool) {}

// Embedding maps int64 indices to rows of Weight, as torch.nn.Embedding.
type Embedding struct {
	Weight *torch.Tensor // [num, dim], drawn from N(0, 1)
}

// NewEmbedding makes a table of num vectors of size dim.
func NewEmbedding(num, dim int, opts ...torch.Option) *Embedding {
	w := torch.Empty([]int{num, dim}, opts...)
	Normal_(w, 0, 1, opts...)
	return &Embedding{Weight: Parameter(w)}
}

// Forward looks up the rows named by the indices x.
func (e *Embedding) Forward(x *torch.Tensor) *torch.Tensor {
	if e == nil {
		return nilModule("embedding", "Embedding", x)
	}
	return torch.Embedding(x, e.Weight)
}

// NamedParameters lists the weight (none for a nil table).
func (e *Embedding) NamedParameters() []Named {
	if e == nil {
		return nil
	}
	return []Named{{"weight", e.Weight}}
}

// Train does nothing.
func (e *Embedding) Train(bool) {}
