package lrscheduler

import (
	"reflect"
	"slices"
	"sort"

	"github.com/mindtorch/mindtorch/pkg/optim"
)

// sequentialLR is SequentialLR's policy.
type sequentialLR struct {
	scheds     []*Scheduler
	milestones []int
}

// NewSequentialLR is torch.optim.lr_scheduler.SequentialLR: scheds[0]
// until milestones[0], then scheds[1] (started with step(0), its closed
// form) until milestones[1], and so on. Every scheduler must be on opt,
// with one milestone fewer than schedulers. As PyTorch, making it resets
// the groups' rates to their initial_lr, takes back one epoch of every
// scheduler and restarts the first.
func NewSequentialLR(opt optim.Optimizer, scheds []*Scheduler, milestones []int) (*Scheduler, error) {
	const op = "SequentialLR"
	groups, err := groupsOf(op, opt)
	if err != nil {
		return nil, err
	}
	if len(scheds) == 0 {
		return nil, invalid(op, "Sequential Schedulers expects at least one scheduler")
	}
	for i, sc := range scheds {
		if sc == nil || sc.policy == nil {
			return nil, invalid(op, "scheduler %d is nil or zero", i)
		}
		if !sameOptimizer(sc.opt, opt) {
			return nil, invalid(op, "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at index %d to be different than the optimizer passed in.", i)
		}
		if slices.Contains(scheds[:i], sc) {
			return nil, invalid(op, "scheduler %d is given twice", i)
		}
	}
	if len(milestones) != len(scheds)-1 {
		return nil, invalid(op, "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points, but got number of schedulers %d and the number of milestones to be equal to %d",
			len(scheds), len(milestones))
	}
	s := &Scheduler{name: op, opt: opt, policy: &sequentialLR{slices.Clone(scheds), slices.Clone(milestones)}}
	for i, g := range groups {
		lr, ok := g.InitialLR()
		if !ok {
			return nil, invalid(op, "param 'initial_lr' is not specified in param_groups[%d]", i)
		}
		if err := g.SetLR(lr); err != nil {
			return nil, err
		}
		s.baseLRs = append(s.baseLRs, lr)
	}
	for _, sc := range scheds {
		sc.lastEpoch--
	}
	if err := scheds[0].initialStep(); err != nil {
		return nil, err
	}
	s.lastLR = scheds[0].LastLR()
	return s, nil
}

// sameOptimizer compares two optimizers without panicking on values of
// incomparable types.
func sameOptimizer(a, b optim.Optimizer) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

func (p *sequentialLR) step(s *Scheduler, epoch int) error {
	if epoch >= 0 {
		return invalid("SequentialLR", "step takes no epoch (SequentialLR nested in SequentialLR)")
	}
	e := s.lastEpoch + 1
	idx := sort.SearchInts(p.milestones, e+1) // bisect_right
	if idx > len(p.scheds)-1 {
		idx = len(p.scheds) - 1
	}
	sc := p.scheds[idx]
	var err error
	if idx > 0 && p.milestones[idx-1] == e {
		err = sc.step(0)
	} else {
		err = sc.step(-1)
	}
	if err != nil {
		return err
	}
	s.lastEpoch = e
	s.stepCount++
	s.lastLR = sc.LastLR()
	return nil
}

func (p *sequentialLR) lr(s *Scheduler) ([]float64, error) { return s.groupLRs(), nil }

func (p *sequentialLR) closed(*Scheduler) ([]float64, bool) { return nil, false }

func (p *sequentialLR) save(sd map[string]any) {
	sd["_milestones"] = slices.Clone(p.milestones)
	nested := make([]map[string]any, len(p.scheds))
	for i, sc := range p.scheds {
		nested[i], _ = sc.StateDict()
	}
	sd["_schedulers"] = nested
}

func (p *sequentialLR) load(sd map[string]any) error {
	r := reader{op: "SequentialLR", sd: sd}
	mv, _ := r.get("_milestones")
	nv, _ := r.get("_schedulers")
	if r.err != nil {
		return r.err
	}
	ms, ok := mv.([]int)
	if !ok || len(ms) != len(p.milestones) {
		return invalid("SequentialLR", "state dict entry \"_milestones\" is a %T of another length, not []int of %d", mv, len(p.milestones))
	}
	nested, ok := nv.([]map[string]any)
	if !ok || len(nested) != len(p.scheds) {
		return invalid("SequentialLR", "state dict entry \"_schedulers\" is not %d scheduler states", len(p.scheds))
	}
	for i, sc := range p.scheds {
		if err := sc.LoadStateDict(nested[i]); err != nil {
			return err
		}
	}
	p.milestones = slices.Clone(ms)
	return nil
}
