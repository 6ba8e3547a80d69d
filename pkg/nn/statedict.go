package nn

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// NamedState lists m's state dict in PyTorch's order: for each module,
// parents first, its parameters then its persistent buffers, by dotted
// name. A module shared by two parents is listed under both names, as in
// PyTorch; one that contains itself is an error.
func NamedState(m Module) ([]Named, error) {
	var out []Named
	err := walk("state_dict", m, false, func(prefix string, _ Module, ms []entry) error {
		out = append(out, localState(prefix, ms)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// localState is a module's own part of the state dict.
func localState(prefix string, ms []entry) []Named {
	var out []Named
	for _, k := range []kind{param, buffer} {
		for _, e := range ms {
			if e.kind == k && e.tensor != nil {
				out = append(out, Named{prefix + e.name, e.tensor})
			}
		}
	}
	return out
}

// StateDict maps the names of m's parameters and persistent buffers to
// the tensors themselves (no copies), as PyTorch's state_dict; NamedState
// lists them in order. When m cannot be walked (nil, a bad field, a
// cycle), the map holds one tensor under "" carrying the error, which
// saving or loading it reports.
func StateDict(m Module) map[string]*torch.Tensor {
	named, err := NamedState(m)
	if err != nil {
		return map[string]*torch.Tensor{"": torch.Failed(err)}
	}
	out := make(map[string]*torch.Tensor, len(named))
	for _, n := range named {
		out[n.Name] = n.Tensor
	}
	return out
}

// LoadStateDict copies the tensors of sd into m's parameters and
// persistent buffers of the same names (converting dtype and device), as
// PyTorch's load_state_dict(strict=True): every one must be present with
// its shape, and sd must have no other names, else nothing is copied and
// the error, a *StateDictError, lists the problems with PyTorch's message.
func LoadStateDict(m Module, sd map[string]*torch.Tensor) error {
	_, _, err := load(m, sd, true)
	return err
}

// LoadStateDictNonStrict is load_state_dict(strict=False): it copies what
// matches and returns the names m has and sd lacks (missing) and the names
// sd has and m lacks (unexpected). A shape mismatch is still an error.
func LoadStateDictNonStrict(m Module, sd map[string]*torch.Tensor) (missing, unexpected []string, err error) {
	return load(m, sd, false)
}

func load(m Module, sd map[string]*torch.Tensor, strict bool) (missing, unexpected []string, err error) {
	const op = "load_state_dict"
	if sd == nil {
		return nil, nil, torch.NewError(op, torch.ErrArgument, nil, "the state dict is nil")
	}
	keys := make([]string, 0, len(sd))
	for k, t := range sd {
		if e := inputErr(op, t); e != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", op, k, e)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type copyOp struct {
		name     string
		dst, src *torch.Tensor
	}
	var copies []copyOp
	var mismatched []string
	err = walk(op, m, false, func(prefix string, _ Module, ms []entry) error {
		local := map[string]bool{}
		for _, n := range localState(prefix, ms) {
			local[strings.TrimPrefix(n.Name, prefix)] = true
			src, ok := sd[n.Name]
			if !ok {
				missing = append(missing, n.Name)
				continue
			}
			// PyTorch loads a 1-dim checkpoint tensor into a 0-dim one
			// (its first element), for old checkpoints.
			if n.Tensor.Dim() == 0 && src.Dim() == 1 {
				src = src.Select(0, 0)
			}
			if !slices.Equal(src.Shape(), n.Tensor.Shape()) {
				mismatched = append(mismatched, fmt.Sprintf("size mismatch for %s: copying a param with shape %s from checkpoint, "+
					"the shape in current model is %s.", n.Name, sizeString(src.Shape()), sizeString(n.Tensor.Shape())))
				continue
			}
			copies = append(copies, copyOp{n.Name, n.Tensor, src})
		}
		for _, e := range ms {
			if e.kind == child {
				local[e.name] = true
			}
		}
		for _, k := range keys {
			if rest, ok := strings.CutPrefix(k, prefix); ok {
				if first, _, _ := strings.Cut(rest, "."); !local[first] {
					unexpected = append(unexpected, k)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(mismatched) > 0 || strict && len(missing)+len(unexpected) > 0 {
		se := &StateDictError{Module: typeName(m), Mismatched: mismatched}
		if strict {
			se.Missing, se.Unexpected = missing, unexpected
		}
		return missing, unexpected, se
	}
	torch.NoGrad(func() {
		for _, c := range copies {
			if e := c.dst.Copy_(c.src).Err(); e != nil && err == nil {
				err = fmt.Errorf("%s: %s: %w", op, c.name, e)
			}
		}
	})
	return missing, unexpected, err
}

// sizeString prints a shape as torch.Size does.
func sizeString(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = fmt.Sprint(d)
	}
	return "torch.Size([" + strings.Join(s, ", ") + "])"
}

// StateDictError lists what did not match when loading a state dict.
type StateDictError struct {
	Module                          string // the type of the module loaded into
	Missing, Unexpected, Mismatched []string
}

// Error lists the problems as PyTorch's load_state_dict does.
func (e *StateDictError) Error() string {
	var msgs []string
	quoted := func(keys []string) string {
		q := make([]string, len(keys))
		for i, k := range keys {
			q[i] = `"` + k + `"`
		}
		return strings.Join(q, ", ")
	}
	if len(e.Missing) > 0 {
		msgs = append(msgs, fmt.Sprintf("Missing key(s) in state_dict: %s. ", quoted(e.Missing)))
	}
	if len(e.Unexpected) > 0 {
		msgs = append(msgs, fmt.Sprintf("Unexpected key(s) in state_dict: %s. ", quoted(e.Unexpected)))
	}
	msgs = append(msgs, e.Mismatched...)
	return fmt.Sprintf("Error(s) in loading state_dict for %s:\n\t%s", e.Module, strings.Join(msgs, "\n\t"))
}
