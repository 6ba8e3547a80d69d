package optim

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// StateDict is an optimizer's state with PyTorch's structure: State holds
// each parameter's state by its index (parameters numbered across the
// groups, in order), with PyTorch's names ("step", "exp_avg",
// "momentum_buffer", ...; "step" a 0-dim float32 tensor), and ParamGroups
// holds each group's hyperparameters by PyTorch's names (float64, bool,
// [2]float64 for "betas") and "params", the []int indices of its
// parameters.
type StateDict struct {
	State       map[int]map[string]*torch.Tensor
	ParamGroups []map[string]any
}

// ignoredKeys are keys of PyTorch's param_groups that change nothing here.
var ignoredKeys = []string{"foreach", "differentiable", "capturable", "fused"}

// stateDict is the optimizer's state_dict(): the state tensors are the
// optimizer's own (not copies), as PyTorch's.
func (c *core) stateDict(name string) (*StateDict, error) {
	if err := c.ready(name, "StateDict"); err != nil {
		return nil, err
	}
	sd := &StateDict{State: map[int]map[string]*torch.Tensor{}}
	n := 0
	for _, g := range c.groups {
		group := map[string]any{}
		for _, k := range c.allowed {
			group[k] = g.s.value(k)
		}
		if g.initialLR != nil {
			group["initial_lr"] = *g.initialLR
		}
		ids := make([]int, len(g.params))
		for i, p := range g.params {
			ids[i] = n
			if st := c.state[p]; st != nil {
				entry := maps.Clone(st.bufs)
				if c.stepped {
					entry["step"] = torch.Scalar(st.step, torch.WithDType(torch.Float32))
				}
				if name == "NAdam" {
					entry["mu_product"] = torch.Scalar(float64(st.muProduct), torch.WithDType(torch.Float32))
				}
				sd.State[n] = entry
			}
			n++
		}
		group["params"] = ids
		sd.ParamGroups = append(sd.ParamGroups, group)
	}
	return sd, nil
}

// loadStateDict is the optimizer's load_state_dict(sd): the groups must
// match in number and sizes; hyperparameters come from sd, and state
// tensors are copied to their parameter's dtype and device ("step" and
// "mu_product" are read as numbers). Nothing changes on an error.
func (c *core) loadStateDict(name string, sd *StateDict) error {
	if err := c.ready(name, "LoadStateDict"); err != nil {
		return err
	}
	if sd == nil {
		return invalid(name, "LoadStateDict got a nil state dict")
	}
	if len(sd.ParamGroups) != len(c.groups) {
		return invalid(name, "loaded state dict has a different number of parameter groups (%d, optimizer %d)",
			len(sd.ParamGroups), len(c.groups))
	}
	byID := map[int]*torch.Tensor{}
	newSettings := make([]settings, len(c.groups))
	newInitial := make([]*float64, len(c.groups))
	for gi, g := range c.groups {
		saved := sd.ParamGroups[gi]
		ids, ok := saved["params"].([]int)
		if !ok {
			return invalid(name, "parameter group %d: params is a %T, not []int", gi, saved["params"])
		}
		if len(ids) != len(g.params) {
			return invalid(name, "loaded state dict contains a parameter group that doesn't match the size of optimizer's group (group %d: %d parameters, optimizer %d)",
				gi, len(ids), len(g.params))
		}
		for i, id := range ids {
			if _, dup := byID[id]; dup {
				return invalid(name, "parameter group %d: parameter index %d appears more than once", gi, id)
			}
			byID[id] = g.params[i]
		}
		s := g.s
		keys := slices.Sorted(maps.Keys(saved))
		for _, k := range keys {
			v := saved[k]
			switch {
			case k == "params" || slices.Contains(ignoredKeys, k):
			case k == "initial_lr":
				f, ok := toFloat(v)
				if !ok {
					return invalid(name, "parameter group %d: initial_lr is a %T", gi, v)
				}
				newInitial[gi] = &f
			case slices.Contains(c.allowed, k):
				if err := s.setValue(k, v); err != nil {
					return invalid(name, "parameter group %d: %v", gi, err)
				}
			default:
				return invalid(name, "parameter group %d: %s has no hyperparameter %q", gi, name, k)
			}
		}
		if err := s.check(name); err != nil {
			return err
		}
		newSettings[gi] = s
	}
	state := map[*torch.Tensor]*paramState{}
	ids := slices.Sorted(maps.Keys(sd.State))
	for _, id := range ids {
		p, ok := byID[id]
		if !ok {
			continue // PyTorch keeps such an entry, which no parameter ever reads
		}
		st, err := loadParamState(name, id, p, sd.State[id])
		if err != nil {
			return err
		}
		state[p] = st
	}
	for gi, g := range c.groups {
		g.s = newSettings[gi]
		g.initialLR = newInitial[gi]
	}
	c.state = state
	return nil
}

// loadParamState copies parameter id's saved state for p.
func loadParamState(name string, id int, p *torch.Tensor, saved map[string]*torch.Tensor) (*paramState, error) {
	st := &paramState{muProduct: 1, bufs: map[string]*torch.Tensor{}}
	keys := make([]string, 0, len(saved))
	for k := range saved {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := saved[k]
		if v == nil {
			continue // PyTorch's SGD saves momentum_buffer None without momentum
		}
		if err := v.Err(); err != nil {
			return nil, fmt.Errorf("%s: state %q of parameter %d: %w", name, k, id, err)
		}
		if k == "step" || k == "mu_product" {
			x, err := v.Item()
			if err != nil {
				return nil, fmt.Errorf("%s: state %q of parameter %d: %w", name, k, id, err)
			}
			if k == "step" {
				st.step = x
			} else {
				st.muProduct = float32(x)
			}
			continue
		}
		if !slices.Equal(v.Shape(), p.Shape()) {
			return nil, invalid(name, "state %q of parameter %d has shape %v, the parameter %v", k, id, v.Shape(), p.Shape())
		}
		var b *torch.Tensor
		torch.NoGrad(func() { b = torch.EmptyLike(p.Detach()).Copy_(v.Detach()) })
		if err := b.Err(); err != nil {
			return nil, fmt.Errorf("%s: state %q of parameter %d: %w", name, k, id, err)
		}
		torch.Keep(b) // state outlives any torch.Tidy
		st.bufs[k] = b
	}
	return st, nil
}
