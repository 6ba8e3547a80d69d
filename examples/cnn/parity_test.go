package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/optim/lrscheduler"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The golden files of scripts/golden/cnn_parity.py.
var (
	parityTensors = filepath.Join("..", "..", "testdata", "cnn_parity.safetensors")
	parityJSON    = filepath.Join("..", "..", "testdata", "cnn_parity.json")
)

// parityGolden is testdata/cnn_parity.json.
type parityGolden struct {
	Steps int `json:"steps"`
	Batch int `json:"batch"`
	SGD   struct {
		LR       float64 `json:"lr"`
		Momentum float64 `json:"momentum"`
		StepSize int     `json:"step_size"`
		Gamma    float64 `json:"gamma"`
	} `json:"sgd_settings"`
	Adam struct {
		LR float64 `json:"lr"`
	} `json:"adam_settings"`
	Float32 map[string][]float64 `json:"float32"`
	Float64 map[string][]float64 `json:"float64"`
}

// parityData is what the golden files hold: PyTorch's initial state dict,
// the batches and the losses.
type parityData struct {
	golden  parityGolden
	state   map[string]*torch.Tensor
	inputs  *torch.Tensor // [steps, batch, 1, 8, 8]
	targets *torch.Tensor // [steps, batch]
}

func loadParity(t *testing.T) parityData {
	t.Helper()
	raw, err := os.ReadFile(parityJSON)
	if err != nil {
		t.Fatal(err)
	}
	var d parityData
	if err := json.Unmarshal(raw, &d.golden); err != nil {
		t.Fatalf("%s: %v", parityJSON, err)
	}
	all, err := safetensors.Load(parityTensors)
	if err != nil {
		t.Fatal(err)
	}
	d.inputs, d.targets = all["inputs"], all["targets"]
	if d.inputs == nil || d.targets == nil {
		t.Fatalf("%s lacks inputs or targets", parityTensors)
	}
	delete(all, "inputs")
	delete(all, "targets")
	d.state = all
	return d
}

// TestStateDict checks that PyTorch's state dict has the Go model's keys,
// shapes and dtypes, and that the Go model seeded as the script seeds
// PyTorch (manual_seed(0)) starts from the very same values.
func TestStateDict(t *testing.T) {
	d := loadParity(t)
	torch.ManualSeed(0)
	sd := nn.StateDict(newModel())
	var got, want []string
	for k := range d.state {
		got = append(got, k)
	}
	for k, v := range sd {
		want = append(want, k)
		p := d.state[k]
		if p == nil {
			continue
		}
		if !slices.Equal(p.Shape(), v.Shape()) || p.DType() != v.DType() {
			t.Errorf("%s: PyTorch's is %v %v, the Go model's %v %v", k, p.DType(), p.Shape(), v.DType(), v.Shape())
			continue
		}
		if eq, err := torch.EqualErr(p, v); err != nil || !eq {
			t.Errorf("%s: the seeded Go model's values differ from PyTorch's (equal %v, error %v)", k, eq, err)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("PyTorch's state dict has keys %q, the Go model %q", got, want)
	}
}

// TestParity trains the CNN from PyTorch's initial weights on the golden
// batches for the golden number of steps, with SGD with momentum under
// StepLR and, separately, with Adam, and checks every step's loss against
// PyTorch's within 1e-5 relative in float32 and 1e-10 in float64.
// BatchNorm trains on batch statistics; Dropout is in evaluation mode, as
// in the script, so that no random mask separates the two.
func TestParity(t *testing.T) {
	d := loadParity(t)
	for _, c := range []struct {
		dtype  torch.DType
		golden map[string][]float64
		tol    float64
	}{
		{torch.Float32, d.golden.Float32, 1e-5},
		{torch.Float64, d.golden.Float64, 1e-10},
	} {
		for _, which := range []string{"sgd", "adam"} {
			t.Run(fmt.Sprintf("%s/%s", which, c.dtype), func(t *testing.T) {
				want := c.golden[which]
				if len(want) != d.golden.Steps {
					t.Fatalf("%d golden losses, want %d", len(want), d.golden.Steps)
				}
				got, err := trainParity(d, c.dtype, which)
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				for i := range want {
					rel := math.Abs(got[i]-want[i]) / math.Abs(want[i])
					worst = max(worst, rel)
					if !(rel <= c.tol) {
						t.Errorf("step %2d: loss %.9g, PyTorch %.9g, relative difference %.2g > %.0g", i+1, got[i], want[i], rel, c.tol)
					}
				}
				t.Logf("largest relative difference over %d steps: %.2g", len(want), worst)
			})
		}
	}
}

// trainParity trains a fresh CNN in dtype from the golden state dict with
// the optimizer which ("sgd" or "adam") and returns its losses.
func trainParity(d parityData, dtype torch.DType, which string) ([]float64, error) {
	model := newModel()
	if err := nn.LoadStateDict(model, d.state); err != nil {
		return nil, fmt.Errorf("loading PyTorch's state dict: %w", err)
	}
	if err := nn.ToDType(model, dtype); err != nil {
		return nil, fmt.Errorf("model to %v: %w", dtype, err)
	}
	if err := nn.Eval(model.Layers[8]); err != nil { // the Dropout
		return nil, err
	}
	var opt optim.Optimizer
	var sched *lrscheduler.Scheduler
	var err error
	g := d.golden
	switch which {
	case "sgd":
		opt, err = optim.NewSGD(nn.Parameters(model), optim.LR(g.SGD.LR), optim.Momentum(g.SGD.Momentum))
		if err == nil {
			sched, err = lrscheduler.NewStepLR(opt, g.SGD.StepSize, lrscheduler.Gamma(g.SGD.Gamma))
		}
	case "adam":
		opt, err = optim.NewAdam(nn.Parameters(model), optim.LR(g.Adam.LR))
	default:
		err = fmt.Errorf("no optimizer %q", which)
	}
	if err != nil {
		return nil, err
	}
	inputs := d.inputs.ToDType(dtype)
	losses := make([]float64, 0, g.Steps)
	for step := range g.Steps {
		x, y := inputs.Select(0, step), d.targets.Select(0, step)
		opt.ZeroGrad()
		loss := nn.CrossEntropy(model.Forward(x), y)
		if err := loss.Backward(); err != nil {
			return nil, fmt.Errorf("step %d: %w", step+1, err)
		}
		if err := opt.Step(); err != nil {
			return nil, fmt.Errorf("step %d: %w", step+1, err)
		}
		if sched != nil {
			if err := sched.Step(); err != nil {
				return nil, fmt.Errorf("step %d: scheduler: %w", step+1, err)
			}
		}
		v, err := loss.Item()
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", step+1, err)
		}
		losses = append(losses, v)
	}
	return losses, nil
}
