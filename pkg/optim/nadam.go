package optim

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// NAdam is torch.optim.NAdam, Adam with Nesterov momentum (Dozat, 2016),
// whose momentum coefficient mu_t = b1 (1 - 0.5 * 0.96^(t psi)) follows
// the momentum decay psi.
type NAdam struct{ core }

var nadamOptions = []string{"lr", "betas", "eps", "weight_decay", "momentum_decay"}

// NewNAdam makes an NAdam optimizer with the options LR (default 2e-3),
// Betas (0.9, 0.999), Eps (1e-8), WeightDecay and MomentumDecay (4e-3).
func NewNAdam(ps []*torch.Tensor, opts ...Option) (*NAdam, error) {
	c, err := newCore("NAdam", ps, settings{lr: 2e-3, betas: [2]float64{0.9, 0.999}, eps: 1e-8, momentumDecay: 4e-3}, nadamOptions, opts)
	if err != nil {
		return nil, err
	}
	return &NAdam{c}, nil
}

// Step updates the parameters (see Optimizer).
func (o *NAdam) Step() error { return o.base().step("NAdam", nadamUpdate) }

// nadamUpdate is PyTorch's _single_tensor_nadam for one parameter. The
// product of the mu is a float32 number, as PyTorch's float32 tensor
// state["mu_product"]. PyTorch 1.13 computes the next product as
// mu_product * mu * mu_next, counting mu twice; 2.x fixed it to
// mu_product * mu_next (in float64), which is followed here.
func nadamUpdate(s *settings, st *paramState, p, g *torch.Tensor) error {
	st.step++
	b1, b2 := s.betas[0], s.betas[1]
	bc2 := 1 - math.Pow(b2, st.step)
	if s.weightDecay != 0 {
		g = g.AddAlpha(p, s.weightDecay)
	}
	mu := b1 * (1 - 0.5*math.Pow(0.96, st.step*s.momentumDecay))
	muNext := b1 * (1 - 0.5*math.Pow(0.96, (st.step+1)*s.momentumDecay))
	st.muProduct = float32(st.muProduct * float32(mu))
	muProductNext := float64(st.muProduct) * muNext
	zeros := func() *torch.Tensor { return torch.ZerosLike(p) }
	m, v := st.buffer("exp_avg", zeros), st.buffer("exp_avg_sq", zeros)
	m.MulScalar_(b1).AddAlpha_(g, 1-b1)
	addcmul_(v.MulScalar_(b2), g, g, 1-b2)
	denom := v.DivScalar(bc2).Sqrt().AddScalar_(s.eps)
	if err := firstErr(p, m, v, denom); err != nil {
		return err
	}
	addcdiv_(p, g, denom, -s.lr*(1-mu)/(1-float64(st.muProduct)))
	return addcdiv_(p, m, denom, -s.lr*muNext/(1-muProductNext)).Err()
}
