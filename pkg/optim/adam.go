package optim

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Adam is the Adam optimizer (Kingma and Ba, 2014), as torch.optim.Adam;
// with decoupled weight decay it is AdamW (Loshchilov and Hutter, 2017).
type Adam struct {
	params
	decoupled  bool
	steps      []int // per parameter, as PyTorch's state["step"]
	m, v, vmax []*torch.Tensor
}

var adamOptions = []string{"lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"}

// NewAdam makes an Adam optimizer (weight decay added to the gradient) with
// the options LR, Betas, Eps, WeightDecay, AMSGrad and Maximize.
func NewAdam(ps []*torch.Tensor, opts ...Option) (*Adam, error) {
	return newAdam("Adam", ps, 0, false, opts)
}

// NewAdamW makes an AdamW optimizer (weight decay applied to the
// parameters, default 1e-2) with the options of NewAdam.
func NewAdamW(ps []*torch.Tensor, opts ...Option) (*Adam, error) {
	return newAdam("AdamW", ps, 1e-2, true, opts)
}

func newAdam(name string, ps []*torch.Tensor, decay float64, decoupled bool, opts []Option) (*Adam, error) {
	defaults := settings{lr: 1e-3, betas: [2]float64{0.9, 0.999}, eps: 1e-8, weightDecay: decay}
	p, err := newParams(name, ps, defaults, adamOptions, opts)
	if err != nil {
		return nil, err
	}
	n := len(ps)
	return &Adam{params: p, decoupled: decoupled, steps: make([]int, n),
		m: make([]*torch.Tensor, n), v: make([]*torch.Tensor, n), vmax: make([]*torch.Tensor, n)}, nil
}

// Step updates the parameters: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
// p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps), where t counts the
// steps that parameter took (one with no gradient is not counted, as
// PyTorch's per-parameter state["step"]).
func (o *Adam) Step() error { return o.base().step("Adam", o.update) }

// update applies parameter i's step to p, in place as PyTorch does. Its
// gradient g was checked (Step calls grads first), so what can still fail
// is the memory of p or of the moments; such a failure stays in the tensor
// that failed and is returned.
func (o *Adam) update(i int, p, g *torch.Tensor) error {
	o.steps[i]++
	b1, b2 := o.betas[0], o.betas[1]
	bc1 := 1 - math.Pow(b1, float64(o.steps[i]))
	bc2sqrt := math.Sqrt(1 - math.Pow(b2, float64(o.steps[i])))
	if o.maximize {
		g = g.Neg()
	}
	if o.weightDecay != 0 && !o.decoupled {
		g = g.AddAlpha(p, o.weightDecay)
	}
	if o.m[i] == nil {
		o.m[i], o.v[i] = torch.ZerosLike(p), torch.ZerosLike(p)
		if o.amsgrad {
			o.vmax[i] = torch.ZerosLike(p)
		}
	}
	m, v, second := o.m[i], o.v[i], o.v[i]
	m.MulScalar_(b1).AddAlpha_(g, 1-b1)
	v.MulScalar_(b2).AddAlpha_(g.Mul(g), 1-b2)
	if o.amsgrad {
		second = torch.Into(o.vmax[i]).Maximum(o.vmax[i], v)
	}
	denom := second.Sqrt().DivScalar_(bc2sqrt).AddScalar_(o.eps)
	if err := firstErr(m, v, denom); err != nil {
		return err
	}
	if o.weightDecay != 0 && o.decoupled {
		p.MulScalar_(1 - o.lr*o.weightDecay)
	}
	return p.AddAlpha_(m.Div(denom), -o.lr/bc1).Err()
}

// base is o's parameters and settings (nil for a nil optimizer).
func (o *Adam) base() *params {
	if o == nil {
		return nil
	}
	return &o.params
}

// ZeroGrad drops the parameters' gradients (set_to_none=True).
func (o *Adam) ZeroGrad() { o.base().zeroGrad() }

// LR is the learning rate (0 for a nil optimizer).
func (o *Adam) LR() float64 { return o.base().learningRate() }

// SetLR changes the learning rate (for schedules); a negative, infinite or
// NaN rate is an error and changes nothing.
func (o *Adam) SetLR(lr float64) error { return o.base().setLR("Adam", lr) }
