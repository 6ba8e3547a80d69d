package dispatch_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
	"github.com/mindtorch/mindtorch/internal/npuemu"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestMain builds the CANN emulator, so that the tests run ops on an NPU
// (with MINDTORCH_NPU_REAL=1, on the real one).
func TestMain(m *testing.M) {
	cleanup, err := npuemu.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

var devices = []device.Type{device.CPU, device.Meta, device.NPU}

// TestEveryOpHasARoute checks the registry: every op can run on every
// device, natively or by decomposition (the host fallback included).
func TestEveryOpHasARoute(t *testing.T) {
	for op := kernel.OpInvalid + 1; op < kernel.NumOps; op++ {
		for _, d := range devices {
			if len(dispatch.Routes(op, d)) == 0 {
				t.Errorf("%s cannot run on %s", op, d)
			}
		}
	}
}

// TestEveryOpRunsOnEveryDevice runs PyTorch's golden cases on cpu, meta
// and the NPU, then the ops the cases do not reach, and checks that every
// op ran on every device, and how.
func TestEveryOpRunsOnEveryDevice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the golden suite on three devices")
	}
	dispatch.ResetCounts()
	for _, d := range devices {
		t.Run(d.String(), func(t *testing.T) { golden(t, d) })
		t.Run(d.String()+"/more", func(t *testing.T) { moreOps(t, d) })
	}
	for op := kernel.OpInvalid + 1; op < kernel.NumOps; op++ {
		for _, d := range devices {
			n := dispatch.CountsOf(op, d)
			if n.Total() == 0 && !(d == device.Meta && dataDependent[op]) {
				t.Errorf("%s never ran on %s", dispatch.Label(op), d)
			}
			if testing.Verbose() {
				t.Logf("%-22s %-5s %v", dispatch.Label(op), d, n)
			}
		}
	}
}

// golden runs every file of golden cases on a device of type d.
func golden(t *testing.T, d device.Type) {
	for _, file := range conformance.Files {
		t.Run(file, func(t *testing.T) { conformance.Run(t, file, name(d)) })
	}
}

// name is the device of type d the tests use.
func name(d device.Type) string {
	if d == device.NPU {
		return "npu:0"
	}
	return d.String()
}

// dataDependent are the ops whose output shape depends on the data: the
// meta device refuses them, as PyTorch's does.
var dataDependent = map[kernel.OpID]bool{kernel.OpNonzero: true, kernel.OpMaskedSelect: true, kernel.OpUnique: true}

// moreOps runs the ops that the golden cases do not: creation, random
// numbers and backward ops.
func moreOps(t *testing.T, d device.Type) {
	on := torch.WithDevice(name(d))
	check := func(name string, x *torch.Tensor) {
		t.Helper()
		if err := x.Err(); err != nil {
			t.Errorf("%s on %s: %v", name, d, err)
		}
	}
	check("linspace", torch.Linspace(0, 1, 5, on))
	check("arange", torch.Arange(5, on))
	g := torch.NewGenerator(1)
	check("rand", torch.Rand([]int{4}, on, torch.WithGenerator(g)))
	check("randn", torch.Randn([]int{4}, on, torch.WithGenerator(g)))
	check("randint", torch.Randint(0, 3, []int{4}, on, torch.WithGenerator(g)))
	p := torch.Full([]int{4}, 0.5, on)
	check("bernoulli", torch.Bernoulli(p, torch.WithGenerator(g)))
	x1 := torch.FromSlice([]float32{-2, 0.5, 3}, on)
	check("clamp with a lower bound", x1.Clamp(0, nil))
	check("clamp with an upper bound", x1.Clamp(nil, 1))
	check("bernoulli_", torch.Zeros([]int{4}, on).Bernoulli_(0.5, torch.WithGenerator(g)))
	x := torch.Ones([]int{2, 3}, on).RequiresGrad_(true)
	bn, _, _, _ := torch.NativeBatchNorm(x, nil, nil, nil, nil, true, 1e-5)
	ln, _, _ := torch.NativeLayerNorm(x, []int{3}, nil, nil, 1e-5)
	gn, _, _ := torch.NativeGroupNorm(x, nil, nil, 1, 1e-5)
	for name, y := range map[string]*torch.Tensor{
		"softmax": x.Softmax(1), "log_softmax": x.LogSoftmax(1), "relu": x.Relu(), "gelu": x.Gelu(),
		"silu": x.Silu(), "sigmoid": x.Sigmoid(), "tanh": x.Tanh(), "elu": x.Elu(1), "leaky_relu": x.LeakyRelu(0.01),
		"softplus": x.Softplus(1, 20), "hardtanh": x.Clamp(-0.5, 0.5), "cumsum": x.Cumsum(1), "cumprod": x.Cumprod(1),
		"native_batch_norm": bn, "native_layer_norm": ln, "native_group_norm": gn,
	} {
		check(name, y)
		_, err := torch.Grad([]*torch.Tensor{y.Sum()}, []*torch.Tensor{x}, torch.GradOptions{})
		if err != nil {
			t.Errorf("%s backward on %s: %v", name, d, err)
		}
	}
}
