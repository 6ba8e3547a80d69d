package npu_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// trainCNN trains the network of examples/cnn (convolutions, batch norm,
// max and adaptive average pooling; dropout left out, its mask being drawn
// per device) for steps steps of SGD with momentum on device dev, from the
// same seed and batch, and returns the losses and the running mean of the
// batch norm at the end.
func trainCNN(t *testing.T, dev string, steps int) ([]float64, []float32) {
	t.Helper()
	torch.ManualSeed(3)
	bn := nn.NewBatchNorm2d(8, true, true)
	model := nn.NewSequential(
		nn.NewConv2d(1, 8, []int{3}, nn.ConvConfig{Padding: []int{1}}),
		bn,
		nn.ReLU(),
		nn.MaxPool2d([]int{2}, torch.MaxPoolOptions{}),
		nn.NewConv2d(8, 16, []int{3}, nn.ConvConfig{Padding: []int{1}}),
		nn.ReLU(),
		nn.AdaptiveAvgPool2d(1),
		nn.Flatten(1, -1),
		nn.NewLinear(16, 4),
	)
	losses := trainSGD(t, dev, model, 0.05, []int{6, 1, 8, 8}, 4, steps)
	mean, err := torch.ToSlice[float32](bn.RunningMean)
	if err != nil {
		t.Fatal(err)
	}
	return losses, mean
}

// trainSGD moves model to dev and trains it for steps steps of SGD (lr,
// momentum 0.9) on one batch drawn from the current seed (x of shape
// xShape, labels below classes), with cross entropy; it returns the losses.
func trainSGD(t *testing.T, dev string, model *nn.Sequential, lr float64, xShape []int, classes, steps int) []float64 {
	t.Helper()
	if err := nn.To(model, dev); err != nil {
		t.Fatal(err)
	}
	if w := nn.Parameters(model)[0]; w.Device().Type.String() != dev {
		t.Fatalf("the first weight is on %s after To(%s)", w.Device(), dev)
	}
	opt, err := optim.NewSGD(nn.Parameters(model), optim.LR(lr), optim.Momentum(0.9))
	if err != nil {
		t.Fatal(err)
	}
	x, err := torch.Randn(xShape).To(dev)
	if err != nil {
		t.Fatal(err)
	}
	y, err := torch.Randint(0, int64(classes), []int{xShape[0]}).To(dev)
	if err != nil {
		t.Fatal(err)
	}
	losses := make([]float64, steps)
	for step := range steps {
		opt.ZeroGrad()
		loss := nn.CrossEntropy(model.Forward(x), y)
		if err := loss.Backward(); err != nil {
			t.Fatalf("%s step %d: %v", dev, step, err)
		}
		if err := opt.Step(); err != nil {
			t.Fatalf("%s step %d: %v", dev, step, err)
		}
		if losses[step], err = loss.Item(); err != nil {
			t.Fatal(err)
		}
	}
	return losses
}

// TestCNNTrainsOnNPUAsOnCPU trains the CNN on the NPU and on the CPU: the
// losses of 15 steps and the batch norm's running statistics agree.
func TestCNNTrainsOnNPUAsOnCPU(t *testing.T) {
	cpu, cpuMean := trainCNN(t, "cpu", 15)
	npu, npuMean := trainCNN(t, "npu", 15)
	for i := range cpu {
		if math.Abs(npu[i]-cpu[i]) > 1e-4*math.Abs(cpu[i]) {
			t.Errorf("step %d: loss %.8g on the NPU, %.8g on the CPU", i, npu[i], cpu[i])
		}
	}
	for i := range cpuMean {
		if math.Abs(float64(npuMean[i]-cpuMean[i])) > 1e-4*(1+math.Abs(float64(cpuMean[i]))) {
			t.Errorf("running mean %d: %g on the NPU, %g on the CPU", i, npuMean[i], cpuMean[i])
		}
	}
	if !(cpu[14] < cpu[0]) {
		t.Errorf("the loss did not fall: %v -> %v", cpu[0], cpu[14])
	}
	settle(t)
}
