// Package conformance is the one op suite for every device: it runs the
// golden cases that scripts/golden writes with real PyTorch (testdata/*.json
// in the ops.json format) on a device and compares the results with
// PyTorch's: values on devices with data, shapes and dtypes on meta.
//
// Ops are registered by name (Register, one file per family of ops); a
// test of any package runs a file of cases on a device with Run.
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mindtorch/mindtorch/internal/optable"
	"github.com/mindtorch/mindtorch/pkg/dtype"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Func runs one op of the golden data on its inputs and arguments and
// returns its outputs (a failed tensor when the op fails).
type Func func(in []*torch.Tensor, a Args) []*torch.Tensor

var (
	mu  sync.Mutex
	ops = map[string]Func{}
)

// Register names the Go call of a golden op. Registering a name twice is
// a bug in the suite and panics.
func Register(name string, f Func) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := ops[name]; dup {
		panic("conformance: op " + name + " registered twice")
	}
	ops[name] = f
}

// Lookup returns the Go call registered for a golden op or, for ops not
// registered, the Tensor method its name spells (see method), so that the
// pointwise ops generated from the op table need no registration.
func Lookup(name string) (Func, bool) {
	mu.Lock()
	f, ok := ops[name]
	mu.Unlock()
	if ok {
		return f, true
	}
	return method(name)
}

// method finds the Tensor method of a golden op name in snake case: "hypot"
// is t.Hypot(other) or t.Hypot(), "hypot_scalar" t.HypotScalar(v) with the
// case's "value" argument.
func method(name string) (Func, bool) {
	scalar := strings.HasSuffix(name, "_scalar")
	base := strings.TrimSuffix(name, "_scalar")
	var camel strings.Builder
	for _, part := range strings.Split(base, "_") {
		if part != "" {
			camel.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	goName := camel.String()
	for _, op := range optable.Ops { // the table's Go name of a PyTorch name
		if op.Name == base && len(op.Forms) > 0 {
			goName = op.Forms[0].Go
		}
	}
	if scalar {
		goName += "Scalar"
	}
	m, ok := reflect.TypeFor[*torch.Tensor]().MethodByName(goName)
	if !ok || m.Type.NumOut() != 1 || m.Type.Out(0) != reflect.TypeFor[*torch.Tensor]() {
		return nil, false
	}
	switch {
	case scalar && m.Type.NumIn() == 2 && m.Type.In(1).Kind() == reflect.Interface:
		return func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(m.Func.Call([]reflect.Value{reflect.ValueOf(in[0]), reflect.ValueOf(scalarArg(a["value"]))})[0].Interface().(*torch.Tensor))
		}, true
	case !scalar && m.Type.NumIn() == 2 && m.Type.In(1) == m.Type.In(0):
		return func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(m.Func.Call([]reflect.Value{reflect.ValueOf(in[0]), reflect.ValueOf(in[1])})[0].Interface().(*torch.Tensor))
		}, true
	case !scalar && m.Type.NumIn() == 1:
		return func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(m.Func.Call([]reflect.Value{reflect.ValueOf(in[0])})[0].Interface().(*torch.Tensor))
		}, true
	}
	return nil, false
}

// Files are the files of golden cases in the ops format, written by
// scripts/golden/{ops,reductions,views_linalg,data,svd,losses,layers,conv,pooling}.py.
var Files = []string{"ops.json", "reductions.json", "views_linalg.json", "data.json", "svd.json", "losses.json", "layers.json", "conv.json", "pooling.json"}

// File is a file of golden cases.
type File struct {
	Torch string `json:"torch"`
	Cases []Case `json:"cases"`
}

// Case is one golden case: an op, its inputs (a base tensor and the views
// taken of it), its arguments, and the outputs or PyTorch's error.
type Case struct {
	Op     string   `json:"op"`
	Inputs []Tensor `json:"inputs"`
	Args   Args     `json:"args"`
	Outs   []Tensor `json:"outs"`
	Error  string   `json:"error"`
	Grad   *Grad    `json:"grad"`
}

// Grad is PyTorch's backward pass of a case: the gradient given to output
// 0, the gradient of each input (null for inputs that do not require
// gradients: integer ones) and the name of output 0's grad_fn. Cases with
// a Grad have float64 inputs away from the op's kinks, so that the runner
// also checks the gradients by finite differences (GradCheck), unless
// NoGradCheck: PyTorch's gradient is not the derivative there (ctc_loss's
// with respect to log-probabilities).
type Grad struct {
	Out         Tensor    `json:"out"`
	Inputs      []*Tensor `json:"inputs"`
	GradFn      string    `json:"grad_fn"`
	NoGradCheck bool      `json:"no_gradcheck"`
}

// Tensor is a tensor as the golden scripts write it; Views are view ops
// (see ApplyView) applied to the base tensor in order.
type Tensor struct {
	Shape []int   `json:"shape"`
	DType string  `json:"dtype"`
	Data  []any   `json:"data"`
	Views [][]any `json:"views"`
}

// Load reads testdata/name at the repository's root.
func Load(t testing.TB, name string) File {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// Run runs every case of testdata/name on device dev, one subtest per
// case named op/n. On meta it checks shapes and dtypes (and that ops whose
// output shape depends on the data fail); elsewhere values too.
func Run(t *testing.T, name, dev string) {
	f := Load(t, name)
	counts := map[string]int{}
	for _, c := range f.Cases {
		counts[c.Op]++
		t.Run(fmt.Sprintf("%s/%d", c.Op, counts[c.Op]), func(t *testing.T) { RunCase(t, c, dev) })
	}
}

// RunCase runs one case on dev.
func RunCase(t *testing.T, c Case, dev string) {
	t.Helper()
	run, ok := Lookup(c.Op)
	if !ok {
		t.Fatalf("no Go call for op %q", c.Op)
	}
	in := make([]*torch.Tensor, len(c.Inputs))
	for i, s := range c.Inputs {
		in[i] = s.Build(t, dev)
	}
	outs := run(in, c.Args)
	if c.Error != "" && dev == "meta" {
		// The meta device has no data: errors that depend on the values
		// (an index out of range, an integer division by zero) cannot
		// happen there, as on PyTorch's meta device. The case checks only
		// that nothing panics.
		return
	}
	if c.Error != "" {
		if outs[0].Err() == nil {
			t.Fatalf("PyTorch fails with %q, we do not: %v", c.Error, outs[0])
		}
		return
	}
	if dev == "meta" {
		checkMeta(t, c, outs)
		if c.Grad != nil {
			checkMetaGrad(t, c, run)
		}
		return
	}
	if len(outs) < len(c.Outs) {
		t.Fatalf("%d outputs, PyTorch has %d", len(outs), len(c.Outs))
	}
	for i, want := range c.Outs {
		if got := outs[i].Device().Type.String(); !strings.HasPrefix(dev, got) && outs[i].Err() == nil {
			t.Fatalf("output %d is on %s, want %s", i, got, dev)
		}
		check(t, outs[i], want, coarsest(c), signsChecked(c.Op, dev))
	}
	if c.Grad != nil {
		checkGrad(t, c, run, dev)
	}
}

// checkMetaGrad runs the case's backward pass on the meta device: every
// gradient has its input's shape and dtype, from the backward ops' meta
// functions alone.
func checkMetaGrad(t *testing.T, c Case, run Func) {
	t.Helper()
	in := make([]*torch.Tensor, len(c.Inputs))
	for i, s := range c.Inputs {
		in[i] = s.Build(t, "meta")
		if i < len(c.Grad.Inputs) && c.Grad.Inputs[i] != nil {
			in[i] = in[i].Detach().RequiresGrad_(true)
		}
	}
	y := run(in, c.Args)[0]
	if err := y.BackwardWith(torch.BackwardOptions{Grad: c.Grad.Out.Build(t, "meta")}); err != nil {
		t.Fatalf("meta backward: %v", err)
	}
	for i, want := range c.Grad.Inputs {
		if want == nil {
			continue
		}
		g := in[i].Grad()
		if g == nil || !slices.Equal(g.Shape(), want.Shape) || g.DType().String() != "torch."+want.DType {
			t.Fatalf("meta: the gradient of input %d is %v, PyTorch's %s%v", i, g, want.DType, want.Shape)
		}
	}
}

// checkGrad runs the case's backward pass and compares the gradients and
// the grad_fn name with PyTorch's, then checks the gradients by finite
// differences (on the CPU, in float64).
func checkGrad(t *testing.T, c Case, run Func, dev string) {
	t.Helper()
	in := make([]*torch.Tensor, len(c.Inputs))
	for i, s := range c.Inputs {
		in[i] = s.Build(t, dev)
		if i < len(c.Grad.Inputs) && c.Grad.Inputs[i] != nil {
			in[i] = in[i].Detach().RequiresGrad_(true)
		}
	}
	y := run(in, c.Args)[0]
	if y.Err() != nil {
		t.Fatalf("grad: %v", y.Err())
	}
	if c.Grad.GradFn != "" && (y.GradFn() == nil || y.GradFn().Name() != c.Grad.GradFn) {
		name := "none"
		if y.GradFn() != nil {
			name = y.GradFn().Name()
		}
		t.Errorf("grad_fn %s, PyTorch's is %s", name, c.Grad.GradFn)
	}
	if err := y.BackwardWith(torch.BackwardOptions{Grad: c.Grad.Out.Build(t, dev)}); err != nil {
		t.Fatalf("backward: %v", err)
	}
	for i, want := range c.Grad.Inputs {
		if want != nil {
			Check(t, in[i].Grad(), *want)
		}
	}
	if dev != "cpu" || c.Grad.NoGradCheck {
		return
	}
	f := func(x ...*torch.Tensor) *torch.Tensor {
		all := slices.Clone(in)
		k := 0
		for i := range all {
			if i < len(c.Grad.Inputs) && c.Grad.Inputs[i] != nil {
				all[i], k = x[k], k+1
			}
		}
		return run(all, c.Args)[0]
	}
	var leaves []*torch.Tensor
	for i, want := range c.Grad.Inputs {
		if want != nil {
			leaves = append(leaves, c.Inputs[i].Build(t, dev).Detach().RequiresGrad_(true))
		}
	}
	if err := torch.GradCheck(f, leaves, torch.GradCheckOptions{}); err != nil {
		t.Errorf("gradcheck: %v", err)
	}
}

// Build makes the input on a device: the base tensor, then its views.
func (g Tensor) Build(t testing.TB, dev string) *torch.Tensor {
	t.Helper()
	d, err := dtype.Parse(g.DType)
	if err != nil {
		t.Fatal(err)
	}
	var x *torch.Tensor
	if d.IsFloatingPoint() {
		vals := make([]float64, len(g.Data))
		for i, v := range g.Data {
			vals[i] = Num(v)
		}
		x = torch.FromSlice(vals, torch.WithShape(g.Shape...)).ToDType(d)
	} else { // integers exactly, int64 extremes included
		vals := make([]int64, len(g.Data))
		for i, v := range g.Data {
			switch n := v.(type) {
			case json.Number:
				vals[i], _ = n.Int64()
			case bool:
				vals[i] = int64(Num(n))
			}
		}
		x = torch.FromSlice(vals, torch.WithShape(g.Shape...)).ToDType(d)
	}
	x, err = x.To(dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range g.Views {
		x = ApplyView(x, v)
	}
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	return x
}

// dataDependent lists the ops whose output shape depends on the values:
// the meta device refuses them.
var dataDependent = map[string]bool{"masked_select": true, "nonzero": true, "unique": true, "one_hot": true}

// hasMask reports whether one of the inputs is a bool tensor.
func hasMask(inputs []Tensor) bool {
	return slices.ContainsFunc(inputs, func(g Tensor) bool { return g.DType == "bool" })
}

// checkMeta compares meta results with PyTorch's CPU results: the same
// shapes and dtypes, or an error for data-dependent shapes.
func checkMeta(t *testing.T, c Case, outs []*torch.Tensor) {
	t.Helper()
	if dataDependent[c.Op] || strings.HasPrefix(c.Op, "index") && c.Op != "index_put" && len(c.Inputs) > 1 && hasMask(c.Inputs[1:]) {
		if outs[0].Err() == nil {
			t.Fatalf("meta: %s has a data-dependent shape but gave %v", c.Op, outs[0].Shape())
		}
		return
	}
	for i, w := range c.Outs {
		got := outs[i]
		if err := got.Err(); err != nil {
			t.Fatalf("meta: %v", err)
		}
		if got.Device().String() != "meta" || !slices.Equal(got.Shape(), w.Shape) || got.DType().String() != "torch."+w.DType {
			t.Fatalf("meta: got %s %s%v, want meta %s%v", got.Device(), got.DType(), got.Shape(), w.DType, w.Shape)
		}
	}
}

// Tolerance is how close a result of dtype d must be: float16 and
// bfloat16 to their precision, float32 a few ulps (a different summation
// order or libm), float64 near exact.
func Tolerance(d dtype.DType) (rtol, atol float64) {
	switch d {
	case dtype.Float16:
		return 1e-3, 1e-3
	case dtype.BFloat16:
		return 8e-3, 8e-3
	case dtype.Float32:
		return 2e-5, 2e-6
	case dtype.Float64:
		return 1e-12, 1e-12
	}
	return 0, 0
}

// Check compares a result with PyTorch's: shape, dtype, and values within
// the dtype's tolerance (NaN equal to NaN, infinities exact). It is used
// for gradients, where the sign of a zero is not compared: gradients made
// of other ops reach a zero by other arithmetic than PyTorch's kernels
// (0 * -g is -0 there, a masked 0 here).
func Check(t testing.TB, got *torch.Tensor, want Tensor) { check(t, got, want, nil, false) }

// zeroSignVaries lists the ops whose sign of a zero result PyTorch 1.13
// does not fix: gelu(-0) is +0 for contiguous float32 input (its oneDNN
// path) and -0 for strided input and float64. Their zeros' signs are not
// compared.
var zeroSignVaries = map[string]bool{"gelu": true}

// signsChecked reports whether the signs of op's zero results are
// compared on dev: on the CPU, whose kernels are PyTorch's arithmetic;
// not on the NPU, where they are the hardware's kernels' (which the
// emulator cannot know: see README, what hardware must settle).
func signsChecked(op, dev string) bool { return dev == "cpu" && !zeroSignVaries[op] }

// coarsest is the least precise floating dtype of a case's inputs: a
// float64 result computed from float32 inputs carries float32's rounding
// of its first steps, which devices need not share bit for bit.
func coarsest(c Case) *dtype.DType {
	var worst *dtype.DType
	for _, in := range c.Inputs {
		d, err := dtype.Parse(in.DType)
		if err != nil || !d.IsFloatingPoint() {
			continue
		}
		if worst == nil || d.ItemSize() < worst.ItemSize() || d == dtype.BFloat16 {
			worst = &d
		}
	}
	return worst
}

// check is Check with the tolerance of the coarser of the result's dtype
// and in (when not nil), comparing the signs of zeros when signs is set.
func check(t testing.TB, got *torch.Tensor, want Tensor, in *dtype.DType, signs bool) {
	t.Helper()
	if err := got.Err(); err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if !slices.Equal(got.Shape(), want.Shape) || got.DType().String() != "torch."+want.DType {
		t.Fatalf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType, want.Shape)
	}
	vals, err := torch.ToSlice[float64](got.ToDType(dtype.Float64))
	if err != nil {
		t.Fatal(err)
	}
	rtol, atol := Tolerance(got.DType())
	if in != nil && got.DType().IsFloatingPoint() {
		if r, a := Tolerance(*in); r > rtol {
			rtol, atol = r, a
		}
	}
	var bad []string
	for i, w := range want.Data {
		wv, gv := Num(w), vals[i]
		switch {
		case math.IsNaN(wv) || math.IsNaN(gv):
			if math.IsNaN(wv) != math.IsNaN(gv) {
				bad = append(bad, fmt.Sprintf("[%d] got %v want %v", i, gv, wv))
			}
		case math.IsInf(wv, 0) || math.IsInf(gv, 0):
			if wv != gv {
				bad = append(bad, fmt.Sprintf("[%d] got %v want %v", i, gv, wv))
			}
		case signs && wv == 0 && gv == 0 && math.Signbit(wv) != math.Signbit(gv):
			bad = append(bad, fmt.Sprintf("[%d] got %v want %v (the sign of zero)", i, signed(gv), signed(wv)))
		case math.Abs(gv-wv) > atol+rtol*math.Abs(wv):
			bad = append(bad, fmt.Sprintf("[%d] got %v want %v", i, gv, wv))
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%d of %d values differ: %s", len(bad), len(want.Data), strings.Join(bad[:min(len(bad), 5)], ", "))
	}
}

// signed prints a zero with its sign.
func signed(v float64) string {
	if v == 0 && math.Signbit(v) {
		return "-0"
	}
	return fmt.Sprint(v)
}

// Args are a case's arguments as JSON decoded them.
type Args map[string]any

// F is argument k as a float64.
func (a Args) F(k string) float64 { return Num(a[k]) }

// I is argument k as an int.
func (a Args) I(k string) int { return int(Num(a[k])) }

// B is argument k as a bool (false when absent).
func (a Args) B(k string) bool { v, _ := a[k].(bool); return v }

// S is argument k as a string ("" when absent).
func (a Args) S(k string) string { v, _ := a[k].(string); return v }

// Ints is argument k as a list of ints.
func (a Args) Ints(k string) []int {
	v, _ := a[k].([]any)
	return Ints(v)
}

// Has reports whether argument k is present and not null.
func (a Args) Has(k string) bool { return a[k] != nil }

// One wraps a single output.
func One(t *torch.Tensor) []*torch.Tensor { return []*torch.Tensor{t} }

// Num reads a JSON number, bool or special float ("nan", "inf", "-inf", "-0").
func Num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	}
	return math.NaN()
}

// Ints reads a JSON list of numbers.
func Ints(v []any) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(Num(x))
	}
	return out
}

// scalarArg is a golden scalar argument as the Go value of its Python
// kind: a bool, an int (no decimal point), or a float.
func scalarArg(v any) any {
	switch x := v.(type) {
	case bool:
		return x
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			n, _ := x.Int64()
			return int(n)
		}
	}
	return Num(v)
}

// isSpecialFloat reports whether s is a float the golden scripts write as
// a string (nan, inf, -inf, -0).
func isSpecialFloat(s string) bool {
	switch s {
	case "nan", "inf", "-inf", "-0":
		return true
	}
	return false
}
