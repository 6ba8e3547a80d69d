package optim

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// RAdam is torch.optim.RAdam, Adam with the variance of the adaptive
// learning rate rectified (Liu et al., 2019): while the approximated SMA
// length rho_t is at most 5 it takes plain momentum steps.
type RAdam struct{ core }

var radamOptions = []string{"lr", "betas", "eps", "weight_decay"}

// NewRAdam makes a RAdam optimizer with the options LR (default 1e-3),
// Betas (0.9, 0.999), Eps (1e-8) and WeightDecay.
func NewRAdam(ps []*torch.Tensor, opts ...Option) (*RAdam, error) {
	c, err := newCore("RAdam", ps, settings{lr: 1e-3, betas: [2]float64{0.9, 0.999}, eps: 1e-8}, radamOptions, opts)
	if err != nil {
		return nil, err
	}
	return &RAdam{c}, nil
}

// Step updates the parameters (see Optimizer).
func (o *RAdam) Step() error { return o.base().step("RAdam", radamUpdate) }

// radamUpdate is PyTorch's _single_tensor_radam for one parameter.
func radamUpdate(s *settings, st *paramState, p, g *torch.Tensor) error {
	st.step++
	b1, b2 := s.betas[0], s.betas[1]
	bc1 := 1 - math.Pow(b1, st.step)
	bc2 := 1 - math.Pow(b2, st.step)
	if s.weightDecay != 0 {
		g = g.AddAlpha(p, s.weightDecay)
	}
	zeros := func() *torch.Tensor { return torch.ZerosLike(p) }
	m, v := st.buffer("exp_avg", zeros), st.buffer("exp_avg_sq", zeros)
	m.MulScalar_(b1).AddAlpha_(g, 1-b1)
	addcmul_(v.MulScalar_(b2), g, g, 1-b2)
	corrected := m.DivScalar(bc1)
	rhoInf := 2/(1-b2) - 1
	rhoT := rhoInf - float64(2*st.step*math.Pow(b2, st.step))/bc2
	var update *torch.Tensor
	if rhoT > 5 {
		rect := math.Sqrt(float64((rhoT-4)*(rhoT-2)*rhoInf) / float64((rhoInf-4)*(rhoInf-2)*rhoT))
		adaptive := torch.RDiv(math.Sqrt(bc2), v.Sqrt().AddScalar_(s.eps))
		update = corrected.MulScalar(s.lr).Mul(adaptive).MulScalar(rect)
	} else {
		update = corrected.MulScalar(s.lr)
	}
	if err := firstErr(p, m, v, update); err != nil {
		return err
	}
	return p.AddAlpha_(update, -1).Err()
}
