package optim

import "github.com/mindtorch/mindtorch/pkg/torch"

// SGD is stochastic gradient descent with optional momentum, as
// torch.optim.SGD: d = g + wd*p; b = momentum*b + (1-dampening)*d (b = d at
// the first step); d = d + momentum*b with Nesterov, else b; p -= lr*d.
type SGD struct{ core }

var sgdOptions = []string{"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"}

// NewSGD makes an SGD optimizer over ps with the options LR, Momentum,
// Dampening, WeightDecay, Nesterov and Maximize (the defaults of further
// groups); bad values are an error with PyTorch's message.
func NewSGD(ps []*torch.Tensor, opts ...Option) (*SGD, error) {
	c, err := newCore("SGD", ps, settings{lr: 1e-3}, sgdOptions, opts)
	if err != nil {
		return nil, err
	}
	return &SGD{c}, nil
}

// Step updates the parameters (see Optimizer).
func (o *SGD) Step() error { return o.base().step("SGD", sgdUpdate) }

// sgdUpdate is PyTorch's _single_tensor_sgd for one parameter. Its
// gradient d was checked (Step calls grads first), so what can still fail
// is the memory of p or of the momentum buffer; such a failure stays in
// the tensor that failed and is returned.
func sgdUpdate(s *settings, st *paramState, p, d *torch.Tensor) error {
	var tmp temps
	defer tmp.release()
	if s.maximize {
		d = tmp.add(d.Neg())
	}
	if s.weightDecay != 0 {
		d = tmp.add(d.AddAlpha(p, s.weightDecay))
	}
	if s.momentum != 0 {
		b := st.bufs["momentum_buffer"]
		if b == nil {
			b = d.Clone()
			torch.Keep(b) // state outlives any torch.Tidy the step runs in
			st.bufs["momentum_buffer"] = b
		} else {
			b.MulScalar_(s.momentum).AddAlpha_(d, 1-s.dampening)
		}
		if err := b.Err(); err != nil {
			return err
		}
		if s.nesterov {
			d = tmp.add(d.AddAlpha(b, s.momentum))
		} else {
			d = b
		}
	}
	return p.AddAlpha_(d, -s.lr).Err()
}
