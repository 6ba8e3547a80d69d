package nn_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// modulesGolden is testdata/modules.json, written by scripts/golden/modules.py.
type modulesGolden struct {
	Models map[string]struct {
		Parameters []shaped `json:"parameters"`
		Buffers    []shaped `json:"buffers"`
		StateDict  []shaped `json:"state_dict"`
		Modules    []string `json:"modules"`
		Children   []string `json:"children"`
		Repr       string   `json:"repr"`
	} `json:"models"`
	Activations []struct {
		Name        string    `json:"name"`
		Repr        string    `json:"repr"`
		Input       []float64 `json:"input"`
		Output      []float64 `json:"output"`
		OutputShape []int     `json:"output_shape"`
	} `json:"activations"`
	Reprs []struct {
		Name string `json:"name"`
		Repr string `json:"repr"`
	} `json:"reprs"`
	Load []struct {
		Name       string   `json:"name"`
		Strict     bool     `json:"strict"`
		Keys       []shaped `json:"keys"`
		Missing    []string `json:"missing"`
		Unexpected []string `json:"unexpected"`
		Error      string   `json:"error"`
	} `json:"load"`
	Training []struct {
		Op       string  `json:"op"`
		Training [][]any `json:"training"`
	} `json:"training"`
}

type shaped struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
}

func loadModules(t *testing.T) *modulesGolden {
	t.Helper()
	var g modulesGolden
	if err := golden.Load("modules.json", &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// Residual and Encoder are the custom modules of modules.py.
type Residual struct {
	nn.Base
	FC1   *nn.Linear
	Act   nn.Layer
	FC2   *nn.Linear
	Drop  *nn.Dropout
	Scale *torch.Tensor
	Steps *torch.Tensor `nn:"buffer"`
}

func newResidual(dim int) *Residual {
	fc2 := nn.NewLinear(2*dim, dim)
	fc2.Bias = nil
	return &Residual{FC1: nn.NewLinear(dim, 2*dim), Act: nn.GELU(), FC2: fc2, Drop: nn.NewDropout(0.1),
		Scale: nn.Parameter(torch.Ones([]int{dim})), Steps: torch.Zeros([]int{}, torch.WithDType(torch.Int64))}
}

type Encoder struct {
	nn.Base
	Embed    *nn.Embedding
	Layers   *nn.ModuleList
	Norm     *nn.LayerNorm
	Head     *nn.Sequential
	Position *torch.Tensor `nn:"buffer"`
	Mask     *torch.Tensor `nn:"buffer,nonpersistent"`
}

func newEncoder() *Encoder {
	return &Encoder{
		Embed:    nn.NewEmbedding(10, 4),
		Layers:   nn.NewModuleList(newResidual(4), newResidual(4)),
		Norm:     nn.NewLayerNorm([]int{4}),
		Head:     nn.NewSequential(nn.NewLinear(4, 3), nn.Tanh()),
		Position: torch.Zeros([]int{6, 4}),
		Mask:     torch.Ones([]int{6}),
	}
}

func goldenModels(t *testing.T) map[string]nn.Module {
	noBias := nn.NewLinear(3, 3)
	noBias.Bias = nil
	dict := nn.NewModuleDict()
	for _, kv := range []nn.NamedModule{{"proj", nn.NewLinear(2, 3)}, {"embed", nn.NewEmbedding(5, 2)}, {"act", nn.LeakyReLU(0.2)}} {
		if err := dict.Set(kv.Name, kv.Module); err != nil {
			t.Fatal(err)
		}
	}
	shared := nn.NewLinear(2, 2)
	ln := nn.NewLayerNorm([]int{2, 3})
	ln.Weight, ln.Bias = nil, nil
	return map[string]nn.Module{
		"with_params":             newWithParams(t),
		"param_containers_nested": newNestedParamContainers(t),
		"sequential_pool_indices": nn.NewSequential(nn.NewConv2d(1, 2, []int{3}, nn.ConvConfig{}),
			nn.NewMaxPool2dWithIndices([]int{2}, torch.MaxPoolOptions{}),
			nn.NewMaxPool1dWithIndices(3, torch.MaxPoolOptions{Stride: []int{2}})),
		"seq_of_seq": nn.NewSequential(
			nn.NewSequential(nn.NewLinear(4, 3), nn.ReLU()),
			nn.NewSequential(nn.NewLinear(3, 2), nn.NewDropout(0.25)),
			nn.NewLayerNorm([]int{2}),
		),
		"module_list":          nn.NewModuleList(nn.NewLinear(2, 3), nn.NewModuleList(noBias), nn.SiLU()),
		"module_dict":          dict,
		"encoder":              newEncoder(),
		"shared":               nn.NewSequential(shared, nn.ReLU(), shared),
		"layer_norm_no_affine": ln,
	}
}

func shapes(named []nn.Named) []shaped {
	out := []shaped{}
	for _, n := range named {
		out = append(out, shaped{n.Name, n.Tensor.Shape()})
	}
	return out
}

func names(named []nn.NamedModule) []string {
	out := []string{}
	for _, n := range named {
		out = append(out, n.Name)
	}
	return out
}

func TestModulesMatchPyTorch(t *testing.T) {
	g := loadModules(t)
	models := goldenModels(t)
	if !cmp.Equal(slices.Sorted(maps.Keys(models)), slices.Sorted(maps.Keys(g.Models))) {
		t.Fatalf("Go models %v, golden %v", slices.Sorted(maps.Keys(models)), slices.Sorted(maps.Keys(g.Models)))
	}
	for name, want := range g.Models {
		t.Run(name, func(t *testing.T) {
			m := models[name]
			params, err := nn.NamedParameters(m)
			if err != nil {
				t.Fatal(err)
			}
			buffers, err := nn.NamedBuffers(m)
			if err != nil {
				t.Fatal(err)
			}
			state, err := nn.NamedState(m)
			if err != nil {
				t.Fatal(err)
			}
			mods, err := nn.NamedModules(m)
			if err != nil {
				t.Fatal(err)
			}
			kids, err := nn.NamedChildren(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"named_parameters", shapes(params), want.Parameters},
				{"named_buffers", shapes(buffers), want.Buffers},
				{"state_dict", shapes(state), want.StateDict},
				{"named_modules", names(mods), want.Modules},
				{"named_children", names(kids), want.Children},
				{"repr", nn.Repr(m), want.Repr},
			} {
				if diff := cmp.Diff(c.want, c.got); diff != "" {
					t.Errorf("%s (-PyTorch +Go):\n%s", c.what, diff)
				}
			}
			sd := nn.StateDict(m)
			if len(sd) != len(want.StateDict) {
				t.Errorf("StateDict has %d tensors, PyTorch %d", len(sd), len(want.StateDict))
			}
		})
	}
}

func goldenActivations() map[string]nn.Module {
	return map[string]nn.Module{
		"ReLU": nn.ReLU(), "GELU": nn.GELU(), "GELU_tanh": nn.GELUTanh(), "SiLU": nn.SiLU(),
		"Sigmoid": nn.Sigmoid(), "Tanh": nn.Tanh(), "LeakyReLU": nn.LeakyReLU(0.01), "LeakyReLU_0.2": nn.LeakyReLU(0.2),
		"ELU": nn.ELU(1), "ELU_0.5": nn.ELU(0.5), "SELU": nn.SELU(), "CELU": nn.CELU(1), "CELU_2": nn.CELU(2),
		"Hardtanh": nn.Hardtanh(-1, 1), "Hardtanh_-2_3": nn.Hardtanh(-2, 3), "Hardswish": nn.Hardswish(),
		"Hardsigmoid": nn.Hardsigmoid(), "Mish": nn.Mish(), "Softplus": nn.Softplus(1, 20),
		"Softplus_2_10": nn.Softplus(2, 10), "Softplus_0.5_15.5": nn.Softplus(0.5, 15.5),
		"LogSigmoid": nn.LogSigmoid(), "Softsign": nn.Softsign(), "Identity": nn.Identity(), "Flatten": nn.Flatten(1, -1),
		"Flatten_0_1": nn.Flatten(0, 1), "Unflatten": nn.Unflatten(1, 2, 5), "Softmax": nn.Softmax(1),
		"LogSoftmax": nn.LogSoftmax(-1), "Dropout": nn.NewDropout(0.5), "Linear_nobias": &nn.Linear{Weight: torch.Zeros([]int{2, 3})},
		"LayerNorm_eps": &nn.LayerNorm{Shape: []int{5}, Eps: 1e-3, Weight: torch.Ones([]int{5})}, "Embedding": nn.NewEmbedding(7, 3),
	}
}

func TestActivationsMatchPyTorch(t *testing.T) {
	g := loadModules(t)
	mods := goldenActivations()
	if len(mods) != len(g.Activations) {
		t.Errorf("%d Go activations, %d golden", len(mods), len(g.Activations))
	}
	for _, c := range g.Activations {
		t.Run(c.Name, func(t *testing.T) {
			m := mods[c.Name]
			if m == nil {
				t.Fatalf("no Go module for %s", c.Name)
			}
			if got := nn.Repr(m); got != c.Repr {
				t.Errorf("repr %q, PyTorch %q", got, c.Repr)
			}
			if c.Output == nil {
				return
			}
			in := make([]float32, len(c.Input))
			for i, v := range c.Input {
				in[i] = float32(v)
			}
			y := m.(nn.Layer).Forward(torch.FromSlice(in, torch.WithShape(2, 10)))
			if err := y.Err(); err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(y.Shape(), c.OutputShape) {
				t.Fatalf("shape %v, PyTorch %v", y.Shape(), c.OutputShape)
			}
			for i, v := range values(t, y) {
				if !golden.Close(v, c.Output[i], 1e-6, 1e-5) {
					t.Errorf("[%d] = %.8g, PyTorch %.8g", i, v, c.Output[i])
				}
			}
		})
	}
}

func TestLoadStateDictMatchesPyTorch(t *testing.T) {
	g := loadModules(t)
	for _, c := range g.Load {
		t.Run(c.Name, func(t *testing.T) {
			sd := map[string]*torch.Tensor{}
			for _, k := range c.Keys {
				sd[k.Name] = torch.Ones(k.Shape)
			}
			m := newEncoder()
			var missing, unexpected []string
			var err error
			if c.Strict {
				err = nn.LoadStateDict(m, sd)
			} else {
				missing, unexpected, err = nn.LoadStateDictNonStrict(m, sd)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.Error {
				t.Errorf("error:\n%s\nPyTorch:\n%s", got, c.Error)
			}
			if c.Error == "" && !c.Strict {
				if !cmp.Equal(missing, c.Missing, cmpEmpty) || !cmp.Equal(unexpected, c.Unexpected, cmpEmpty) {
					t.Errorf("missing %q unexpected %q, PyTorch %q %q", missing, unexpected, c.Missing, c.Unexpected)
				}
			}
			if c.Error == "" {
				w := values(t, m.Norm.Weight)
				if w[0] != 1 {
					t.Errorf("norm.weight not loaded: %v", w)
				}
			}
		})
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) })

func TestTrainEvalMatchPyTorch(t *testing.T) {
	g := loadModules(t)
	m := newEncoder()
	ops := map[string]func() error{
		"new":               func() error { return nil },
		"eval":              func() error { return nn.Eval(m) },
		"train layers.1":    func() error { return nn.Train(m.Layers.Modules[1], true) },
		"train":             func() error { return nn.Train(m, true) },
		"head.train(False)": func() error { return nn.Train(m.Head, false) },
	}
	for _, step := range g.Training {
		if err := ops[step.Op](); err != nil {
			t.Fatal(err)
		}
		mods, err := nn.NamedModules(m)
		if err != nil {
			t.Fatal(err)
		}
		var got [][]any
		for _, nm := range mods {
			got = append(got, []any{nm.Name, nn.Training(nm.Module)})
		}
		if diff := cmp.Diff(step.Training, got); diff != "" {
			t.Errorf("after %s (-PyTorch +Go):\n%s", step.Op, diff)
		}
	}
}
