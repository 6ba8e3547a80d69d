package nn_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// WithParams is the module of modules.py holding a ParameterList and a
// ParameterDict beside a Linear.
type WithParams struct {
	nn.Base
	Params *nn.ParameterList
	Table  *nn.ParameterDict
	Proj   *nn.Linear
}

func newWithParams(t *testing.T) *WithParams {
	m := &WithParams{
		Params: nn.NewParameterList(torch.Ones([]int{3, 4}), torch.Zeros([]int{5}, torch.WithDType(torch.Float64)), torch.Scalar(2.0)),
		Table:  nn.NewParameterDict(),
		Proj:   nn.NewLinear(2, 2),
	}
	// PyTorch's ParameterDict(dict) adds a dict's keys sorted.
	mustSet(t, m.Table, "a", torch.Ones([]int{4}, torch.WithDType(torch.Float64)))
	mustSet(t, m.Table, "b", torch.Ones([]int{2, 3}))
	return m
}

func newNestedParamContainers(t *testing.T) *nn.ModuleList {
	d := nn.NewParameterDict()
	mustSet(t, d, "x", torch.Ones([]int{2, 2}))
	return nn.NewModuleList(nn.NewParameterList(torch.Ones([]int{1})), d, nn.NewParameterList(), nn.NewParameterDict())
}

func mustSet(t *testing.T, d *nn.ParameterDict, name string, x *torch.Tensor) {
	t.Helper()
	if err := d.Set(name, x); err != nil {
		t.Fatal(err)
	}
}

// TestParameterContainers checks what the golden models do not: the
// tensors become parameters, the containers' methods, their errors, a
// state dict's round trip and a conversion of dtype.
func TestParameterContainers(t *testing.T) {
	m := newWithParams(t)
	if p := m.Params.Get(1); p == nil || !p.RequiresGrad() || !p.IsLeaf() {
		t.Fatalf("params.1 is not a parameter: %v", p)
	}
	if m.Params.Len() != 3 || m.Params.Get(-1) != m.Params.Get(2) || m.Params.Get(3).Err() == nil || m.Params.Get(-4).Err() == nil {
		t.Error("ParameterList Len or Get")
	}
	if err := m.Params.Get(3).Err(); !strings.Contains(err.Error(), "index 3 is out of range") {
		t.Errorf("Get(3): %v", err)
	}
	if err := m.Params.Append(torch.Ones([]int{2})); err != nil || m.Params.Len() != 4 {
		t.Errorf("Append: %v", err)
	}
	if err := m.Params.Append(nil); err == nil || m.Params.Len() != 4 {
		t.Error("Append(nil) accepted")
	}
	for name, want := range map[string]string{"": `parameter name can't be empty string ""`, "a.b": `parameter name can't contain "."`} {
		if err := m.Table.Set(name, torch.Ones([]int{1})); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Set(%q): %v, want %s", name, err, want)
		}
	}
	old := m.Table.Get("a")
	mustSet(t, m.Table, "a", torch.Zeros([]int{4}))
	if !slices.Equal(m.Table.Keys(), []string{"a", "b"}) || m.Table.Len() != 2 || m.Table.Get("a") == old || m.Table.Get("zz").Err() == nil {
		t.Errorf("ParameterDict after Set: %v", m.Table.Keys())
	}
	// A state dict loads into a twin.
	sd := nn.StateDict(m)
	twin := newWithParams(t)
	_ = twin.Params.Append(torch.Zeros([]int{2}))
	if err := nn.LoadStateDict(twin, sd); err != nil {
		t.Fatal(err)
	}
	if v := values(t, twin.Table.Get("a")); v[0] != 0 {
		t.Errorf("table.a not loaded: %v", v)
	}
	// ToDType replaces the tensors in the containers too.
	if err := nn.ToDType(m, torch.Float64); err != nil {
		t.Fatal(err)
	}
	params, err := nn.NamedParameters(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		if p.Tensor.DType() != torch.Float64 || !p.Tensor.RequiresGrad() {
			t.Errorf("%s: %v after ToDType", p.Name, p.Tensor.DType())
		}
	}
	if m.Params.Get(0).DType() != torch.Float64 || m.Table.Get("b").DType() != torch.Float64 {
		t.Error("ToDType did not reach the containers")
	}
	var nilList *nn.ParameterList
	if nilList.Len() != 0 || nilList.Get(0).Err() == nil || nilList.Append(torch.Ones(nil)) == nil {
		t.Error("nil ParameterList")
	}
	var nilDict *nn.ParameterDict
	if nilDict.Len() != 0 || nilDict.Get("a").Err() == nil || nilDict.Set("a", torch.Ones(nil)) == nil || nilDict.Keys() != nil {
		t.Error("nil ParameterDict")
	}
}
