package nn

import (
	"fmt"
	"math"

	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// ClipGradNorm_ is torch.nn.utils.clip_grad_norm_: it scales the gradients
// of params in place so that their norm of order normType, taken over all
// of them together, is at most maxNorm, and returns that total norm (a
// 0-dim tensor on the first gradient's device). Parameters without a
// gradient are skipped; with none the total is a float32 zero. As
// PyTorch, the norm is the normType-norm of the gradients' norms
// (math.Inf(1) for the largest magnitude), the coefficient is maxNorm /
// (total + 1e-6) clamped to at most 1, and every gradient is multiplied by
// it, even when it is 1. With errorIfNonfinite a NaN or infinite total is
// an error and nothing changes.
func ClipGradNorm_(params []*torch.Tensor, maxNorm, normType float64, errorIfNonfinite bool) (*torch.Tensor, error) {
	const op = "clip_grad_norm_"
	grads, err := clipGrads(op, params)
	if err != nil {
		return nil, err
	}
	if len(grads) == 0 {
		return torch.Scalar(0.0, torch.WithDType(torch.Float32)), nil
	}
	dev := grads[0].Device()
	norms := make([]*torch.Tensor, len(grads))
	for i, g := range grads {
		var n *torch.Tensor
		if math.IsInf(normType, 1) {
			n = g.Detach().Abs().Max()
		} else {
			n = g.Detach().Norm(normType)
		}
		if norms[i], err = n.ToDevice(dev); err != nil {
			return nil, fmt.Errorf("%s: gradient %d: %w", op, i, err)
		}
	}
	var total *torch.Tensor
	switch {
	case len(norms) == 1 && math.IsInf(normType, 1):
		total = norms[0]
	case math.IsInf(normType, 1):
		total = torch.Stack(norms, 0).Max()
	default:
		total = torch.Stack(norms, 0).Norm(normType)
	}
	t, err := total.Item()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if errorIfNonfinite && (math.IsNaN(t) || math.IsInf(t, 0)) {
		return nil, torch.NewError(op, torch.ErrArgument, nil, "The total norm of order %s for gradients from `parameters` "+
			"is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm "+
			"anyway, set `error_if_nonfinite=False`", pyfmt.Float(normType))
	}
	coef := torch.RDiv(maxNorm, total.AddScalar(1e-6)).Clamp(nil, 1.0)
	for i, g := range grads {
		c, err := coef.ToDevice(g.Device())
		if err != nil {
			return nil, fmt.Errorf("%s: gradient %d: %w", op, i, err)
		}
		if err := g.Detach().Mul_(c).Err(); err != nil {
			return nil, fmt.Errorf("%s: gradient %d: %w", op, i, err)
		}
	}
	return total, nil
}

// ClipGradValue_ is torch.nn.utils.clip_grad_value_: it clamps the
// gradients of params in place to [-clipValue, clipValue] (parameters
// without a gradient are skipped; a NaN bound makes them NaN, as
// PyTorch 2.x's clamp).
func ClipGradValue_(params []*torch.Tensor, clipValue float64) error {
	const op = "clip_grad_value_"
	grads, err := clipGrads(op, params)
	if err != nil {
		return err
	}
	for i, g := range grads {
		if err := g.Detach().Clamp_(-clipValue, clipValue).Err(); err != nil {
			return fmt.Errorf("%s: gradient %d: %w", op, i, err)
		}
	}
	return nil
}

// clipGrads are the gradients of params (those that have one), or the
// error of a nil or failed parameter or gradient, before any change.
func clipGrads(op string, params []*torch.Tensor) ([]*torch.Tensor, error) {
	var grads []*torch.Tensor
	for i, p := range params {
		if p == nil {
			return nil, torch.NewError(op, torch.ErrArgument, nil, "parameter %d is nil", i)
		}
		if err := p.Err(); err != nil {
			return nil, fmt.Errorf("%s: parameter %d: %w", op, i, err)
		}
		g := p.Grad()
		if g == nil {
			continue
		}
		if err := g.Err(); err != nil {
			return nil, fmt.Errorf("%s: gradient of parameter %d: %w", op, i, err)
		}
		grads = append(grads, g)
	}
	return grads, nil
}
