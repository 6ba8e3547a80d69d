package nn

import (
	"fmt"
	"math"

	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// EmbeddingOptions are torch.nn.functional.embedding's options.
type EmbeddingOptions struct {
	// PaddingIdx, when not nil, is the row (negative counts from the end)
	// whose gradient is zero; EmbeddingBag leaves its entries out of the
	// bags.
	PaddingIdx *int
	// MaxNorm, when not nil, renormalises each looked-up row of the weight
	// in place whose NormType-norm is above it to norm MaxNorm.
	MaxNorm  *float64
	NormType float64 // 0 is PyTorch's default, 2
}

func (o EmbeddingOptions) normType() float64 {
	if o.NormType == 0 {
		return 2
	}
	return o.NormType
}

// EmbeddingF is torch.nn.functional.embedding(indices, weight,
// padding_idx, max_norm, norm_type).
func EmbeddingF(indices, weight *torch.Tensor, o EmbeddingOptions) *torch.Tensor {
	return embedding("embedding", indices, weight, o)
}

// paddingIndex checks and normalises o.PaddingIdx for num rows (-1: none).
func paddingIndex(op string, o EmbeddingOptions, num int, w *torch.Tensor) (int, error) {
	if o.PaddingIdx == nil {
		return -1, nil
	}
	p := *o.PaddingIdx
	if p >= num || p < -num {
		return 0, torch.NewError(op, torch.ErrIndex, []*torch.Tensor{w}, "Padding_idx must be within num_embeddings")
	}
	if p < 0 {
		p += num
	}
	return p, nil
}

func embedding(op string, x, w *torch.Tensor, o EmbeddingOptions) *torch.Tensor {
	out := torch.Embedding(x, w) // checks the arguments and the indices
	if out.Err() != nil {
		return out
	}
	pad, err := paddingIndex(op, o, w.Shape()[0], w)
	if err != nil {
		return torch.Failed(err)
	}
	if o.MaxNorm != nil {
		if err := renorm(op, w, x.Reshape(-1), *o.MaxNorm, o.normType()); err != nil {
			return torch.Failed(err)
		}
		out = torch.Embedding(x, w)
	}
	if pad >= 0 {
		// The padding row's value, without a gradient.
		out = torch.Where(x.EqScalar(pad).Unsqueeze(-1), out.Detach(), out)
	}
	return out
}

// renorm scales in place, recording nothing, the rows idx of w whose
// p-norm is above maxNorm to norm maxNorm (up to PyTorch's 1e-7), as
// torch.embedding_renorm_.
func renorm(op string, w, idx *torch.Tensor, maxNorm, p float64) error {
	var err error
	torch.NoGrad(func() {
		data := w.Detach()
		rows := data.IndexSelect(0, idx)
		norms := rows.NormKeepDim(p, 1)
		scale := torch.Where(norms.GtScalar(maxNorm), torch.FullLike(norms, maxNorm).Div(norms.AddScalar(1e-7)), torch.OnesLike(norms))
		err = data.IndexCopy_(0, idx, rows.Mul(scale)).Err()
	})
	if err != nil {
		return torch.NewError(op, torch.ErrArgument, []*torch.Tensor{w}, "max_norm: %v", err)
	}
	return nil
}

// EmbeddingBag sums, averages or takes the maximum of bags of rows of
// Weight, as torch.nn.EmbeddingBag.
type EmbeddingBag struct {
	Base
	Weight *torch.Tensor // [num, dim], drawn from N(0, 1)
	Mode   string        // "sum", "mean" (PyTorch's default) or "max"
	// PaddingIdx, MaxNorm and NormType are as Embedding's.
	PaddingIdx *int
	MaxNorm    *float64
	NormType   float64
}

// NewEmbeddingBag is torch.nn.EmbeddingBag(num, dim, mode=mode).
func NewEmbeddingBag(num, dim int, mode string, opts ...torch.Option) *EmbeddingBag {
	w := torch.Empty([]int{num, dim}, opts...)
	Normal_(w, 0, 1, opts...)
	return &EmbeddingBag{Weight: Parameter(w), Mode: mode, NormType: 2}
}

// Forward reduces each row of the [B, N] indices x to a bag: [B, dim].
func (e *EmbeddingBag) Forward(x *torch.Tensor) *torch.Tensor {
	return e.ForwardBags(x, nil, nil)
}

// ForwardBags is torch.nn.EmbeddingBag's forward(input, offsets,
// per_sample_weights): 1-D indices x with the offsets where each bag
// starts, or [B, N] indices and nil offsets; perSampleWeights (x's shape,
// mode "sum" only) or nil.
func (e *EmbeddingBag) ForwardBags(x, offsets, perSampleWeights *torch.Tensor) *torch.Tensor {
	if e == nil {
		return nilModule("EmbeddingBag", "EmbeddingBag", x)
	}
	return embeddingBag("EmbeddingBag", x, e.Weight, offsets, perSampleWeights, e.Mode,
		EmbeddingOptions{PaddingIdx: e.PaddingIdx, MaxNorm: e.MaxNorm, NormType: e.NormType})
}

// ExtraRepr is "10, 3, mode=mean".
func (e *EmbeddingBag) ExtraRepr() string {
	if e == nil {
		return ""
	}
	num, dim := 0, 0
	if s := e.Weight.Shape(); len(s) == 2 {
		num, dim = s[0], s[1]
	}
	out := fmt.Sprintf("%d, %d", num, dim)
	if e.MaxNorm != nil {
		out += ", max_norm=" + pyfmt.Float(*e.MaxNorm)
		if e.NormType != 2 {
			out += ", norm_type=" + pyfmt.Float(e.NormType)
		}
	}
	out += ", mode=" + e.Mode
	if e.PaddingIdx != nil {
		out += fmt.Sprintf(", padding_idx=%d", *e.PaddingIdx)
	}
	return out
}

// String prints the module as PyTorch does.
func (e *EmbeddingBag) String() string { return Repr(e) }

// EmbeddingBagF is torch.nn.functional.embedding_bag(x, weight, offsets,
// mode=mode, per_sample_weights=...): the rows of weight named by x
// reduced per bag ("sum", "mean" or "max"; an empty bag gives zeros). x
// is 1-D with offsets (where each bag starts; the first is 0), or [B, N]
// with nil offsets. perSampleWeights, x's shape, scales the rows (mode
// "sum" only).
func EmbeddingBagF(x, weight, offsets, perSampleWeights *torch.Tensor, mode string, o EmbeddingOptions) *torch.Tensor {
	return embeddingBag("embedding_bag", x, weight, offsets, perSampleWeights, mode, o)
}

func embeddingBag(op string, x, w, offsets, psw *torch.Tensor, mode string, o EmbeddingOptions) *torch.Tensor {
	fail := func(kind error, format string, args ...any) *torch.Tensor {
		return torch.Failed(torch.NewError(op, kind, []*torch.Tensor{x, w}, format, args...))
	}
	if err := inputErr(op, x, w); err != nil {
		return torch.Failed(err)
	}
	if err := optionalErr(offsets, psw); err != nil {
		return torch.Failed(err)
	}
	if psw != nil && !sameShape(psw.Shape(), x.Shape()) {
		return fail(torch.ErrShape, "embedding_bag: If per_sample_weights (%s) is not None, then it must have the same shape as the input (%s)",
			sizeString(psw.Shape()), sizeString(x.Shape()))
	}
	if w.Dim() != 2 {
		return fail(torch.ErrShape, "weight has to be a 2D Tensor, but got Tensor of dimension %d", w.Dim())
	}
	if x.DType() != torch.Int64 && x.DType() != torch.Int32 {
		return fail(torch.ErrDType, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %v instead", x.DType())
	}
	var bags int
	var bag *torch.Tensor // the bag of each index
	switch x.Dim() {
	case 2:
		if offsets != nil {
			return fail(torch.ErrArgument, "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "+
				"sequences. However, found offsets of type <class 'torch.Tensor'>")
		}
		s := x.Shape()
		bags = s[0]
		bag = torch.Arange(s[0], torch.WithDType(torch.Int64), torch.OnDevice(x.Device())).RepeatInterleave(s[1], 0)
		x = x.Reshape(-1)
		if psw != nil {
			psw = psw.Reshape(-1)
		}
	case 1:
		if offsets == nil {
			return fail(torch.ErrArgument, "offsets has to be a 1D Tensor but got None")
		}
		if offsets.Dim() != 1 {
			return fail(torch.ErrShape, "offsets has to be a 1D Tensor")
		}
		bags = offsets.Numel()
		if bags > 0 {
			// Without data (the meta device) the offsets are not checked.
			first, err := offsets.Select(0, 0).ItemInt()
			if err == nil && first != 0 {
				return fail(torch.ErrArgument, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "+
					"position 0. However, got %d", first)
			}
			last, err := offsets.Select(0, bags-1).ItemInt()
			if err == nil && last > int64(x.Numel()) {
				return fail(torch.ErrArgument, "offsets[-1] can not be greater than input's length %d but got offsets[-1] of %d", x.Numel(), last)
			}
		}
		pos := torch.Arange(x.Numel(), torch.WithDType(torch.Int64), torch.OnDevice(x.Device()))
		bag = torch.Searchsorted(offsets.ToDType(torch.Int64), pos, true).SubScalar(1)
	default:
		return fail(torch.ErrShape, "input has to be 1D or 2D Tensor, but got Tensor of dimension %d", x.Dim())
	}
	switch mode {
	case "sum", "mean", "max":
	default:
		return fail(torch.ErrArgument, "mode has to be one of sum, mean or max")
	}
	if psw != nil && mode != "sum" {
		return fail(torch.ErrNotImplemented, "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "+
			"for mode='sum' (got mode='%s'). Please open a feature request on GitHub.", mode)
	}
	pad, err := paddingIndex(op, o, w.Shape()[0], w)
	if err != nil {
		return torch.Failed(err)
	}
	rows := embedding(op, x, w, EmbeddingOptions{MaxNorm: o.MaxNorm, NormType: o.NormType})
	if rows.Err() != nil {
		return rows
	}
	n, dim := x.Numel(), w.Shape()[1]
	on := []torch.Option{torch.WithDType(rows.DType()), torch.OnDevice(rows.Device())}
	zeros := torch.Zeros([]int{bags, dim}, on...)
	// keep is 1 for the entries that belong to their bag, 0 for padding.
	keep := torch.Ones([]int{n}, on...)
	if pad >= 0 {
		keep = x.NeScalar(pad).ToDType(rows.DType())
	}
	switch mode {
	case "sum":
		if psw != nil {
			rows = rows.Mul(psw.Unsqueeze(1))
		}
		if pad >= 0 {
			rows = rows.Mul(keep.Unsqueeze(1))
		}
		return zeros.IndexAdd(0, bag, rows, 1)
	case "mean":
		if pad >= 0 {
			rows = rows.Mul(keep.Unsqueeze(1))
		}
		counts := torch.Zeros([]int{bags}, on...).IndexAdd(0, bag, keep, 1)
		return zeros.IndexAdd(0, bag, rows, 1).Div(counts.Clamp(1, nil).Unsqueeze(1))
	}
	// max: the first row holding each bag's maximum, by gather, so that the
	// gradient goes to it alone as in PyTorch.
	if n == 0 {
		return zeros
	}
	bagE := bag.Unsqueeze(1).Expand(n, dim)
	kept := keep.Unsqueeze(1).Expand(n, dim).GtScalar(0)
	vals := torch.Where(kept, rows.Detach(), torch.FullLike(rows, math.Inf(-1)))
	maxv := zeros.ScatterReduce(0, bagE, vals, "amax", false)
	pos := torch.Arange(n, torch.WithDType(torch.Int64), torch.OnDevice(rows.Device())).Unsqueeze(1).Expand(n, dim)
	cand := torch.Where(vals.Eq(maxv.IndexSelect(0, bag)).LogicalAnd(kept), pos, torch.FullLike(pos, n))
	first := torch.Full([]int{bags, dim}, n, torch.WithDType(torch.Int64), torch.OnDevice(rows.Device())).ScatterReduce(0, bagE, cand, "amin", true)
	got := rows.Gather(0, first.Clamp(nil, n-1))
	return torch.Where(first.EqScalar(n), zeros, got)
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
