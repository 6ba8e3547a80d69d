package optim

import "github.com/mindtorch/mindtorch/pkg/torch"

// Adagrad is torch.optim.Adagrad (Duchi et al., 2011): s += g^2;
// p -= lr/(1 + (t-1) lr_decay) * g / (sqrt(s) + eps).
type Adagrad struct{ core }

var adagradOptions = []string{"lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps", "maximize"}

// NewAdagrad makes an Adagrad optimizer with the options LR (default
// 1e-2), LRDecay, WeightDecay, InitialAccumulatorValue, Eps (1e-10) and
// Maximize. As PyTorch, it makes each parameter's sum at once, filled with
// the initial accumulator value.
func NewAdagrad(ps []*torch.Tensor, opts ...Option) (*Adagrad, error) {
	c, err := newCore("Adagrad", ps, settings{lr: 1e-2, eps: 1e-10}, adagradOptions, opts)
	if err != nil {
		return nil, err
	}
	o := &Adagrad{c}
	if err := o.initState(ps, c.defaults.initialAccumulator); err != nil {
		return nil, err
	}
	return o, nil
}

// AddParamGroup adds a group of parameters whose options override the
// defaults, making their sums at once as PyTorch's Adagrad does.
func (o *Adagrad) AddParamGroup(ps []*torch.Tensor, opts ...Option) error {
	if err := o.base().addGroup("Adagrad", ps, opts); err != nil {
		return err
	}
	return o.initState(ps, o.groups[len(o.groups)-1].s.initialAccumulator)
}

// initState makes the sum of each parameter of ps, as Adagrad's
// constructor: step 0 and sum = initial accumulator value.
func (o *Adagrad) initState(ps []*torch.Tensor, init float64) error {
	for _, p := range ps {
		sum := torch.FullLike(p.Detach(), init)
		if err := sum.Err(); err != nil {
			return err
		}
		torch.Keep(sum) // state outlives any torch.Tidy
		o.state[p] = &paramState{muProduct: 1, bufs: map[string]*torch.Tensor{"sum": sum}}
	}
	return nil
}

// Step updates the parameters (see Optimizer).
func (o *Adagrad) Step() error { return o.base().step("Adagrad", adagradUpdate) }

// adagradUpdate is PyTorch's _single_tensor_adagrad for one parameter.
func adagradUpdate(s *settings, st *paramState, p, g *torch.Tensor) error {
	st.step++
	if s.maximize {
		g = g.Neg()
	}
	if s.weightDecay != 0 {
		g = g.AddAlpha(p, s.weightDecay)
	}
	clr := s.lr / (1 + (st.step-1)*s.lrDecay)
	sum := st.buffer("sum", func() *torch.Tensor { return torch.FullLike(p, s.initialAccumulator) })
	addcmul_(sum, g, g, 1)
	std := sum.Sqrt().AddScalar_(s.eps)
	if err := firstErr(p, sum, std); err != nil {
		return err
	}
	return addcdiv_(p, g, std, -clr).Err()
}
