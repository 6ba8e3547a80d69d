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

// Step updates the parameters (see Optimizer).
func (o *SGD) Step() error { return o.base().step("SGD", o.update) }

// update applies parameter i's step to p, in place as PyTorch does. Its
// gradient d was checked (Step calls grads first), so what can still fail
// is the memory of p or of the momentum buffer; such a failure stays in
// the tensor that failed and is returned.
func (o *SGD) update(i int, p, d *torch.Tensor) error {
	if o.maximize {
		d = d.Neg()
	}
	if o.weightDecay != 0 {
		d = d.AddAlpha(p, o.weightDecay)
	}
	if o.momentum != 0 {
		b := o.momentumBuf[i]
		if b == nil {
			b = d.Clone()
			o.momentumBuf[i] = b
		} else {
			b.MulScalar_(o.momentum).AddAlpha_(d, 1-o.dampening)
		}
		if err := b.Err(); err != nil {
			return err
		}
		if o.nesterov {
			d = d.AddAlpha(b, o.momentum)
		} else {
			d = b
		}
	}
	return p.AddAlpha_(d, -o.lr).Err()
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
