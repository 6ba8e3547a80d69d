package nn

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Module is a layer or a network: a pointer to a struct that embeds Base.
// Its parameters, buffers and submodules are found in its fields (see
// Base), so a module needs no method of its own to be trained, saved,
// moved or printed: the functions of this package (NamedParameters,
// StateDict, Train, To, Repr, ...) walk it.
type Module interface {
	base() *Base
}

// Layer is a module with one input and one output, which Sequential
// chains. Modules with other signatures are Modules only.
type Layer interface {
	Module
	// Forward applies the module to x.
	Forward(x *torch.Tensor) *torch.Tensor
}

// Base is what every module embeds, as PyTorch's modules derive from
// nn.Module: the training flag (modules start in training mode) and the
// tensors and modules registered by name.
//
// A module's state is found in its exported fields, in declaration order:
//
//   - a *torch.Tensor field is a parameter, or a buffer with the tag
//     `nn:"buffer"` (`nn:"buffer,nonpersistent"`: left out of the state
//     dict);
//   - a field holding a Module (a pointer to a module, a Module or Layer
//     interface, or a module struct by value) is a submodule;
//   - `nn:"-"` leaves a field out, and `nn:"name=x"` names it x;
//   - other fields (sizes, options) are not state. A slice or map of
//     tensors or modules is an error: use ModuleList, ModuleDict or
//     RegisterParameter, as PyTorch does not find a list of modules either.
//
// Names are the fields' in snake case ("FC1" is "fc1", "RunningMean" is
// "running_mean"). A nil field is absent (PyTorch's None). Tensors and
// modules that no field can hold (a name chosen at run time) are added with
// RegisterParameter, RegisterBuffer and RegisterModule, after the fields.
// As in PyTorch, a module lists its own parameters (then its own buffers)
// before its submodules'.
//
// Fields are read by reflection, once per type.
type Base struct {
	eval       bool                  // the zero Base is in training mode
	registered []entry               // in registration order
	hooks      atomic.Pointer[hooks] // forward hooks (hooks.go), an immutable snapshot; nil for none
}

func (b *Base) base() *Base { return b }

// kind is what a module's member is.
type kind uint8

const (
	param     kind = iota
	buffer         // in the state dict
	transient      // a buffer left out of the state dict
	child          // a submodule
)

// entry is one member of a module: a tensor or a submodule, by name. set
// replaces the tensor (ToDType).
type entry struct {
	name   string
	kind   kind
	tensor *torch.Tensor
	module Module
	set    func(*torch.Tensor)
}

// Named is a tensor with its dotted name in a module.
type Named struct {
	Name   string
	Tensor *torch.Tensor
}

// NamedModule is a module with its dotted name in a module ("" for the
// module itself).
type NamedModule struct {
	Name   string
	Module Module
}

// Parameter makes t a parameter: a leaf that requires gradients (t itself
// when it is one already, else a detached view of its data).
func Parameter(t *torch.Tensor) *torch.Tensor {
	if err := inputErr("parameter", t); err != nil {
		return torch.Failed(err)
	}
	if t.IsLeaf() && t.RequiresGrad() {
		return t
	}
	return t.Detach().RequiresGrad_(true)
}

// --- discovery ---

// field is how a struct field holds state, found once per type.
type field struct {
	index  int
	name   string
	kind   kind
	byAddr bool // a module struct held by value
}

// layout is a struct type's fields that hold state, or why they cannot.
type layout struct {
	fields []field
	err    error
}

var (
	layouts    sync.Map // reflect.Type -> *layout
	tensorType = reflect.TypeFor[*torch.Tensor]()
	moduleType = reflect.TypeFor[Module]()
	baseType   = reflect.TypeFor[Base]()
)

// layoutOf returns the fields of struct type t that hold state.
func layoutOf(t reflect.Type) *layout {
	if l, ok := layouts.Load(t); ok {
		return l.(*layout)
	}
	l := discover(t)
	actual, _ := layouts.LoadOrStore(t, l)
	return actual.(*layout)
}

func discover(t reflect.Type) *layout {
	fail := func(f reflect.StructField, format string, args ...any) *layout {
		return &layout{err: torch.NewError("module", torch.ErrArgument, nil, "%s.%s: "+format,
			append([]any{t.Name(), f.Name}, args...)...)}
	}
	var l layout
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, tagged := f.Tag.Lookup("nn")
		if tag == "-" || f.Anonymous && (f.Type == baseType || f.Type == reflect.PointerTo(baseType)) {
			continue
		}
		if !f.IsExported() {
			if tagged {
				return fail(f, "an unexported field cannot hold state")
			}
			continue
		}
		fd := field{index: i, name: snakeCase(f.Name), kind: param}
		asTensor, asBuffer := false, false
		for opt := range strings.SplitSeq(tag, ",") {
			switch name, isName := strings.CutPrefix(opt, "name="); {
			case opt == "":
			case isName && name != "" && !strings.Contains(name, "."):
				fd.name = name
			case opt == "param":
				asTensor = true
			case opt == "buffer":
				asTensor, asBuffer, fd.kind = true, true, buffer
			case opt == "nonpersistent":
				asTensor, fd.kind = true, transient
			default:
				return fail(f, "bad option %q in the tag nn:%q", opt, tag)
			}
		}
		if fd.kind == transient && !asBuffer {
			return fail(f, "nonpersistent needs buffer in the tag nn:%q", tag)
		}
		switch ft := f.Type; {
		case ft == tensorType:
		case asTensor:
			return fail(f, "the tag nn:%q is for a *torch.Tensor, not a %s", tag, ft)
		case ft.Implements(moduleType):
			fd.kind = child
		case ft.Kind() == reflect.Struct && reflect.PointerTo(ft).Implements(moduleType):
			fd.kind, fd.byAddr = child, true
		case holdsState(ft, 0):
			return fail(f, "a %s is not discovered: use nn.ModuleList, nn.ModuleDict, nn.RegisterParameter "+
				"or the tag nn:\"-\"", ft)
		default:
			continue
		}
		if seen[fd.name] {
			return fail(f, "a second member named %q", fd.name)
		}
		seen[fd.name] = true
		l.fields = append(l.fields, fd)
	}
	return &l
}

// holdsState reports whether a slice, array, map or pointer type holds
// tensors or modules (looking depth levels down at most, for types such as
// type L []L).
func holdsState(t reflect.Type, depth int) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer:
		e := t.Elem()
		return e == tensorType || e.Implements(moduleType) || reflect.PointerTo(e).Implements(moduleType) ||
			depth < 8 && holdsState(e, depth+1)
	}
	return false
}

// snakeCase is PyTorch's attribute name for a Go field: "FC1" is "fc1",
// "RunningMean" is "running_mean", "QKVProj" is "qkv_proj".
func snakeCase(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// container is a module whose children are not fields: Sequential,
// ModuleList, ModuleDict.
type container interface {
	items() []entry
}

// isNil reports whether m is nil or a nil pointer.
func isNil(m Module) bool {
	if m == nil {
		return true
	}
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// members lists m's tensors and children in order: its fields, then what
// was registered.
func members(m Module) ([]entry, error) {
	if isNil(m) {
		return nil, errNilModule("module")
	}
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, torch.NewError("module", torch.ErrArgument, nil, "a module must be a pointer to a struct, got %T", m)
	}
	var out []entry
	if c, ok := m.(container); ok {
		out = c.items()
	} else {
		l := layoutOf(v.Elem().Type())
		if l.err != nil {
			return nil, l.err
		}
		for _, f := range l.fields {
			fv := v.Elem().Field(f.index)
			e := entry{name: f.name, kind: f.kind}
			switch {
			case f.kind != child:
				e.tensor = fv.Interface().(*torch.Tensor)
				e.set = func(t *torch.Tensor) { fv.Set(reflect.ValueOf(t)) }
			case f.byAddr:
				e.module = fv.Addr().Interface().(Module)
			case !fv.IsNil():
				e.module = fv.Interface().(Module)
			}
			if isNil(e.module) {
				e.module = nil
			}
			out = append(out, e)
		}
	}
	if b := baseOf(m); b != nil {
		for i := range b.registered {
			e := b.registered[i]
			e.set = func(t *torch.Tensor) { b.registered[i].tensor = t }
			out = append(out, e)
		}
	}
	return out, nil
}

// baseOf is m's Base, or nil for a nil m or one whose Base is behind a
// nil pointer or interface.
func baseOf(m Module) (b *Base) {
	if isNil(m) {
		return nil
	}
	defer func() {
		if recover() != nil { // base() promoted through a nil embedded interface
			b = nil
		}
	}()
	return m.base()
}

func errNilModule(op string) error {
	return torch.NewError(op, torch.ErrArgument, nil, "the module is nil")
}

// --- registration ---

// RegisterParameter adds the parameter t to m under name, after m's fields,
// as PyTorch's register_parameter; registering a name again replaces its
// tensor. t must be a leaf (see Parameter).
func RegisterParameter(m Module, name string, t *torch.Tensor) error {
	if err := inputErr("register_parameter", t); err != nil {
		return err
	}
	if !t.IsLeaf() {
		return torch.NewError("register_parameter", torch.ErrArgument, []*torch.Tensor{t},
			"Cannot assign non-leaf Tensor to parameter '%s'. Model parameters must be created explicitly.", name)
	}
	return register(m, "register_parameter", entry{name: name, kind: param, tensor: t})
}

// RegisterBuffer adds the buffer t to m under name, after m's fields, as
// PyTorch's register_buffer: a tensor of the module's state that is not
// trained (a running mean). A buffer that is not persistent is left out
// of the state dict.
func RegisterBuffer(m Module, name string, t *torch.Tensor, persistent bool) error {
	if err := inputErr("register_buffer", t); err != nil {
		return err
	}
	torch.Keep(t) // a buffer outlives any torch.Tidy
	e := entry{name: name, kind: buffer, tensor: t}
	if !persistent {
		e.kind = transient
	}
	return register(m, "register_buffer", e)
}

// RegisterModule adds the submodule sub to m under name, after m's fields,
// as PyTorch's register_module.
func RegisterModule(m Module, name string, sub Module) error {
	if isNil(sub) {
		return torch.NewError("register_module", torch.ErrArgument, nil, "the submodule %q is nil", name)
	}
	return register(m, "register_module", entry{name: name, kind: child, module: sub})
}

func register(m Module, op string, e entry) error {
	ms, err := members(m)
	if err != nil {
		return err
	}
	if err := checkName(op, e.name); err != nil {
		return err
	}
	b := baseOf(m)
	if b == nil {
		return torch.NewError(op, torch.ErrArgument, nil, "%T has no nn.Base", m)
	}
	for i, r := range b.registered {
		if r.name == e.name {
			if (r.kind == child) != (e.kind == child) || (r.kind == param) != (e.kind == param) {
				break
			}
			b.registered[i] = e
			return nil
		}
	}
	for _, x := range ms {
		if x.name == e.name {
			return torch.NewError(op, torch.ErrArgument, nil, "attribute '%s' already exists", e.name)
		}
	}
	b.registered = append(b.registered, e)
	return nil
}

// checkName refuses the names PyTorch refuses.
func checkName(op, name string) error {
	switch {
	case name == "":
		return torch.NewError(op, torch.ErrArgument, nil, "name can't be empty string \"\"")
	case strings.Contains(name, "."):
		return torch.NewError(op, torch.ErrArgument, nil, "name can't contain \".\", got: %s", name)
	}
	return nil
}

// --- walking ---

// moduleKey identifies a module: its type and address (a struct and its
// first field share an address).
type moduleKey struct {
	t reflect.Type
	p uintptr
}

func keyOf(m Module) moduleKey {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer {
		return moduleKey{t: v.Type()} // not a module: members says so
	}
	return moduleKey{v.Type(), v.Pointer()}
}

// walk calls visit for m and every module under it, parents before
// children, with their dotted names and members. With once, a module
// reached again (shared) is not visited again, as PyTorch's named_modules;
// without, it is visited under each of its names, as PyTorch's state_dict.
// A module that contains itself is an error.
func walk(op string, m Module, once bool, visit func(prefix string, m Module, ms []entry) error) error {
	if isNil(m) {
		return errNilModule(op)
	}
	seen := map[moduleKey]bool{}
	onPath := map[moduleKey]bool{}
	var rec func(prefix string, m Module) error
	rec = func(prefix string, m Module) error {
		k := keyOf(m)
		if onPath[k] {
			return torch.NewError(op, torch.ErrArgument, nil, "the module %q (%s) contains itself", strings.TrimSuffix(prefix, "."), typeName(m))
		}
		if once && seen[k] {
			return nil
		}
		seen[k], onPath[k] = true, true
		defer delete(onPath, k)
		ms, err := members(m)
		if err != nil {
			return err
		}
		if err := visit(prefix, m, ms); err != nil {
			return err
		}
		for _, e := range ms {
			if e.kind == child && e.module != nil {
				if err := rec(prefix+e.name+".", e.module); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return rec("", m)
}

// namedTensors lists the tensors of the kinds given, each once, under the
// first name it is found by.
func namedTensors(op string, m Module, kinds ...kind) ([]Named, error) {
	var out []Named
	seen := map[*torch.Tensor]bool{}
	err := walk(op, m, true, func(prefix string, _ Module, ms []entry) error {
		for _, e := range ms {
			if e.tensor != nil && slices.Contains(kinds, e.kind) && !seen[e.tensor] {
				seen[e.tensor] = true
				out = append(out, Named{prefix + e.name, e.tensor})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NamedParameters lists the parameters of m and of its submodules, with
// dotted names in PyTorch's order ("encoder.layers.0.fc1.weight"); a
// parameter shared by two modules is listed once.
func NamedParameters(m Module) ([]Named, error) { return namedTensors("named_parameters", m, param) }

// Parameters lists m's parameters in order, for an optimizer. When m cannot
// be walked (nil, or a bad field), the list holds one tensor carrying the
// error, which an optimizer reports.
func Parameters(m Module) []*torch.Tensor {
	named, err := NamedParameters(m)
	if err != nil {
		return []*torch.Tensor{torch.Failed(err)}
	}
	return tensors(named)
}

// NamedBuffers lists the buffers of m and of its submodules, persistent or
// not, with dotted names in PyTorch's order.
func NamedBuffers(m Module) ([]Named, error) {
	return namedTensors("named_buffers", m, buffer, transient)
}

// Buffers lists m's buffers in order.
func Buffers(m Module) ([]*torch.Tensor, error) {
	named, err := NamedBuffers(m)
	return tensors(named), err
}

func tensors(named []Named) []*torch.Tensor {
	if named == nil {
		return nil
	}
	out := make([]*torch.Tensor, len(named))
	for i, p := range named {
		out[i] = p.Tensor
	}
	return out
}

// NamedModules lists m (named "") and every module under it, parents
// first, each once, as PyTorch's named_modules.
func NamedModules(m Module) ([]NamedModule, error) {
	var out []NamedModule
	err := walk("named_modules", m, true, func(prefix string, m Module, _ []entry) error {
		out = append(out, NamedModule{strings.TrimSuffix(prefix, "."), m})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Modules lists m and every module under it, parents first, each once.
func Modules(m Module) ([]Module, error) {
	named, err := NamedModules(m)
	return modules(named), err
}

// NamedChildren lists m's direct submodules, each once.
func NamedChildren(m Module) ([]NamedModule, error) {
	ms, err := members(m)
	if err != nil {
		return nil, err
	}
	var out []NamedModule
	seen := map[moduleKey]bool{}
	for _, e := range ms {
		if e.kind == child && e.module != nil && !seen[keyOf(e.module)] {
			seen[keyOf(e.module)] = true
			out = append(out, NamedModule{e.name, e.module})
		}
	}
	return out, nil
}

// Children lists m's direct submodules, each once.
func Children(m Module) ([]Module, error) {
	named, err := NamedChildren(m)
	return modules(named), err
}

func modules(named []NamedModule) []Module {
	if named == nil {
		return nil
	}
	out := make([]Module, len(named))
	for i, n := range named {
		out[i] = n.Module
	}
	return out
}

// Apply calls fn on every module under m, children before their parent,
// and last on m, as PyTorch's apply (to initialise weights).
func Apply(m Module, fn func(Module)) error {
	if fn == nil {
		return torch.NewError("apply", torch.ErrArgument, nil, "the function is nil")
	}
	if _, err := Modules(m); err != nil { // no nil module, bad field or cycle below
		return err
	}
	done := map[moduleKey]bool{}
	var post func(Module)
	post = func(x Module) {
		done[keyOf(x)] = true
		kids, _ := Children(x)
		for _, c := range kids {
			if !done[keyOf(c)] {
				post(c)
			}
		}
		fn(x)
	}
	post(m)
	return nil
}

// Train sets the training mode of m and of every module under it, as
// PyTorch's train(mode).
func Train(m Module, on bool) error {
	return walk("train", m, true, func(_ string, m Module, _ []entry) error {
		if b := baseOf(m); b != nil {
			b.eval = !on
		}
		return nil
	})
}

// Eval is Train(m, false).
func Eval(m Module) error { return Train(m, false) }

// Training reports whether m is in training mode (false for a nil m).
func Training(m Module) bool {
	b := baseOf(m)
	return b != nil && !b.eval
}

// ZeroGrad drops the gradients of m's parameters (PyTorch's
// zero_grad(set_to_none=True)).
func ZeroGrad(m Module) error {
	ps, err := NamedParameters(m)
	for _, p := range ps {
		_ = p.Tensor.SetGrad(nil) // clearing cannot fail
	}
	return err
}

// To moves m's parameters and buffers to the device named dev ("cpu",
// "meta", "npu:0"), with their gradients, as PyTorch's module.to(device).
// Each stays the same *torch.Tensor, a leaf, so an optimizer made before
// keeps working.
func To(m Module, dev string) error {
	d, err := torch.ParseDevice(dev)
	if err != nil {
		return err
	}
	return convert("to", m, func(t *torch.Tensor) (*torch.Tensor, error) { return t.ToDevice(d) }, false)
}

// ToDType converts m's floating point parameters and buffers to the
// floating point dtype dt, with their gradients, as PyTorch's
// module.to(dtype); integer buffers are left alone. A *torch.Tensor cannot
// change its dtype, so converted tensors are new leaves that replace the
// old in m: make the optimizer after converting.
func ToDType(m Module, dt torch.DType) error {
	if !dt.IsFloatingPoint() {
		return torch.NewError("to", torch.ErrDType, nil,
			"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=%s", dt)
	}
	return convert("to", m, func(t *torch.Tensor) (*torch.Tensor, error) {
		if !t.IsFloatingPoint() {
			return t, nil
		}
		out := t.ToDType(dt)
		return out, out.Err()
	}, true)
}

// convert applies f to every tensor of m and to its gradient. In place
// (replace false), each tensor is set to view its converted storage; else
// the converted tensor, a new leaf, replaces it in its module.
func convert(op string, m Module, f func(*torch.Tensor) (*torch.Tensor, error), replace bool) error {
	type member struct {
		e      entry
		prefix string
	}
	var all []member
	if err := walk(op, m, true, func(prefix string, _ Module, ms []entry) error {
		for _, e := range ms {
			if e.tensor != nil {
				all = append(all, member{e, prefix})
			}
		}
		return nil
	}); err != nil {
		return err
	}
	done := map[*torch.Tensor]*torch.Tensor{} // old -> new
	var err error
	torch.NoGrad(func() {
		for _, x := range all {
			t := x.e.tensor
			if n, ok := done[t]; ok {
				if replace {
					x.e.set(n)
				}
				continue
			}
			n, e := convertOne(t, f, replace)
			if e != nil {
				err = torch.NewError(op, torch.ErrArgument, nil, "%s%s: %v", x.prefix, x.e.name, e)
				return
			}
			done[t] = n
			if replace {
				x.e.set(n)
			}
		}
	})
	return err
}

func convertOne(t *torch.Tensor, f func(*torch.Tensor) (*torch.Tensor, error), replace bool) (*torch.Tensor, error) {
	data, err := f(t)
	if err != nil {
		return nil, err
	}
	var grad *torch.Tensor
	if g := t.Grad(); g != nil {
		if grad, err = f(g); err != nil {
			return nil, err
		}
	}
	out := t
	if replace {
		if data != t {
			out = data.Detach().RequiresGrad_(t.RequiresGrad())
		}
	} else if data != t {
		if err := t.Set_(data.Storage(), data.StorageOffset(), data.Shape(), data.Stride()).Err(); err != nil {
			return nil, err
		}
	}
	torch.Keep(data, grad) // a module's tensors outlive any torch.Tidy
	if grad != nil && (grad != t.Grad() || out != t) {
		if err := out.SetGrad(grad); err != nil {
			return nil, err
		}
	}
	return out, out.Err()
}

// --- printing ---

// ExtraRepr is implemented by modules that print settings between their
// parentheses, as PyTorch's extra_repr: Linear prints
// "in_features=4, out_features=3, bias=True".
type ExtraRepr interface {
	ExtraRepr() string
}

// Repr prints m as PyTorch prints a module: its type name, its settings
// and, one per line and indented, its submodules:
//
//	Sequential(
//	  (0): Linear(in_features=4, out_features=3, bias=True)
//	  (1): ReLU()
//	)
//
// A nil module prints as None; a module inside itself as <cycle>.
func Repr(m Module) string {
	return repr(m, map[moduleKey]bool{})
}

func repr(m Module, onPath map[moduleKey]bool) string {
	if isNil(m) {
		return "None"
	}
	k := keyOf(m)
	if onPath[k] {
		return "<cycle>"
	}
	onPath[k] = true
	defer delete(onPath, k)
	var lines []string
	extra := ""
	if x, ok := m.(ExtraRepr); ok {
		extra = x.ExtraRepr()
	}
	if extra != "" {
		lines = strings.Split(extra, "\n")
	}
	nExtra := len(lines)
	ms, err := members(m)
	if err != nil {
		lines = append(lines, "<error: "+err.Error()+">")
	}
	for _, e := range ms {
		if e.kind == child {
			lines = append(lines, "("+e.name+"): "+strings.ReplaceAll(repr(e.module, onPath), "\n", "\n  "))
		}
	}
	s := typeName(m) + "("
	switch {
	case len(lines) == 1 && nExtra == 1:
		s += lines[0]
	case len(lines) > 0:
		s += "\n  " + strings.Join(lines, "\n  ") + "\n"
	}
	return s + ")"
}

// pyNamed is a module whose PyTorch name is not its Go type's name: a
// Func (its Name), a MaxPoolWithIndices (MaxPool2d or MaxPool1d). An
// empty pyName falls back to the Go type's.
type pyNamed interface {
	pyName() string
}

// typeName is the name PyTorch prints for m: its Go type's, or its
// pyName.
func typeName(m Module) string {
	if n, ok := m.(pyNamed); ok && !isNil(m) {
		if s := n.pyName(); s != "" {
			return s
		}
	}
	t := reflect.TypeOf(m)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "None"
	}
	return t.Name()
}

// pyBool prints b as Python does.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyTuple prints ints as a Python tuple: (4,), (2, 3).
func pyTuple(v []int) string {
	s := make([]string, len(v))
	for i, d := range v {
		s[i] = strconv.Itoa(d)
	}
	if len(v) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// inputErr is the error that stops op before any work: for a nil tensor
// among ts, or the error the first failed one carries.
func inputErr(op string, ts ...*torch.Tensor) error {
	for _, t := range ts {
		if t == nil {
			return torch.NewError(op, torch.ErrArgument, nil, "expected a Tensor but got nil")
		}
		if err := t.Err(); err != nil {
			return err
		}
	}
	return nil
}

// nilModule is the result of the Forward of a nil module of type name.
func nilModule(op, name string, x *torch.Tensor) *torch.Tensor {
	return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x}, "the %s module is nil", name))
}
