package optim_test

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// twoBranch is a model with two independent parts whose losses are summed,
// so every step must bring a gradient to the leaves of both.
type twoBranch struct {
	mlp    *nn.Sequential
	branch *nn.Linear
	x, y   *torch.Tensor // classification data for mlp
	x2, t2 *torch.Tensor // regression data for branch
}

// newTwoBranch makes the model and data of seed from their own generator
// (never the shared default one), so that it is the same in any goroutine.
func newTwoBranch(t *testing.T, seed uint64) *twoBranch {
	g := torch.NewGenerator(seed)
	rnd := func(shape ...int) *torch.Tensor {
		return torch.Randn(shape, torch.WithGenerator(g)).MulScalar(0.3)
	}
	m := &twoBranch{
		mlp:    nn.NewSequential(nn.NewLinear(8, 16), nn.ReLU(), nn.NewLinear(16, 3)),
		branch: nn.NewLinear(8, 1),
		x:      rnd(32, 8),
		y:      torch.Randint(0, 3, []int{32}, torch.WithGenerator(g)),
		x2:     rnd(32, 8),
		t2:     rnd(32, 1),
	}
	sd := map[string]*torch.Tensor{"0.weight": rnd(16, 8), "0.bias": rnd(16), "2.weight": rnd(3, 16), "2.bias": rnd(3)}
	if err := nn.LoadStateDict(m.mlp, sd); err != nil {
		t.Fatal(err)
	}
	if err := nn.LoadStateDict(m.branch, map[string]*torch.Tensor{"weight": rnd(1, 8), "bias": rnd(1)}); err != nil {
		t.Fatal(err)
	}
	return m
}

// train runs steps of Adam on m and returns the losses.
func (m *twoBranch) train(steps int) ([]float32, error) {
	opt, err := optim.NewAdam(append(nn.Parameters(m.mlp), nn.Parameters(m.branch)...), optim.LR(1e-2))
	if err != nil {
		return nil, err
	}
	losses := make([]float32, steps)
	for i := range losses {
		opt.ZeroGrad()
		loss := nn.CrossEntropy(m.mlp.Forward(m.x), m.y).Add(nn.MSE(m.branch.Forward(m.x2), m.t2))
		if err := loss.Backward(); err != nil {
			return nil, err
		}
		for _, p := range append(nn.Parameters(m.mlp), nn.Parameters(m.branch)...) {
			if p.Grad() == nil {
				return nil, torch.NewError("train", torch.ErrAutograd, []*torch.Tensor{p}, "step %d: a leaf got no gradient", i)
			}
		}
		if err := opt.Step(); err != nil {
			return nil, err
		}
		v, err := loss.Item()
		if err != nil {
			return nil, err
		}
		losses[i] = float32(v)
	}
	return losses, nil
}

// Goroutines that train their own models with Adam get, bit for bit, the
// losses of the same training run alone, while other goroutines serve
// under NoGrad and others switch their grad mode on and off.
func TestConcurrentTrainingIsIndependent(t *testing.T) {
	const trainers = 8
	steps := 40
	if testing.Short() {
		steps = 15
	}
	want := make([][]float32, trainers)
	for i := range want {
		var err error
		if want[i], err = newTwoBranch(t, uint64(i)).train(steps); err != nil {
			t.Fatal(err)
		}
	}
	models := make([]*twoBranch, trainers)
	for i := range models {
		models[i] = newTwoBranch(t, uint64(i))
	}
	served := newTwoBranch(t, 99)

	var stop atomic.Bool
	var others sync.WaitGroup
	for range 2 { // inference under NoGrad
		others.Go(func() {
			for !stop.Load() {
				torch.NoGrad(func() {
					if y := served.mlp.Forward(served.x); y.RequiresGrad() || y.Err() != nil {
						t.Errorf("inference under NoGrad: requires grad %v, %v", y.RequiresGrad(), y.Err())
					}
				})
			}
		})
	}
	for range 2 { // switching the mode back and forth
		others.Go(func() {
			for !stop.Load() {
				torch.SetGradEnabled(false)
				torch.EnableGrad(func() { torch.NoGrad(func() {}) })
				torch.SetGradEnabled(true)
			}
		})
	}
	var trainersDone sync.WaitGroup
	got := make([][]float32, trainers)
	errs := make([]error, trainers)
	for i, m := range models {
		trainersDone.Go(func() { got[i], errs[i] = m.train(steps) })
	}
	trainersDone.Wait()
	stop.Store(true)
	others.Wait()

	for i := range got {
		if errs[i] != nil {
			t.Errorf("model %d: %v", i, errs[i])
			continue
		}
		for s := range got[i] {
			if math.Float32bits(got[i][s]) != math.Float32bits(want[i][s]) {
				t.Errorf("model %d step %d: loss %v, alone %v", i, s, got[i][s], want[i][s])
				break
			}
		}
	}
}
