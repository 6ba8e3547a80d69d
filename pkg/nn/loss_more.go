package nn

import (
	"errors"
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// More loss functions of torch.nn.functional: kl_div, cosine_embedding,
// margin_ranking, triplet_margin, hinge_embedding, poisson_nll,
// gaussian_nll, multilabel_soft_margin, multi_margin and soft_margin.
// Each is composed of tensor ops, as PyTorch composes it (or, for the
// losses PyTorch computes in one kernel, as that kernel computes), so that
// it runs on every device and its gradient is the composition's. Errors
// of the ops a loss is made of (inputs that do not broadcast) are
// reported under the loss's name.

// BatchMean is KLDiv's reduction "batchmean": the sum divided by the batch
// size, the input's first dim. Other losses refuse it.
const BatchMean Reduction = None + 1

// moreOptions holds the options of the losses below; each loss has its
// own defaults for the ones not set.
type moreOptions struct {
	margin, p, eps            optFloat
	logTarget, logInput, full optBool
	swap                      bool
}

type optFloat struct {
	v   float64
	set bool
}

func (o optFloat) or(def float64) float64 {
	if o.set {
		return o.v
	}
	return def
}

type optBool struct {
	v, set bool
}

func (o optBool) or(def bool) bool {
	if o.set {
		return o.v
	}
	return def
}

// WithMargin sets the margin of CosineEmbedding and MarginRanking (default
// 0), TripletMargin, HingeEmbedding and MultiMargin (default 1).
func WithMargin(m float64) LossOption {
	return func(c *lossConfig) { c.margin = optFloat{m, true} }
}

// WithP sets the norm degree of TripletMargin's distances (default 2) or
// the exponent of MultiMargin (1, the default, or 2).
func WithP(p float64) LossOption { return func(c *lossConfig) { c.p = optFloat{p, true} } }

// WithEps sets the small value of TripletMargin (added to the differences,
// default 1e-6), PoissonNLL (added to the input under the log when the
// input is not a log, default 1e-8) and GaussianNLL (the least variance,
// default 1e-6).
func WithEps(eps float64) LossOption { return func(c *lossConfig) { c.eps = optFloat{eps, true} } }

// WithSwap makes TripletMargin use the distance from the positive to the
// negative example when it is smaller than the anchor's.
func WithSwap(on bool) LossOption { return func(c *lossConfig) { c.swap = on } }

// WithLogTarget says KLDiv's target holds log-probabilities (default false).
func WithLogTarget(on bool) LossOption {
	return func(c *lossConfig) { c.logTarget = optBool{on, true} }
}

// WithLogInput says PoissonNLL's input is the log of the rate (default true).
func WithLogInput(on bool) LossOption {
	return func(c *lossConfig) { c.logInput = optBool{on, true} }
}

// WithFull adds the constant terms: Stirling's approximation of log(y!)
// to PoissonNLL, 0.5 log(2 pi) to GaussianNLL (default false).
func WithFull(on bool) LossOption { return func(c *lossConfig) { c.full = optBool{on, true} } }

// named returns the loss l, or when one of the ops the loss op is made of
// failed, its error under the loss's name (the kind and words kept).
func named(op string, ins []*torch.Tensor, l *torch.Tensor) *torch.Tensor {
	var e *torch.Error
	if err := l.Err(); err != nil && errors.As(err, &e) && e.Op != op {
		ne := torch.NewError(op, e.Kind, ins, "%s", e.Detail)
		ne.Err = e.Err
		return torch.Failed(ne)
	}
	return l
}

// KLDiv is the Kullback-Leibler divergence loss of log-probabilities input
// against target (probabilities, or log-probabilities WithLogTarget),
// broadcast, as F.kl_div: target (log target - input) per element. Its
// reductions include BatchMean; Mean divides by the number of elements.
func KLDiv(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "kl_div"
	batchMean := false
	opts = append(slices.Clip(opts), func(c *lossConfig) {
		if c.reduction == BatchMean {
			batchMean, c.reduction = true, Sum
		}
	})
	c, err := configure(op, opts, input, target)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{input, target}
	if !input.DType().IsFloatingPoint() || !target.DType().IsFloatingPoint() {
		return torch.Failed(torch.NewError(op, torch.ErrDType, ins, "kl_div: Integral inputs not supported."))
	}
	var l *torch.Tensor
	if c.logTarget.or(false) {
		l = target.Exp().Mul(target.Sub(input))
	} else {
		l = target.Xlogy(target).Sub(target.Mul(input))
	}
	l = c.reduce(l)
	if batchMean && input.Dim() != 0 {
		l = l.DivScalar(input.Shape()[0])
	}
	return named(op, ins, l)
}

// CosineEmbedding is the cosine embedding loss of x1 and x2 ([N, D], or
// [D] for one pair) for targets 1 or -1 ([N], or 0-dim), as
// F.cosine_embedding_loss: 1 - cos(x1, x2) where the target is 1,
// max(0, cos(x1, x2) - margin) where it is -1, 0 elsewhere.
func CosineEmbedding(x1, x2, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "cosine_embedding_loss"
	c, err := configure(op, opts, x1, x2, target)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{x1, x2, target}
	dim := target.Dim()
	switch {
	case dim > 1:
		err = torch.NewError(op, torch.ErrShape, ins, "0D or 1D target tensor expected, multi-target not supported")
	case dim == 1 && (x1.Dim() != 2 || x2.Dim() != 2):
		err = torch.NewError(op, torch.ErrShape, ins, "1D target tensor expects 2D input tensors, but found inputs with sizes %s and %s.",
			kernel.ShapeString(x1.Shape()), kernel.ShapeString(x2.Shape()))
	case dim == 0 && (x1.Dim() != 1 || x2.Dim() != 1):
		err = torch.NewError(op, torch.ErrShape, ins, "0D target tensor expects 1D input tensors, but found inputs with sizes %s and %s.",
			kernel.ShapeString(x1.Shape()), kernel.ShapeString(x2.Shape()))
	}
	if err != nil {
		return torch.Failed(err)
	}
	const epsilon = 1e-12 // PyTorch's, added to the squared magnitudes
	prod := x1.Mul(x2).Sum(dim)
	mag1 := x1.Mul(x1).Sum(dim).AddScalar(epsilon)
	mag2 := x2.Mul(x2).Sum(dim).AddScalar(epsilon)
	cos := prod.Div(mag1.Mul(mag2).Sqrt())
	zeros := torch.ZerosLike(cos)
	pos := torch.RSub(1, cos)
	neg := cos.SubScalar(c.margin.or(0)).Clamp(0, nil)
	l := torch.Where(target.EqScalar(1), pos, zeros).Add(torch.Where(target.EqScalar(-1), neg, zeros))
	return named(op, ins, c.reduce(l))
}

// MarginRanking is max(0, -target (x1 - x2) + margin) for targets 1 or -1
// (x1 should rank higher, or lower), the three of one number of dims and
// broadcast, as F.margin_ranking_loss.
func MarginRanking(x1, x2, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "margin_ranking_loss"
	c, err := configure(op, opts, x1, x2, target)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{x1, x2, target}
	if x1.Dim() != x2.Dim() || x1.Dim() != target.Dim() {
		return torch.Failed(torch.NewError(op, torch.ErrShape, ins,
			"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: %s, input2: %s, target: %s",
			kernel.ShapeString(x1.Shape()), kernel.ShapeString(x2.Shape()), kernel.ShapeString(target.Shape())))
	}
	l := target.Neg().Mul(x1.Sub(x2)).AddScalar(c.margin.or(0)).Clamp(0, nil)
	return named(op, ins, c.reduce(l))
}

// TripletMargin is max(0, margin + d(anchor, positive) - d(anchor,
// negative)) with d the p-norm distance over the last dim of the
// difference plus eps, as F.triplet_margin_loss; WithSwap takes the
// smaller of d(anchor, negative) and d(positive, negative). The three
// inputs have one number of dims ([N, D], or [D]) and broadcast.
func TripletMargin(anchor, positive, negative *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "triplet_margin_loss"
	c, err := configure(op, opts, anchor, positive, negative)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{anchor, positive, negative}
	if anchor.Dim() != positive.Dim() || positive.Dim() != negative.Dim() {
		return torch.Failed(torch.NewError(op, torch.ErrShape, ins, "All inputs should have same dimension but got %dD, %dD and %dD inputs.",
			anchor.Dim(), positive.Dim(), negative.Dim()))
	}
	p, eps := c.p.or(2), c.eps.or(1e-6)
	dist := func(a, b *torch.Tensor) *torch.Tensor { // F.pairwise_distance
		return a.Sub(b).AddScalar(eps).Norm(p, -1)
	}
	dPos, dNeg := dist(anchor, positive), dist(anchor, negative)
	if c.swap {
		dNeg = dNeg.Minimum(dist(positive, negative))
	}
	l := dPos.AddScalar(c.margin.or(1)).Sub(dNeg).Clamp(0, nil)
	return named(op, ins, c.reduce(l))
}

// HingeEmbedding is, for targets 1 or -1 (broadcast with input), input
// where the target is 1 and max(0, margin - input) where it is -1, as
// F.hinge_embedding_loss (other target values add both).
func HingeEmbedding(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "hinge_embedding_loss"
	c, err := configure(op, opts, input, target)
	if err != nil {
		return torch.Failed(err)
	}
	var margin any = c.margin.or(1)
	if !input.DType().IsFloatingPoint() {
		// PyTorch computes margin - input in the input's integer dtype,
		// the margin truncated.
		margin = int64(c.margin.or(1))
	}
	zeros := torch.ZerosLike(input)
	l := torch.Where(target.NeScalar(1), torch.RSub(margin, input).Clamp(0, nil), zeros).
		Add(torch.Where(target.NeScalar(-1), input, zeros))
	return named(op, []*torch.Tensor{input, target}, c.reduce(l))
}

// PoissonNLL is the negative log-likelihood of targets under a Poisson
// distribution of rate input (WithLogInput(true), the default: its log),
// broadcast, as F.poisson_nll_loss: exp(input) - target input, or input -
// target log(input + eps). WithFull adds Stirling's approximation of
// log(target!) where the target exceeds 1.
func PoissonNLL(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "poisson_nll_loss"
	c, err := configure(op, opts, input, target)
	if err != nil {
		return torch.Failed(err)
	}
	var l *torch.Tensor
	if c.logInput.or(true) {
		l = input.Exp().Sub(target.Mul(input))
	} else {
		l = input.Sub(target.Mul(input.AddScalar(c.eps.or(1e-8)).Log()))
	}
	if c.full.or(false) {
		stirling := target.Mul(target.Log()).Sub(target).Add(target.MulScalar(2 * math.Pi).Log().MulScalar(0.5))
		l = l.Add(stirling.MaskedFill(target.LeScalar(1), 0))
	}
	return named(op, []*torch.Tensor{input, target}, c.reduce(l))
}

// GaussianNLL is the negative log-likelihood of targets under Gaussians
// of means input and variances variance, as F.gaussian_nll_loss:
// 0.5 (log(var) + (input - target)^2 / var), var clamped at eps (without
// changing its gradient), plus 0.5 log(2 pi) WithFull. variance has
// input's shape, or input's without its last dim or with a last dim of 1
// (one variance per row); target broadcasts. Variances must not be
// negative (checked on devices with data).
func GaussianNLL(input, target, variance *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "gaussian_nll_loss"
	c, err := configure(op, opts, input, target, variance)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{input, target, variance}
	is, vs := input.Shape(), variance.Shape()
	if !slices.Equal(is, vs) {
		switch {
		case slices.Equal(allButLast(is), vs):
			variance = variance.Unsqueeze(-1)
		case len(vs) > 0 && slices.Equal(allButLast(is), allButLast(vs)) && vs[len(vs)-1] == 1:
		default:
			return torch.Failed(torch.NewError(op, torch.ErrShape, ins, "var is of incorrect size"))
		}
	}
	if !variance.IsMeta() && variance.Numel() > 0 {
		negative, err := variance.LtScalar(0).Any().ItemBool()
		if err != nil {
			return named(op, ins, torch.Failed(err))
		}
		if negative {
			return torch.Failed(torch.NewError(op, torch.ErrArgument, ins, "var has negative entry/entries"))
		}
	}
	// PyTorch clamps a clone in place with gradients off: the loss sees
	// the clamped variances, the gradient flows as if unclamped.
	v := variance.Clone()
	torch.NoGrad(func() { v.Clamp_(c.eps.or(1e-6), nil) })
	l := v.Log().Add(input.Sub(target).PowScalar(2).Div(v)).MulScalar(0.5)
	if c.full.or(false) {
		l = l.AddScalar(0.5 * math.Log(2*math.Pi))
	}
	return named(op, ins, c.reduce(l))
}

// allButLast is shape without its last dim (Python's shape[:-1]).
func allButLast(shape []int) []int {
	if len(shape) == 0 {
		return shape
	}
	return shape[:len(shape)-1]
}

// MultiLabelSoftMargin is the mean over the classes (input's last dim) of
// the binary cross-entropy of sigmoid(input) against targets 0 or 1
// (broadcast), optionally weighted per class (WithWeight, broadcast), as
// F.multilabel_soft_margin_loss: one loss per sample before the
// reduction.
func MultiLabelSoftMargin(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "multilabel_soft_margin_loss"
	c, err := configure(op, opts, input, target)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{input, target}
	if input.Dim() == 0 {
		return torch.Failed(torch.NewError(op, torch.ErrIndex, ins, "Dimension specified as -1 but tensor has no dimensions"))
	}
	l := target.Mul(input.LogSigmoid()).Add(torch.RSub(1, target).Mul(input.Neg().LogSigmoid())).Neg()
	if c.weight != nil {
		l = l.Mul(c.weight)
	}
	classDim := input.Dim() - 1
	l = l.Sum(classDim).DivScalar(input.Shape()[classDim])
	return named(op, ins, c.reduce(l))
}

// MultiMargin is the multi-class hinge loss of scores input ([N, C], or
// [C], or 0-dim for one class) for int64 class indices target ([N], or
// 0-dim or [1] for one sample), as F.multi_margin_loss: per sample, the
// sum over the classes j other than the target y of max(0, margin -
// input[y] + input[j])^p times weight[y] (WithWeight, one per class),
// divided by C. p is 1 (default) or 2.
func MultiMargin(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "multi_margin_loss"
	c, err := configure(op, opts, input, target)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{input, target}
	p, w := c.p.or(1), c.weight
	frames, classes := 1, 1
	switch input.Dim() {
	case 1:
		classes = input.Shape()[0]
	case 2:
		frames, classes = input.Shape()[0], input.Shape()[1]
	}
	switch {
	case p != 1 && p != 2:
		err = torch.NewError(op, torch.ErrArgument, ins, "only p == 1 and p == 2 supported")
	case w != nil && w.Dim() != 1:
		err = torch.NewError(op, torch.ErrShape, ins, "weight must be one-dimensional")
	case input.Dim() > 2 || (input.Dim() > 0 && classes == 0):
		err = torch.NewError(op, torch.ErrShape, ins, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s",
			kernel.ShapeString(input.Shape()))
	case target.Dim() > 1 || target.Numel() != frames:
		err = torch.NewError(op, torch.ErrShape, ins, "inconsistent target size, got: %s", kernel.ShapeString(target.Shape()))
	case !input.DType().IsFloatingPoint():
		err = torch.NewError(op, torch.ErrDType, ins, "\"multi_margin_loss_cpu_kernel\" not implemented for '%s'", kernel.PyName(input.DType()))
	case target.DType() != torch.Int64:
		err = torch.NewError(op, torch.ErrDType, ins, "expected scalar type Long but found %s", kernel.PyName(target.DType()))
	case w != nil && w.Numel() != classes:
		// PyTorch 1.13 reads past the end of such a weight; 2.x refuses it.
		err = torch.NewError(op, torch.ErrShape, ins, "inconsistent weight size, expected %d but got %s", classes, kernel.ShapeString(w.Shape()))
	case w != nil && w.DType() != input.DType():
		err = torch.NewError(op, torch.ErrDType, ins, "expected scalar type %s but found %s", kernel.PyName(input.DType()), kernel.PyName(w.DType()))
	}
	if err != nil {
		return torch.Failed(err)
	}
	x, y := input.Reshape(frames, classes), target.Reshape(frames, 1)
	picked := x.Gather(1, y)
	if errors.Is(picked.Err(), torch.ErrIndex) {
		return torch.Failed(torch.NewError(op, torch.ErrIndex, ins, "target out of range"))
	}
	// Relu, not a clamp: a margin met exactly (z = 0) has no gradient, as
	// in PyTorch's kernel.
	z := picked.Neg().AddScalar(c.margin.or(1)).Add(x).Relu()
	if p == 2 {
		z = z.Square()
	}
	if w != nil {
		z = z.Mul(w.Index(y))
	}
	isTarget := torch.Arange(classes, torch.OnDevice(input.Device())).Unsqueeze(0).Eq(y)
	l := z.MaskedFill(isTarget, 0).Sum(1).DivScalar(classes)
	switch {
	case c.reduction == None && target.Dim() == 0:
		l = l.Reshape()
	case c.reduction != None:
		// PyTorch 1.13 returns uninitialized memory for an empty batch;
		// here the mean of none is NaN and the sum 0.
		l = c.reduce(l)
	}
	return named(op, ins, l)
}

// SoftMargin is the two-class logistic loss log(1 + exp(-target input))
// for targets 1 or -1, as F.soft_margin_loss: input's shape and dtype,
// target broadcast to it.
func SoftMargin(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "soft_margin_loss"
	c, err := configure(op, opts, input, target)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{input, target}
	if !input.DType().IsFloatingPoint() {
		return torch.Failed(torch.NewError(op, torch.ErrDType, ins, "\"exp_vml_cpu\" not implemented for '%s'", kernel.PyName(input.DType())))
	}
	// PyTorch writes -input * target into a tensor like input, then
	// takes exp and log1p there: in input's dtype and shape.
	u := input.Neg().Mul(target)
	if u.Err() == nil && !slices.Equal(u.Shape(), input.Shape()) {
		return torch.Failed(torch.NewError(op, torch.ErrShape, ins, "output with shape %s doesn't match the broadcast shape %s",
			kernel.ShapeString(input.Shape()), kernel.ShapeString(u.Shape())))
	}
	l := u.ToDType(input.DType()).Exp().Log1p()
	return named(op, ins, c.reduce(l))
}
