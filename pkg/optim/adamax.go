package optim

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Adamax is torch.optim.Adamax, Adam with the infinity norm (Kingma and
// Ba, 2014): m = b1 m + (1-b1) g; u = max(b2 u, |g| + eps);
// p -= lr/(1-b1^t) * m/u.
type Adamax struct{ core }

var adamaxOptions = []string{"lr", "betas", "eps", "weight_decay", "maximize"}

// NewAdamax makes an Adamax optimizer with the options LR (default 2e-3),
// Betas (0.9, 0.999), Eps (1e-8), WeightDecay and Maximize.
func NewAdamax(ps []*torch.Tensor, opts ...Option) (*Adamax, error) {
	c, err := newCore("Adamax", ps, settings{lr: 2e-3, betas: [2]float64{0.9, 0.999}, eps: 1e-8}, adamaxOptions, opts)
	if err != nil {
		return nil, err
	}
	return &Adamax{c}, nil
}

// Step updates the parameters (see Optimizer).
func (o *Adamax) Step() error { return o.base().step("Adamax", adamaxUpdate) }

// adamaxUpdate is PyTorch's _single_tensor_adamax for one parameter (the
// amax over the two stacked candidates is their elementwise maximum, NaN
// propagating as amax does).
func adamaxUpdate(s *settings, st *paramState, p, g *torch.Tensor) error {
	st.step++
	if s.maximize {
		g = g.Neg()
	}
	if s.weightDecay != 0 {
		g = g.AddAlpha(p, s.weightDecay)
	}
	zeros := func() *torch.Tensor { return torch.ZerosLike(p) }
	m, u := st.buffer("exp_avg", zeros), st.buffer("exp_inf", zeros)
	m.MulScalar_(s.betas[0]).AddAlpha_(g, 1-s.betas[0])
	torch.Into(u).Maximum(u.MulScalar_(s.betas[1]), g.Abs().AddScalar_(s.eps))
	if err := firstErr(p, m, u); err != nil {
		return err
	}
	clr := s.lr / (1 - math.Pow(s.betas[0], st.step))
	return addcdiv_(p, m, u, -clr).Err()
}
