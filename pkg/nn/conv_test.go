package nn_test

import (
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestConvModules checks the modules' parameters, shapes and printout.
func TestConvModules(t *testing.T) {
	c := nn.NewConv2d(4, 6, []int{3}, nn.ConvConfig{Stride: []int{2}, Padding: []int{1}, Groups: 2})
	names := []string{}
	params, err := nn.NamedParameters(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		names = append(names, p.Name)
	}
	if len(names) != 2 || names[0] != "weight" || names[1] != "bias" {
		t.Fatalf("parameters %v", names)
	}
	y := c.Forward(torch.Ones([]int{2, 4, 7, 7}))
	if err := y.Err(); err != nil || len(y.Shape()) != 4 || y.Shape()[2] != 4 {
		t.Fatalf("forward: %v %v", y.Shape(), err)
	}
	want := "Conv2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=2)"
	if got := c.String(); got != want {
		t.Errorf("repr %q, want %q", got, want)
	}
	c1 := nn.NewConv1d(3, 2, []int{4}, nn.ConvConfig{PaddingMode: "same", NoBias: true})
	if got, want := c1.String(), "Conv1d(3, 2, kernel_size=(4,), stride=(1,), padding=same, bias=False)"; got != want {
		t.Errorf("repr %q, want %q", got, want)
	}
	if y := c1.Forward(torch.Ones([]int{3, 9})); y.Err() != nil || y.Shape()[1] != 9 {
		t.Fatalf("conv1d forward: %v %v", y.Shape(), y.Err())
	}
	if bad := nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{Groups: 2}); bad.Forward(torch.Ones([]int{1, 3, 5, 5})).Err() == nil {
		t.Error("groups not dividing in_channels accepted")
	}
}

// TestConvModuleReprs checks the printouts against PyTorch 1.13's (print
// of the same torch.nn modules).
func TestConvModuleReprs(t *testing.T) {
	for _, c := range []struct {
		m    interface{ String() string }
		want string
	}{
		{nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{Padding: []int{1}, PaddingMode: "reflect"}),
			"Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), padding_mode=reflect)"},
		{nn.NewConv1d(3, 4, []int{3}, nn.ConvConfig{Padding: []int{2}, PaddingMode: "circular", NoBias: true}),
			"Conv1d(3, 4, kernel_size=(3,), stride=(1,), padding=(2,), bias=False, padding_mode=circular)"},
		{nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{PaddingMode: "zeros"}), "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1))"},
		{nn.NewConv2d(2, 4, []int{2, 3}, nn.ConvConfig{Padding: []int{1, 2}, PaddingMode: "replicate", Groups: 2}),
			"Conv2d(2, 4, kernel_size=(2, 3), stride=(1, 1), padding=(1, 2), groups=2, padding_mode=replicate)"},
		{nn.NewConvTranspose2d(4, 6, []int{3}, nn.ConvTransposeConfig{Stride: []int{2}, Padding: []int{1}, OutputPadding: []int{1}, Groups: 2, NoBias: true}),
			"ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1), groups=2, bias=False)"},
		{nn.NewConvTranspose1d(4, 6, []int{3}, nn.ConvTransposeConfig{}), "ConvTranspose1d(4, 6, kernel_size=(3,), stride=(1,))"},
		{nn.NewConvTranspose2d(4, 6, []int{2, 3}, nn.ConvTransposeConfig{Dilation: []int{2}}),
			"ConvTranspose2d(4, 6, kernel_size=(2, 3), stride=(1, 1), dilation=(2, 2))"},
		{nn.NewMaxPool2dWithIndices([]int{2}, torch.MaxPoolOptions{}), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"},
		{nn.NewMaxPool1dWithIndices(3, torch.MaxPoolOptions{Stride: []int{2}, CeilMode: true}),
			"MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=True)"},
	} {
		if got := c.m.String(); got != c.want {
			t.Errorf("repr %q, want %q", got, c.want)
		}
	}
}

// TestConvPaddingModes checks the padding modes against an explicit
// nn.Pad, the transposed modules' shapes and parameters, and the errors.
func TestConvPaddingModes(t *testing.T) {
	g := torch.NewGenerator(1)
	x := torch.Randn([]int{2, 3, 5, 6}, torch.WithGenerator(g))
	for _, mode := range []string{"reflect", "replicate", "circular"} {
		c := nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{Padding: []int{1, 2}, PaddingMode: mode}, torch.WithGenerator(g))
		y := c.Forward(x)
		want := torch.Conv2d(nn.Pad(x, []int{2, 2, 1, 1}, mode, 0), c.Weight, c.Bias, torch.ConvOptions{})
		if ok, err := torch.AllCloseErr(y, want, 1e-5, 1e-6, false); !ok || err != nil || !slicesEqual(y.Shape(), []int{2, 4, 5, 8}) {
			t.Errorf("%s: %v %v", mode, y.Shape(), err)
		}
	}
	if bad := nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{PaddingMode: "foo"}); bad.Weight.Err() == nil || bad.Forward(x).Err() == nil {
		t.Error("padding_mode foo accepted")
	}
	if y := nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{Padding: []int{5}, PaddingMode: "reflect"}).Forward(x); y.Err() == nil {
		t.Error("reflect padding wider than the input accepted")
	}
	ct := nn.NewConvTranspose2d(3, 4, []int{3, 2}, nn.ConvTransposeConfig{Stride: []int{2}, OutputPadding: []int{1}})
	if !slicesEqual(ct.Weight.Shape(), []int{3, 4, 3, 2}) || !slicesEqual(ct.Bias.Shape(), []int{4}) {
		t.Fatalf("weight %v bias %v", ct.Weight.Shape(), ct.Bias.Shape())
	}
	if y := ct.Forward(x); y.Err() != nil || !slicesEqual(y.Shape(), []int{2, 4, 12, 13}) {
		t.Errorf("conv_transpose2d: %v %v", y.Shape(), y.Err())
	}
	params, err := nn.NamedParameters(nn.NewConvTranspose1d(4, 6, []int{3}, nn.ConvTransposeConfig{Groups: 2, NoBias: true}))
	if err != nil || len(params) != 1 || params[0].Name != "weight" || !slicesEqual(params[0].Tensor.Shape(), []int{4, 3, 3}) {
		t.Errorf("ConvTranspose1d parameters %v %v", params, err)
	}
	if bad := nn.NewConvTranspose2d(3, 4, []int{3}, nn.ConvTransposeConfig{Groups: 2}); bad.Weight.Err() == nil {
		t.Error("groups not dividing in_channels accepted")
	}
	var nilT *nn.ConvTranspose2d
	if nilT.Forward(x).Err() == nil {
		t.Error("nil ConvTranspose2d forwarded")
	}
}

// TestMaxPoolWithIndices checks the module against the functional form.
func TestMaxPoolWithIndices(t *testing.T) {
	x := torch.Randn([]int{2, 3, 6, 7}, torch.WithGenerator(torch.NewGenerator(2)))
	o := torch.MaxPoolOptions{Stride: []int{2}, Padding: []int{1}}
	m := nn.NewMaxPool2dWithIndices([]int{3}, o)
	v, i := m.ForwardWithIndices(x)
	wv, wi := torch.MaxPool2dWithIndices(x, []int{3}, o)
	if !torch.Equal(v, wv) || !torch.Equal(i, wi) || !torch.Equal(m.Forward(x), wv) {
		t.Errorf("MaxPool2dWithIndices differs from the functional form")
	}
	var layer nn.Layer = nn.NewMaxPool1dWithIndices(2, torch.MaxPoolOptions{})
	v1, i1 := torch.MaxPool1dWithIndices(x.Flatten(2, 3), 2, torch.MaxPoolOptions{})
	if y := layer.Forward(x.Flatten(2, 3)); !torch.Equal(y, v1) || i1.Err() != nil {
		t.Errorf("MaxPool1dWithIndices differs from the functional form")
	}
	if v, i := (&nn.MaxPoolWithIndices{}).ForwardWithIndices(x); v.Err() == nil || i.Err() == nil {
		t.Error("zero MaxPoolWithIndices pooled")
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestConvPaddingConfigErrors checks the configurations PyTorch's
// constructor refuses: the layer's tensors and its Forward carry the
// error, even when the weight is replaced.
func TestConvPaddingConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  nn.ConvConfig
		want string
	}{
		{nn.ConvConfig{PaddingString: "full"}, "Invalid padding string 'full', should be one of {'valid', 'same'}"},
		{nn.ConvConfig{PaddingString: "same", PaddingMode: "valid"}, "padding is both 'valid' (PaddingMode) and 'same' (PaddingString)"},
		{nn.ConvConfig{PaddingString: "same", Padding: []int{1}}, "padding is both (1,) and 'same'"},
		{nn.ConvConfig{PaddingString: "same", PaddingMode: "circular", Stride: []int{1, 2}}, "padding='same' is not supported for strided convolutions"},
		{nn.ConvConfig{PaddingMode: "same", Stride: []int{2}}, "padding='same' is not supported for strided convolutions"},
	} {
		m := nn.NewConv2d(2, 2, []int{3}, c.cfg)
		if err := m.Weight.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: weight error %v, want %s", c.cfg, err, c.want)
		}
		m.Weight, m.Bias = torch.Ones([]int{2, 2, 3, 3}), nil
		if err := m.Forward(torch.Ones([]int{1, 2, 5, 5})).Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: forward error %v, want %s", c.cfg, err, c.want)
		}
	}
	// A padding string equal in both fields is one setting.
	m := nn.NewConv1d(2, 2, []int{4}, nn.ConvConfig{PaddingString: "same", PaddingMode: "same"})
	if y := m.Forward(torch.Ones([]int{1, 2, 7})); y.Err() != nil || !slicesEqual(y.Shape(), []int{1, 2, 7}) {
		t.Errorf("same twice: %v %v", y.Shape(), y.Err())
	}
}
