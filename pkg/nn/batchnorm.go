package nn

import (
	"fmt"

	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// BatchNorm1d normalises each channel (dim 1) of an [N, C] or [N, C, L]
// input over the batch, as torch.nn.BatchNorm1d. While training it uses
// the batch's mean and biased variance and updates the running stats with
// the unbiased variance; in evaluation mode it uses the running stats.
//
// Weight and Bias are nil without an affine transform; RunningMean,
// RunningVar and NumBatchesTracked are nil when running stats are not
// tracked (then the batch's stats are used in evaluation mode too).
type BatchNorm1d struct {
	Base
	NumFeatures int
	Eps         float64  // 1e-5 at first
	Momentum    *float64 // 0.1 at first; nil: the cumulative average of the batches' stats
	Weight      *torch.Tensor
	Bias        *torch.Tensor
	RunningMean *torch.Tensor `nn:"buffer"`
	RunningVar  *torch.Tensor `nn:"buffer"`
	// NumBatchesTracked counts the training batches (int64).
	NumBatchesTracked *torch.Tensor `nn:"buffer"`
}

// BatchNorm2d is BatchNorm1d for [N, C, H, W] inputs, as
// torch.nn.BatchNorm2d.
type BatchNorm2d BatchNorm1d

// InstanceNorm1d normalises each channel of each sample of an [N, C, L]
// or [C, L] input, as torch.nn.InstanceNorm1d. PyTorch's defaults have no
// affine transform and no running stats.
type InstanceNorm1d BatchNorm1d

// InstanceNorm2d is InstanceNorm1d for [N, C, H, W] or [C, H, W] inputs,
// as torch.nn.InstanceNorm2d.
type InstanceNorm2d BatchNorm1d

// newNorm makes a new state of a batch or instance norm of n channels: eps
// 1e-5, momentum 0.1, a weight of ones and a bias of zeros when affine,
// running stats 0 and 1 when tracked.
func newNorm(n int, affine, track bool, opts []torch.Option) *BatchNorm1d {
	m := 0.1
	b := &BatchNorm1d{NumFeatures: n, Eps: 1e-5, Momentum: &m}
	if affine {
		b.Weight = Parameter(torch.Ones([]int{n}, opts...))
		b.Bias = Parameter(torch.Zeros([]int{n}, opts...))
	}
	if track {
		b.RunningMean = torch.Zeros([]int{n}, opts...)
		b.RunningVar = torch.Ones([]int{n}, opts...)
		b.NumBatchesTracked = torch.Zeros(nil, append(append([]torch.Option(nil), opts...), torch.WithDType(torch.Int64))...)
		torch.Keep(b.RunningMean, b.RunningVar, b.NumBatchesTracked) // buffers outlive any torch.Tidy
	}
	return b
}

// NewBatchNorm1d is torch.nn.BatchNorm1d(n, affine=affine,
// track_running_stats=track); PyTorch's defaults are true and true.
func NewBatchNorm1d(n int, affine, track bool, opts ...torch.Option) *BatchNorm1d {
	return newNorm(n, affine, track, opts)
}

// NewBatchNorm2d is torch.nn.BatchNorm2d(n, affine=affine,
// track_running_stats=track); PyTorch's defaults are true and true.
func NewBatchNorm2d(n int, affine, track bool, opts ...torch.Option) *BatchNorm2d {
	return (*BatchNorm2d)(newNorm(n, affine, track, opts))
}

// NewInstanceNorm1d is torch.nn.InstanceNorm1d(n, affine=affine,
// track_running_stats=track); PyTorch's defaults are false and false.
func NewInstanceNorm1d(n int, affine, track bool, opts ...torch.Option) *InstanceNorm1d {
	return (*InstanceNorm1d)(newNorm(n, affine, track, opts))
}

// NewInstanceNorm2d is torch.nn.InstanceNorm2d(n, affine=affine,
// track_running_stats=track); PyTorch's defaults are false and false.
func NewInstanceNorm2d(n int, affine, track bool, opts ...torch.Option) *InstanceNorm2d {
	return (*InstanceNorm2d)(newNorm(n, affine, track, opts))
}

// Forward normalises x ([N, C] or [N, C, L]).
func (b *BatchNorm1d) Forward(x *torch.Tensor) *torch.Tensor {
	if b == nil {
		return nilModule("batch_norm", "BatchNorm1d", x)
	}
	return b.batchForward(x, "BatchNorm1d", 2, 3)
}

// Forward normalises x ([N, C, H, W]).
func (b *BatchNorm2d) Forward(x *torch.Tensor) *torch.Tensor {
	if b == nil {
		return nilModule("batch_norm", "BatchNorm2d", x)
	}
	return (*BatchNorm1d)(b).batchForward(x, "BatchNorm2d", 4, 4)
}

// Forward normalises x ([N, C, L] or [C, L]).
func (b *InstanceNorm1d) Forward(x *torch.Tensor) *torch.Tensor {
	if b == nil {
		return nilModule("instance_norm", "InstanceNorm1d", x)
	}
	return (*BatchNorm1d)(b).instanceForward(x, "InstanceNorm1d", 2)
}

// Forward normalises x ([N, C, H, W] or [C, H, W]).
func (b *InstanceNorm2d) Forward(x *torch.Tensor) *torch.Tensor {
	if b == nil {
		return nilModule("instance_norm", "InstanceNorm2d", x)
	}
	return (*BatchNorm1d)(b).instanceForward(x, "InstanceNorm2d", 3)
}

// dimsError is PyTorch's error for an input of the wrong rank: "expected
// 2D or 3D input (got 4D input)".
func dimsError(layer string, x *torch.Tensor, lo, hi int) *torch.Tensor {
	want := fmt.Sprintf("%dD", lo)
	if hi != lo {
		want += fmt.Sprintf(" or %dD", hi)
	}
	return torch.Failed(torch.NewError(layer, torch.ErrShape, []*torch.Tensor{x}, "expected %s input (got %dD input)", want, x.Dim()))
}

func (b *BatchNorm1d) batchForward(x *torch.Tensor, layer string, lo, hi int) *torch.Tensor {
	if err := inputErr(layer, x); err != nil {
		return torch.Failed(err)
	}
	if x.Dim() < lo || x.Dim() > hi {
		return dimsError(layer, x, lo, hi)
	}
	training := !b.eval
	factor := 0.0
	if b.Momentum != nil {
		factor = *b.Momentum
	}
	if training && b.NumBatchesTracked != nil {
		torch.NoGrad(func() { b.NumBatchesTracked.AddScalar_(1) })
		if b.Momentum == nil {
			if n, err := b.NumBatchesTracked.Item(); err == nil && n > 0 {
				factor = 1 / n
			}
		}
	}
	useBatch := training || b.RunningMean == nil && b.RunningVar == nil
	return batchNorm(layer, x, b.RunningMean, b.RunningVar, b.Weight, b.Bias, useBatch, factor, b.Eps)
}

// BatchNorm is torch.nn.functional.batch_norm: it normalises each channel
// (dim 1) of x over the other dims. Training, it uses the batch's mean and
// biased variance, and updates runningMean and runningVar in place (when
// not nil) to (1-momentum)*running + momentum*stat with the unbiased
// variance; otherwise it uses the running stats. weight and bias, when not
// nil, scale and shift each channel.
func BatchNorm(x, runningMean, runningVar, weight, bias *torch.Tensor, training bool, momentum, eps float64) *torch.Tensor {
	return batchNorm("batch_norm", x, runningMean, runningVar, weight, bias, training, momentum, eps)
}

// optionalErr is the error of the first failed tensor among the optional
// ones (nil is PyTorch's None).
func optionalErr(ts ...*torch.Tensor) error {
	for _, t := range ts {
		if t != nil && t.Err() != nil {
			return t.Err()
		}
	}
	return nil
}

// channelParams checks that each optional per-channel tensor has c
// elements: "running_mean should contain 4 elements not 3".
func channelParams(op string, x *torch.Tensor, c int, names []string, ts ...*torch.Tensor) error {
	for i, t := range ts {
		if t != nil && t.Numel() != c {
			return torch.NewError(op, torch.ErrShape, []*torch.Tensor{x, t}, "%s should contain %d elements not %d", names[i], c, t.Numel())
		}
	}
	return nil
}

// channelShape is [1, c, 1, ...] for an input of n dims.
func channelShape(c, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	s[1] = c
	return s
}

func batchNorm(op string, x, rm, rv, w, b *torch.Tensor, training bool, momentum, eps float64) *torch.Tensor {
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	if err := optionalErr(rm, rv, w, b); err != nil {
		return torch.Failed(err)
	}
	shape := x.Shape()
	if len(shape) < 2 {
		return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x}, "expected an input of at least 2 dims, got %dD input", len(shape)))
	}
	c := shape[1]
	if err := channelParams(op, x, c, []string{"running_mean", "running_var", "weight", "bias"}, rm, rv, w, b); err != nil {
		return torch.Failed(err)
	}
	dims := []int{0}
	n := shape[0]
	for i := 2; i < len(shape); i++ {
		dims = append(dims, i)
		n *= shape[i]
	}
	bshape := channelShape(c, len(shape))
	var mean, v *torch.Tensor
	if training {
		if n == 1 {
			return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x},
				"Expected more than 1 value per channel when training, got input size %s", sizeString(shape)))
		}
		if fusedBatchNorm(x, rm, rv, w, b) {
			y, mean, _, v := torch.NativeBatchNorm(x, w, b, nil, nil, true, eps)
			if y.Err() == nil {
				updateRunning(rm, rv, mean, v, float64(n), momentum)
			}
			return y
		}
		mean = x.MeanKeepDim(dims...)
		v = x.VarCorrection(0, true, dims...)
		updateRunning(rm, rv, mean.Reshape(c), v.Reshape(c), float64(n), momentum)
	} else {
		if rm == nil {
			return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x}, "running_mean must be defined in evaluation mode"))
		}
		if rv == nil {
			return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x}, "running_var must be defined in evaluation mode"))
		}
		if fusedBatchNorm(x, rm, rv, w, b) {
			y, _, _, _ := torch.NativeBatchNorm(x, w, b, rm, rv, false, eps)
			return y
		}
		mean, v = rm.Reshape(bshape...), rv.Reshape(bshape...)
	}
	return affine(x.Sub(mean).Mul(v.AddScalar(eps).Rsqrt()), w, b, bshape)
}

// fusedBatchNorm reports whether torch.NativeBatchNorm (one kernel, and
// one for the gradient) computes the batch norm: a non-empty float32 or
// float64 input whose running stats, weight and bias (when not nil) are
// of its dtype; other inputs are normalised by tensor ops.
func fusedBatchNorm(x *torch.Tensor, per ...*torch.Tensor) bool {
	d := x.DType()
	if d != torch.Float32 && d != torch.Float64 || x.Numel() == 0 {
		return false
	}
	for _, t := range per {
		if t != nil && t.DType() != d {
			return false
		}
	}
	return true
}

// updateRunning sets rm and rv (each may be nil) to (1-m)*running +
// m*stat, with the variance v of n values made unbiased, recording nothing.
func updateRunning(rm, rv, mean, v *torch.Tensor, n, m float64) {
	torch.NoGrad(func() {
		if rm != nil {
			rm.MulScalar_(1 - m).Add_(mean.Detach().MulScalar(m).ToDType(rm.DType()))
		}
		if rv != nil {
			unbiased := v.Detach().MulScalar(n / (n - 1))
			rv.MulScalar_(1 - m).Add_(unbiased.MulScalar(m).ToDType(rv.DType()))
		}
	})
}

// affine scales y by w and shifts it by b (either may be nil), both
// reshaped to shape.
func affine(y, w, b *torch.Tensor, shape []int) *torch.Tensor {
	if w != nil {
		y = y.Mul(w.Reshape(shape...))
	}
	if b != nil {
		y = y.Add(b.Reshape(shape...))
	}
	return y
}

func (b *BatchNorm1d) instanceForward(x *torch.Tensor, layer string, noBatch int) *torch.Tensor {
	if err := inputErr(layer, x); err != nil {
		return torch.Failed(err)
	}
	if x.Dim() != noBatch && x.Dim() != noBatch+1 {
		return dimsError(layer, x, noBatch, noBatch+1)
	}
	featureDim := x.Dim() - noBatch
	if got := x.Shape()[featureDim]; got != b.NumFeatures && b.Weight != nil {
		return torch.Failed(torch.NewError(layer, torch.ErrShape, []*torch.Tensor{x},
			"expected input's size at dim=%d to match num_features (%d), but got: %d.", featureDim, b.NumFeatures, got))
	}
	if b.Momentum == nil {
		return torch.Failed(torch.NewError(layer, torch.ErrArgument, []*torch.Tensor{x}, "momentum must be a number, not None"))
	}
	useInput := !b.eval || b.RunningMean == nil && b.RunningVar == nil
	in := x
	if x.Dim() == noBatch {
		in = x.Unsqueeze(0)
	}
	y := instanceNorm(layer, in, b.RunningMean, b.RunningVar, b.Weight, b.Bias, useInput, *b.Momentum, b.Eps)
	if x.Dim() == noBatch {
		y = y.SqueezeDim(0)
	}
	return y
}

// InstanceNorm is torch.nn.functional.instance_norm: it normalises each
// channel of each sample of x ([N, C, ...]) over the remaining dims. With
// useInputStats it uses those stats and updates runningMean and runningVar
// (when not nil) with their average over the batch (the variance
// unbiased); otherwise it uses the running stats.
func InstanceNorm(x, runningMean, runningVar, weight, bias *torch.Tensor, useInputStats bool, momentum, eps float64) *torch.Tensor {
	return instanceNorm("instance_norm", x, runningMean, runningVar, weight, bias, useInputStats, momentum, eps)
}

func instanceNorm(op string, x, rm, rv, w, b *torch.Tensor, useInput bool, momentum, eps float64) *torch.Tensor {
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	if err := optionalErr(rm, rv, w, b); err != nil {
		return torch.Failed(err)
	}
	shape := x.Shape()
	if len(shape) < 3 {
		return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x}, "expected an input of at least 3 dims, got %dD input", len(shape)))
	}
	c := shape[1]
	// PyTorch checks them repeated over the batch, as its batch norm of the
	// input seen as [1, N*C, ...] sees them.
	for i, t := range []*torch.Tensor{rm, rv, w, b} {
		if t != nil && t.Numel() != c && shape[0] > 0 {
			return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x, t}, "%s should contain %d elements not %d",
				[]string{"running_mean", "running_var", "weight", "bias"}[i], c*shape[0], t.Numel()*shape[0]))
		}
	}
	if !x.IsFloatingPoint() {
		return torch.Failed(torch.NewError(op, torch.ErrDType, []*torch.Tensor{x}, "\"batch_norm\" not implemented for '%s'",
			scalarTypeName(x.DType())))
	}
	bshape := channelShape(c, len(shape))
	if !useInput {
		if rm == nil || rv == nil {
			return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x}, "Expected running_mean and running_var to be defined when use_input_stats is false"))
		}
		y := x.Sub(rm.Reshape(bshape...)).Mul(rv.Reshape(bshape...).AddScalar(eps).Rsqrt())
		return affine(y, w, b, bshape)
	}
	var dims []int
	n := 1
	for i := 2; i < len(shape); i++ {
		dims = append(dims, i)
		n *= shape[i]
	}
	if n == 1 {
		return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x},
			"Expected more than 1 spatial element when training, got input size %s", sizeString(shape)))
	}
	mean := x.MeanKeepDim(dims...)
	v := x.VarCorrection(0, true, dims...)
	// An empty batch makes the running stats NaN (PyTorch's mean over no
	// sample); empty planes leave them as they are, as PyTorch's.
	if (rm != nil || rv != nil) && n > 0 {
		flat := []int{shape[0], c}
		updateRunning(rm, rv, mean.Reshape(flat...).Mean(0), v.Reshape(flat...).Mean(0), float64(n), momentum)
	}
	return affine(x.Sub(mean).Mul(v.AddScalar(eps).Rsqrt()), w, b, bshape)
}

// normRepr is the extra_repr of the batch and instance norms:
// "3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True".
func (b *BatchNorm1d) normRepr() string {
	if b == nil {
		return ""
	}
	m := "None"
	if b.Momentum != nil {
		m = pyfmt.Float(*b.Momentum)
	}
	return fmt.Sprintf("%d, eps=%s, momentum=%s, affine=%s, track_running_stats=%s", b.NumFeatures, pyfmt.Float(b.Eps), m,
		pyBool(b.Weight != nil || b.Bias != nil), pyBool(b.RunningMean != nil || b.RunningVar != nil))
}

// ExtraRepr is "3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True".
func (b *BatchNorm1d) ExtraRepr() string { return b.normRepr() }

// ExtraRepr is "3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True".
func (b *BatchNorm2d) ExtraRepr() string { return (*BatchNorm1d)(b).normRepr() }

// ExtraRepr is "3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False".
func (b *InstanceNorm1d) ExtraRepr() string { return (*BatchNorm1d)(b).normRepr() }

// ExtraRepr is "3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False".
func (b *InstanceNorm2d) ExtraRepr() string { return (*BatchNorm1d)(b).normRepr() }

// String prints the module as PyTorch does.
func (b *BatchNorm1d) String() string { return Repr(b) }

// String prints the module as PyTorch does.
func (b *BatchNorm2d) String() string { return Repr(b) }

// String prints the module as PyTorch does.
func (b *InstanceNorm1d) String() string { return Repr(b) }

// String prints the module as PyTorch does.
func (b *InstanceNorm2d) String() string { return Repr(b) }
