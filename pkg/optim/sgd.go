package optim

import "github.com/mindtorch/mindtorch/pkg/torch"

// SGDConfig are the hyperparameters of SGD, as torch.optim.SGD's.
type SGDConfig struct {
	LR          float64
	Momentum    float64
	Dampening   float64
	WeightDecay float64
	Nesterov    bool
	Maximize    bool
}

// SGD is stochastic gradient descent with optional momentum:
// d = g + wd*p; b = momentum*b + (1-dampening)*d (b = d at the first step);
// d = d + momentum*b with Nesterov, else b; p -= lr*d.
type SGD struct {
	params
	SGDConfig
	momentum []*torch.Tensor
}

// NewSGD makes an SGD optimizer over ps; bad hyperparameters are an error
// with PyTorch's message.
func NewSGD(ps []*torch.Tensor, c SGDConfig) (*SGD, error) {
	switch {
	case c.LR < 0:
		return nil, invalid("SGD", "Invalid learning rate: %v", c.LR)
	case c.Momentum < 0:
		return nil, invalid("SGD", "Invalid momentum value: %v", c.Momentum)
	case c.WeightDecay < 0:
		return nil, invalid("SGD", "Invalid weight_decay value: %v", c.WeightDecay)
	case c.Nesterov && (c.Momentum <= 0 || c.Dampening != 0):
		return nil, invalid("SGD", "Nesterov momentum requires a momentum and zero dampening")
	}
	if err := checkParams("SGD", ps); err != nil {
		return nil, err
	}
	return &SGD{params: append(params(nil), ps...), SGDConfig: c, momentum: make([]*torch.Tensor, len(ps))}, nil
}

// Step updates the parameters.
func (o *SGD) Step() error {
	gs, err := o.grads("SGD")
	if err != nil {
		return err
	}
	torch.NoGrad(func() {
		for i, p := range o.params {
			d := gs[i]
			if d == nil {
				continue
			}
			if o.Maximize {
				d = d.Neg()
			}
			if o.WeightDecay != 0 {
				d = d.AddAlpha(p, o.WeightDecay)
			}
			if o.Momentum != 0 {
				b := o.momentum[i]
				if b == nil {
					b = d.Clone()
					o.momentum[i] = b
				} else {
					b.MulScalar_(o.Momentum).Add_(d.MulScalar(1 - o.Dampening))
				}
				if o.Nesterov {
					d = d.AddAlpha(b, o.Momentum)
				} else {
					d = b
				}
			}
			if e := p.Add_(d.MulScalar(-o.LR)).Err(); e != nil && err == nil {
				err = e
			}
		}
	})
	return err
}
