package nn

import (
	"fmt"
	"slices"
	"sort"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Module is a layer or a network: it maps a tensor to a tensor and owns
// parameters.
type Module interface {
	// Forward applies the module to x.
	Forward(x *torch.Tensor) *torch.Tensor
	// NamedParameters lists the parameters of the module and of its
	// children, with dotted names in PyTorch's order ("0.weight", "0.bias").
	NamedParameters() []Named
	// Train switches training behaviour (dropout) on or off, for the module
	// and its children. Modules start in training mode.
	Train(on bool)
}

// Named is a tensor with its dotted name in a module.
type Named struct {
	Name   string
	Tensor *torch.Tensor
}

// Parameter makes t a parameter: a leaf that requires gradients (t itself
// when it is one already, else a detached view of its data).
func Parameter(t *torch.Tensor) *torch.Tensor {
	if err := inputErr("parameter", t); err != nil {
		return torch.Failed(err)
	}
	if t.IsLeaf() && t.RequiresGrad() {
		return t
	}
	return t.Detach().RequiresGrad_(true)
}

// Parameters lists m's parameters in order (none for a nil m).
func Parameters(m Module) []*torch.Tensor {
	if m == nil {
		return nil
	}
	named := m.NamedParameters()
	out := make([]*torch.Tensor, len(named))
	for i, p := range named {
		out[i] = p.Tensor
	}
	return out
}

// ZeroGrad drops the gradients of m's parameters (PyTorch's
// zero_grad(set_to_none=True)).
func ZeroGrad(m Module) {
	if m == nil {
		return
	}
	for _, p := range m.NamedParameters() {
		if p.Tensor != nil {
			_ = p.Tensor.SetGrad(nil) // clearing cannot fail
		}
	}
}

// Eval is m.Train(false).
func Eval(m Module) {
	if m != nil {
		m.Train(false)
	}
}

// inputErr is the error that stops op before any work: for a nil tensor
// among ts, or the error the first failed one carries.
func inputErr(op string, ts ...*torch.Tensor) error {
	for _, t := range ts {
		if t == nil {
			return torch.NewError(op, torch.ErrArgument, nil, "expected a Tensor but got nil")
		}
		if err := t.Err(); err != nil {
			return err
		}
	}
	return nil
}

// nilModule is the result of the Forward of a nil module of type name.
func nilModule(op, name string, x *torch.Tensor) *torch.Tensor {
	return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x}, "the %s module is nil", name))
}

// prefixed names children's parameters under prefix.
func prefixed(prefix string, ps []Named) []Named {
	out := make([]Named, len(ps))
	for i, p := range ps {
		out[i] = Named{Name: prefix + "." + p.Name, Tensor: p.Tensor}
	}
	return out
}

// StateDict maps parameter names to their tensors (no copies); it is empty
// for a nil m.
func StateDict(m Module) map[string]*torch.Tensor {
	out := map[string]*torch.Tensor{}
	if m == nil {
		return out
	}
	for _, p := range m.NamedParameters() {
		out[p.Name] = p.Tensor
	}
	return out
}

// LoadStateDict copies the tensors of sd into m's parameters of the same
// names (one copy each, converting dtype and device). Every parameter must
// be present with its shape, and sd must have no other names, as PyTorch's
// load_state_dict(strict=True).
func LoadStateDict(m Module, sd map[string]*torch.Tensor) error {
	if m == nil {
		return torch.NewError("load_state_dict", torch.ErrArgument, nil, "the module is nil")
	}
	params := m.NamedParameters()
	known := map[string]bool{}
	var missing, mismatched []string
	for _, p := range params {
		known[p.Name] = true
		src, ok := sd[p.Name]
		if !ok {
			missing = append(missing, p.Name)
			continue
		}
		if err := inputErr("load_state_dict", src); err != nil {
			return fmt.Errorf("load_state_dict: %s: %w", p.Name, err)
		}
		if !slices.Equal(src.Shape(), p.Tensor.Shape()) {
			mismatched = append(mismatched, fmt.Sprintf("size mismatch for %s: copying a param with shape %v from checkpoint, "+
				"the shape in current model is %v.", p.Name, src.Shape(), p.Tensor.Shape()))
		}
	}
	var unexpected []string
	for name := range sd {
		if !known[name] {
			unexpected = append(unexpected, name)
		}
	}
	sort.Strings(unexpected)
	if len(missing)+len(unexpected)+len(mismatched) > 0 {
		return &StateDictError{Missing: missing, Unexpected: unexpected, Mismatched: mismatched}
	}
	var err error
	torch.NoGrad(func() {
		for _, p := range params {
			if e := p.Tensor.Copy_(sd[p.Name]).Err(); e != nil && err == nil {
				err = fmt.Errorf("load_state_dict: %s: %w", p.Name, e)
			}
		}
	})
	return err
}

// StateDictError lists what did not match when loading a state dict.
type StateDictError struct {
	Missing, Unexpected, Mismatched []string
}

// Error lists the problems as PyTorch's load_state_dict does.
func (e *StateDictError) Error() string {
	msg := "Error(s) in loading state_dict:"
	if len(e.Missing) > 0 {
		msg += fmt.Sprintf(" Missing key(s) in state_dict: %q.", e.Missing)
	}
	if len(e.Unexpected) > 0 {
		msg += fmt.Sprintf(" Unexpected key(s) in state_dict: %q.", e.Unexpected)
	}
	for _, m := range e.Mismatched {
		msg += " " + m
	}
	return msg
}
