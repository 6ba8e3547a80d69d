package npu_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// trainMLP trains a 2-layer MLP written with torch ops for steps steps of
// SGD on device dev, from the same starting weights and batch, and returns
// the losses. The negative log-likelihood is log_softmax times the one-hot
// targets (made once, on the device), so the host sees only the losses.
func trainMLP(t *testing.T, dev string, steps int) []float64 {
	t.Helper()
	torch.ManualSeed(7)
	to := func(x *torch.Tensor) *torch.Tensor {
		d, err := x.To(dev)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	x := to(torch.Randn([]int{32, 10}))
	onehot := to(torch.OneHot(torch.Randint(0, 4, []int{32}), 4).ToDType(torch.Float32))
	w1 := to(torch.Randn([]int{10, 16}).MulScalar(0.3)).RequiresGrad_(true)
	b1 := to(torch.Zeros([]int{16})).RequiresGrad_(true)
	w2 := to(torch.Randn([]int{16, 4}).MulScalar(0.3)).RequiresGrad_(true)
	b2 := to(torch.Zeros([]int{4})).RequiresGrad_(true)
	params := []*torch.Tensor{w1, b1, w2, b2}
	losses := make([]float64, steps)
	for step := range steps {
		h := x.MatMul(w1).Add(b1).Relu()
		logp := h.MatMul(w2).Add(b2).LogSoftmax(1)
		loss := logp.Mul(onehot).Sum(1).Mean().Neg()
		if err := loss.Backward(); err != nil {
			t.Fatalf("%s step %d: %v", dev, step, err)
		}
		v, err := loss.Item()
		if err != nil {
			t.Fatal(err)
		}
		losses[step] = v
		torch.NoGrad(func() {
			for _, p := range params {
				p.Sub_(p.Grad().MulScalar(0.1))
				p.SetGrad(nil)
			}
		})
	}
	return losses
}

func TestMLPTrainsOnNPUAsOnCPU(t *testing.T) {
	cpu := trainMLP(t, "cpu", 100)
	npu := trainMLP(t, "npu", 100)
	for i := range cpu {
		if math.Abs(npu[i]-cpu[i]) > 1e-5*math.Abs(cpu[i]) {
			t.Errorf("step %d: loss %.8g on the NPU, %.8g on the CPU", i, npu[i], cpu[i])
		}
	}
	if !(cpu[99] < cpu[0]*0.8) {
		t.Errorf("the loss did not fall: %v -> %v", cpu[0], cpu[99])
	}
	settle(t)
}

// TestNNLayersOnNPU builds nn layers on the NPU from a seed: the weights
// and the forward pass match the same model on the CPU.
func TestNNLayersOnNPU(t *testing.T) {
	torch.ManualSeed(11)
	cpu := nn.NewSequential(nn.NewLinear(5, 8), nn.ReLU(), nn.NewLinear(8, 3))
	torch.ManualSeed(11)
	dev := nn.NewSequential(nn.NewLinear(5, 8, torch.WithDevice("npu")), nn.ReLU(), nn.NewLinear(8, 3, torch.WithDevice("npu")))
	x := torch.Randn([]int{4, 5})
	xd, err := x.To("npu")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := torch.ToSlice[float32](nn.MSE(cpu.Forward(x), torch.Zeros([]int{4, 3})))
	y := dev.Forward(xd)
	got, err := torch.ToSlice[float32](nn.MSE(y, torch.Zeros([]int{4, 3}, torch.WithDevice("npu"))))
	if err != nil {
		t.Fatal(err)
	}
	if y.Device().String() != "npu:0" || math.Abs(float64(got[0]-want[0])) > 1e-6 {
		t.Errorf("MSE on the NPU %v, on the CPU %v", got, want)
	}
	settle(t)
}

// TestCreationOnNPU makes tensors on the NPU directly: fills, ranges and
// seeded random numbers (drawn on the device: the same after the same seed,
// and float64 ones, drawn on the host, the CPU's).
func TestCreationOnNPU(t *testing.T) {
	npuOpt := torch.WithDevice("npu")
	torch.ManualSeed(5)
	rc, _ := torch.Randn([]int{3, 4}, npuOpt).To("cpu")
	torch.ManualSeed(5)
	rd := torch.Randn([]int{3, 4}, npuOpt)
	torch.ManualSeed(5)
	r64 := torch.Randn([]int{3, 4}, torch.WithDType(torch.Float64))
	torch.ManualSeed(5)
	r64d := torch.Randn([]int{3, 4}, torch.WithDType(torch.Float64), npuOpt)
	cases := map[string][2]*torch.Tensor{
		"zeros":    {torch.Zeros([]int{2, 3}), torch.Zeros([]int{2, 3}, npuOpt)},
		"ones":     {torch.Ones([]int{4}), torch.Ones([]int{4}, npuOpt)},
		"full":     {torch.Full([]int{2, 2}, 2.5), torch.Full([]int{2, 2}, 2.5, npuOpt)},
		"arange":   {torch.Arange(7), torch.Arange(7, npuOpt)},
		"linspace": {torch.Linspace(0, 1, 5), torch.Linspace(0, 1, 5, npuOpt)},
		"eye":      {torch.Eye(3), torch.Eye(3, npuOpt)},
		"randn":    {rc, rd},
		"randn64":  {r64, r64d},
		"from":     {torch.FromSlice([]int32{1, 2, 3}), torch.FromSlice([]int32{1, 2, 3}, npuOpt)},
	}
	for name, c := range cases {
		if err := c[1].Err(); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if c[1].Device().String() != "npu:0" {
			t.Errorf("%s: on %v", name, c[1].Device())
		}
		back, err := c[1].To("cpu")
		if err != nil || !torch.Equal(back, c[0]) {
			t.Errorf("%s: %v on the NPU, %v on the CPU (%v)", name, back, c[0], err)
		}
	}
	settle(t)
}

// TestNNAndAdamOnNPU trains an nn model with cross-entropy and Adam on the
// NPU and on the CPU from the same seed: the losses agree.
func TestNNAndAdamOnNPU(t *testing.T) {
	run := func(dev string) []float64 {
		torch.ManualSeed(21)
		model := nn.NewSequential(nn.NewLinear(6, 12, torch.WithDevice(dev)), nn.ReLU(), nn.NewLinear(12, 3, torch.WithDevice(dev)))
		opt, err := optim.NewAdam(nn.Parameters(model), optim.LR(0.01), optim.WeightDecay(1e-3))
		if err != nil {
			t.Fatal(err)
		}
		x, _ := torch.Randn([]int{16, 6}).To(dev)
		y, _ := torch.Randint(0, 3, []int{16}).To(dev)
		var losses []float64
		for range 20 {
			opt.ZeroGrad()
			loss := nn.CrossEntropy(model.Forward(x), y, nn.WithLabelSmoothing(0.1))
			if err := loss.Backward(); err != nil {
				t.Fatalf("%s: %v", dev, err)
			}
			if err := opt.Step(); err != nil {
				t.Fatalf("%s: %v", dev, err)
			}
			v, err := loss.Item()
			if err != nil {
				t.Fatal(err)
			}
			losses = append(losses, v)
		}
		return losses
	}
	cpu, dev := run("cpu"), run("npu")
	for i := range cpu {
		if math.Abs(dev[i]-cpu[i]) > 1e-5*math.Abs(cpu[i]) {
			t.Errorf("step %d: %.8g on the NPU, %.8g on the CPU", i, dev[i], cpu[i])
		}
	}
	settle(t)
}
