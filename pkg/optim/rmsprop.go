package optim

import "github.com/mindtorch/mindtorch/pkg/torch"

// RMSprop is torch.optim.RMSprop (Hinton's lecture 6e; Graves 2013 for the
// centered form): v = alpha v + (1-alpha) g^2; with centered, the mean of
// g is tracked too and its square taken from v; p -= lr g / (sqrt(v) +
// eps), through a momentum buffer when momentum > 0.
type RMSprop struct{ core }

var rmspropOptions = []string{"lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize"}

// NewRMSprop makes an RMSprop optimizer with the options LR (default
// 1e-2), Alpha (0.99), Eps (1e-8), WeightDecay, Momentum, Centered and
// Maximize.
func NewRMSprop(ps []*torch.Tensor, opts ...Option) (*RMSprop, error) {
	c, err := newCore("RMSprop", ps, settings{lr: 1e-2, alpha: 0.99, eps: 1e-8}, rmspropOptions, opts)
	if err != nil {
		return nil, err
	}
	return &RMSprop{c}, nil
}

// Step updates the parameters (see Optimizer).
func (o *RMSprop) Step() error { return o.base().step("RMSprop", rmspropUpdate) }

// rmspropUpdate is PyTorch's _single_tensor_rmsprop for one parameter.
func rmspropUpdate(s *settings, st *paramState, p, g *torch.Tensor) error {
	st.step++
	if s.maximize {
		g = g.Neg()
	}
	if s.weightDecay != 0 {
		g = g.AddAlpha(p, s.weightDecay)
	}
	zeros := func() *torch.Tensor { return torch.ZerosLike(p) }
	sq := st.buffer("square_avg", zeros)
	addcmul_(sq.MulScalar_(s.alpha), g, g, 1-s.alpha)
	var avg *torch.Tensor
	if s.centered {
		ga := st.buffer("grad_avg", zeros)
		ga.MulScalar_(s.alpha).AddAlpha_(g, 1-s.alpha)
		avg = addcmul(sq, ga, ga, -1).Sqrt_()
	} else {
		avg = sq.Sqrt()
	}
	avg = avg.AddScalar_(s.eps)
	if err := firstErr(p, sq, avg); err != nil {
		return err
	}
	if s.momentum > 0 {
		buf := st.buffer("momentum_buffer", zeros)
		addcdiv_(buf.MulScalar_(s.momentum), g, avg, 1)
		if err := buf.Err(); err != nil {
			return err
		}
		return p.AddAlpha_(buf, -s.lr).Err()
	}
	return addcdiv_(p, g, avg, -s.lr).Err()
}
