package lrscheduler

import (
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/optim"
)

// ReduceLROnPlateau is torch.optim.lr_scheduler.ReduceLROnPlateau: it
// multiplies the rates by a factor when a metric has stopped improving for
// more than patience epochs.
type ReduceLROnPlateau struct {
	opt                 optim.Optimizer
	factor              float64
	minLRs              []float64
	patience, cooldown  int
	mode, thresholdMode string
	threshold, eps      float64
	best                float64
	numBad, cooldownCtr int
	lastEpoch           int
	lastLR              []float64
}

var plateauOptions = []string{"mode", "factor", "patience", "threshold", "threshold_mode", "cooldown", "min_lr", "eps"}

// NewReduceLROnPlateau makes the scheduler with the options Mode ("min" or
// "max"), Factor (default 0.1, below 1), Patience (10), Threshold (1e-4),
// ThresholdMode ("rel" or "abs"), Cooldown (0), MinLR (0, for every group
// or one per group) and Eps (1e-8). As PyTorch 2.x, LastLR holds the
// groups' rates from the start.
func NewReduceLROnPlateau(opt optim.Optimizer, opts ...Option) (*ReduceLROnPlateau, error) {
	const op = "ReduceLROnPlateau"
	c := defaults()
	c.factor = 0.1
	if _, err := c.apply(op, plateauOptions, opts); err != nil {
		return nil, err
	}
	if !(c.factor < 1.0) {
		return nil, invalid(op, "Factor should be < 1.0.")
	}
	groups, err := groupsOf(op, opt)
	if err != nil {
		return nil, err
	}
	if len(c.minLR) != 1 && len(c.minLR) != len(groups) {
		return nil, invalid(op, "expected %d min_lrs, got %d", len(groups), len(c.minLR))
	}
	minLRs, _ := perGroup(op, "min_lr", c.minLR, len(groups))
	r := &ReduceLROnPlateau{opt: opt, factor: c.factor, minLRs: minLRs, patience: c.patience, cooldown: c.cooldown,
		threshold: c.threshold, eps: c.eps}
	if err := r.setModes(c.mode, c.thresholdMode); err != nil {
		return nil, err
	}
	r.best = r.worse()
	for _, g := range groups {
		r.lastLR = append(r.lastLR, g.LR())
	}
	return r, nil
}

// setModes checks and sets the modes.
func (r *ReduceLROnPlateau) setModes(mode, thresholdMode string) error {
	if mode != "min" && mode != "max" {
		return invalid("ReduceLROnPlateau", "mode %s is unknown!", mode)
	}
	if thresholdMode != "rel" && thresholdMode != "abs" {
		return invalid("ReduceLROnPlateau", "threshold mode %s is unknown!", thresholdMode)
	}
	r.mode, r.thresholdMode = mode, thresholdMode
	return nil
}

// worse is the mode's worst value: +Inf for min, -Inf for max.
func (r *ReduceLROnPlateau) worse() float64 {
	if r.mode == "min" {
		return math.Inf(1)
	}
	return math.Inf(-1)
}

// isBetter is PyTorch's is_better(a, best).
func (r *ReduceLROnPlateau) isBetter(a, best float64) bool {
	switch {
	case r.mode == "min" && r.thresholdMode == "rel":
		return a < best*(1.0-r.threshold)
	case r.mode == "min":
		return a < best-r.threshold
	case r.thresholdMode == "rel":
		return a > best*(r.threshold+1.0)
	}
	return a > best+r.threshold
}

// Step takes the epoch's metric: after more than patience epochs without
// improvement (outside a cooldown), each group's rate becomes
// max(lr*factor, min_lr), when that changes it by more than eps.
func (r *ReduceLROnPlateau) Step(metric float64) error {
	if r == nil || r.opt == nil {
		return invalid("ReduceLROnPlateau", "Step called on a nil or zero *ReduceLROnPlateau (make it with NewReduceLROnPlateau)")
	}
	groups := r.opt.ParamGroups()
	if len(groups) != len(r.minLRs) {
		return invalid("ReduceLROnPlateau", "the optimizer has %d parameter groups, the scheduler %d", len(groups), len(r.minLRs))
	}
	r.lastEpoch++
	if r.isBetter(metric, r.best) {
		r.best = metric
		r.numBad = 0
	} else {
		r.numBad++
	}
	if r.cooldownCtr > 0 {
		r.cooldownCtr--
		r.numBad = 0
	}
	if r.numBad > r.patience {
		for i, g := range groups {
			old := g.LR()
			lr := math.Max(old*r.factor, r.minLRs[i])
			if old-lr > r.eps {
				if err := g.SetLR(lr); err != nil {
					return err
				}
			}
		}
		r.cooldownCtr = r.cooldown
		r.numBad = 0
	}
	r.lastLR = r.lastLR[:0]
	for _, g := range groups {
		r.lastLR = append(r.lastLR, g.LR())
	}
	return nil
}

// LastLR is each group's learning rate after the last step.
func (r *ReduceLROnPlateau) LastLR() []float64 {
	if r == nil {
		return nil
	}
	return slices.Clone(r.lastLR)
}

// StateDict is the state with PyTorch's keys (the optimizer left out).
func (r *ReduceLROnPlateau) StateDict() (map[string]any, error) {
	if r == nil || r.opt == nil {
		return nil, invalid("ReduceLROnPlateau", "StateDict called on a nil or zero *ReduceLROnPlateau")
	}
	return map[string]any{"factor": r.factor, "min_lrs": slices.Clone(r.minLRs), "patience": r.patience,
		"cooldown": r.cooldown, "cooldown_counter": r.cooldownCtr, "mode": r.mode, "threshold": r.threshold,
		"threshold_mode": r.thresholdMode, "best": r.best, "num_bad_epochs": r.numBad, "mode_worse": r.worse(),
		"eps": r.eps, "last_epoch": r.lastEpoch, "_last_lr": slices.Clone(r.lastLR)}, nil
}

// LoadStateDict restores a state from StateDict; nothing changes on an
// error.
func (r *ReduceLROnPlateau) LoadStateDict(sd map[string]any) error {
	const op = "ReduceLROnPlateau"
	if r == nil || r.opt == nil {
		return invalid(op, "LoadStateDict called on a nil or zero *ReduceLROnPlateau")
	}
	rd := reader{op: op, sd: sd}
	n := *r
	n.factor, n.minLRs, n.patience, n.cooldown = rd.float("factor"), rd.floats("min_lrs"), rd.int("patience"), rd.int("cooldown")
	n.cooldownCtr, n.threshold, n.best, n.numBad = rd.int("cooldown_counter"), rd.float("threshold"), rd.float("best"), rd.int("num_bad_epochs")
	n.eps, n.lastEpoch, n.lastLR = rd.float("eps"), rd.int("last_epoch"), rd.floats("_last_lr")
	mode, tmode := rd.string("mode"), rd.string("threshold_mode")
	if rd.err != nil {
		return rd.err
	}
	if len(n.minLRs) != len(r.minLRs) {
		return invalid(op, "expected %d min_lrs, got %d", len(r.minLRs), len(n.minLRs))
	}
	if err := n.setModes(mode, tmode); err != nil {
		return err
	}
	*r = n
	return nil
}
