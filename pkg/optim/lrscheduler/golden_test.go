package lrscheduler_test

import (
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/optim/lrscheduler"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

type schedFile struct {
	Schedulers []struct {
		Name      string         `json:"name"`
		Optimizer string         `json:"optimizer"`
		Args      map[string]any `json:"args"`
		LRs       [][]float64    `json:"lrs"`
		Momenta   [][]float64    `json:"momenta"`
		Metrics   []*float64     `json:"metrics"`
	} `json:"schedulers"`
	Errors []struct {
		Name  string `json:"name"`
		Error string `json:"error"`
	} `json:"scheduler_errors"`
}

// twoGroups is the scripts' optimizer: SGD (momentum 0.9) or Adam with
// groups of rate 0.1 and 0.05.
func twoGroups(t *testing.T, kind string) optim.Optimizer {
	p := torch.Zeros([]int{1}).RequiresGrad_(true)
	q := torch.Zeros([]int{1}).RequiresGrad_(true)
	var opt optim.Optimizer
	var err error
	if kind == "adam" {
		opt, err = optim.NewAdam([]*torch.Tensor{p}, optim.LR(0.1))
		if err == nil {
			err = opt.AddParamGroup([]*torch.Tensor{q}, optim.LR(0.05), optim.Betas(0.8, 0.99))
		}
	} else {
		opt, err = optim.NewSGD([]*torch.Tensor{p}, optim.LR(0.1), optim.Momentum(0.9))
		if err == nil {
			err = opt.AddParamGroup([]*torch.Tensor{q}, optim.LR(0.05))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

func floats(v any) []float64 {
	var out []float64
	for _, x := range v.([]any) {
		out = append(out, x.(float64))
	}
	return out
}

func ints(v any) []int {
	var out []int
	for _, x := range v.([]any) {
		out = append(out, int(x.(float64)))
	}
	return out
}

// options turns the script's keyword arguments into options, leaving out
// the positional ones.
func options(args map[string]any) []lrscheduler.Option {
	var out []lrscheduler.Option
	for k, v := range args {
		f, _ := v.(float64)
		switch k {
		case "gamma":
			out = append(out, lrscheduler.Gamma(f))
		case "eta_min":
			out = append(out, lrscheduler.EtaMin(f))
		case "T_mult":
			out = append(out, lrscheduler.TMult(int(f)))
		case "start_factor":
			out = append(out, lrscheduler.StartFactor(f))
		case "end_factor":
			out = append(out, lrscheduler.EndFactor(f))
		case "total_iters":
			out = append(out, lrscheduler.TotalIters(int(f)))
		case "factor":
			out = append(out, lrscheduler.Factor(f))
		case "total_steps":
			out = append(out, lrscheduler.TotalSteps(int(f)))
		case "epochs":
			out = append(out, lrscheduler.Epochs(int(f)))
		case "steps_per_epoch":
			out = append(out, lrscheduler.StepsPerEpoch(int(f)))
		case "anneal_strategy":
			out = append(out, lrscheduler.AnnealStrategy(v.(string)))
		case "three_phase":
			out = append(out, lrscheduler.ThreePhase(v.(bool)))
		case "cycle_momentum":
			out = append(out, lrscheduler.CycleMomentum(v.(bool)))
		case "div_factor":
			out = append(out, lrscheduler.DivFactor(f))
		case "final_div_factor":
			out = append(out, lrscheduler.FinalDivFactor(f))
		case "pct_start":
			out = append(out, lrscheduler.PctStart(f))
		case "base_momentum":
			out = append(out, lrscheduler.BaseMomentum(floats(v)...))
		case "max_momentum":
			out = append(out, lrscheduler.MaxMomentum(floats(v)...))
		case "mode":
			out = append(out, lrscheduler.Mode(v.(string)))
		case "patience":
			out = append(out, lrscheduler.Patience(int(f)))
		case "threshold":
			out = append(out, lrscheduler.Threshold(f))
		case "threshold_mode":
			out = append(out, lrscheduler.ThresholdMode(v.(string)))
		case "cooldown":
			out = append(out, lrscheduler.Cooldown(int(f)))
		case "min_lr":
			out = append(out, lrscheduler.MinLR(floats(v)...))
		case "eps":
			out = append(out, lrscheduler.Eps(f))
		}
	}
	return out
}

// makeScheduler makes the script's scheduler name on opt.
func makeScheduler(t *testing.T, name string, opt optim.Optimizer, args map[string]any) *lrscheduler.Scheduler {
	var s *lrscheduler.Scheduler
	var err error
	opts := options(args)
	switch {
	case strings.HasPrefix(name, "multistep"):
		s, err = lrscheduler.NewMultiStepLR(opt, ints(args["milestones"]), opts...)
	case strings.HasPrefix(name, "step"):
		s, err = lrscheduler.NewStepLR(opt, int(args["step_size"].(float64)), opts...)
	case name == "exponential":
		s, err = lrscheduler.NewExponentialLR(opt, args["gamma"].(float64))
	case strings.HasPrefix(name, "cosine"):
		s, err = lrscheduler.NewCosineAnnealingLR(opt, int(args["T_max"].(float64)), opts...)
	case strings.HasPrefix(name, "warm"):
		s, err = lrscheduler.NewCosineAnnealingWarmRestarts(opt, int(args["T_0"].(float64)), opts...)
	case strings.HasPrefix(name, "linear"):
		s, err = lrscheduler.NewLinearLR(opt, opts...)
	case strings.HasPrefix(name, "constant"):
		s, err = lrscheduler.NewConstantLR(opt, opts...)
	case name == "lambda":
		s, err = lrscheduler.NewLambdaLR(opt, func(e int) float64 { return math.Pow(0.9, float64(e)) },
			func(e int) float64 { return 1.0 / float64(e+1) })
	case strings.HasPrefix(name, "onecycle"):
		s, err = lrscheduler.NewOneCycleLR(opt, floats(args["max_lr"]), opts...)
	case name == "sequential":
		a, err1 := lrscheduler.NewLinearLR(opt, lrscheduler.StartFactor(0.1), lrscheduler.TotalIters(4))
		b, err2 := lrscheduler.NewExponentialLR(opt, 0.9)
		c, err3 := lrscheduler.NewCosineAnnealingLR(opt, 5, lrscheduler.EtaMin(0.001))
		for _, e := range []error{err1, err2, err3} {
			if e != nil {
				t.Fatal(e)
			}
		}
		s, err = lrscheduler.NewSequentialLR(opt, []*lrscheduler.Scheduler{a, b, c}, []int{5, 12})
	default:
		t.Fatalf("no scheduler %s", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func momenta(opt optim.Optimizer) []float64 {
	var out []float64
	for _, g := range opt.ParamGroups() {
		if b, ok := g.Betas(); ok {
			out = append(out, b[0])
		} else {
			m, _ := g.Momentum()
			out = append(out, m)
		}
	}
	return out
}

func check(t *testing.T, step int, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if !golden.Close(got[i], want[i], 1e-17, 1e-14) {
			t.Fatalf("step %d: %s of group %d = %.17g, PyTorch %.17g", step, what, i, got[i], want[i])
		}
	}
}

// Every scheduler's rates (and OneCycleLR's momenta) follow PyTorch's,
// and a scheduler loaded from a state dict midway continues as PyTorch's.
func TestSchedulersMatchPyTorch(t *testing.T) {
	var f schedFile
	if err := golden.Load("optim.json", &f); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Schedulers {
		t.Run(c.Name, func(t *testing.T) {
			opt := twoGroups(t, c.Optimizer)
			if c.Metrics != nil {
				r, err := lrscheduler.NewReduceLROnPlateau(opt, options(c.Args)...)
				if err != nil {
					t.Fatal(err)
				}
				check(t, 0, "lr", r.LastLR(), c.LRs[0])
				for i, m := range c.Metrics {
					x := math.NaN()
					if m != nil {
						x = *m
					}
					if err := r.Step(x); err != nil {
						t.Fatal(err)
					}
					check(t, i+1, "lr", r.LastLR(), c.LRs[i+1])
					if i == 10 { // a round trip through the state dict midway
						sd, _ := r.StateDict()
						r2, _ := lrscheduler.NewReduceLROnPlateau(opt)
						if err := r2.LoadStateDict(sd); err != nil {
							t.Fatal(err)
						}
						r = r2
					}
				}
				return
			}
			s := makeScheduler(t, c.Name, opt, c.Args)
			check(t, 0, "lr", s.LastLR(), c.LRs[0])
			check(t, 0, "momentum", momenta(opt), c.Momenta[0])
			for i := 1; i < len(c.LRs); i++ {
				if err := s.Step(); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				check(t, i, "lr", s.LastLR(), c.LRs[i])
				var groups []float64
				for _, g := range opt.ParamGroups() {
					groups = append(groups, g.LR())
				}
				check(t, i, "group lr", groups, c.LRs[i])
				check(t, i, "momentum", momenta(opt), c.Momenta[i])
			}
		})
	}
}

// A scheduler's state dict, saved midway and loaded into a new scheduler
// on the same optimizer, continues the sequence.
func TestSchedulerStateDictRoundTrip(t *testing.T) {
	want := func(steps int) []float64 {
		opt := twoGroups(t, "sgd")
		s, _ := lrscheduler.NewCosineAnnealingWarmRestarts(opt, 2, lrscheduler.TMult(2))
		for range steps {
			s.Step()
		}
		return s.LastLR()
	}
	opt := twoGroups(t, "sgd")
	s, _ := lrscheduler.NewCosineAnnealingWarmRestarts(opt, 2, lrscheduler.TMult(2))
	for range 5 {
		s.Step()
	}
	sd, err := s.StateDict()
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := lrscheduler.NewCosineAnnealingWarmRestarts(opt, 2, lrscheduler.TMult(2))
	if err := s2.LoadStateDict(sd); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		s2.Step()
	}
	check(t, 9, "lr", s2.LastLR(), want(9))
	delete(sd, "T_cur")
	if err := s2.LoadStateDict(sd); err == nil {
		t.Error("a state dict without T_cur was accepted")
	}
}

// The schedulers refuse what PyTorch refuses, with its message.
func TestSchedulerErrorsMatchPyTorch(t *testing.T) {
	var f schedFile
	if err := golden.Load("optim.json", &f); err != nil {
		t.Fatal(err)
	}
	L := lrscheduler.TotalSteps
	for _, c := range f.Errors {
		opt := twoGroups(t, "sgd")
		var err error
		switch c.Name {
		case "onecycle_past_total":
			var s *lrscheduler.Scheduler
			s, err = lrscheduler.NewOneCycleLR(opt, []float64{1}, L(3))
			for range 4 {
				if err == nil {
					err = s.Step()
				}
			}
		case "linear_start_above_one":
			_, err = lrscheduler.NewLinearLR(opt, lrscheduler.StartFactor(1.5))
		case "linear_end_negative":
			_, err = lrscheduler.NewLinearLR(opt, lrscheduler.EndFactor(-0.5))
		case "constant_factor":
			_, err = lrscheduler.NewConstantLR(opt, lrscheduler.Factor(1.5))
		case "warm_t0":
			_, err = lrscheduler.NewCosineAnnealingWarmRestarts(opt, 0)
		case "warm_tmult":
			_, err = lrscheduler.NewCosineAnnealingWarmRestarts(opt, 2, lrscheduler.TMult(0))
		case "onecycle_total":
			_, err = lrscheduler.NewOneCycleLR(opt, []float64{1}, L(-1))
		case "onecycle_missing":
			_, err = lrscheduler.NewOneCycleLR(opt, []float64{1})
		case "onecycle_pct":
			_, err = lrscheduler.NewOneCycleLR(opt, []float64{1}, L(5), lrscheduler.PctStart(1.5))
		case "onecycle_anneal":
			_, err = lrscheduler.NewOneCycleLR(opt, []float64{1}, L(5), lrscheduler.AnnealStrategy("exp"))
		case "onecycle_max_lrs":
			_, err = lrscheduler.NewOneCycleLR(opt, []float64{1, 2, 3}, L(5))
		case "plateau_factor":
			_, err = lrscheduler.NewReduceLROnPlateau(opt, lrscheduler.Factor(1))
		case "plateau_mode":
			_, err = lrscheduler.NewReduceLROnPlateau(opt, lrscheduler.Mode("up"))
		case "plateau_threshold_mode":
			_, err = lrscheduler.NewReduceLROnPlateau(opt, lrscheduler.ThresholdMode("x"))
		case "plateau_min_lrs":
			_, err = lrscheduler.NewReduceLROnPlateau(opt, lrscheduler.MinLR(0.1, 0.2, 0.3))
		case "lambda_count":
			one := func(int) float64 { return 1 }
			_, err = lrscheduler.NewLambdaLR(opt, one, one, one)
		default:
			t.Errorf("no Go case for %s", c.Name)
			continue
		}
		if c.Name == "linear_start_above_one" { // PyTorch 2.x's message (it refuses 0 too)
			c.Error = "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."
		}
		if err == nil || !strings.Contains(err.Error(), c.Error) {
			t.Errorf("%s: %v, PyTorch %q", c.Name, err, c.Error)
		}
	}
	// 2.x refuses a start factor of 0 (1.13 divides by zero later).
	if _, err := lrscheduler.NewLinearLR(twoGroups(t, "sgd"), lrscheduler.StartFactor(0)); err == nil {
		t.Error("LinearLR took start_factor 0")
	}
	// Nil and zero values report errors.
	var nilS *lrscheduler.Scheduler
	if nilS.Step() == nil || new(lrscheduler.Scheduler).Step() == nil || new(lrscheduler.ReduceLROnPlateau).Step(1) == nil {
		t.Error("a nil or zero scheduler stepped")
	}
	if _, err := lrscheduler.NewStepLR(nil, 1); err == nil {
		t.Error("a nil optimizer was accepted")
	}
	if _, err := lrscheduler.NewOneCycleLR(twoGroups(t, "sgd"), []float64{1}, L(4), lrscheduler.Gamma(2)); err == nil {
		t.Error("OneCycleLR took Gamma")
	}
}
