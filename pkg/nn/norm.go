package nn

import (
	"fmt"
	"slices"

	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// LayerNorm normalises the last dims of its input to mean 0 and variance 1
// (biased), then scales by Weight and shifts by Bias, as torch.nn.LayerNorm.
type LayerNorm struct {
	Base
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
	if fusedNorm(x, l.Shape, l.Weight, l.Bias) {
		y, _, _ := torch.NativeLayerNorm(x, l.Shape, l.Weight, l.Bias, l.Eps)
		return y
	}
	dims := make([]int, n)
	for i := range dims {
		dims[i] = -1 - i
	}
	var tmp intermediates
	mean := tmp.add(x.MeanKeepDim(dims...))
	v := tmp.add(x.VarCorrection(0, true, dims...))
	y := tmp.add(x.Sub(mean)).Mul(tmp.add(tmp.add(v.AddScalar(l.Eps)).Rsqrt()))
	if l.Weight != nil {
		y = tmp.add(y).Mul(l.Weight)
	}
	if l.Bias != nil {
		y = tmp.add(y).Add(l.Bias)
	}
	tmp.release(y)
	return y
}

// fusedNorm says whether a norm of x with the optional parameters (each
// of the given shape) runs as one fused op (the dispatcher picks its
// kernel or, on a device without one, its decomposition): x float32 or
// float64, the parameters of that shape, x's dtype and device. Other
// dtypes keep the composite of tensor ops, with its promotions and
// roundings.
func fusedNorm(x *torch.Tensor, shape []int, params ...*torch.Tensor) bool {
	if x.DType() != torch.Float32 && x.DType() != torch.Float64 {
		return false
	}
	for _, p := range params {
		if p != nil && (p.DType() != x.DType() || p.Device() != x.Device() || !slices.Equal(p.Shape(), shape)) {
			return false
		}
	}
	return true
}

// ExtraRepr is "(4,), eps=1e-05, elementwise_affine=True".
func (l *LayerNorm) ExtraRepr() string {
	if l == nil {
		return ""
	}
	return pyTuple(l.Shape) + ", eps=" + pyfmt.Float(l.Eps) + ", elementwise_affine=" + pyBool(l.Weight != nil || l.Bias != nil)
}

// String prints the module as PyTorch does.
func (l *LayerNorm) String() string { return Repr(l) }

// Embedding maps int64 indices to rows of Weight, as torch.nn.Embedding.
type Embedding struct {
	Base
	Weight *torch.Tensor // [num, dim], drawn from N(0, 1)
	// PaddingIdx, when not nil, is the row that gets no gradient (zero at
	// first when made by NewEmbeddingWith).
	PaddingIdx *int
	// MaxNorm, when not nil, renormalises the looked-up rows of Weight in
	// place to a NormType-norm of at most MaxNorm.
	MaxNorm  *float64
	NormType float64 // 2 when made by a constructor
}

// NewEmbedding makes a table of num vectors of size dim.
func NewEmbedding(num, dim int, opts ...torch.Option) *Embedding {
	return NewEmbeddingWith(num, dim, EmbeddingOptions{}, opts...)
}

// NewEmbeddingWith is torch.nn.Embedding(num, dim, padding_idx, max_norm,
// norm_type): the row o.PaddingIdx (negative counts from the end) is zero.
// A bad padding index is reported by Forward.
func NewEmbeddingWith(num, dim int, o EmbeddingOptions, opts ...torch.Option) *Embedding {
	w := torch.Empty([]int{num, dim}, opts...)
	Normal_(w, 0, 1, opts...)
	e := &Embedding{Weight: Parameter(w), MaxNorm: o.MaxNorm, NormType: o.normType()}
	if o.PaddingIdx != nil {
		p := *o.PaddingIdx
		if p < 0 {
			p += num
		}
		e.PaddingIdx = &p
		if p >= 0 && p < num {
			torch.NoGrad(func() { e.Weight.Select(0, p).Zero_() })
		}
	}
	return e
}

// Forward looks up the rows named by the indices x.
func (e *Embedding) Forward(x *torch.Tensor) *torch.Tensor {
	if e == nil {
		return nilModule("embedding", "Embedding", x)
	}
	if e.PaddingIdx == nil && e.MaxNorm == nil {
		return torch.Embedding(x, e.Weight)
	}
	return embedding("Embedding", x, e.Weight, EmbeddingOptions{PaddingIdx: e.PaddingIdx, MaxNorm: e.MaxNorm, NormType: e.NormType})
}

// ExtraRepr is "10, 3": the number of vectors and their size, then the
// options that are set ("padding_idx=0, max_norm=1.0").
func (e *Embedding) ExtraRepr() string {
	if e == nil {
		return ""
	}
	num, dim := 0, 0
	if s := e.Weight.Shape(); len(s) == 2 {
		num, dim = s[0], s[1]
	}
	out := fmt.Sprintf("%d, %d", num, dim)
	if e.PaddingIdx != nil {
		out += fmt.Sprintf(", padding_idx=%d", *e.PaddingIdx)
	}
	if e.MaxNorm != nil {
		out += ", max_norm=" + pyfmt.Float(*e.MaxNorm)
		if e.NormType != 2 {
			out += ", norm_type=" + pyfmt.Float(e.NormType)
		}
	}
	return out
}

// String prints the module as PyTorch does.
func (e *Embedding) String() string { return Repr(e) }
