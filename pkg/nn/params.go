package nn

import (
	"strconv"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// ParameterList holds parameters named by position, as
// torch.nn.ParameterList: held in a field Params of a module, they are
// "params.0", "params.1", ... in its parameters and state dict. Tensors
// are made parameters (see Parameter) as they are added.
type ParameterList struct {
	Base
	params []*torch.Tensor
}

// NewParameterList lists ts, each made a parameter; a nil or failed
// tensor is kept as a tensor carrying its error, which an optimizer or
// a state dict reports.
func NewParameterList(ts ...*torch.Tensor) *ParameterList {
	l := &ParameterList{params: make([]*torch.Tensor, len(ts))}
	for i, t := range ts {
		l.params[i] = Parameter(t)
	}
	return l
}

// Append adds t, made a parameter, at the end. A nil or failed t is an
// error and is not added.
func (l *ParameterList) Append(t *torch.Tensor) error {
	if l == nil {
		return errNilModule("parameter_list")
	}
	p := Parameter(t)
	if err := p.Err(); err != nil {
		return err
	}
	l.params = append(l.params, p)
	return nil
}

// Len is the number of parameters.
func (l *ParameterList) Len() int {
	if l == nil {
		return 0
	}
	return len(l.params)
}

// Get returns the parameter at index i (negative counts from the end);
// out of range, a tensor carrying PyTorch's IndexError.
func (l *ParameterList) Get(i int) *torch.Tensor {
	j := i
	if j < 0 {
		j += l.Len()
	}
	if j < 0 || j >= l.Len() {
		return torch.Failed(torch.NewError("parameter_list", torch.ErrIndex, nil, "index %d is out of range", i))
	}
	return l.params[j]
}

func (l *ParameterList) items() []entry {
	out := make([]entry, len(l.params))
	for i, p := range l.params {
		out[i] = entry{name: strconv.Itoa(i), kind: param, tensor: p, set: func(t *torch.Tensor) { l.params[i] = t }}
	}
	return out
}

// ExtraRepr is PyTorch's, a line per parameter:
// "  (0): Parameter containing: [torch.float32 of size 3x4]".
func (l *ParameterList) ExtraRepr() string {
	if l == nil {
		return ""
	}
	lines := make([]string, len(l.params))
	for i, p := range l.params {
		lines[i] = paramLine(strconv.Itoa(i), p, p.DType().String())
	}
	return strings.Join(lines, "\n")
}

// String prints the module as PyTorch does.
func (l *ParameterList) String() string { return Repr(l) }

// ParameterDict holds parameters by name in the order they were first
// set, as torch.nn.ParameterDict: held in a field Params of a module,
// they are "params.<name>" in its parameters and state dict.
type ParameterDict struct {
	Base
	keys   []string
	params map[string]*torch.Tensor
}

// NewParameterDict makes an empty ParameterDict.
func NewParameterDict() *ParameterDict { return &ParameterDict{} }

// Set puts t, made a parameter, under name: at the end for a new name, in
// place for a name already set. The name must be neither empty nor
// dotted (PyTorch's KeyError), and t neither nil nor failed.
func (d *ParameterDict) Set(name string, t *torch.Tensor) error {
	const op = "parameter_dict"
	if d == nil {
		return errNilModule(op)
	}
	switch {
	case name == "":
		return torch.NewError(op, torch.ErrArgument, nil, "parameter name can't be empty string \"\"")
	case strings.Contains(name, "."):
		return torch.NewError(op, torch.ErrArgument, nil, "parameter name can't contain \".\"")
	}
	p := Parameter(t)
	if err := p.Err(); err != nil {
		return err
	}
	if _, ok := d.params[name]; !ok {
		d.keys = append(d.keys, name)
	}
	if d.params == nil {
		d.params = map[string]*torch.Tensor{}
	}
	d.params[name] = p
	return nil
}

// Get returns the parameter under name; for a name not set, a tensor
// carrying PyTorch's KeyError.
func (d *ParameterDict) Get(name string) *torch.Tensor {
	if d == nil || d.params[name] == nil {
		return torch.Failed(torch.NewError("parameter_dict", torch.ErrIndex, nil, "KeyError: '%s'", name))
	}
	return d.params[name]
}

// Len is the number of parameters.
func (d *ParameterDict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.keys)
}

// Keys lists the names in order.
func (d *ParameterDict) Keys() []string {
	if d == nil {
		return nil
	}
	return append([]string(nil), d.keys...)
}

func (d *ParameterDict) items() []entry {
	out := make([]entry, len(d.keys))
	for i, k := range d.keys {
		out[i] = entry{name: k, kind: param, tensor: d.params[k], set: func(t *torch.Tensor) { d.params[k] = t }}
	}
	return out
}

// ExtraRepr is PyTorch's, a line per parameter, which names the tensor
// type as torch.typename does:
// "  (w): Parameter containing: [torch.FloatTensor of size 3x4]".
func (d *ParameterDict) ExtraRepr() string {
	if d == nil {
		return ""
	}
	lines := make([]string, len(d.keys))
	for i, k := range d.keys {
		p := d.params[k]
		lines[i] = paramLine(k, p, typeNameOf(p))
	}
	return strings.Join(lines, "\n")
}

// String prints the module as PyTorch does.
func (d *ParameterDict) String() string { return Repr(d) }

// paramLine is a line of ParameterList's and ParameterDict's extra_repr.
func paramLine(name string, p *torch.Tensor, typ string) string {
	if err := p.Err(); err != nil {
		return "  (" + name + "): <error: " + err.Error() + ">"
	}
	dims := make([]string, p.Dim())
	for i, s := range p.Shape() {
		dims[i] = strconv.Itoa(s)
	}
	return "  (" + name + "): Parameter containing: [" + typ + " of size " + strings.Join(dims, "x") + "]"
}

// typeNameOf is torch.typename of t: "torch.FloatTensor", with the device
// type on other devices than the CPU ("torch.npu.FloatTensor").
func typeNameOf(t *torch.Tensor) string {
	prefix := "torch."
	if d := t.Device(); d.String() != "cpu" {
		prefix += d.Type.String() + "."
	}
	return prefix + scalarTypeName(t.DType()) + "Tensor"
}
