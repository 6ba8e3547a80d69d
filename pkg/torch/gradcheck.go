package torch

import (
	"fmt"
	"math"
)

// GradCheckOptions set the step and tolerances of GradCheck (zero values:
// PyTorch's defaults, eps 1e-6, atol 1e-5, rtol 1e-3).
type GradCheckOptions struct {
	Eps, Atol, Rtol float64
}

// GradCheck compares the Jacobian of f at inputs computed by autograd with
// central finite differences, element by element, for every input that
// requires gradients. Inputs should be float64. It returns nil when they
// agree within atol + rtol*|numerical|, else an error naming the first
// input and element that differ. A nil f, a nil or failed input or output,
// and inputs none of which requires gradients are errors.
func GradCheck(f func(in ...*Tensor) *Tensor, inputs []*Tensor, opt GradCheckOptions) error {
	if f == nil {
		return NewError("gradcheck", ErrArgument, inputs, "the function to check is nil")
	}
	if err := inputErr("gradcheck", inputs...); err != nil {
		return err
	}
	if opt.Eps == 0 {
		opt.Eps = 1e-6
	}
	if opt.Atol == 0 {
		opt.Atol = 1e-5
	}
	if opt.Rtol == 0 {
		opt.Rtol = 1e-3
	}
	out := f(inputs...)
	if err := inputErr("gradcheck", out); err != nil {
		return err
	}
	nOut := out.Numel()
	var wrt []*Tensor
	for _, in := range inputs {
		if in.requiresGrad {
			wrt = append(wrt, in)
		}
	}
	if len(wrt) == 0 {
		return NewError("gradcheck", ErrArgument, inputs,
			"gradcheck expects at least one input tensor to require gradient, but none of the them have requires_grad=True.")
	}
	// Analytic: one backward pass per output element.
	analytic := make([][][]float64, len(wrt)) // [input][out][in element]
	for i := range wrt {
		analytic[i] = make([][]float64, nOut)
	}
	for j := range nOut {
		onehot := make([]float64, nOut)
		onehot[j] = 1
		g := FromSlice(onehot).Reshape(out.shape...).ToDType(out.dtype)
		grads, err := Grad([]*Tensor{out}, wrt, GradOptions{GradOutputs: []*Tensor{g}, RetainGraph: true, AllowUnused: true})
		if err != nil {
			return err
		}
		for i, gr := range grads {
			if gr == nil {
				analytic[i][j] = make([]float64, wrt[i].Numel())
				continue
			}
			v, err := ToSlice[float64](gr.ToDType(Float64))
			if err != nil {
				return err
			}
			analytic[i][j] = v
		}
	}
	// Numerical: perturb each element of each input.
	for i, in := range wrt {
		for k := range in.Numel() {
			elem := in.Detach()
			for _, ix := range unravel(k, in.shape) {
				elem = elem.Select(0, ix)
			}
			orig, err := elem.Item()
			if err != nil {
				return err
			}
			eval := func(v float64) ([]float64, error) {
				if r := elem.Fill_(v); r.err != nil {
					return nil, r.err
				}
				var y *Tensor
				NoGrad(func() { y = f(inputs...) })
				return ToSlice[float64](y.ToDType(Float64))
			}
			hi, err := eval(orig + opt.Eps)
			if err != nil {
				return err
			}
			lo, err := eval(orig - opt.Eps)
			if err != nil {
				return err
			}
			elem.Fill_(orig)
			for j := range nOut {
				num := (hi[j] - lo[j]) / (2 * opt.Eps)
				ana := analytic[i][j][k]
				if math.Abs(num-ana) > opt.Atol+opt.Rtol*math.Abs(num) || math.IsNaN(ana) != math.IsNaN(num) {
					return fmt.Errorf("gradcheck: Jacobian mismatch for output %d with respect to input %d, element %d: numerical %g, analytical %g",
						j, i, k, num, ana)
				}
			}
		}
	}
	return nil
}

// unravel returns the multi-index of flat index k in shape, one index per
// dim, each to be applied with Select(0, .) in turn.
func unravel(k int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = k % shape[d]
		k /= shape[d]
	}
	return idx
}
