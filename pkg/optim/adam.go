package optim

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Adam is the Adam optimizer (Kingma and Ba, 2014), as torch.optim.Adam;
// with decoupled weight decay it is AdamW (Loshchilov and Hutter, 2017).
type Adam struct{ core }

var adamOptions = []string{"lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"}

// NewAdam makes an Adam optimizer (weight decay added to the gradient) with
// the options LR, Betas, Eps, WeightDecay, AMSGrad and Maximize.
func NewAdam(ps []*torch.Tensor, opts ...Option) (*Adam, error) {
	return newAdam("Adam", ps, settings{lr: 1e-3, betas: [2]float64{0.9, 0.999}, eps: 1e-8}, opts)
}

// NewAdamW makes an AdamW optimizer (weight decay applied to the
// parameters, default 1e-2) with the options of NewAdam.
func NewAdamW(ps []*torch.Tensor, opts ...Option) (*Adam, error) {
	return newAdam("AdamW", ps, settings{lr: 1e-3, betas: [2]float64{0.9, 0.999}, eps: 1e-8, weightDecay: 1e-2, decoupled: true}, opts)
}

func newAdam(name string, ps []*torch.Tensor, defaults settings, opts []Option) (*Adam, error) {
	c, err := newCore(name, ps, defaults, adamOptions, opts)
	if err != nil {
		return nil, err
	}
	return &Adam{c}, nil
}

// Step updates the parameters: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
// p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps), where t counts the
// steps that parameter took (one with no gradient is not counted, as
// PyTorch's per-parameter state["step"]).
func (o *Adam) Step() error { return o.base().step(o.name(), adamUpdate) }

// name is "Adam" or "AdamW".
func (o *Adam) name() string {
	if o != nil && o.core.name != "" {
		return o.core.name
	}
	return "Adam"
}

// adamUpdate is PyTorch's _single_tensor_adam (and _adamw) for one
// parameter, in place. Its gradient g was checked, so what can still fail
// is the memory of p or of the moments; such a failure stays in the tensor
// that failed and is returned.
func adamUpdate(s *settings, st *paramState, p, g *torch.Tensor) error {
	st.step++
	b1, b2 := s.betas[0], s.betas[1]
	var tmp temps
	defer tmp.release()
	if s.maximize {
		g = tmp.add(g.Neg())
	}
	if s.decoupled {
		p.MulScalar_(1 - s.lr*s.weightDecay)
	} else if s.weightDecay != 0 {
		g = tmp.add(g.AddAlpha(p, s.weightDecay))
	}
	zeros := func() *torch.Tensor { return torch.ZerosLike(p) }
	m, v := st.buffer("exp_avg", zeros), st.buffer("exp_avg_sq", zeros)
	m.MulScalar_(b1).AddAlpha_(g, 1-b1)
	addcmul_(v.MulScalar_(b2), g, g, 1-b2)
	bc1 := 1 - math.Pow(b1, st.step)
	bc2sqrt := math.Sqrt(1 - math.Pow(b2, st.step))
	second := v
	if s.amsgrad {
		vmax := st.buffer("max_exp_avg_sq", zeros)
		second = torch.Into(vmax).Maximum(vmax, v)
	}
	denom := tmp.add(second.Sqrt()).DivScalar_(bc2sqrt).AddScalar_(s.eps)
	if err := firstErr(p, m, v, denom); err != nil {
		return err
	}
	return addcdiv_(p, m, denom, -(s.lr / bc1)).Err()
}
