package optim

import (
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Optimizer updates parameters from their gradients.
type Optimizer interface {
	// Step updates every parameter that has a gradient. It reports the
	// first error of a parameter or gradient (and leaves the rest as they
	// were only if the error came before any update).
	Step() error
	// ZeroGrad drops the parameters' gradients (set_to_none=True).
	ZeroGrad()
}

// params is the parameter list every optimizer holds.
type params []*torch.Tensor

func (ps params) ZeroGrad() {
	for _, p := range ps {
		p.SetGrad(nil)
	}
}

// check validates the parameters: leaves that require grad, without errors.
func checkParams(op string, ps []*torch.Tensor) error {
	if len(ps) == 0 {
		return torch.NewError(op, torch.ErrArgument, nil, "optimizer got an empty parameter list")
	}
	for i, p := range ps {
		if p == nil {
			return torch.NewError(op, torch.ErrArgument, nil, "parameter %d is nil", i)
		}
		if err := p.Err(); err != nil {
			return fmt.Errorf("%s: parameter %d: %w", op, i, err)
		}
		if !p.IsLeaf() {
			return torch.NewError(op, torch.ErrArgument, []*torch.Tensor{p}, "can't optimize a non-leaf Tensor")
		}
		if !p.DType().IsFloatingPoint() {
			return torch.NewError(op, torch.ErrDType, []*torch.Tensor{p}, "parameter %d is not floating point", i)
		}
	}
	return nil
}

// grads returns each parameter's gradient (nil for none), or the first
// error a gradient carries, before any parameter changes.
func (ps params) grads(op string) ([]*torch.Tensor, error) {
	gs := make([]*torch.Tensor, len(ps))
	for i, p := range ps {
		g := p.Grad()
		if g == nil {
			continue
		}
		if err := g.Err(); err != nil {
			return nil, fmt.Errorf("%s: gradient of parameter %d: %w", op, i, err)
		}
		gs[i] = g
	}
	return gs, nil
}

// firstErr is the first error among ts.
func firstErr(ts ...*torch.Tensor) error {
	for _, t := range ts {
		if t != nil && t.Err() != nil {
			return t.Err()
		}
	}
	return nil
}

func invalid(op, format string, args ...any) error {
	return torch.NewError(op, torch.ErrArgument, nil, format, args...)
}
