package nn

import (
	"errors"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The loss functions of torch.nn.functional. Each reduces over the batch
// with the mean unless a LossOption says otherwise. Their inputs and
// options are checked as PyTorch checks them: a nil or failed input, an
// unknown reduction, an option out of its range, a class weight of the
// wrong size, dtype or device is an error the returned tensor carries.

// Reduction says how a loss combines the per-element losses.
type Reduction int

// The reductions of PyTorch's reduction= argument.
const (
	Mean Reduction = iota // the (weighted) mean
	Sum                   // the sum
	None                  // no reduction: one loss per element
)

// lossConfig holds the options of a loss call.
type lossConfig struct {
	reduction      Reduction
	weight         *torch.Tensor
	ignoreIndex    int64
	labelSmoothing float64
	posWeight      *torch.Tensor
	beta           float64
	moreOptions    // the options of the losses of loss_more.go
	ctc            ctcOptions
}

// LossOption sets an option of a loss function. A nil LossOption sets
// nothing.
type LossOption func(*lossConfig)

// WithReduction chooses Mean (the default), Sum or None.
func WithReduction(r Reduction) LossOption { return func(c *lossConfig) { c.reduction = r } }

// WithWeight gives each class a weight (NLL, CrossEntropy) or each element
// one (BCE, BCEWithLogits).
func WithWeight(w *torch.Tensor) LossOption { return func(c *lossConfig) { c.weight = w } }

// WithIgnoreIndex names a target class that contributes neither loss nor
// gradient (default -100).
func WithIgnoreIndex(i int64) LossOption { return func(c *lossConfig) { c.ignoreIndex = i } }

// WithLabelSmoothing mixes the target with the uniform distribution by eps,
// in [0, 1] (CrossEntropy).
func WithLabelSmoothing(eps float64) LossOption {
	return func(c *lossConfig) { c.labelSmoothing = eps }
}

// WithPosWeight weights the positive examples of BCEWithLogits per class.
func WithPosWeight(w *torch.Tensor) LossOption { return func(c *lossConfig) { c.posWeight = w } }

// WithBeta sets the threshold of SmoothL1 (default 1, at least 0) or the
// delta of Huber (default 1, above 0).
func WithBeta(beta float64) LossOption { return func(c *lossConfig) { c.beta = beta } }

// configure reads the options of the loss op over the tensors ins (nil
// weights stand for none) and checks what every loss checks: no input nil
// or failed, a known reduction.
func configure(op string, opts []LossOption, ins ...*torch.Tensor) (lossConfig, error) {
	c := lossConfig{ignoreIndex: -100, beta: 1}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if err := inputErr(op, ins...); err != nil {
		return c, err
	}
	for _, w := range []*torch.Tensor{c.weight, c.posWeight} {
		if w != nil && w.Err() != nil {
			return c, w.Err()
		}
	}
	if c.reduction != Mean && c.reduction != Sum && c.reduction != None {
		return c, torch.NewError(op, torch.ErrArgument, ins, "%d is not a valid value for reduction: expected Mean, Sum or None", c.reduction)
	}
	return c, nil
}

// checkFloat refuses inputs whose promoted dtype is not floating, as
// PyTorch's loss kernels do.
func checkFloat(op string, a, b *torch.Tensor) error {
	if dt := torch.PromoteTypes(a.DType(), b.DType()); !dt.IsFloatingPoint() {
		return torch.NewError(op, torch.ErrDType, []*torch.Tensor{a, b}, "%q not implemented for '%s'", op, kernel.PyName(dt))
	}
	return nil
}

// checkClassWeight checks the weight of classes along dim of input x: one
// per class, of x's dtype and device.
func (c *lossConfig) checkClassWeight(op string, x *torch.Tensor, dim int) error {
	w := c.weight
	if w == nil {
		return nil
	}
	ins := []*torch.Tensor{x, w}
	classes := dimOr(x.Shape(), dim)
	switch {
	case w.Dim() != 1 || w.Numel() != classes:
		return torch.NewError(op, torch.ErrShape, ins, "weight tensor should be defined either for all %d classes or no classes "+
			"but got weight tensor of shape: %v", classes, w.Shape())
	case w.DType() != x.DType():
		return torch.NewError(op, torch.ErrDType, ins, "expected scalar type %s but found %s", kernel.PyName(x.DType()), kernel.PyName(w.DType()))
	case w.Device() != x.Device():
		return torch.NewError(op, torch.ErrDevice, ins, "Expected all tensors to be on the same device, but found at least two devices, %v and %v",
			x.Device(), w.Device())
	}
	return nil
}

// reduce applies the reduction to per-element losses l.
func (c *lossConfig) reduce(l *torch.Tensor) *torch.Tensor {
	switch c.reduction {
	case Sum:
		return l.Sum()
	case None:
		return l
	}
	return l.Mean()
}

// NLL is the negative log-likelihood loss of log-probabilities logp
// ([N, C] or [N, C, d...], or [C]) for int64 class indices target ([N] or
// [N, d...], or 0-dim), as F.nll_loss: the mean over non-ignored elements
// is weighted by the targets' class weights.
func NLL(logp, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	c, err := configure("nll_loss", opts, logp, target)
	if err != nil {
		return torch.Failed(err)
	}
	return c.nll(logp, target)
}

func (c *lossConfig) nll(logp, target *torch.Tensor) *torch.Tensor {
	ins := []*torch.Tensor{logp, target}
	if !logp.DType().IsFloatingPoint() {
		return torch.Failed(torch.NewError("nll_loss", torch.ErrDType, ins, "\"nll_loss\" not implemented for '%s'", kernel.PyName(logp.DType())))
	}
	if target.DType() != torch.Int64 {
		return torch.Failed(torch.NewError("nll_loss", torch.ErrDType, ins,
			"expected scalar type Long but found %s", kernel.PyName(target.DType())))
	}
	ls, ts := logp.Shape(), target.Shape()
	batched := len(ls) >= 2
	if len(ls) == 0 || (batched && (len(ts) != len(ls)-1 || ts[0] != ls[0] || !slices.Equal(ts[1:], ls[2:]))) ||
		(!batched && len(ts) != 0) {
		return torch.Failed(torch.NewError("nll_loss", torch.ErrShape, ins,
			"Expected input batch_size (%d) to match target batch_size (%d).", dimOr(ls, 0), dimOr(ts, 0)))
	}
	if !batched { // a single sample: [C] and a 0-dim target
		logp, target = logp.Unsqueeze(0), target.Unsqueeze(0)
	}
	if err := c.checkClassWeight("nll_loss", logp, 1); err != nil {
		return torch.Failed(err)
	}
	classes := logp.Shape()[1]
	valid := target.NeScalar(c.ignoreIndex)
	safe := torch.Where(valid, target, torch.Zeros(nil, torch.WithDType(torch.Int64), torch.OnDevice(target.Device())))
	picked := logp.Gather(1, safe.Unsqueeze(1)).SqueezeDim(1).Neg()
	if errors.Is(picked.Err(), torch.ErrIndex) {
		return torch.Failed(torch.NewError("nll_loss", torch.ErrIndex, ins, "Target out of bounds: classes are 0 to %d", classes-1))
	}
	w := valid.ToDType(logp.DType())
	if c.weight != nil {
		w = w.Mul(c.weight.Index(safe))
	}
	l := picked.Mul(w)
	switch c.reduction {
	case Sum:
		return l.Sum()
	case None:
		if !batched {
			return l.SqueezeDim(0)
		}
		return l
	}
	return l.Sum().Div(w.Sum())
}

// CrossEntropy is log_softmax over dim 1 followed by NLL for int64 class
// targets, or the cross-entropy with class probabilities when target is
// floating point and shaped as logits, as F.cross_entropy (label smoothing
// and class weights included).
func CrossEntropy(logits, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "cross_entropy"
	c, err := configure(op, opts, logits, target)
	if err != nil {
		return torch.Failed(err)
	}
	if ls := c.labelSmoothing; !(ls >= 0 && ls <= 1) {
		return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{logits, target},
			"label_smoothing must be between 0.0 and 1.0. Got: %v", ls))
	}
	dim := 1
	if logits.Dim() == 1 {
		dim = 0
	}
	logp := logits.LogSoftmax(dim)
	if logp.Err() != nil {
		return logp
	}
	if err := c.checkClassWeight(op, logp, dim); err != nil {
		return torch.Failed(err)
	}
	if target.DType().IsFloatingPoint() {
		return c.softCrossEntropy(logp, target, dim)
	}
	if c.labelSmoothing <= 0 {
		return c.nll(logp, target)
	}
	// (1-eps) * nll + eps/C * the loss against the uniform distribution.
	eps, classes := c.labelSmoothing, logits.Shape()[dim]
	plain := c.nll(logp, target)
	valid := target.NeScalar(c.ignoreIndex)
	lp := logp
	if c.weight != nil {
		lp = lp.Mul(classWeights(c.weight, logp.Dim(), dim))
	}
	smooth := lp.Sum(dim).Neg().Mul(valid.ToDType(lp.DType()))
	switch c.reduction {
	case Sum:
		smooth = smooth.Sum()
	case Mean:
		if c.weight != nil {
			safe := torch.Where(valid, target, torch.Zeros(nil, torch.WithDType(torch.Int64)))
			smooth = smooth.Sum().Div(c.weight.Index(safe).Mul(valid.ToDType(lp.DType())).Sum())
		} else {
			smooth = smooth.Sum().Div(valid.ToDType(lp.DType()).Sum())
		}
	}
	return plain.MulScalar(1 - eps).Add(smooth.MulScalar(eps / float64(classes)))
}

// softCrossEntropy is the cross-entropy with class probabilities.
func (c *lossConfig) softCrossEntropy(logp, target *torch.Tensor, dim int) *torch.Tensor {
	if !slices.Equal(logp.Shape(), target.Shape()) {
		return torch.Failed(torch.NewError("cross_entropy", torch.ErrShape, []*torch.Tensor{logp, target},
			"Expected target size %v, got %v", logp.Shape(), target.Shape()))
	}
	classes := logp.Shape()[dim]
	if c.labelSmoothing > 0 {
		target = target.MulScalar(1 - c.labelSmoothing).AddScalar(c.labelSmoothing / float64(classes))
	}
	prod := logp.Mul(target)
	if c.weight != nil {
		prod = prod.Mul(classWeights(c.weight, logp.Dim(), dim))
	}
	l := prod.Sum(dim).Neg()
	if c.reduction == Mean && logp.Dim() > 1 {
		return l.Sum().DivScalar(logp.Numel() / classes)
	}
	return c.reduce(l)
}

// MSE is the mean squared error between input and target (broadcast).
func MSE(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	c, err := configure("mse_loss", opts, input, target)
	if err == nil {
		err = checkFloat("mse_loss", input, target)
	}
	if err != nil {
		return torch.Failed(err)
	}
	return c.reduce(input.Sub(target).Square())
}

// L1 is the mean absolute error.
func L1(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	c, err := configure("l1_loss", opts, input, target)
	if err != nil {
		return torch.Failed(err)
	}
	return c.reduce(input.Sub(target).Abs())
}

// SmoothL1 is 0.5 d^2/beta where |d| < beta, else |d| - 0.5 beta.
func SmoothL1(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "smooth_l1_loss"
	c, err := configure(op, opts, input, target)
	if err == nil {
		err = checkFloat(op, input, target)
	}
	if err == nil && !(c.beta >= 0) {
		err = torch.NewError(op, torch.ErrArgument, []*torch.Tensor{input, target}, "smooth_l1_loss does not support negative values for beta.")
	}
	if err != nil {
		return torch.Failed(err)
	}
	d := input.Sub(target).Abs()
	if c.beta == 0 {
		return c.reduce(d)
	}
	return c.reduce(torch.Where(d.LtScalar(c.beta), d.Square().MulScalar(0.5/c.beta), d.SubScalar(0.5*c.beta)))
}

// Huber is 0.5 d^2 where |d| < delta (WithBeta), else delta(|d| - 0.5 delta).
func Huber(input, target *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "huber_loss"
	c, err := configure(op, opts, input, target)
	if err == nil {
		err = checkFloat(op, input, target)
	}
	if err == nil && !(c.beta > 0) {
		err = torch.NewError(op, torch.ErrArgument, []*torch.Tensor{input, target}, "huber_loss does not support non-positive values for delta.")
	}
	if err != nil {
		return torch.Failed(err)
	}
	d := input.Sub(target).Abs()
	return c.reduce(torch.Where(d.LtScalar(c.beta), d.Square().MulScalar(0.5), d.SubScalar(0.5*c.beta).MulScalar(c.beta)))
}

// BCE is the binary cross-entropy of probabilities p against targets y of
// p's shape and dtype, with PyTorch's clamp of the logarithms at -100.
// Every element of p must lie in [0, 1] (checked on devices with data).
func BCE(p, y *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "binary_cross_entropy"
	c, err := configure(op, opts, p, y)
	if err == nil {
		err = checkBCE(op, p, y)
	}
	if err != nil {
		return torch.Failed(err)
	}
	logp := p.Log().Clamp(-100, nil)
	log1mp := p.Neg().Log1p().Clamp(-100, nil)
	l := y.Mul(logp).Add(y.Neg().AddScalar(1).Mul(log1mp)).Neg()
	if c.weight != nil {
		l = l.Mul(c.weight)
	}
	return c.reduce(l)
}

// checkBCE checks BCE's probabilities p and targets y.
func checkBCE(op string, p, y *torch.Tensor) error {
	ins := []*torch.Tensor{p, y}
	switch {
	case !slices.Equal(p.Shape(), y.Shape()):
		return torch.NewError(op, torch.ErrShape, ins, "Using a target size (%v) that is different to the input size (%v) is deprecated. "+
			"Please ensure they have the same size.", y.Shape(), p.Shape())
	case !p.DType().IsFloatingPoint():
		return torch.NewError(op, torch.ErrDType, ins, "\"binary_cross_entropy\" not implemented for '%s'", kernel.PyName(p.DType()))
	case y.DType() != p.DType():
		return torch.NewError(op, torch.ErrDType, ins, "Found dtype %s but expected %s", kernel.PyName(y.DType()), kernel.PyName(p.DType()))
	case p.IsMeta() || p.Numel() == 0:
		return nil
	}
	inRange, err := p.GeScalar(0).LogicalAnd(p.LeScalar(1)).All().ItemBool()
	if err != nil {
		return err
	}
	if !inRange {
		return torch.NewError(op, torch.ErrArgument, ins, "all elements of input should be between 0 and 1")
	}
	return nil
}

// BCEWithLogits is BCE of sigmoid(x), computed stably from the logits x,
// against targets y of x's shape.
func BCEWithLogits(x, y *torch.Tensor, opts ...LossOption) *torch.Tensor {
	const op = "binary_cross_entropy_with_logits"
	c, err := configure(op, opts, x, y)
	if err == nil && !slices.Equal(x.Shape(), y.Shape()) {
		err = torch.NewError(op, torch.ErrShape, []*torch.Tensor{x, y}, "Target size (%v) must be the same as input size (%v)", y.Shape(), x.Shape())
	}
	if err == nil {
		err = checkFloat(op, x, y)
	}
	if err != nil {
		return torch.Failed(err)
	}
	// (1-y) x + (1 + (pw-1) y) softplus(-x), with softplus(-x) computed as
	// PyTorch 1.13 does: m + log(e^-m + e^(-x-m)), m = max(-x, 0). Its
	// derivative is -sigmoid(-x) whichever way m's kink at x = 0 goes, so
	// the gradient at a logit of 0 is sigmoid(0) - y, as PyTorch's.
	// The terms are added in PyTorch's order.
	m := x.Neg().Clamp(0, nil)
	lse := m.Neg().Exp().Add(x.Neg().Sub(m).Exp()).Log()
	var l *torch.Tensor
	if c.posWeight != nil {
		l = y.Neg().AddScalar(1).Mul(x).Add(c.posWeight.SubScalar(1).Mul(y).AddScalar(1).Mul(lse.Add(m)))
	} else {
		l = y.Neg().AddScalar(1).Mul(x).Add(m).Add(lse)
	}
	if c.weight != nil {
		l = l.Mul(c.weight)
	}
	return c.reduce(l)
}

// classWeights views the per-class weights w along dim of an ndim tensor.
func classWeights(w *torch.Tensor, ndim, dim int) *torch.Tensor {
	shape := make([]int, ndim)
	for i := range shape {
		shape[i] = 1
	}
	shape[dim] = w.Numel()
	return w.View(shape...)
}

func dimOr(shape []int, i int) int {
	if i < len(shape) {
		return shape[i]
	}
	return 0
}
