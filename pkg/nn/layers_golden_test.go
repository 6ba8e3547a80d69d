package nn_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// layersGolden is the module part of testdata/layers.json, written by
// scripts/golden/layers.py (its functional cases run in
// internal/conformance).
type layersGolden struct {
	Modules map[string]struct {
		Repr      string   `json:"repr"`
		StateDict []string `json:"state_dict"`
		Train     []struct {
			Input   golden.Tensor            `json:"input"`
			Output  golden.Tensor            `json:"output"`
			Buffers map[string]golden.Tensor `json:"buffers"`
		} `json:"train"`
		Eval *struct {
			Input  golden.Tensor `json:"input"`
			Output golden.Tensor `json:"output"`
		} `json:"eval"`
		Row []float64 `json:"row"`
	} `json:"modules"`
	Dropout2d []struct {
		Seed   uint64        `json:"seed"`
		P      float64       `json:"p"`
		Input  golden.Tensor `json:"input"`
		Output golden.Tensor `json:"output"`
		Repr   string        `json:"repr"`
	} `json:"dropout2d"`
}

func goldenLayers() map[string]nn.Layer {
	cumulative := nn.NewBatchNorm1d(3, true, true)
	cumulative.Momentum = nil
	bn3d := nn.NewBatchNorm1d(3, true, true)
	m := 0.2
	bn3d.Momentum = &m
	pad := 1
	maxNorm, maxNorm2 := 1.0, 2.0
	bagMax := nn.NewEmbeddingBag(4, 2, "max")
	bagMax.MaxNorm = &maxNorm2
	gnEps := nn.NewGroupNorm(3, 6, true)
	gnEps.Eps = 1e-3
	inStats := nn.NewInstanceNorm2d(3, false, true)
	m3 := 0.3
	inStats.Eps, inStats.Momentum = 1e-3, &m3
	return map[string]nn.Layer{
		"GroupNorm_eps":              gnEps,
		"GroupNorm_one_group":        nn.NewGroupNorm(1, 4, true),
		"GroupNorm_empty":            nn.NewGroupNorm(2, 4, true),
		"InstanceNorm2d_default":     nn.NewInstanceNorm2d(3, false, false),
		"InstanceNorm2d_affine":      nn.NewInstanceNorm2d(3, true, false),
		"InstanceNorm2d_stats":       inStats,
		"InstanceNorm2d_unbatched":   nn.NewInstanceNorm2d(2, true, true),
		"InstanceNorm2d_empty_batch": nn.NewInstanceNorm2d(3, false, true),
		"BatchNorm1d":                nn.NewBatchNorm1d(3, true, true),
		"BatchNorm1d_3d":             bn3d,
		"BatchNorm1d_cumulative":     cumulative,
		"BatchNorm1d_no_affine":      nn.NewBatchNorm1d(3, false, true),
		"BatchNorm1d_no_stats":       nn.NewBatchNorm1d(3, true, false),
		"BatchNorm2d":                nn.NewBatchNorm2d(2, true, true),
		"InstanceNorm1d":             nn.NewInstanceNorm1d(3, false, false),
		"InstanceNorm1d_unbatched":   nn.NewInstanceNorm1d(3, true, true),
		"InstanceNorm2d":             nn.NewInstanceNorm2d(2, true, true),
		"GroupNorm":                  nn.NewGroupNorm(2, 4, true),
		"GroupNorm_no_affine":        nn.NewGroupNorm(4, 4, false),
		"PReLU":                      nn.NewPReLU(1),
		"PReLU_3":                    nn.NewPReLU(3),
		"GLU":                        nn.GLU(-1),
		"Upsample":                   nn.NewUpsample(nil, []float64{2}, "nearest", false),
		"Upsample_bilinear":          nn.NewUpsample([]int{4, 5}, nil, "bilinear", true),
		"Upsample_size":              nn.NewUpsample([]int{4}, nil, "nearest", false),
		"Upsample_tuple":             nn.NewUpsample(nil, []float64{2, 3}, "nearest", false),
		"Embedding":                  nn.NewEmbedding(4, 2),
		"Embedding_options":          nn.NewEmbeddingWith(4, 2, nn.EmbeddingOptions{PaddingIdx: &pad, MaxNorm: &maxNorm, NormType: 3}),
		"EmbeddingBag":               nn.NewEmbeddingBag(4, 2, "mean"),
		"EmbeddingBag_max":           bagMax,
	}
}

func TestLayersMatchPyTorch(t *testing.T) {
	var g layersGolden
	if err := golden.Load("layers.json", &g); err != nil {
		t.Fatal(err)
	}
	for name, m := range goldenLayers() {
		t.Run(name, func(t *testing.T) {
			want, ok := g.Modules[name]
			if !ok {
				t.Fatalf("no golden module %s", name)
			}
			if got := nn.Repr(m); got != want.Repr {
				t.Errorf("repr %q, PyTorch %q", got, want.Repr)
			}
			sd, err := nn.NamedState(m)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, kv := range sd {
				keys = append(keys, kv.Name)
			}
			if !slices.Equal(keys, want.StateDict) && !(len(keys) == 0 && len(want.StateDict) == 0) {
				t.Errorf("state dict %v, PyTorch %v", keys, want.StateDict)
			}
			for i, step := range want.Train {
				y := m.Forward(step.Input.Tensor())
				if y.Err() != nil {
					t.Fatalf("step %d: %v", i, y.Err())
				}
				expectClose(t, "output", y, step.Output, 1e-5, 1e-5)
				bufs, err := nn.NamedBuffers(m)
				if err != nil {
					t.Fatal(err)
				}
				if len(bufs) != len(step.Buffers) {
					t.Errorf("step %d: %d buffers, PyTorch %d", i, len(bufs), len(step.Buffers))
				}
				for _, b := range bufs {
					expectClose(t, b.Name, b.Tensor, step.Buffers[b.Name], 1e-5, 1e-5)
				}
			}
			if want.Eval != nil {
				nn.Eval(m)
				expectClose(t, "eval output", m.Forward(want.Eval.Input.Tensor()), want.Eval.Output, 1e-5, 1e-5)
			}
		})
	}
}

func TestEmbeddingPaddingRow(t *testing.T) {
	pad := -2
	e := nn.NewEmbeddingWith(5, 3, nn.EmbeddingOptions{PaddingIdx: &pad})
	if v := values(t, e.Weight.Select(0, 3)); !slices.Equal(v, []float64{0, 0, 0}) {
		t.Errorf("padding row %v, want zeros", v)
	}
	if got := nn.Repr(e); got != "Embedding(5, 3, padding_idx=3)" {
		t.Errorf("repr %q", got)
	}
	// The padding row gets no gradient, even when it is not zero.
	torch.NoGrad(func() { e.Weight.Select(0, 3).Fill_(2) })
	y := e.Forward(torch.FromSlice([]int64{3, 1, 3, 0}))
	if v := values(t, y.Select(0, 0)); !slices.Equal(v, []float64{2, 2, 2}) {
		t.Errorf("padding row looked up as %v", v)
	}
	if err := y.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	grad := values(t, e.Weight.Grad())
	if want := []float64{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}; !slices.Equal(grad, want) {
		t.Errorf("grad %v, want %v", grad, want)
	}
}

func TestDropout2dMatchesPyTorch(t *testing.T) {
	var g layersGolden
	if err := golden.Load("layers.json", &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Dropout2d {
		torch.ManualSeed(c.Seed)
		d := nn.NewDropout2d(c.P)
		if got := nn.Repr(d); got != c.Repr {
			t.Errorf("repr %q, PyTorch %q", got, c.Repr)
		}
		expectClose(t, "dropout2d", d.Forward(c.Input.Tensor()), c.Output, 1e-6, 1e-6)
		nn.Eval(d)
		expectClose(t, "dropout2d eval", d.Forward(c.Input.Tensor()), c.Input, 0, 0)
	}
}

func TestNormErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		y    *torch.Tensor
		want string
	}{
		{"batch1d", nn.NewBatchNorm1d(3, true, true).Forward(torch.Ones([]int{1, 3})),
			"BatchNorm1d: Expected more than 1 value per channel when training, got input size torch.Size([1, 3])"},
		{"batch2d_dims", nn.NewBatchNorm2d(3, true, true).Forward(torch.Ones([]int{2, 3, 4})), "BatchNorm2d: expected 4D input (got 3D input)"},
		{"instance", nn.NewInstanceNorm1d(3, false, false).Forward(torch.Ones([]int{2, 3, 1})),
			"InstanceNorm1d: Expected more than 1 spatial element when training, got input size torch.Size([2, 3, 1])"},
		{"group", nn.NewGroupNorm(4, 6, true).Forward(torch.Ones([]int{2, 6})), "GroupNorm: num_channels must be divisible by num_groups"},
		{"nil", (*nn.BatchNorm2d)(nil).Forward(torch.Ones([]int{2})), "the BatchNorm2d module is nil"},
	} {
		err := c.y.Err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		layer, msg, _ := strings.Cut(c.want, ": ")
		if got := err.Error(); !strings.Contains(got, layer) || !strings.Contains(got, msg) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestRMSNorm(t *testing.T) {
	r := nn.NewRMSNorm([]int{4}, true)
	if got := nn.Repr(r); got != "RMSNorm((4,), eps=None, elementwise_affine=True)" {
		t.Errorf("repr %q", got)
	}
	x := torch.FromSlice([]float64{1, 2, 3, 4, -1, 0, 1, 0}, torch.WithShape(2, 4)).RequiresGrad_(true)
	f := func(in ...*torch.Tensor) *torch.Tensor { return r.Forward(in[0]) }
	if err := torch.GradCheck(f, []*torch.Tensor{x}, torch.GradCheckOptions{}); err != nil {
		t.Error(err)
	}
}
