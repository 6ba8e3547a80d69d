package conformance

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// RunPipeline runs every case of testdata/name on device dev twice: at
// once, and inside a torch.Pipeline (its inputs made inside it too, so
// that they are pending), and requires the same outcome bit for bit: the
// same errors, outputs of the same shapes, dtypes, strides and bits, and,
// for cases with a backward pass, the same gradients. The pipeline's
// outputs are then checked against PyTorch's as Run checks them.
func RunPipeline(t *testing.T, name, dev string) {
	f := Load(t, name)
	counts := map[string]int{}
	for _, c := range f.Cases {
		counts[c.Op]++
		t.Run(fmt.Sprintf("%s/%d", c.Op, counts[c.Op]), func(t *testing.T) { RunCasePipeline(t, c, dev) })
	}
}

// RunCasePipeline runs one case at once and in a pipeline on dev.
func RunCasePipeline(t *testing.T, c Case, dev string) {
	t.Helper()
	run, ok := Lookup(c.Op)
	if !ok {
		t.Fatalf("no Go call for op %q", c.Op)
	}
	eager := runOnce(t, c, run, dev, false)
	piped := runOnce(t, c, run, dev, true)
	if len(eager.outs) != len(piped.outs) {
		t.Fatalf("%d outputs at once, %d in a pipeline", len(eager.outs), len(piped.outs))
	}
	for i := range eager.outs {
		if err := SameBits(eager.outs[i], piped.outs[i]); err != nil {
			t.Fatalf("output %d: %v", i, err)
		}
	}
	for i := range eager.grads {
		if err := SameBits(eager.grads[i], piped.grads[i]); err != nil {
			t.Fatalf("the gradient of input %d: %v", i, err)
		}
	}
	if c.Error != "" || dev == "meta" {
		return
	}
	for i, want := range c.Outs {
		check(t, piped.outs[i], want, coarsest(c), signsChecked(c.Op, dev))
	}
}

// outcome is what a case gave: its outputs and, with a backward pass, the
// gradients of its inputs (nil where PyTorch has none).
type outcome struct {
	outs, grads []*torch.Tensor
}

// runOnce runs case c's op (and its backward pass, when it has one) on
// dev, inside a pipeline when piped.
func runOnce(t *testing.T, c Case, run Func, dev string, piped bool) outcome {
	t.Helper()
	var o outcome
	body := func() {
		in := make([]*torch.Tensor, len(c.Inputs))
		for i, s := range c.Inputs {
			in[i] = s.Build(t, dev)
		}
		o.outs = run(in, c.Args)
		if c.Grad == nil || c.Error != "" {
			return
		}
		for i := range in { // fresh inputs: the op may have written into the others
			in[i] = c.Inputs[i].Build(t, dev)
			if i < len(c.Grad.Inputs) && c.Grad.Inputs[i] != nil {
				in[i] = in[i].Detach().RequiresGrad_(true)
			}
		}
		y := run(in, c.Args)[0]
		if err := y.BackwardWith(torch.BackwardOptions{Grad: c.Grad.Out.Build(t, dev)}); err != nil {
			t.Fatalf("backward (pipeline %v): %v", piped, err)
		}
		for i := range c.Grad.Inputs {
			if c.Grad.Inputs[i] != nil {
				o.grads = append(o.grads, in[i].Grad())
			}
		}
	}
	if !piped {
		body()
		return o
	}
	err := torch.Pipeline(func(*torch.Pipe) error { body(); return nil })
	if err != nil && c.Error == "" {
		t.Fatalf("the pipeline failed: %v", err)
	}
	return o
}

// SameBits reports how b differs from a: in its error (message), shape,
// dtype, strides, device or the bits of any element (NaNs included).
func SameBits(a, b *torch.Tensor) error {
	ea, eb := a.Err(), b.Err()
	switch {
	case ea != nil || eb != nil:
		if ea == nil || eb == nil || ea.Error() != eb.Error() {
			return fmt.Errorf("errors differ: %v / %v", ea, eb)
		}
		return nil
	case !slices.Equal(a.Shape(), b.Shape()) || a.DType() != b.DType() || !slices.Equal(a.Stride(), b.Stride()) ||
		a.Device() != b.Device():
		return fmt.Errorf("%s %s%v strides %v / %s %s%v strides %v", a.Device(), a.DType(), a.Shape(), a.Stride(),
			b.Device(), b.DType(), b.Shape(), b.Stride())
	case a.IsMeta():
		return nil
	}
	x, err := a.ToAny()
	if err != nil {
		return err
	}
	y, err := b.ToAny()
	if err != nil {
		return err
	}
	bx, by := reflect.ValueOf(bitsOf(x)), reflect.ValueOf(bitsOf(y))
	for i := range bx.Len() {
		if u, v := bx.Index(i).Interface(), by.Index(i).Interface(); u != v {
			return fmt.Errorf("element %d of %d differs: %v (%#x) / %v (%#x)", i, bx.Len(),
				reflect.ValueOf(x).Index(i), u, reflect.ValueOf(y).Index(i), v)
		}
	}
	return nil
}

// bitsOf replaces floats by their bits, so that NaNs compare equal.
func bitsOf(v any) any {
	switch s := v.(type) {
	case []float32:
		b := make([]uint32, len(s))
		for i, f := range s {
			b[i] = math.Float32bits(f)
		}
		return b
	case []float64:
		b := make([]uint64, len(s))
		for i, f := range s {
			b[i] = math.Float64bits(f)
		}
		return b
	}
	return v
}
