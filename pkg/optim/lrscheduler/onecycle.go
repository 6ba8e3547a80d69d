package lrscheduler

import (
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/optim"
)

// phase is one phase of OneCycleLR: the step it ends at and which of a
// group's rates (0 initial, 1 max, 2 min) and momenta (0 base, 1 max) it
// goes between.
type phase struct {
	end              float64
	startLR, endLR   int
	startMom, endMom int
}

// oneCycleLR is OneCycleLR's policy, with the per-group values PyTorch
// keeps in the groups (initial_lr, max_lr, min_lr, base and max momentum).
type oneCycleLR struct {
	totalSteps int
	phases     []phase
	cos        bool
	cycle      bool
	useBeta1   bool
	lrs        [][3]float64
	momenta    [][2]float64
}

var oneCycleOptions = []string{"total_steps", "epochs", "steps_per_epoch", "pct_start", "anneal_strategy",
	"cycle_momentum", "base_momentum", "max_momentum", "div_factor", "final_div_factor", "three_phase"}

// NewOneCycleLR is torch.optim.lr_scheduler.OneCycleLR (Smith and Topin,
// 2017): the rates rise from maxLR/DivFactor to maxLR over PctStart of the
// steps, then anneal (cos or linear) to initial/FinalDivFactor; with
// ThreePhase they come back to the initial rate first. maxLR has one value
// for every group or one per group. The number of steps is TotalSteps, or
// Epochs times StepsPerEpoch. With CycleMomentum (default) the momentum,
// or beta1 for optimizers with betas, cycles the other way between
// BaseMomentum and MaxMomentum. Stepping past the number of steps is an
// error.
func NewOneCycleLR(opt optim.Optimizer, maxLR []float64, opts ...Option) (*Scheduler, error) {
	const op = "OneCycleLR"
	groups, err := groupsOf(op, opt)
	if err != nil {
		return nil, err
	}
	c := defaults()
	given, err := c.apply(op, oneCycleOptions, opts)
	if err != nil {
		return nil, err
	}
	p := &oneCycleLR{cos: c.anneal == "cos", cycle: c.cycleMomentum}
	switch {
	case given["total_steps"]:
		if c.totalSteps <= 0 {
			return nil, invalid(op, "Expected positive integer total_steps, but got %d", c.totalSteps)
		}
		p.totalSteps = c.totalSteps
	case !given["epochs"] || !given["steps_per_epoch"]:
		return nil, invalid(op, "You must define either total_steps OR (epochs AND steps_per_epoch)")
	case c.epochs <= 0:
		return nil, invalid(op, "Expected positive integer epochs, but got %d", c.epochs)
	case c.stepsPerEpoch <= 0:
		return nil, invalid(op, "Expected positive integer steps_per_epoch, but got %d", c.stepsPerEpoch)
	default:
		p.totalSteps = c.epochs * c.stepsPerEpoch
	}
	total := float64(p.totalSteps)
	if c.threePhase {
		p.phases = []phase{{c.pctStart*total - 1, 0, 1, 1, 0}, {2*c.pctStart*total - 2, 1, 0, 0, 1}, {total - 1, 0, 2, 1, 1}}
	} else {
		p.phases = []phase{{c.pctStart*total - 1, 0, 1, 1, 0}, {total - 1, 1, 2, 0, 1}}
	}
	if !(c.pctStart >= 0 && c.pctStart <= 1) {
		return nil, invalid(op, "Expected float between 0 and 1 pct_start, but got %s", pyfmt.Float(c.pctStart))
	}
	if c.anneal != "cos" && c.anneal != "linear" {
		return nil, invalid(op, "anneal_strategy must by one of 'cos' or 'linear', instead got %s", c.anneal)
	}
	maxLRs, err := perGroup(op, "max_lr", maxLR, len(groups))
	if err != nil {
		return nil, err
	}
	for i := range groups {
		initial := maxLRs[i] / c.divFactor
		p.lrs = append(p.lrs, [3]float64{initial, maxLRs[i], initial / c.finalDiv})
	}
	var maxMs, baseMs []float64
	if p.cycle {
		_, hasMomentum := groups[0].Momentum()
		_, hasBetas := groups[0].Betas()
		if !hasMomentum && !hasBetas {
			return nil, invalid(op, "optimizer must support momentum with `cycle_momentum` option enabled")
		}
		p.useBeta1 = hasBetas
		if maxMs, err = perGroup(op, "max_momentum", c.maxMomentum, len(groups)); err != nil {
			return nil, err
		}
		if baseMs, err = perGroup(op, "base_momentum", c.baseMomentum, len(groups)); err != nil {
			return nil, err
		}
	}
	for i, g := range groups {
		if err := g.SetInitialLR(p.lrs[i][0]); err != nil {
			return nil, err
		}
		if p.cycle {
			if err := p.setMomentum(g, maxMs[i]); err != nil {
				return nil, err
			}
			p.momenta = append(p.momenta, [2]float64{baseMs[i], maxMs[i]})
		}
	}
	return newScheduler(op, opt, p)
}

// perGroup is v for n groups: one value for all, or one each.
func perGroup(op, name string, v []float64, n int) ([]float64, error) {
	switch len(v) {
	case 1:
		return slices.Repeat(v, n), nil
	case n:
		return slices.Clone(v), nil
	}
	return nil, invalid(op, "expected %d values for %s, got %d", n, name, len(v))
}

// setMomentum sets a group's momentum, or its beta1.
func (p *oneCycleLR) setMomentum(g *optim.ParamGroup, m float64) error {
	if p.useBeta1 {
		b, _ := g.Betas()
		return g.SetBetas(m, b[1])
	}
	return g.SetMomentum(m)
}

// anneal goes from start to end at pct.
func (p *oneCycleLR) anneal(start, end, pct float64) float64 {
	if p.cos {
		return end + (start-end)/2.0*(math.Cos(math.Pi*pct)+1)
	}
	return (end-start)*pct + start
}

func (p *oneCycleLR) lr(s *Scheduler) ([]float64, error) {
	n := s.lastEpoch
	if n > p.totalSteps {
		return nil, invalid("OneCycleLR", "Tried to step %d times. The specified number of total steps is %d", n+1, p.totalSteps)
	}
	groups := s.opt.ParamGroups()
	if len(groups) != len(p.lrs) {
		return nil, invalid("OneCycleLR", "the optimizer has %d parameter groups, the scheduler %d", len(groups), len(p.lrs))
	}
	out := make([]float64, len(groups))
	moms := make([]float64, len(groups))
	for gi := range groups {
		start := 0.0
		for i, ph := range p.phases {
			if float64(n) <= ph.end || i == len(p.phases)-1 {
				if ph.end == start {
					return nil, invalid("OneCycleLR", "float division by zero (phase %d of %d steps is empty)", i, p.totalSteps)
				}
				pct := (float64(n) - start) / (ph.end - start)
				out[gi] = p.anneal(p.lrs[gi][ph.startLR], p.lrs[gi][ph.endLR], pct)
				if p.cycle {
					moms[gi] = p.anneal(p.momenta[gi][ph.startMom], p.momenta[gi][ph.endMom], pct)
				}
				break
			}
			start = ph.end
		}
	}
	if p.cycle {
		for gi, g := range groups {
			if err := p.setMomentum(g, moms[gi]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func (p *oneCycleLR) closed(*Scheduler) ([]float64, bool) { return nil, false }

func (p *oneCycleLR) save(sd map[string]any) {
	sd["total_steps"], sd["cycle_momentum"], sd["use_beta1"] = p.totalSteps, p.cycle, p.useBeta1
}

func (p *oneCycleLR) load(sd map[string]any) error {
	r := reader{op: "OneCycleLR", sd: sd}
	n, cycle := r.int("total_steps"), r.bool("cycle_momentum")
	if r.err == nil && (n <= 0 || cycle != p.cycle) {
		return invalid("OneCycleLR", "the state dict's total_steps %d or cycle_momentum %v do not fit", n, cycle)
	}
	if r.err == nil {
		p.totalSteps = n
	}
	return r.err
}
