package optim

import "github.com/mindtorch/mindtorch/pkg/torch"

// SGD is stochastic gradient descent with optional momentum, as
// torch.optim.SGD: d = g + wd*p; b = momentum*b + (1-dampening)*d (b = d at
// the first step); d = d + momentum*b with Nesterov, else b; p -= lr*d.
type SGD struct {
	params
	momentumBuf []*torch.Tensor
}

var sgdOptions = []string{"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"}

// NewSGD makes an SGD optimizer over ps with the options LR, Momentum,
// Dampening, WeightDecay, Nesterov and Maximize; bad values are an error
// with PyTorch's message.
func NewSGD(ps []*torch.Tensor, opts ...Option) (*SGD, error) {
	p, err := newParams("SGD", ps, settings{lr: 1e-3}, sgdOptions, opts)
	if err != nil {
		return nil, err
	}
	return &SGD{params: p, momentumBuf: make([]*torch.Tensor, len(ps))}, nil
}

// Step updates the parameters. It works on detached aliases of the
// parameters and gradients, so it records nothing whatever the grad mode.
func (o *SGD) Step() error {
	if o == nil {
		return nilOptimizer("SGD", "Step")
	}
	gs, err := o.grads()
	if err != nil {
		return err
	}
	for i, param := range o.ps {
		if gs[i] == nil {
			continue
		}
		if err := o.update(i, param.Detach(), gs[i].Detach()); err != nil {
			return err
		}
	}
	return nil
}

// update computes parameter i's step out of place, and writes the momentum
// buffer and the parameter p only when that succeeded.
func (o *SGD) update(i int, p, d *torch.Tensor) error {
	if o.maximize {
		d = d.Neg()
	}
	if o.weightDecay != 0 {
		d = d.AddAlpha(p, o.weightDecay)
	}
	var b *torch.Tensor // the new momentum buffer
	if o.momentum != 0 {
		if prev := o.momentumBuf[i]; prev == nil {
			b = d.Clone()
		} else {
			b = prev.MulScalar(o.momentum).AddAlpha(d, 1-o.dampening)
		}
		if o.nesterov {
			d = d.AddAlpha(b, o.momentum)
		} else {
			d = b
		}
	}
	if err := firstErr(d, b); err != nil {
		return err
	}
	if b != nil {
		o.momentumBuf[i] = b
	}
	return p.Add_(d.MulScalar(-o.lr)).Err()
}

// base is o's parameters and settings (nil for a nil optimizer).
func (o *SGD) base() *params {
	if o == nil {
		return nil
	}
	return &o.params
}

// ZeroGrad drops the parameters' gradients (set_to_none=True).
func (o *SGD) ZeroGrad() { o.base().zeroGrad() }

// LR is the learning rate (0 for a nil optimizer).
func (o *SGD) LR() float64 { return o.base().learningRate() }

// SetLR changes the learning rate (for schedules); a negative, infinite or
// NaN rate is an error and changes nothing.
func (o *SGD) SetLR(lr float64) error { return o.base().setLR("SGD", lr) }
