package nn

import (
	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Dropout zeroes elements with probability P while training and scales
// the rest by 1/(1-P); in evaluation mode it is the identity.
type Dropout struct {
	Base
	P float64
}

// NewDropout makes a Dropout module (in training mode, as every module
// starts).
func NewDropout(p float64) *Dropout { return &Dropout{P: p} }

// Forward applies dropout.
func (d *Dropout) Forward(x *torch.Tensor) *torch.Tensor {
	if d == nil {
		return nilModule("dropout", "Dropout", x)
	}
	if err := inputErr("dropout", x); err != nil {
		return torch.Failed(err)
	}
	if !(d.P >= 0 && d.P <= 1) {
		return torch.Failed(torch.NewError("dropout", torch.ErrArgument, []*torch.Tensor{x},
			"dropout probability has to be between 0 and 1, but got %v", d.P))
	}
	if d.eval || d.P == 0 {
		return x
	}
	if d.P == 1 {
		return x.MulScalar(0)
	}
	// PyTorch draws the mask contiguous, whatever x's layout.
	keep := torch.Empty(x.Shape(), torch.WithDType(x.DType()), torch.OnDevice(x.Device())).Bernoulli_(1 - d.P)
	return x.Mul(keep).DivScalar(1 - d.P)
}

// ExtraRepr is "p=0.5, inplace=False".
func (d *Dropout) ExtraRepr() string {
	if d == nil {
		return ""
	}
	return "p=" + pyfmt.Float(d.P) + ", inplace=False"
}

// String prints the module as PyTorch does.
func (d *Dropout) String() string { return Repr(d) }
