package nn

import (
	"strconv"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Sequential applies its layers in order, as torch.nn.Sequential; its
// submodules are named by position ("0.weight"). A nil layer is absent.
type Sequential struct {
	Base
	Layers []Layer
}

// NewSequential chains layers.
func NewSequential(layers ...Layer) *Sequential { return &Sequential{Layers: layers} }

// Forward applies each layer to the output of the one before, through
// Call (so the layers' forward hooks run). A nil layer is an error.
func (s *Sequential) Forward(x *torch.Tensor) *torch.Tensor {
	if s == nil {
		return nilModule("sequential", "Sequential", x)
	}
	for i, m := range s.Layers {
		if isNil(m) {
			return torch.Failed(torch.NewError("sequential", torch.ErrArgument, []*torch.Tensor{x}, "module %d is nil", i))
		}
		x = Call(m, x)
	}
	return x
}

func (s *Sequential) items() []entry {
	out := make([]entry, len(s.Layers))
	for i, m := range s.Layers {
		out[i] = childEntry(strconv.Itoa(i), m)
	}
	return out
}

// String prints the module as PyTorch does.
func (s *Sequential) String() string { return Repr(s) }

// ModuleList holds submodules named by position, as torch.nn.ModuleList.
// It has no Forward: the module that holds it decides how to call them.
type ModuleList struct {
	Base
	Modules []Module
}

// NewModuleList lists modules.
func NewModuleList(modules ...Module) *ModuleList { return &ModuleList{Modules: modules} }

func (l *ModuleList) items() []entry {
	out := make([]entry, len(l.Modules))
	for i, m := range l.Modules {
		out[i] = childEntry(strconv.Itoa(i), m)
	}
	return out
}

// String prints the module as PyTorch does.
func (l *ModuleList) String() string { return Repr(l) }

// ModuleDict holds submodules by name in the order they were first set, as
// torch.nn.ModuleDict.
type ModuleDict struct {
	Base
	keys    []string
	modules map[string]Module
}

// NewModuleDict makes an empty ModuleDict.
func NewModuleDict() *ModuleDict { return &ModuleDict{} }

// Set puts m under name: at the end for a new name, in place for a name
// already set. The name must be neither empty nor dotted, and m not nil.
func (d *ModuleDict) Set(name string, m Module) error {
	if d == nil {
		return errNilModule("module_dict")
	}
	if err := checkName("module_dict", name); err != nil {
		return err
	}
	if isNil(m) {
		return torch.NewError("module_dict", torch.ErrArgument, nil, "the module %q is nil", name)
	}
	if _, ok := d.modules[name]; !ok {
		d.keys = append(d.keys, name)
	}
	if d.modules == nil {
		d.modules = map[string]Module{}
	}
	d.modules[name] = m
	return nil
}

// Get returns the module under name, or nil.
func (d *ModuleDict) Get(name string) Module {
	if d == nil {
		return nil
	}
	return d.modules[name]
}

// Keys lists the names in order.
func (d *ModuleDict) Keys() []string {
	if d == nil {
		return nil
	}
	return append([]string(nil), d.keys...)
}

func (d *ModuleDict) items() []entry {
	out := make([]entry, len(d.keys))
	for i, k := range d.keys {
		out[i] = childEntry(k, d.modules[k])
	}
	return out
}

// String prints the module as PyTorch does.
func (d *ModuleDict) String() string { return Repr(d) }

func childEntry(name string, m Module) entry {
	if isNil(m) {
		m = nil
	}
	return entry{name: name, kind: child, module: m}
}
