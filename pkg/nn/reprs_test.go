package nn_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// goldenReprs are the modules of modules.py's reprs(), one of every layer
// of pkg/nn with options.
func goldenReprs(t *testing.T) map[string]nn.Module {
	two, zero, one := 2.0, 0, 1.0
	bnMomentum := nn.NewBatchNorm2d(4, true, true)
	bnMomentum.Eps, bnMomentum.Momentum = 1e-3, nil
	in2d := nn.NewInstanceNorm2d(3, true, true)
	m2 := 0.2
	in2d.Eps, in2d.Momentum = 1e-3, &m2
	gn := nn.NewGroupNorm(2, 4, false)
	gn.Eps = 1e-3
	ln := &nn.LayerNorm{Shape: []int{2, 3}, Eps: 1e-3}
	dict := nn.NewParameterDict()
	mustSet(t, dict, "b", torch.Ones(nil, torch.WithDType(torch.Float64)))
	mustSet(t, dict, "w", torch.Ones([]int{3}, torch.WithDType(torch.Float32)))
	return map[string]nn.Module{
		"Linear":                nn.NewLinear(4, 3),
		"Linear_nobias":         &nn.Linear{Weight: torch.Zeros([]int{2, 3})},
		"Conv2d":                nn.NewConv2d(3, 8, []int{3}, nn.ConvConfig{}),
		"Conv2d_options":        nn.NewConv2d(4, 6, []int{3, 2}, nn.ConvConfig{Stride: []int{2, 1}, Padding: []int{1, 0}, Dilation: []int{2}, Groups: 2, NoBias: true}),
		"Conv2d_same_reflect":   nn.NewConv2d(3, 4, []int{2, 4}, nn.ConvConfig{PaddingString: "same", PaddingMode: "reflect", Dilation: []int{1, 2}}),
		"Conv2d_same":           nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{PaddingMode: "same"}),
		"Conv2d_valid_circular": nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{PaddingString: "valid", PaddingMode: "circular"}),
		"Conv2d_replicate":      nn.NewConv2d(2, 4, []int{3}, nn.ConvConfig{Padding: []int{1}, PaddingMode: "replicate"}),
		"Conv1d":                nn.NewConv1d(3, 2, []int{4}, nn.ConvConfig{PaddingString: "same", NoBias: true}),
		"Conv1d_circular":       nn.NewConv1d(3, 4, []int{3}, nn.ConvConfig{Stride: []int{2}, Padding: []int{2}, PaddingMode: "circular"}),
		"Conv1d_same_replicate": nn.NewConv1d(2, 2, []int{4}, nn.ConvConfig{PaddingString: "same", PaddingMode: "replicate", Dilation: []int{2}}),
		"ConvTranspose2d": nn.NewConvTranspose2d(4, 6, []int{3}, nn.ConvTransposeConfig{Stride: []int{2}, Padding: []int{1},
			OutputPadding: []int{1}, Groups: 2, NoBias: true}),
		"ConvTranspose2d_dilation": nn.NewConvTranspose2d(4, 6, []int{2, 3}, nn.ConvTransposeConfig{Dilation: []int{2}}),
		"ConvTranspose1d":          nn.NewConvTranspose1d(4, 6, []int{3}, nn.ConvTransposeConfig{}),
		"MaxPool2d":                nn.MaxPool2d([]int{2}, torch.MaxPoolOptions{}),
		"MaxPool2d_options": nn.MaxPool2d([]int{3, 2}, torch.MaxPoolOptions{Stride: []int{2, 1}, Padding: []int{1}, Dilation: []int{2},
			CeilMode: true}),
		"MaxPool2d_indices":     nn.NewMaxPool2dWithIndices([]int{2}, torch.MaxPoolOptions{}),
		"MaxPool1d":             nn.MaxPool1d(3, torch.MaxPoolOptions{}),
		"MaxPool1d_indices":     nn.NewMaxPool1dWithIndices(3, torch.MaxPoolOptions{Stride: []int{2}, CeilMode: true}),
		"AvgPool2d":             nn.AvgPool2d([]int{2}, torch.AvgPoolOptions{}),
		"AvgPool2d_options":     nn.AvgPool2d([]int{3, 2}, torch.AvgPoolOptions{Stride: []int{1}, Padding: []int{1, 0}}),
		"AvgPool1d":             nn.AvgPool1d(3, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1}}),
		"AdaptiveAvgPool2d":     nn.AdaptiveAvgPool2d(1, 1),
		"AdaptiveAvgPool2d_int": nn.AdaptiveAvgPool2d(3),
		"AdaptiveMaxPool2d":     nn.AdaptiveMaxPool2d(2, 3),
		"BatchNorm1d":           nn.NewBatchNorm1d(3, true, true),
		"BatchNorm2d":           nn.NewBatchNorm2d(4, false, false),
		"BatchNorm2d_momentum":  bnMomentum,
		"InstanceNorm1d":        nn.NewInstanceNorm1d(3, false, false),
		"InstanceNorm2d":        in2d,
		"GroupNorm":             nn.NewGroupNorm(2, 4, true),
		"GroupNorm_options":     gn,
		"LayerNorm":             nn.NewLayerNorm([]int{4}),
		"LayerNorm_options":     ln,
		"Embedding":             nn.NewEmbedding(10, 3),
		"Embedding_options":     nn.NewEmbeddingWith(10, 3, nn.EmbeddingOptions{PaddingIdx: &zero, MaxNorm: &one}),
		"EmbeddingBag":          nn.NewEmbeddingBag(4, 2, "mean"),
		"EmbeddingBag_max":      nn.NewEmbeddingBag(4, 2, "max"),
		"Dropout":               nn.NewDropout(0.25),
		"Dropout2d":             nn.NewDropout2d(0.5),
		"PReLU":                 nn.NewPReLU(1),
		"PReLU_3":               nn.NewPReLU(3),
		"GLU":                   nn.GLU(-1),
		"GLU_1":                 nn.GLU(1),
		"Upsample":              nn.NewUpsample(nil, []float64{two}, "bicubic", true),
		"Upsample_size":         nn.NewUpsample([]int{4, 5}, nil, "bilinear", false),
		"Upsample_area":         nn.NewUpsample([]int{4}, nil, "area", false),
		"ReLU":                  nn.ReLU(),
		"ReLU6":                 nn.ReLU6(),
		"GELU":                  nn.GELU(),
		"GELU_tanh":             nn.GELUTanh(),
		"SiLU":                  nn.SiLU(),
		"Sigmoid":               nn.Sigmoid(),
		"Tanh":                  nn.Tanh(),
		"LeakyReLU":             nn.LeakyReLU(0.2),
		"ELU":                   nn.ELU(0.5),
		"SELU":                  nn.SELU(),
		"CELU":                  nn.CELU(2),
		"Hardtanh":              nn.Hardtanh(-2, 3),
		"Hardswish":             nn.Hardswish(),
		"Hardsigmoid":           nn.Hardsigmoid(),
		"Mish":                  nn.Mish(),
		"Softplus":              nn.Softplus(2, 10),
		"LogSigmoid":            nn.LogSigmoid(),
		"Softsign":              nn.Softsign(),
		"Identity":              nn.Identity(),
		"Flatten":               nn.Flatten(1, -1),
		"Unflatten":             nn.Unflatten(1, 2, 5),
		"Softmax":               nn.Softmax(1),
		"LogSoftmax":            nn.LogSoftmax(-1),
		"ParameterList":         nn.NewParameterList(torch.Ones([]int{3, 4}), torch.Ones([]int{2}, torch.WithDType(torch.Float64))),
		"ParameterDict":         dict,
		"Sequential": nn.NewSequential(nn.NewConv2d(1, 2, []int{3}, nn.ConvConfig{}), nn.NewMaxPool2dWithIndices([]int{2}, torch.MaxPoolOptions{}),
			nn.Flatten(1, -1), nn.NewSequential(nn.NewLinear(8, 4), nn.ReLU())),
	}
}

// TestReprsMatchPyTorch compares the String of every layer of pkg/nn, and
// of containers holding them, with PyTorch's repr of the same module
// (modules.py's reprs()).
func TestReprsMatchPyTorch(t *testing.T) {
	g := loadModules(t)
	mods := goldenReprs(t)
	if len(mods) != len(g.Reprs) {
		t.Errorf("%d Go modules, %d golden", len(mods), len(g.Reprs))
	}
	for _, c := range g.Reprs {
		m, ok := mods[c.Name]
		if !ok {
			t.Errorf("no Go module for %s", c.Name)
			continue
		}
		s, ok := m.(interface{ String() string })
		if !ok {
			t.Errorf("%s (%T) has no String method", c.Name, m)
			continue
		}
		if got := s.String(); got != c.Repr {
			t.Errorf("%s:\n%s\nPyTorch:\n%s", c.Name, got, c.Repr)
		}
		if got := nn.Repr(m); got != c.Repr {
			t.Errorf("%s: nn.Repr gives %s", c.Name, got)
		}
	}
}
