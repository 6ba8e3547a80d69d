package badinput

import (
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// receiver is a type whose exported methods get cases by reflection.
type receiver struct {
	name  string // "torch.Tensor", as the coverage test names it
	typ   reflect.Type
	valid func() any // a fresh usable value of typ
	zeros []zeroRecv // zero values besides the nil pointer (or zero struct)
}

// zeroRecv is a receiver built without its constructor: &nn.Linear{}.
type zeroRecv struct {
	label string
	make  func() any
}

// ignoredTypes have exported methods but no cases: error types, whose
// nil pointers the library never returns (Go's own error types panic on a
// nil receiver too).
var ignoredTypes = map[string]bool{
	"nn.StateDictError": true,
	"safetensors.Error": true,
}

// receivers lists the types whose methods get cases.
func receivers() []*receiver {
	return []*receiver{
		{name: "torch.Tensor", typ: reflect.TypeFor[*torch.Tensor](), valid: func() any { return f32() },
			zeros: []zeroRecv{{"zero", func() any { return new(torch.Tensor) }}}},
		{name: "torch.Out", typ: reflect.TypeFor[torch.Out](), valid: func() any { return torch.Into(f32()) }},
		{name: "torch.UntypedStorage", typ: reflect.TypeFor[*torch.UntypedStorage](),
			valid: func() any { return f32().UntypedStorage() },
			zeros: []zeroRecv{{"zero", func() any { return new(torch.UntypedStorage) }}}},
		{name: "torch.TypedStorage", typ: reflect.TypeFor[torch.TypedStorage](), valid: func() any { return f32().Storage() },
			zeros: []zeroRecv{{"nil_untyped", func() any { return torch.NewTypedStorage(nil, torch.Float32) }}}},
		{name: "torch.Pipe", typ: reflect.TypeFor[*torch.Pipe](), valid: func() any {
			var kept *torch.Pipe
			_ = torch.Pipeline(func(p *torch.Pipe) error { kept = p; return nil })
			return kept // its scope has ended
		}, zeros: []zeroRecv{{"zero", func() any { return new(torch.Pipe) }}}},
		{name: "torch.Generator", typ: reflect.TypeFor[*torch.Generator](), valid: func() any { return torch.NewGenerator(1) },
			zeros: []zeroRecv{{"zero", func() any { return new(torch.Generator) }}}},
		{name: "nn.Linear", typ: reflect.TypeFor[*nn.Linear](), valid: func() any { return nn.NewLinear(2, 2) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.Linear{} }}}},
		{name: "nn.Conv2d", typ: reflect.TypeFor[*nn.Conv2d](), valid: func() any { return nn.NewConv2d(2, 2, []int{1}, nn.ConvConfig{}) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.Conv2d{} }}}},
		{name: "nn.Conv1d", typ: reflect.TypeFor[*nn.Conv1d](), valid: func() any { return nn.NewConv1d(2, 2, []int{1}, nn.ConvConfig{}) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.Conv1d{} }}}},
		{name: "nn.ConvTranspose2d", typ: reflect.TypeFor[*nn.ConvTranspose2d](),
			valid: func() any { return nn.NewConvTranspose2d(2, 2, []int{1}, nn.ConvTransposeConfig{}) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.ConvTranspose2d{} }}}},
		{name: "nn.ConvTranspose1d", typ: reflect.TypeFor[*nn.ConvTranspose1d](),
			valid: func() any { return nn.NewConvTranspose1d(2, 2, []int{1}, nn.ConvTransposeConfig{}) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.ConvTranspose1d{} }}}},
		{name: "nn.MaxPoolWithIndices", typ: reflect.TypeFor[*nn.MaxPoolWithIndices](),
			valid: func() any { return nn.NewMaxPool1dWithIndices(1, torch.MaxPoolOptions{}) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.MaxPoolWithIndices{} }}}},
		{name: "nn.Sequential", typ: reflect.TypeFor[*nn.Sequential](),
			valid: func() any { return nn.NewSequential(nn.NewLinear(2, 2), nn.ReLU()) },
			zeros: []zeroRecv{
				{"zero", func() any { return &nn.Sequential{} }},
				{"nil_module", func() any { return nn.NewSequential(nil) }},
				{"nil_linear", func() any { return nn.NewSequential((*nn.Linear)(nil)) }},
			}},
		{name: "nn.ModuleList", typ: reflect.TypeFor[*nn.ModuleList](), valid: func() any { return nn.NewModuleList(nn.NewLinear(2, 2)) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.ModuleList{} }}, {"nil_module", func() any { return nn.NewModuleList(nil) }}}},
		{name: "nn.ModuleDict", typ: reflect.TypeFor[*nn.ModuleDict](), valid: func() any {
			d := nn.NewModuleDict()
			must(0, d.Set("fc", nn.NewLinear(2, 2)))
			return d
		}, zeros: []zeroRecv{{"zero", func() any { return &nn.ModuleDict{} }}}},
		{name: "nn.ParameterList", typ: reflect.TypeFor[*nn.ParameterList](), valid: func() any { return nn.NewParameterList(f32()) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.ParameterList{} }}}},
		{name: "nn.ParameterDict", typ: reflect.TypeFor[*nn.ParameterDict](), valid: func() any {
			d := nn.NewParameterDict()
			must(0, d.Set("w", f32()))
			return d
		}, zeros: []zeroRecv{{"zero", func() any { return &nn.ParameterDict{} }}}},
		{name: "nn.HookHandle", typ: reflect.TypeFor[*nn.HookHandle](), valid: func() any {
			return must(nn.RegisterForwardHook(nn.ReLU(), func(nn.Module, *torch.Tensor, *torch.Tensor) *torch.Tensor { return nil }))
		}, zeros: []zeroRecv{{"zero", func() any { return &nn.HookHandle{} }}}},
		{name: "nn.Func", typ: reflect.TypeFor[*nn.Func](), valid: func() any { return nn.ReLU() },
			zeros: []zeroRecv{{"zero", func() any { return &nn.Func{} }}}},
		{name: "nn.Dropout", typ: reflect.TypeFor[*nn.Dropout](), valid: func() any { return nn.NewDropout(0.5) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.Dropout{} }}}},
		{name: "nn.LayerNorm", typ: reflect.TypeFor[*nn.LayerNorm](), valid: func() any { return nn.NewLayerNorm([]int{2}) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.LayerNorm{} }}}},
		{name: "nn.Embedding", typ: reflect.TypeFor[*nn.Embedding](), valid: func() any { return nn.NewEmbedding(4, 2) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.Embedding{} }}}},
		{name: "nn.BatchNorm1d", typ: reflect.TypeFor[*nn.BatchNorm1d](), valid: func() any { return nn.NewBatchNorm1d(2, true, true) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.BatchNorm1d{} }}}},
		{name: "nn.BatchNorm2d", typ: reflect.TypeFor[*nn.BatchNorm2d](), valid: func() any { return nn.NewBatchNorm2d(2, true, true) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.BatchNorm2d{} }}}},
		{name: "nn.InstanceNorm1d", typ: reflect.TypeFor[*nn.InstanceNorm1d](), valid: func() any { return nn.NewInstanceNorm1d(2, true, true) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.InstanceNorm1d{} }}}},
		{name: "nn.InstanceNorm2d", typ: reflect.TypeFor[*nn.InstanceNorm2d](), valid: func() any { return nn.NewInstanceNorm2d(2, true, true) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.InstanceNorm2d{} }}}},
		{name: "nn.GroupNorm", typ: reflect.TypeFor[*nn.GroupNorm](), valid: func() any { return nn.NewGroupNorm(1, 2, true) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.GroupNorm{} }}}},
		{name: "nn.RMSNorm", typ: reflect.TypeFor[*nn.RMSNorm](), valid: func() any { return nn.NewRMSNorm([]int{2}, true) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.RMSNorm{} }}}},
		{name: "nn.EmbeddingBag", typ: reflect.TypeFor[*nn.EmbeddingBag](), valid: func() any { return nn.NewEmbeddingBag(4, 2, "sum") },
			zeros: []zeroRecv{{"zero", func() any { return &nn.EmbeddingBag{} }}}},
		{name: "nn.Upsample", typ: reflect.TypeFor[*nn.Upsample](), valid: func() any { return nn.NewUpsample(nil, []float64{2}, "nearest", false) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.Upsample{} }}}},
		{name: "nn.Dropout2d", typ: reflect.TypeFor[*nn.Dropout2d](), valid: func() any { return nn.NewDropout2d(0.5) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.Dropout2d{} }}}},
		{name: "nn.PReLU", typ: reflect.TypeFor[*nn.PReLU](), valid: func() any { return nn.NewPReLU(1) },
			zeros: []zeroRecv{{"zero", func() any { return &nn.PReLU{} }}}},
		{name: "optim.SGD", typ: reflect.TypeFor[*optim.SGD](), valid: func() any { return must(optim.NewSGD(params())) },
			zeros: []zeroRecv{{"zero", func() any { return &optim.SGD{} }}}},
		{name: "optim.Adam", typ: reflect.TypeFor[*optim.Adam](), valid: func() any { return must(optim.NewAdam(params())) },
			zeros: []zeroRecv{{"zero", func() any { return &optim.Adam{} }}}},
		{name: "optim.RMSprop", typ: reflect.TypeFor[*optim.RMSprop](), valid: func() any { return must(optim.NewRMSprop(params())) },
			zeros: []zeroRecv{{"zero", func() any { return &optim.RMSprop{} }}}},
		{name: "optim.Adagrad", typ: reflect.TypeFor[*optim.Adagrad](), valid: func() any { return must(optim.NewAdagrad(params())) },
			zeros: []zeroRecv{{"zero", func() any { return &optim.Adagrad{} }}}},
		{name: "optim.Adamax", typ: reflect.TypeFor[*optim.Adamax](), valid: func() any { return must(optim.NewAdamax(params())) },
			zeros: []zeroRecv{{"zero", func() any { return &optim.Adamax{} }}}},
		{name: "optim.NAdam", typ: reflect.TypeFor[*optim.NAdam](), valid: func() any { return must(optim.NewNAdam(params())) },
			zeros: []zeroRecv{{"zero", func() any { return &optim.NAdam{} }}}},
		{name: "optim.RAdam", typ: reflect.TypeFor[*optim.RAdam](), valid: func() any { return must(optim.NewRAdam(params())) },
			zeros: []zeroRecv{{"zero", func() any { return &optim.RAdam{} }}}},
		{name: "optim.ParamGroup", typ: reflect.TypeFor[*optim.ParamGroup](),
			valid: func() any { return must(optim.NewSGD(params())).ParamGroups()[0] },
			zeros: []zeroRecv{{"zero", func() any { return &optim.ParamGroup{} }}}},
		{name: "safetensors.File", typ: reflect.TypeFor[*safetensors.File](), valid: func() any { return must(safetensors.Open(savedFile())) },
			zeros: []zeroRecv{{"zero", func() any { return &safetensors.File{} }}}},
	}
}

// methodArgs are valid arguments for methods whose defaults do not fit.
var methodArgs = map[string]func() []any{}

// nilOKMethods lists the arguments where a method takes nil as PyTorch
// takes None.
var nilOKMethods = map[string][]int{
	"Tensor.ClampTensor":  {0, 1}, // clamp(min=None) or clamp(max=None)
	"Tensor.ClampTensor_": {0, 1},
	"Tensor.SetGrad":      {0}, // t.grad = None
}

// zeroOKMethods may return valid results on a nil receiver: accessors.
var zeroOKMethods = map[string]bool{
	"Tensor.Grad": true, // None
}

// methodCases generates the cases of every exported method of the receivers.
func methodCases() []badCase {
	var out []badCase
	for _, r := range receivers() {
		_, short, _ := strings.Cut(r.name, ".")
		for i := range r.typ.NumMethod() {
			m := r.typ.Method(i)
			label := short + "." + m.Name
			c := callable{label: label, fn: m.Func, recv: r, args: methodArgs[label],
				nilOK: nilOKMethods[label], zeroOK: zeroOKMethods[label]}
			out = append(out, c.cases()...)
		}
	}
	return out
}

// params are two parameters of a small model, with gradients.
func params() []*torch.Tensor {
	m := nn.NewLinear(2, 2)
	ps := nn.Parameters(m)
	for _, p := range ps {
		p.SetGrad(torch.OnesLike(p))
	}
	return ps
}

var saved struct {
	once sync.Once
	path string
}

// savedFile is a safetensors file with one tensor, "weight", saved once
// per process in workDir.
func savedFile() string {
	saved.once.Do(func() {
		saved.path = filepath.Join(workDir, "w.safetensors")
		if err := safetensors.Save(saved.path, map[string]*torch.Tensor{"weight": f32()}, nil); err != nil {
			panic(err)
		}
	})
	return saved.path
}

// must returns v, panicking on an error (of a valid constructor: a bug in
// the cases, or in the library).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
