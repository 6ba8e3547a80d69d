// Package lrscheduler holds the learning-rate schedulers of
// torch.optim.lr_scheduler. They work on any optim.Optimizer's parameter
// groups, with PyTorch's arithmetic: Step applies the recursive
// ("chainable") form PyTorch's step() applies, so that schedulers can be
// combined and a sequence of rates matches PyTorch's to the last bit.
//
//	opt, _ := optim.NewSGD(params, optim.LR(0.1), optim.Momentum(0.9))
//	sched, _ := lrscheduler.NewStepLR(opt, 30, lrscheduler.Gamma(0.1))
//	for epoch := range 100 {
//		train(opt)
//		if err := sched.Step(); err != nil { ... }
//	}
//
// As in PyTorch, making a scheduler takes its first step (epoch 0) and sets
// each group's initial_lr when it has none; schedulers made later on the
// same optimizer start from that initial_lr.
package lrscheduler

import (
	"fmt"
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Scheduler is an epoch-based LR scheduler: StepLR, MultiStepLR,
// ExponentialLR, CosineAnnealingLR, CosineAnnealingWarmRestarts, LinearLR,
// ConstantLR, LambdaLR, OneCycleLR or SequentialLR. Its methods are not
// safe for concurrent use with each other or with its optimizer's.
type Scheduler struct {
	name      string
	opt       optim.Optimizer
	baseLRs   []float64
	lastEpoch int
	stepCount int
	lastLR    []float64
	policy    policy
}

// policy is what one kind of scheduler computes.
type policy interface {
	// lr is PyTorch's get_lr(): the rates of the epoch s.lastEpoch.
	lr(s *Scheduler) ([]float64, error)
	// closed is _get_closed_form_lr() (ok false for schedulers without
	// one, whose lr is used instead).
	closed(s *Scheduler) (lrs []float64, ok bool)
	// save and load the policy's own state dict entries.
	save(sd map[string]any)
	load(sd map[string]any) error
}

// stepper is a policy with its own step (CosineAnnealingWarmRestarts,
// SequentialLR): epoch < 0 is step(), else step(epoch).
type stepper interface {
	step(s *Scheduler, epoch int) error
}

// newScheduler makes the scheduler name on opt and takes its first step,
// as PyTorch's _LRScheduler.__init__ with last_epoch -1.
func newScheduler(name string, opt optim.Optimizer, p policy) (*Scheduler, error) {
	groups, err := groupsOf(name, opt)
	if err != nil {
		return nil, err
	}
	s := &Scheduler{name: name, opt: opt, lastEpoch: -1, policy: p}
	for _, g := range groups {
		if _, ok := g.InitialLR(); !ok {
			if err := g.SetInitialLR(g.LR()); err != nil {
				return nil, err
			}
		}
		lr, _ := g.InitialLR()
		s.baseLRs = append(s.baseLRs, lr)
	}
	if err := s.initialStep(); err != nil {
		return nil, err
	}
	return s, nil
}

// groupsOf is opt's groups, or an error for a nil optimizer or none.
func groupsOf(name string, opt optim.Optimizer) ([]*optim.ParamGroup, error) {
	if opt == nil {
		return nil, invalid(name, "got a nil optimizer")
	}
	groups := opt.ParamGroups()
	if len(groups) == 0 {
		return nil, invalid(name, "the optimizer has no parameter groups (make optimizers with their constructors)")
	}
	return groups, nil
}

// initialStep is PyTorch's _initial_step: the step to epoch 0.
func (s *Scheduler) initialStep() error {
	s.stepCount = 0
	return s.step(-1)
}

// Step moves to the next epoch and sets the groups' learning rates.
func (s *Scheduler) Step() error {
	if s == nil || s.policy == nil {
		return invalid("Scheduler", "Step called on a nil or zero *Scheduler (make schedulers with their New functions)")
	}
	return s.step(-1)
}

// step is PyTorch's step(epoch): epoch < 0 for none.
func (s *Scheduler) step(epoch int) error {
	if st, ok := s.policy.(stepper); ok {
		return st.step(s, epoch)
	}
	last := s.lastEpoch
	s.stepCount++
	var lrs []float64
	var err error
	if epoch < 0 {
		s.lastEpoch++
		lrs, err = s.policy.lr(s)
	} else {
		s.lastEpoch = epoch
		var ok bool
		if lrs, ok = s.policy.closed(s); !ok {
			lrs, err = s.policy.lr(s)
		}
	}
	if err == nil {
		err = s.setLRs(lrs)
	}
	if err != nil {
		s.lastEpoch = last
		return err
	}
	return nil
}

// setLRs sets the groups' rates and records them as the last ones.
func (s *Scheduler) setLRs(lrs []float64) error {
	groups := s.opt.ParamGroups()
	if len(lrs) != len(groups) {
		return invalid(s.name, "the optimizer has %d parameter groups, the scheduler %d", len(groups), len(lrs))
	}
	for i, g := range groups {
		if err := g.SetLR(lrs[i]); err != nil {
			return fmt.Errorf("%s: group %d: %w", s.name, i, err)
		}
	}
	s.lastLR = slices.Clone(lrs)
	return nil
}

// groupLRs are the groups' current learning rates.
func (s *Scheduler) groupLRs() []float64 {
	var out []float64
	for _, g := range s.opt.ParamGroups() {
		out = append(out, g.LR())
	}
	return out
}

// scaled are the groups' current rates times f(i) for group i.
func (s *Scheduler) scaled(f func(i int) float64) []float64 {
	lrs := s.groupLRs()
	for i := range lrs {
		lrs[i] *= f(i)
	}
	return lrs
}

// LastLR is the learning rate of each group set by the last step
// (PyTorch's get_last_lr(); nil for a nil scheduler).
func (s *Scheduler) LastLR() []float64 {
	if s == nil {
		return nil
	}
	return slices.Clone(s.lastLR)
}

// LastEpoch is the epoch of the last step (0 after making the scheduler).
func (s *Scheduler) LastEpoch() int {
	if s == nil {
		return 0
	}
	return s.lastEpoch
}

// BaseLRs are the groups' initial learning rates, the scheduler's start.
func (s *Scheduler) BaseLRs() []float64 {
	if s == nil {
		return nil
	}
	return slices.Clone(s.baseLRs)
}

// StateDict is the scheduler's state with PyTorch's keys ("base_lrs",
// "last_epoch", "_step_count", "_last_lr" and the scheduler's own, such as
// "gamma" or "T_cur"); the optimizer is not part of it, as in PyTorch.
func (s *Scheduler) StateDict() (map[string]any, error) {
	if s == nil || s.policy == nil {
		return nil, invalid("Scheduler", "StateDict called on a nil or zero *Scheduler")
	}
	sd := map[string]any{
		"base_lrs":                   slices.Clone(s.baseLRs),
		"last_epoch":                 s.lastEpoch,
		"_step_count":                s.stepCount,
		"_last_lr":                   slices.Clone(s.lastLR),
		"_get_lr_called_within_step": false,
	}
	s.policy.save(sd)
	return sd, nil
}

// LoadStateDict restores a state from StateDict (of a scheduler of the
// same kind on an optimizer with as many groups). Nothing changes on an
// error, except the nested states of a SequentialLR loaded before it.
func (s *Scheduler) LoadStateDict(sd map[string]any) error {
	if s == nil || s.policy == nil {
		return invalid("Scheduler", "LoadStateDict called on a nil or zero *Scheduler")
	}
	r := reader{op: s.name, sd: sd}
	base := r.floats("base_lrs")
	last := r.int("last_epoch")
	count := r.int("_step_count")
	lastLR := r.floats("_last_lr")
	if r.err != nil {
		return r.err
	}
	if len(base) != len(s.baseLRs) || len(lastLR) != len(s.baseLRs) {
		return invalid(s.name, "the state dict has %d base_lrs and %d _last_lr, the optimizer %d groups",
			len(base), len(lastLR), len(s.baseLRs))
	}
	if err := s.policy.load(sd); err != nil {
		return err
	}
	s.baseLRs, s.lastEpoch, s.stepCount, s.lastLR = base, last, count, lastLR
	return nil
}

// reader reads typed values of a state dict, keeping the first error.
type reader struct {
	op  string
	sd  map[string]any
	err error
}

func (r *reader) get(key string) (any, bool) {
	if r.err != nil {
		return nil, false
	}
	v, ok := r.sd[key]
	if !ok {
		r.err = invalid(r.op, "the state dict has no %q", key)
	}
	return v, ok
}

func (r *reader) fail(key string, v any, want string) {
	r.err = invalid(r.op, "state dict entry %q is a %T, not %s", key, v, want)
}

func (r *reader) float(key string) float64 {
	v, ok := r.get(key)
	if !ok {
		return 0
	}
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	r.fail(key, v, "a float64")
	return 0
}

func (r *reader) int(key string) int {
	v, ok := r.get(key)
	if !ok {
		return 0
	}
	switch x := v.(type) {
	case int:
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x)
		}
	}
	r.fail(key, v, "an int")
	return 0
}

func (r *reader) bool(key string) bool {
	v, ok := r.get(key)
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		r.fail(key, v, "a bool")
	}
	return b
}

func (r *reader) string(key string) string {
	v, ok := r.get(key)
	if !ok {
		return ""
	}
	str, isString := v.(string)
	if !isString {
		r.fail(key, v, "a string")
	}
	return str
}

func (r *reader) floats(key string) []float64 {
	v, ok := r.get(key)
	if !ok {
		return nil
	}
	x, isFloats := v.([]float64)
	if !isFloats {
		r.fail(key, v, "a []float64")
	}
	return slices.Clone(x)
}

// invalid is an argument error of op.
func invalid(op, format string, args ...any) error {
	return torch.NewError(op, torch.ErrArgument, nil, format, args...)
}
