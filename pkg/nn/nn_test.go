package nn_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

func mlp() *nn.Sequential {
	torch.ManualSeed(0)
	return nn.NewSequential(nn.NewLinear(4, 8), nn.ReLU(), nn.NewDropout(0.5), nn.NewLinear(8, 3))
}

func TestSequentialNamesParameters(t *testing.T) {
	m := mlp()
	var names []string
	named, err := nn.NamedParameters(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range named {
		names = append(names, p.Name)
		if !p.Tensor.RequiresGrad() || !p.Tensor.IsLeaf() {
			t.Errorf("%s is not a leaf requiring grad", p.Name)
		}
	}
	if diff := cmp.Diff([]string{"0.weight", "0.bias", "3.weight", "3.bias"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if n := len(nn.Parameters(m)); n != 4 {
		t.Errorf("%d parameters", n)
	}
}

func TestForwardBackwardAndZeroGrad(t *testing.T) {
	m := mlp()
	x := torch.Randn([]int{5, 4})
	loss := nn.CrossEntropy(m.Forward(x), torch.FromSlice([]int64{0, 1, 2, 1, 0}))
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	named, err := nn.NamedParameters(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range named {
		if g := p.Tensor.Grad(); g == nil || !cmp.Equal(g.Shape(), p.Tensor.Shape()) {
			t.Errorf("%s: gradient %v", p.Name, g)
		}
	}
	if err := nn.ZeroGrad(m); err != nil {
		t.Fatal(err)
	}
	for _, p := range named {
		if p.Tensor.Grad() != nil {
			t.Errorf("%s: gradient kept after ZeroGrad", p.Name)
		}
	}
}

func TestDropoutModes(t *testing.T) {
	torch.ManualSeed(0)
	d := nn.NewDropout(0.25)
	x := torch.Ones([]int{10000})
	y := values(t, d.Forward(x))
	zeros := 0
	for _, v := range y {
		switch v {
		case 0:
			zeros++
		case float64(float32(1) / 0.75):
		default:
			t.Fatalf("dropout value %v: want 0 or 1/(1-p)", v)
		}
	}
	if zeros < 2300 || zeros > 2700 {
		t.Errorf("%d of 10000 dropped, want about 2500", zeros)
	}
	if err := nn.Eval(d); err != nil {
		t.Fatal(err)
	}
	if got := d.Forward(x); got != x {
		t.Error("dropout in eval mode must return its input")
	}
	if err := nn.NewDropout(1.5).Forward(x).Err(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("p = 1.5: %v", err)
	}
}

func TestLayerNormGradCheck(t *testing.T) {
	torch.ManualSeed(2)
	ln := nn.NewLayerNorm([]int{4}, torch.WithDType(torch.Float64))
	nn.Normal_(ln.Weight, 1, 0.5)
	x := torch.Randn([]int{3, 4}, torch.WithDType(torch.Float64)).RequiresGrad_(true)
	f := func(in ...*torch.Tensor) *torch.Tensor {
		l := &nn.LayerNorm{Shape: []int{4}, Eps: 1e-5, Weight: in[1], Bias: in[2]}
		return l.Forward(in[0])
	}
	if err := torch.GradCheck(f, []*torch.Tensor{x, ln.Weight, ln.Bias}, torch.GradCheckOptions{}); err != nil {
		t.Error(err)
	}
	if err := ln.Forward(torch.Ones([]int{3, 5}, torch.WithDType(torch.Float64))).Err(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("wrong trailing shape: %v", err)
	}
}

func TestLossErrors(t *testing.T) {
	logits := torch.Randn([]int{3, 4})
	cases := []struct {
		name string
		got  *torch.Tensor
		kind error
		text string
	}{
		{"float target shape", nn.CrossEntropy(logits, torch.Zeros([]int{3, 5})), torch.ErrShape, "Expected target size"},
		{"int32 target", nn.NLL(logits, torch.Zeros([]int{3}, torch.WithDType(torch.Int32))), torch.ErrDType, "expected scalar type Long"},
		{"batch mismatch", nn.CrossEntropy(logits, torch.FromSlice([]int64{1, 2})), torch.ErrShape, "batch_size"},
		{"target out of range", nn.CrossEntropy(logits, torch.FromSlice([]int64{1, 2, 4})), torch.ErrIndex, "Target out of bounds"},
		{"error passes on", nn.MSE(torch.Ones([]int{2}).Add(torch.Ones([]int{3})), torch.Ones([]int{2})), torch.ErrShape, "add"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.got.Err()
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.text) {
				t.Errorf("got %v, want a %v error mentioning %q", err, c.kind, c.text)
			}
		})
	}
}

func TestIgnoreIndexGetsNoGradient(t *testing.T) {
	logits := torch.Randn([]int{3, 4}).RequiresGrad_(true)
	if err := nn.CrossEntropy(logits, torch.FromSlice([]int64{1, -100, 2})).Backward(); err != nil {
		t.Fatal(err)
	}
	row := values(t, logits.Grad().Select(0, 1))
	if diff := cmp.Diff([]float64{0, 0, 0, 0}, row); diff != "" {
		t.Errorf("gradient of the ignored row (-want +got):\n%s", diff)
	}
}

func TestStateDictRoundTrip(t *testing.T) {
	a, b := mlp(), mlp()
	torch.NoGrad(func() { nn.Parameters(b)[0].AddScalar_(1) })
	if err := nn.LoadStateDict(b, nn.StateDict(a)); err != nil {
		t.Fatal(err)
	}
	for i, p := range nn.Parameters(b) {
		if !cmp.Equal(values(t, p), values(t, nn.Parameters(a)[i])) {
			t.Errorf("parameter %d differs after loading", i)
		}
	}
	sd := nn.StateDict(a)
	delete(sd, "0.bias")
	sd["extra"] = torch.Ones([]int{1})
	sd["3.weight"] = torch.Ones([]int{2, 2})
	err := nn.LoadStateDict(b, sd)
	var se *nn.StateDictError
	if !errors.As(err, &se) || !cmp.Equal(se.Missing, []string{"0.bias"}) || !cmp.Equal(se.Unexpected, []string{"extra"}) ||
		len(se.Mismatched) != 1 || !strings.Contains(err.Error(), "size mismatch for 3.weight") || se.Module != "Sequential" {
		t.Errorf("bad state dict: %v", err)
	}
}

func TestInitErrors(t *testing.T) {
	if err := nn.KaimingUniform_(torch.Empty([]int{3}), 0, "fan_in", "relu").Err(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("1-D weight: %v", err)
	}
	if err := nn.KaimingUniform_(torch.Empty([]int{3, 3}), 0, "fan_up", "relu").Err(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := nn.CalculateGain("swish", 0); err == nil {
		t.Error("unknown nonlinearity accepted")
	}
}

func TestMetaDeviceModel(t *testing.T) {
	l := nn.NewLinear(4, 3, torch.WithDevice("meta"))
	y := l.Forward(torch.Empty([]int{2, 4}, torch.WithDevice("meta")))
	if err := y.Err(); err != nil || !cmp.Equal(y.Shape(), []int{2, 3}) || y.Device().String() != "meta" {
		t.Errorf("meta forward: %v %v", y.Shape(), err)
	}
}
