package lrscheduler

import (
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/optim"
)

// stepLR is StepLR's policy.
type stepLR struct {
	stepSize int
	gamma    float64
}

// NewStepLR is torch.optim.lr_scheduler.StepLR: every stepSize epochs the
// rates are multiplied by Gamma (default 0.1). A stepSize below 1 is an
// error (PyTorch fails at the first step it divides by it).
func NewStepLR(opt optim.Optimizer, stepSize int, opts ...Option) (*Scheduler, error) {
	c := defaults()
	if _, err := c.apply("StepLR", []string{"gamma"}, opts); err != nil {
		return nil, err
	}
	if stepSize < 1 {
		return nil, invalid("StepLR", "step_size must be a positive integer, but got %d", stepSize)
	}
	return newScheduler("StepLR", opt, &stepLR{stepSize, c.gamma})
}

func (p *stepLR) lr(s *Scheduler) ([]float64, error) {
	if s.lastEpoch == 0 || s.lastEpoch%p.stepSize != 0 {
		return s.groupLRs(), nil
	}
	return s.scaled(func(int) float64 { return p.gamma }), nil
}

func (p *stepLR) closed(s *Scheduler) ([]float64, bool) {
	return closedScale(s, math.Pow(p.gamma, float64(pyFloorDiv(s.lastEpoch, p.stepSize)))), true
}

func (p *stepLR) save(sd map[string]any) { sd["step_size"], sd["gamma"] = p.stepSize, p.gamma }

func (p *stepLR) load(sd map[string]any) error {
	r := reader{op: "StepLR", sd: sd}
	n, g := r.int("step_size"), r.float("gamma")
	if r.err == nil && n < 1 {
		return invalid("StepLR", "step_size must be a positive integer, but got %d", n)
	}
	if r.err == nil {
		p.stepSize, p.gamma = n, g
	}
	return r.err
}

// closedScale is base_lr * f for every group.
func closedScale(s *Scheduler, f float64) []float64 {
	out := slices.Clone(s.baseLRs)
	for i := range out {
		out[i] *= f
	}
	return out
}

// pyFloorDiv is Python's a // b (b != 0).
func pyFloorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// pyMod is Python's a % b (b != 0): the sign of b.
func pyMod(a, b int) int {
	r := a % b
	if r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r
}

// multiStepLR is MultiStepLR's policy: milestones counted (a repeated
// milestone decays as many times).
type multiStepLR struct {
	milestones map[int]int
	gamma      float64
}

// NewMultiStepLR is torch.optim.lr_scheduler.MultiStepLR: the rates are
// multiplied by Gamma (default 0.1) at each milestone epoch, by
// Gamma^k at a milestone given k times.
func NewMultiStepLR(opt optim.Optimizer, milestones []int, opts ...Option) (*Scheduler, error) {
	c := defaults()
	if _, err := c.apply("MultiStepLR", []string{"gamma"}, opts); err != nil {
		return nil, err
	}
	m := map[int]int{}
	for _, e := range milestones {
		m[e]++
	}
	return newScheduler("MultiStepLR", opt, &multiStepLR{m, c.gamma})
}

func (p *multiStepLR) lr(s *Scheduler) ([]float64, error) {
	k, ok := p.milestones[s.lastEpoch]
	if !ok {
		return s.groupLRs(), nil
	}
	return s.scaled(func(int) float64 { return math.Pow(p.gamma, float64(k)) }), nil
}

func (p *multiStepLR) closed(s *Scheduler) ([]float64, bool) {
	n := 0
	for e, k := range p.milestones {
		if e <= s.lastEpoch {
			n += k
		}
	}
	return closedScale(s, math.Pow(p.gamma, float64(n))), true
}

func (p *multiStepLR) save(sd map[string]any) {
	sd["milestones"], sd["gamma"] = maps(p.milestones), p.gamma
}

func (p *multiStepLR) load(sd map[string]any) error {
	r := reader{op: "MultiStepLR", sd: sd}
	g := r.float("gamma")
	v, _ := r.get("milestones")
	if r.err != nil {
		return r.err
	}
	m, ok := v.(map[int]int)
	if !ok {
		r.fail("milestones", v, "a map[int]int")
		return r.err
	}
	p.milestones, p.gamma = maps(m), g
	return nil
}

// maps copies a milestone count.
func maps(m map[int]int) map[int]int {
	out := make(map[int]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// exponentialLR is ExponentialLR's policy.
type exponentialLR struct{ gamma float64 }

// NewExponentialLR is torch.optim.lr_scheduler.ExponentialLR: the rates
// are multiplied by gamma every epoch.
func NewExponentialLR(opt optim.Optimizer, gamma float64) (*Scheduler, error) {
	return newScheduler("ExponentialLR", opt, &exponentialLR{gamma})
}

func (p *exponentialLR) lr(s *Scheduler) ([]float64, error) {
	if s.lastEpoch == 0 {
		return s.groupLRs(), nil
	}
	return s.scaled(func(int) float64 { return p.gamma }), nil
}

func (p *exponentialLR) closed(s *Scheduler) ([]float64, bool) {
	return closedScale(s, math.Pow(p.gamma, float64(s.lastEpoch))), true
}

func (p *exponentialLR) save(sd map[string]any) { sd["gamma"] = p.gamma }

func (p *exponentialLR) load(sd map[string]any) error {
	r := reader{op: "ExponentialLR", sd: sd}
	g := r.float("gamma")
	if r.err == nil {
		p.gamma = g
	}
	return r.err
}

// constantLR is ConstantLR's policy.
type constantLR struct {
	factor     float64
	totalIters int
}

// NewConstantLR is torch.optim.lr_scheduler.ConstantLR: the rates are
// multiplied by Factor (default 1/3, in [0, 1]) until epoch TotalIters
// (default 5). With Factor 0 the step to TotalIters is an error, as
// PyTorch's division by zero.
func NewConstantLR(opt optim.Optimizer, opts ...Option) (*Scheduler, error) {
	c := defaults()
	if _, err := c.apply("ConstantLR", []string{"factor", "total_iters"}, opts); err != nil {
		return nil, err
	}
	if c.factor > 1 || c.factor < 0 || math.IsNaN(c.factor) {
		return nil, invalid("ConstantLR", "Constant multiplicative factor expected to be between 0 and 1.")
	}
	return newScheduler("ConstantLR", opt, &constantLR{c.factor, c.totalIters})
}

func (p *constantLR) lr(s *Scheduler) ([]float64, error) {
	switch {
	case s.lastEpoch == 0:
		return s.scaled(func(int) float64 { return p.factor }), nil
	case s.lastEpoch != p.totalIters:
		return s.groupLRs(), nil
	case p.factor == 0:
		return nil, invalid("ConstantLR", "float division by zero (factor 0.0 at total_iters %d)", p.totalIters)
	}
	return s.scaled(func(int) float64 { return 1.0 / p.factor }), nil
}

func (p *constantLR) closed(s *Scheduler) ([]float64, bool) {
	f := p.factor
	if s.lastEpoch >= p.totalIters {
		f += 1 - p.factor
	}
	return closedScale(s, f), true
}

func (p *constantLR) save(sd map[string]any) {
	sd["factor"], sd["total_iters"] = p.factor, p.totalIters
}

func (p *constantLR) load(sd map[string]any) error {
	r := reader{op: "ConstantLR", sd: sd}
	f, n := r.float("factor"), r.int("total_iters")
	if r.err == nil {
		p.factor, p.totalIters = f, n
	}
	return r.err
}

// linearLR is LinearLR's policy.
type linearLR struct {
	start, end float64
	totalIters int
}

// NewLinearLR is torch.optim.lr_scheduler.LinearLR: the rates' factor
// goes linearly from StartFactor (default 1/3) to EndFactor (default 1)
// over TotalIters epochs (default 5). As PyTorch 2.x, StartFactor must be
// in (0, 1] (1.13 took 0, then divided by zero) and EndFactor in [0, 1].
func NewLinearLR(opt optim.Optimizer, opts ...Option) (*Scheduler, error) {
	c := defaults()
	if _, err := c.apply("LinearLR", []string{"start_factor", "end_factor", "total_iters"}, opts); err != nil {
		return nil, err
	}
	if !(c.startFactor > 0 && c.startFactor <= 1) {
		return nil, invalid("LinearLR", "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
	}
	if !(c.endFactor >= 0 && c.endFactor <= 1) {
		return nil, invalid("LinearLR", "Ending multiplicative factor expected to be between 0 and 1.")
	}
	return newScheduler("LinearLR", opt, &linearLR{c.startFactor, c.endFactor, c.totalIters})
}

func (p *linearLR) lr(s *Scheduler) ([]float64, error) {
	switch {
	case s.lastEpoch == 0:
		return s.scaled(func(int) float64 { return p.start }), nil
	case s.lastEpoch > p.totalIters:
		return s.groupLRs(), nil
	}
	d := float64(p.totalIters)*p.start + float64(s.lastEpoch-1)*(p.end-p.start)
	if d == 0 {
		return nil, invalid("LinearLR", "float division by zero (total_iters %d)", p.totalIters)
	}
	return s.scaled(func(int) float64 { return 1.0 + (p.end-p.start)/d }), nil
}

func (p *linearLR) closed(s *Scheduler) ([]float64, bool) {
	out := slices.Clone(s.baseLRs)
	for i := range out {
		out[i] *= p.start + (p.end-p.start)*float64(min(p.totalIters, s.lastEpoch))/float64(p.totalIters)
	}
	return out, true
}

func (p *linearLR) save(sd map[string]any) {
	sd["start_factor"], sd["end_factor"], sd["total_iters"] = p.start, p.end, p.totalIters
}

func (p *linearLR) load(sd map[string]any) error {
	r := reader{op: "LinearLR", sd: sd}
	a, b, n := r.float("start_factor"), r.float("end_factor"), r.int("total_iters")
	if r.err == nil {
		p.start, p.end, p.totalIters = a, b, n
	}
	return r.err
}

// cosineAnnealingLR is CosineAnnealingLR's policy.
type cosineAnnealingLR struct {
	tMax   int
	etaMin float64
}

// NewCosineAnnealingLR is torch.optim.lr_scheduler.CosineAnnealingLR: the
// rates follow a cosine from their initial value down to EtaMin (default
// 0) over tMax epochs, and back up past it, in PyTorch's recursive form.
func NewCosineAnnealingLR(opt optim.Optimizer, tMax int, opts ...Option) (*Scheduler, error) {
	c := defaults()
	if _, err := c.apply("CosineAnnealingLR", []string{"eta_min"}, opts); err != nil {
		return nil, err
	}
	if tMax == 0 {
		return nil, invalid("CosineAnnealingLR", "T_max must not be 0 (PyTorch divides by it)")
	}
	return newScheduler("CosineAnnealingLR", opt, &cosineAnnealingLR{tMax, c.etaMin})
}

func (p *cosineAnnealingLR) lr(s *Scheduler) ([]float64, error) {
	e, t, eta := float64(s.lastEpoch), float64(p.tMax), p.etaMin
	lrs := s.groupLRs()
	switch {
	case s.lastEpoch == 0:
		return lrs, nil
	case s.stepCount == 1 && s.lastEpoch > 0:
		out, _ := p.closed(s)
		return out, nil
	case pyMod(s.lastEpoch-1-p.tMax, 2*p.tMax) == 0:
		for i := range lrs {
			lrs[i] += (s.baseLRs[i] - eta) * (1 - math.Cos(math.Pi/t)) / 2
		}
		return lrs, nil
	}
	for i := range lrs {
		lrs[i] = (1+math.Cos(math.Pi*e/t))/(1+math.Cos(math.Pi*(e-1)/t))*(lrs[i]-eta) + eta
	}
	return lrs, nil
}

func (p *cosineAnnealingLR) closed(s *Scheduler) ([]float64, bool) {
	out := slices.Clone(s.baseLRs)
	for i, base := range out {
		out[i] = p.etaMin + (base-p.etaMin)*(1+math.Cos(math.Pi*float64(s.lastEpoch)/float64(p.tMax)))/2
	}
	return out, true
}

func (p *cosineAnnealingLR) save(sd map[string]any) { sd["T_max"], sd["eta_min"] = p.tMax, p.etaMin }

func (p *cosineAnnealingLR) load(sd map[string]any) error {
	r := reader{op: "CosineAnnealingLR", sd: sd}
	t, eta := r.int("T_max"), r.float("eta_min")
	if r.err == nil && t == 0 {
		return invalid("CosineAnnealingLR", "T_max must not be 0")
	}
	if r.err == nil {
		p.tMax, p.etaMin = t, eta
	}
	return r.err
}

// lambdaLR is LambdaLR's policy.
type lambdaLR struct{ fns []func(epoch int) float64 }

// NewLambdaLR is torch.optim.lr_scheduler.LambdaLR: the rate of group i is
// its initial rate times fns[i](epoch); one function serves every group.
// The functions are not part of the state dict, as PyTorch's lambdas.
func NewLambdaLR(opt optim.Optimizer, fns ...func(epoch int) float64) (*Scheduler, error) {
	groups, err := groupsOf("LambdaLR", opt)
	if err != nil {
		return nil, err
	}
	if len(fns) == 1 {
		fns = slices.Repeat(fns, len(groups))
	}
	if len(fns) != len(groups) {
		return nil, invalid("LambdaLR", "Expected %d lr_lambdas, but got %d", len(groups), len(fns))
	}
	for i, f := range fns {
		if f == nil {
			return nil, invalid("LambdaLR", "lr_lambda %d is nil", i)
		}
	}
	return newScheduler("LambdaLR", opt, &lambdaLR{slices.Clone(fns)})
}

func (p *lambdaLR) lr(s *Scheduler) ([]float64, error) {
	out := slices.Clone(s.baseLRs)
	for i := range out {
		out[i] *= p.fns[i](s.lastEpoch)
	}
	return out, nil
}

func (p *lambdaLR) closed(*Scheduler) ([]float64, bool) { return nil, false }

func (p *lambdaLR) save(sd map[string]any) { sd["lr_lambdas"] = make([]any, len(p.fns)) }

func (p *lambdaLR) load(map[string]any) error { return nil }

// warmRestarts is CosineAnnealingWarmRestarts' policy.
type warmRestarts struct {
	t0, tI, tMult int
	tCur, etaMin  float64
}

// NewCosineAnnealingWarmRestarts is
// torch.optim.lr_scheduler.CosineAnnealingWarmRestarts (SGDR): a cosine
// from the initial rates to EtaMin (default 0) over t0 epochs, restarted,
// each period TMult (default 1) times the last.
func NewCosineAnnealingWarmRestarts(opt optim.Optimizer, t0 int, opts ...Option) (*Scheduler, error) {
	const op = "CosineAnnealingWarmRestarts"
	c := defaults()
	if _, err := c.apply(op, []string{"T_mult", "eta_min"}, opts); err != nil {
		return nil, err
	}
	if t0 <= 0 {
		return nil, invalid(op, "Expected positive integer T_0, but got %d", t0)
	}
	if c.tMult < 1 {
		return nil, invalid(op, "Expected integer T_mult >= 1, but got %d", c.tMult)
	}
	return newScheduler(op, opt, &warmRestarts{t0: t0, tI: t0, tMult: c.tMult, tCur: -1, etaMin: c.etaMin})
}

func (p *warmRestarts) lr(s *Scheduler) ([]float64, error) {
	out := slices.Clone(s.baseLRs)
	for i, base := range out {
		out[i] = p.etaMin + (base-p.etaMin)*(1+math.Cos(math.Pi*p.tCur/float64(p.tI)))/2
	}
	return out, nil
}

func (p *warmRestarts) closed(*Scheduler) ([]float64, bool) { return nil, false }

// step is the scheduler's own step(epoch), epoch < 0 for none.
func (p *warmRestarts) step(s *Scheduler, epoch int) error {
	if epoch < 0 && s.lastEpoch < 0 {
		epoch = 0
	}
	if epoch < 0 {
		epoch = s.lastEpoch + 1
		p.tCur++
		if p.tCur >= float64(p.tI) {
			p.tCur -= float64(p.tI)
			p.tI *= p.tMult
		}
	} else if epoch >= p.t0 {
		if p.tMult == 1 {
			p.tCur = float64(epoch % p.t0)
		} else {
			n := int(math.Log(float64(epoch)/float64(p.t0)*float64(p.tMult-1)+1) / math.Log(float64(p.tMult)))
			pow := math.Pow(float64(p.tMult), float64(n))
			p.tCur = float64(epoch) - float64(p.t0)*(pow-1)/float64(p.tMult-1)
			p.tI = p.t0 * int(pow)
		}
	} else {
		p.tI = p.t0
		p.tCur = float64(epoch)
	}
	s.lastEpoch = epoch
	lrs, _ := p.lr(s)
	return s.setLRs(lrs)
}

func (p *warmRestarts) save(sd map[string]any) {
	sd["T_0"], sd["T_i"], sd["T_mult"], sd["T_cur"], sd["eta_min"] = p.t0, p.tI, p.tMult, p.tCur, p.etaMin
}

func (p *warmRestarts) load(sd map[string]any) error {
	r := reader{op: "CosineAnnealingWarmRestarts", sd: sd}
	t0, tI, tMult, tCur, eta := r.int("T_0"), r.int("T_i"), r.int("T_mult"), r.float("T_cur"), r.float("eta_min")
	if r.err == nil && (t0 <= 0 || tI <= 0 || tMult < 1) {
		return invalid("CosineAnnealingWarmRestarts", "bad T_0 %d, T_i %d or T_mult %d", t0, tI, tMult)
	}
	if r.err == nil {
		p.t0, p.tI, p.tMult, p.tCur, p.etaMin = t0, tI, tMult, tCur, eta
	}
	return r.err
}
