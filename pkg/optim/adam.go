package optim

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// AdamConfig are the hyperparameters of Adam and AdamW. Zero values take
// PyTorch's defaults: LR 1e-3, Betas (0.9, 0.999), Eps 1e-8 (and, for
// AdamW only, WeightDecay 1e-2; use a negative value for none).
type AdamConfig struct {
	LR          float64
	Betas       [2]float64
	Eps         float64
	WeightDecay float64
	AMSGrad     bool
	Maximize    bool
}

// Adam is the Adam optimizer (Kingma and Ba, 2014); with decoupled weight
// decay it is AdamW (Loshchilov and Hutter, 2017).
type Adam struct {
	params
	AdamConfig
	decoupled  bool
	step       int
	m, v, vmax []*torch.Tensor
}

// NewAdam makes an Adam optimizer (weight decay added to the gradient).
func NewAdam(ps []*torch.Tensor, c AdamConfig) (*Adam, error) { return newAdam("Adam", ps, c, false) }

// NewAdamW makes an AdamW optimizer (weight decay applied to the parameters).
func NewAdamW(ps []*torch.Tensor, c AdamConfig) (*Adam, error) {
	if c.WeightDecay == 0 {
		c.WeightDecay = 1e-2
	} else if c.WeightDecay < 0 {
		c.WeightDecay = 0
	}
	return newAdam("AdamW", ps, c, true)
}

func newAdam(name string, ps []*torch.Tensor, c AdamConfig, decoupled bool) (*Adam, error) {
	if c.LR == 0 {
		c.LR = 1e-3
	}
	if c.Betas == [2]float64{} {
		c.Betas = [2]float64{0.9, 0.999}
	}
	if c.Eps == 0 {
		c.Eps = 1e-8
	}
	switch {
	case c.LR < 0:
		return nil, invalid(name, "Invalid learning rate: %v", c.LR)
	case c.Eps < 0:
		return nil, invalid(name, "Invalid epsilon value: %v", c.Eps)
	case c.Betas[0] < 0 || c.Betas[0] >= 1:
		return nil, invalid(name, "Invalid beta parameter at index 0: %v", c.Betas[0])
	case c.Betas[1] < 0 || c.Betas[1] >= 1:
		return nil, invalid(name, "Invalid beta parameter at index 1: %v", c.Betas[1])
	case c.WeightDecay < 0:
		return nil, invalid(name, "Invalid weight_decay value: %v", c.WeightDecay)
	}
	if err := checkParams(name, ps); err != nil {
		return nil, err
	}
	n := len(ps)
	return &Adam{params: append(params(nil), ps...), AdamConfig: c, decoupled: decoupled,
		m: make([]*torch.Tensor, n), v: make([]*torch.Tensor, n), vmax: make([]*torch.Tensor, n)}, nil
}

// Step updates the parameters: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
// p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps).
func (o *Adam) Step() error {
	gs, err := o.grads("Adam")
	if err != nil {
		return err
	}
	o.step++
	b1, b2 := o.Betas[0], o.Betas[1]
	bc1 := 1 - math.Pow(b1, float64(o.step))
	bc2sqrt := math.Sqrt(1 - math.Pow(b2, float64(o.step)))
	stepSize := o.LR / bc1
	torch.NoGrad(func() {
		for i, p := range o.params {
			g := gs[i]
			if g == nil {
				continue
			}
			if o.Maximize {
				g = g.Neg()
			}
			if o.WeightDecay != 0 {
				if o.decoupled {
					p.MulScalar_(1 - o.LR*o.WeightDecay)
				} else {
					g = g.AddAlpha(p, o.WeightDecay)
				}
			}
			if o.m[i] == nil {
				o.m[i], o.v[i] = torch.ZerosLike(p), torch.ZerosLike(p)
			}
			m, v := o.m[i], o.v[i]
			m.MulScalar_(b1).Add_(g.MulScalar(1 - b1))
			v.MulScalar_(b2).Add_(g.MulScalar(1 - b2).Mul(g))
			second := v
			if o.AMSGrad {
				if o.vmax[i] == nil {
					o.vmax[i] = torch.ZerosLike(p)
				}
				o.vmax[i].Copy_(o.vmax[i].Maximum(v))
				second = o.vmax[i]
			}
			denom := second.Sqrt().DivScalar(bc2sqrt).AddScalar(o.Eps)
			if e := firstErr(p.Add_(m.Div(denom).MulScalar(-stepSize))); e != nil && err == nil {
				err = e
			}
		}
	})
	return err
}
