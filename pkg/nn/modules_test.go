package nn_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

func paramNames(t *testing.T, m nn.Module) []string {
	t.Helper()
	named, err := nn.NamedParameters(m)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range named {
		out = append(out, n.Name)
	}
	return out
}

type attention struct {
	nn.Base
	QKVProj     *torch.Tensor
	InProj      *torch.Tensor `nn:"param,name=in_proj_weight"`
	RunningMean *torch.Tensor `nn:"buffer"`
	Out         nn.Linear     // a module held by value
	Opt         *nn.Linear
	cache       *torch.Tensor
	Size        int
}

func TestFieldNamesAndKinds(t *testing.T) {
	a := &attention{QKVProj: torch.Ones([]int{2}), InProj: torch.Ones([]int{3}), RunningMean: torch.Zeros([]int{2}),
		Out: *nn.NewLinear(2, 2), cache: torch.Ones([]int{1})}
	if diff := cmp.Diff([]string{"qkv_proj", "in_proj_weight", "out.weight", "out.bias"}, paramNames(t, a)); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
	state, err := nn.NamedState(a)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range state {
		got = append(got, s.Name)
	}
	if diff := cmp.Diff([]string{"qkv_proj", "in_proj_weight", "running_mean", "out.weight", "out.bias"}, got); diff != "" {
		t.Errorf("state dict (-want +got):\n%s", diff)
	}
	if r := nn.Repr(a); !strings.Contains(r, "(opt): None") || !strings.HasPrefix(r, "attention(") {
		t.Errorf("repr %s", r)
	}
}

type withSlice struct {
	nn.Base
	Layers []*nn.Linear
}

type badTag struct {
	nn.Base
	W *torch.Tensor `nn:"bufer"`
}

type tagOnInt struct {
	nn.Base
	N int `nn:"buffer"`
}

type twice struct {
	nn.Base
	W  *torch.Tensor
	W2 *torch.Tensor `nn:"name=w"`
}

type ignoredSlice struct {
	nn.Base
	Layers []*nn.Linear `nn:"-"`
	W      *torch.Tensor
}

func TestBadFieldsAreErrors(t *testing.T) {
	for name, m := range map[string]nn.Module{
		"slice": &withSlice{Layers: []*nn.Linear{nn.NewLinear(1, 1)}}, "bad tag": &badTag{}, "tag on int": &tagOnInt{},
		"same name twice": &twice{},
	} {
		if _, err := nn.NamedParameters(m); !errors.Is(err, torch.ErrArgument) {
			t.Errorf("%s: %v", name, err)
		}
		ps := nn.Parameters(m)
		if len(ps) != 1 || ps[0].Err() == nil {
			t.Errorf("%s: Parameters gave %v", name, ps)
		}
		if err := nn.StateDict(m)[""].Err(); err == nil {
			t.Errorf("%s: StateDict carries no error", name)
		}
	}
	if diff := cmp.Diff([]string{"w"}, paramNames(t, &ignoredSlice{W: torch.Ones([]int{1})})); diff != "" {
		t.Error(diff)
	}
}

func TestRegistration(t *testing.T) {
	l := nn.NewLinear(2, 2)
	if err := nn.RegisterParameter(l, "gain", nn.Parameter(torch.Ones([]int{2}))); err != nil {
		t.Fatal(err)
	}
	if err := nn.RegisterBuffer(l, "count", torch.Zeros([]int{1}), true); err != nil {
		t.Fatal(err)
	}
	if err := nn.RegisterBuffer(l, "tmp", torch.Zeros([]int{1}), false); err != nil {
		t.Fatal(err)
	}
	if err := nn.RegisterModule(l, "act", nn.ReLU()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"weight", "bias", "gain"}, paramNames(t, l)); diff != "" {
		t.Error(diff)
	}
	sd := nn.StateDict(l)
	if _, ok := sd["count"]; !ok || len(sd) != 4 {
		t.Errorf("state dict %v", sd)
	}
	if got := nn.Repr(l); got != "Linear(\n  in_features=2, out_features=2, bias=True\n  (act): ReLU()\n)" {
		t.Errorf("repr %q", got)
	}
	for name, err := range map[string]error{
		"field name":     nn.RegisterParameter(l, "weight", torch.Ones([]int{1})),
		"dotted":         nn.RegisterBuffer(l, "a.b", torch.Ones([]int{1}), true),
		"empty":          nn.RegisterModule(l, "", nn.ReLU()),
		"nil tensor":     nn.RegisterParameter(l, "x", nil),
		"nil module":     nn.RegisterModule(l, "x", (*nn.Linear)(nil)),
		"nil owner":      nn.RegisterBuffer(nil, "x", torch.Ones([]int{1}), true),
		"non-leaf":       nn.RegisterParameter(l, "y", nn.Parameter(torch.Ones([]int{1})).MulScalar(2)),
		"module as para": nn.RegisterParameter(l, "act", torch.Ones([]int{1})),
	} {
		if !errors.Is(err, torch.ErrArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Registering a name again replaces it in place.
	if err := nn.RegisterParameter(l, "gain", torch.Zeros([]int{3})); err != nil {
		t.Fatal(err)
	}
	if named, _ := nn.NamedParameters(l); named[2].Tensor.Shape()[0] != 3 {
		t.Errorf("gain not replaced: %v", named[2].Tensor.Shape())
	}
}

func TestNilModules(t *testing.T) {
	for name, m := range map[string]nn.Module{"nil": nil, "typed nil": (*nn.Linear)(nil)} {
		if _, err := nn.NamedParameters(m); err == nil {
			t.Errorf("%s: no error", name)
		}
		if err := nn.Train(m, true); err == nil {
			t.Errorf("%s: Train: no error", name)
		}
		if err := nn.LoadStateDict(m, map[string]*torch.Tensor{}); err == nil {
			t.Errorf("%s: LoadStateDict: no error", name)
		}
		if nn.Repr(m) != "None" || nn.Training(m) {
			t.Errorf("%s: Repr %q Training %v", name, nn.Repr(m), nn.Training(m))
		}
	}
	s := nn.NewSequential(nil, nn.NewLinear(1, 1), (*nn.Linear)(nil))
	if diff := cmp.Diff([]string{"1.weight", "1.bias"}, paramNames(t, s)); diff != "" {
		t.Error(diff)
	}
	if got := nn.Repr(s); !strings.Contains(got, "(0): None") || !strings.Contains(got, "(2): None") {
		t.Errorf("repr %s", got)
	}
	if err := (&nn.ModuleDict{}).Set("a", nil); err == nil {
		t.Error("ModuleDict took a nil module")
	}
}

func TestCyclesAreErrors(t *testing.T) {
	l := nn.NewModuleList(nn.NewLinear(1, 1))
	l.Modules = append(l.Modules, nn.NewSequential(nn.ReLU()))
	l.Modules = append(l.Modules, l)
	for name, err := range map[string]error{
		"named_parameters": func() error { _, err := nn.NamedParameters(l); return err }(),
		"state_dict":       func() error { _, err := nn.NamedState(l); return err }(),
		"load_state_dict":  nn.LoadStateDict(l, map[string]*torch.Tensor{}),
		"train":            nn.Train(l, false),
		"apply":            nn.Apply(l, func(nn.Module) {}),
		"to":               nn.To(l, "meta"),
	} {
		if err == nil || !strings.Contains(err.Error(), "contains itself") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got := nn.Repr(l); !strings.Contains(got, "(2): <cycle>") {
		t.Errorf("repr %s", got)
	}
	if nn.StateDict(l)[""].Err() == nil {
		t.Error("StateDict of a cycle carries no error")
	}
}

func TestSharedModulesAndParameters(t *testing.T) {
	lin := nn.NewLinear(2, 2)
	m := nn.NewSequential(lin, nn.ReLU(), lin)
	if n := len(nn.Parameters(m)); n != 2 {
		t.Errorf("%d parameters, want the shared 2 once", n)
	}
	if n := len(nn.StateDict(m)); n != 4 {
		t.Errorf("%d state dict entries, want 4 as PyTorch", n)
	}
	var order []string
	enc := newEncoder()
	if err := nn.Apply(enc, func(m nn.Module) { order = append(order, nn.Repr(m)[:3]) }); err != nil {
		t.Fatal(err)
	}
	// Children before parents, the root last.
	if len(order) != 17 || order[len(order)-1] != "Enc" || order[0] != "Emb" || order[1] != "Lin" {
		t.Errorf("apply order %v", order)
	}
}

func TestToMeta(t *testing.T) {
	torch.ManualSeed(0)
	m := nn.NewSequential(nn.NewLinear(3, 2), nn.ReLU())
	before := nn.Parameters(m)
	loss := m.Forward(torch.Ones([]int{1, 3})).Sum()
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	if err := nn.To(m, "meta"); err != nil {
		t.Fatal(err)
	}
	for i, p := range nn.Parameters(m) {
		if p != before[i] || !p.IsLeaf() || !p.RequiresGrad() || !p.IsMeta() || !p.Grad().IsMeta() {
			t.Errorf("parameter %d: same %v leaf %v meta %v grad %v", i, p == before[i], p.IsLeaf(), p.IsMeta(), p.Grad())
		}
	}
	if err := nn.To(m, "cpu"); err == nil {
		t.Error("moved out of meta")
	}
	if err := nn.To(m, "gpu"); err == nil {
		t.Error("bad device accepted")
	}
}

func TestToDType(t *testing.T) {
	b := newResidual(2)
	if err := b.Forward0().Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if err := nn.ToDType(b, torch.Float64); err != nil {
		t.Fatal(err)
	}
	for _, p := range nn.Parameters(b) {
		if p.DType() != torch.Float64 || !p.IsLeaf() || !p.RequiresGrad() || p.Grad().DType() != torch.Float64 {
			t.Errorf("parameter %v leaf %v grad %v", p.DType(), p.IsLeaf(), p.Grad())
		}
	}
	if b.Steps.DType() != torch.Int64 {
		t.Errorf("integer buffer converted to %v", b.Steps.DType())
	}
	if err := nn.ToDType(b, torch.Int64); !errors.Is(err, torch.ErrDType) {
		t.Errorf("to int64: %v", err)
	}
}

// Forward0 runs the block's layers on ones, for a gradient.
func (r *Residual) Forward0() *torch.Tensor {
	x := torch.Ones([]int{1, 2})
	return r.FC2.Forward(r.Act.Forward(r.FC1.Forward(x))).Mul(r.Scale)
}

func TestStateDictSafetensorsRoundTrip(t *testing.T) {
	torch.ManualSeed(0)
	build := func() (*nn.Sequential, *Encoder) {
		return nn.NewSequential(nn.NewLinear(4, 8), nn.GELU(), nn.NewLayerNorm([]int{8}), nn.NewLinear(8, 3)), newEncoder()
	}
	a, encA := build()
	torch.NoGrad(func() { encA.Layers.Modules[1].(*Residual).Steps.AddScalar_(7) })
	path := filepath.Join(t.TempDir(), "model.safetensors")
	sd := nn.StateDict(a)
	for k, v := range nn.StateDict(encA) {
		sd["enc."+k] = v
	}
	if err := safetensors.Save(path, sd, nil); err != nil {
		t.Fatal(err)
	}
	loaded, err := safetensors.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b, encB := build()
	encSD := map[string]*torch.Tensor{}
	for k, v := range loaded {
		if rest, ok := strings.CutPrefix(k, "enc."); ok {
			encSD[rest] = v
			delete(loaded, k)
		}
	}
	if err := nn.LoadStateDict(b, loaded); err != nil {
		t.Fatal(err)
	}
	if err := nn.LoadStateDict(encB, encSD); err != nil {
		t.Fatal(err)
	}
	x := torch.Randn([]int{5, 4})
	if !cmp.Equal(values(t, a.Forward(x)), values(t, b.Forward(x))) {
		t.Error("outputs differ after the round trip")
	}
	stateA, _ := nn.NamedState(encA)
	stateB, _ := nn.NamedState(encB)
	for i := range stateA {
		if !cmp.Equal(values(t, stateA[i].Tensor), values(t, stateB[i].Tensor)) {
			t.Errorf("%s differs after the round trip", stateA[i].Name)
		}
	}
}

func TestModuleDictOrder(t *testing.T) {
	d := nn.NewModuleDict()
	for _, k := range []string{"z", "a", "m"} {
		if err := d.Set(k, nn.NewLinear(1, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Set("a", nn.ReLU()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"z", "a", "m"}, d.Keys()); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"z.weight", "z.bias", "m.weight", "m.bias"}, paramNames(t, d)); diff != "" {
		t.Error(diff)
	}
	if err := d.Set("a.b", nn.ReLU()); err == nil {
		t.Error("dotted key accepted")
	}
}

// valueModule is a Module by value (its Base behind a pointer): not a
// pointer to a struct, which nn refuses.
type valueModule struct{ *nn.Base }

// wrapper gets its Base from an embedded Layer, which may be nil.
type wrapper struct{ nn.Layer }

type loop []loop

type withLoop struct {
	nn.Base
	L loop
	W *torch.Tensor
}

func TestOddModulesDoNotPanic(t *testing.T) {
	if _, err := nn.NamedParameters(valueModule{&nn.Base{}}); err == nil {
		t.Error("a module by value walked")
	}
	w := &wrapper{}
	if nn.Training(w) || nn.Train(w, true) != nil || nn.RegisterBuffer(w, "b", torch.Ones([]int{1}), true) == nil {
		t.Errorf("wrapper of a nil Layer: training %v", nn.Training(w))
	}
	if got := nn.Repr(w); got != "wrapper(\n  (layer): None\n)" {
		t.Errorf("repr %q", got)
	}
	if diff := cmp.Diff([]string{"w"}, paramNames(t, &withLoop{W: torch.Ones([]int{1})})); diff != "" {
		t.Error(diff)
	}
	if err := nn.ToDType((*nn.Linear)(nil), torch.Float64); err == nil {
		t.Error("nil module converted")
	}
}

// A module converted inside torch.Tidy keeps its converted tensors.
func TestConvertInsideTidyKeepsTheModule(t *testing.T) {
	m := nn.NewSequential(nn.NewLinear(3, 2), nn.NewBatchNorm1d(2, true, true))
	if err := m.Forward(torch.Ones([]int{4, 3})).Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if err := torch.Tidy(func() error { return nn.ToDType(m, torch.Float64) }); err != nil {
		t.Fatal(err)
	}
	for name, p := range nn.StateDict(m) {
		if err := p.AddScalar(0).Err(); err != nil {
			t.Errorf("%s after ToDType inside Tidy: %v", name, err)
		}
	}
	for i, p := range nn.Parameters(m) {
		if err := p.Grad().AddScalar(0).Err(); err != nil {
			t.Errorf("gradient of parameter %d after ToDType inside Tidy: %v", i, err)
		}
	}
}
