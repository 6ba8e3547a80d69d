package lrscheduler

import (
	"slices"
	"sort"
)

// Option sets one argument of a scheduler, as a keyword argument in
// PyTorch: an option not given takes PyTorch's default, and any given
// value, zero included, means what it says. An option the scheduler does
// not take is an error.
type Option struct {
	name string
	set  func(*config)
}

// config holds every scheduler argument that has a default.
type config struct {
	gamma, etaMin, factor, startFactor, endFactor float64
	tMult, totalIters                             int
	// OneCycleLR
	totalSteps, epochs, stepsPerEpoch int
	pctStart, divFactor, finalDiv     float64
	anneal                            string
	cycleMomentum, threePhase         bool
	baseMomentum, maxMomentum         []float64
	// ReduceLROnPlateau
	mode, thresholdMode string
	patience, cooldown  int
	threshold, eps      float64
	minLR               []float64
}

// Gamma sets the multiplicative decay of StepLR and MultiStepLR (default
// 0.1).
func Gamma(v float64) Option { return Option{"gamma", func(c *config) { c.gamma = v }} }

// EtaMin sets the minimum rate of the cosine schedules (default 0).
func EtaMin(v float64) Option { return Option{"eta_min", func(c *config) { c.etaMin = v }} }

// TMult sets the factor by which CosineAnnealingWarmRestarts lengthens its
// periods (default 1).
func TMult(v int) Option { return Option{"T_mult", func(c *config) { c.tMult = v }} }

// Factor sets ConstantLR's factor (default 1/3) or ReduceLROnPlateau's
// (default 0.1).
func Factor(v float64) Option { return Option{"factor", func(c *config) { c.factor = v }} }

// StartFactor sets LinearLR's first factor (default 1/3).
func StartFactor(v float64) Option {
	return Option{"start_factor", func(c *config) { c.startFactor = v }}
}

// EndFactor sets LinearLR's last factor (default 1).
func EndFactor(v float64) Option { return Option{"end_factor", func(c *config) { c.endFactor = v }} }

// TotalIters sets the number of steps of LinearLR and ConstantLR (default
// 5).
func TotalIters(v int) Option { return Option{"total_iters", func(c *config) { c.totalIters = v }} }

// TotalSteps sets OneCycleLR's number of steps.
func TotalSteps(v int) Option { return Option{"total_steps", func(c *config) { c.totalSteps = v }} }

// Epochs sets OneCycleLR's number of epochs, used with StepsPerEpoch when
// TotalSteps is not given.
func Epochs(v int) Option { return Option{"epochs", func(c *config) { c.epochs = v }} }

// StepsPerEpoch sets OneCycleLR's steps per epoch (see Epochs).
func StepsPerEpoch(v int) Option {
	return Option{"steps_per_epoch", func(c *config) { c.stepsPerEpoch = v }}
}

// PctStart sets the fraction of OneCycleLR's steps spent raising the rate
// (default 0.3).
func PctStart(v float64) Option { return Option{"pct_start", func(c *config) { c.pctStart = v }} }

// AnnealStrategy sets OneCycleLR's annealing, "cos" (default) or "linear".
func AnnealStrategy(v string) Option {
	return Option{"anneal_strategy", func(c *config) { c.anneal = v }}
}

// CycleMomentum turns OneCycleLR's inverse cycling of the momentum (or of
// Adam's beta1) on or off (default on).
func CycleMomentum(on bool) Option {
	return Option{"cycle_momentum", func(c *config) { c.cycleMomentum = on }}
}

// BaseMomentum sets OneCycleLR's lowest momentum, one value for every
// group or one per group (default 0.85).
func BaseMomentum(v ...float64) Option {
	return Option{"base_momentum", func(c *config) { c.baseMomentum = slices.Clone(v) }}
}

// MaxMomentum sets OneCycleLR's highest momentum, one value for every
// group or one per group (default 0.95).
func MaxMomentum(v ...float64) Option {
	return Option{"max_momentum", func(c *config) { c.maxMomentum = slices.Clone(v) }}
}

// DivFactor sets OneCycleLR's initial rate as max_lr/DivFactor (default
// 25).
func DivFactor(v float64) Option { return Option{"div_factor", func(c *config) { c.divFactor = v }} }

// FinalDivFactor sets OneCycleLR's last rate as initial_lr/FinalDivFactor
// (default 1e4).
func FinalDivFactor(v float64) Option {
	return Option{"final_div_factor", func(c *config) { c.finalDiv = v }}
}

// ThreePhase makes OneCycleLR come back down to the initial rate before
// annealing to the last one.
func ThreePhase(on bool) Option { return Option{"three_phase", func(c *config) { c.threePhase = on }} }

// Mode sets ReduceLROnPlateau's mode, "min" (default) or "max".
func Mode(v string) Option { return Option{"mode", func(c *config) { c.mode = v }} }

// Patience sets the epochs ReduceLROnPlateau waits without improvement
// (default 10).
func Patience(v int) Option { return Option{"patience", func(c *config) { c.patience = v }} }

// Threshold sets the least change ReduceLROnPlateau counts as an
// improvement (default 1e-4).
func Threshold(v float64) Option { return Option{"threshold", func(c *config) { c.threshold = v }} }

// ThresholdMode sets how the threshold applies: "rel" (default) or "abs".
func ThresholdMode(v string) Option {
	return Option{"threshold_mode", func(c *config) { c.thresholdMode = v }}
}

// Cooldown sets the epochs ReduceLROnPlateau waits after a reduction
// (default 0).
func Cooldown(v int) Option { return Option{"cooldown", func(c *config) { c.cooldown = v }} }

// MinLR sets ReduceLROnPlateau's lowest rate, one for every group or one
// per group (default 0).
func MinLR(v ...float64) Option {
	return Option{"min_lr", func(c *config) { c.minLR = slices.Clone(v) }}
}

// Eps sets the least change of rate ReduceLROnPlateau applies (default
// 1e-8).
func Eps(v float64) Option { return Option{"eps", func(c *config) { c.eps = v }} }

// defaults are PyTorch's.
func defaults() config {
	return config{gamma: 0.1, factor: 1.0 / 3, startFactor: 1.0 / 3, endFactor: 1, tMult: 1, totalIters: 5,
		pctStart: 0.3, divFactor: 25, finalDiv: 1e4, anneal: "cos", cycleMomentum: true,
		baseMomentum: []float64{0.85}, maxMomentum: []float64{0.95},
		mode: "min", thresholdMode: "rel", patience: 10, threshold: 1e-4, eps: 1e-8, minLR: []float64{0}}
}

// apply sets c from opts for the scheduler op, which takes the options
// allowed; it returns the names given.
func (c *config) apply(op string, allowed []string, opts []Option) (map[string]bool, error) {
	given := map[string]bool{}
	for _, o := range opts {
		if o.set == nil {
			return nil, invalid(op, "an Option must be made by one of lrscheduler's option functions")
		}
		if !slices.Contains(allowed, o.name) {
			sorted := slices.Clone(allowed)
			sort.Strings(sorted)
			return nil, invalid(op, "%s has no option %s (it takes %v)", op, o.name, sorted)
		}
		o.set(c)
		given[o.name] = true
	}
	return given, nil
}
