package nn

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The initialisation schemes of torch.nn.init. Each fills t in place
// without recording a gradient, draws from the default generator (or the
// one given with torch.WithGenerator) exactly as PyTorch does, and returns t.

// CalculateGain is the recommended gain for a nonlinearity: "linear",
// "conv*", "sigmoid" 1; "tanh" 5/3; "relu" sqrt(2); "leaky_relu" with
// negative slope param sqrt(2/(1+param^2)); "selu" 3/4.
func CalculateGain(nonlinearity string, param float64) (float64, error) {
	switch nonlinearity {
	case "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid":
		return 1, nil
	case "tanh":
		return 5.0 / 3, nil
	case "relu":
		return math.Sqrt(2), nil
	case "leaky_relu":
		return math.Sqrt(2 / (1 + param*param)), nil
	case "selu":
		return 0.75, nil
	}
	return 0, torch.NewError("calculate_gain", torch.ErrArgument, nil, "Unsupported nonlinearity %s", nonlinearity)
}

// fans returns fan_in and fan_out of a weight shaped [out, in, kernel...].
func fans(t *torch.Tensor) (in, out int, err error) {
	s := t.Shape()
	if len(s) < 2 {
		return 0, 0, torch.NewError("init", torch.ErrShape, []*torch.Tensor{t},
			"Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
	}
	receptive := 1
	for _, k := range s[2:] {
		receptive *= k
	}
	return s[1] * receptive, s[0] * receptive, nil
}

// fill runs f (the init op) on t without recording, giving t the error of a bad argument.
// On a device other than the CPU (an NPU) the values are drawn on the host,
// from the generator's CPU stream, and copied: a seeded model starts with
// the same weights on every device, as a PyTorch model built on the CPU and
// moved does. (The NPU's own random kernels draw other numbers.)
func fill(op string, t *torch.Tensor, err error, f func(x *torch.Tensor) *torch.Tensor) *torch.Tensor {
	if e := inputErr(op, t); e != nil {
		return torch.Failed(e)
	}
	if err != nil {
		return torch.Failed(err)
	}
	var out *torch.Tensor
	torch.NoGrad(func() {
		if d := t.Device().String(); d == "cpu" || d == "meta" {
			out = f(t)
			return
		}
		h := torch.Empty(t.Shape(), torch.WithDType(t.DType()))
		if out = f(h); out.Err() == nil {
			out = t.Copy_(h)
		}
	})
	if out.Err() != nil {
		return out
	}
	return t
}

// Uniform_ fills t from U(a, b).
func Uniform_(t *torch.Tensor, a, b float64, opts ...torch.Option) *torch.Tensor {
	return fill("uniform_", t, nil, func(x *torch.Tensor) *torch.Tensor { return x.Uniform_(a, b, opts...) })
}

// Normal_ fills t from N(mean, std^2).
func Normal_(t *torch.Tensor, mean, std float64, opts ...torch.Option) *torch.Tensor {
	return fill("normal_", t, nil, func(x *torch.Tensor) *torch.Tensor { return x.Normal_(mean, std, opts...) })
}

// Constant_ fills t with v.
func Constant_(t *torch.Tensor, v float64) *torch.Tensor {
	return fill("constant_", t, nil, func(x *torch.Tensor) *torch.Tensor { return x.Fill_(v) })
}

// Zeros_ fills t with zeros.
func Zeros_(t *torch.Tensor) *torch.Tensor { return Constant_(t, 0) }

// Ones_ fills t with ones.
func Ones_(t *torch.Tensor) *torch.Tensor { return Constant_(t, 1) }

// fanOf picks fan_in or fan_out by mode.
func fanOf(t *torch.Tensor, mode string) (int, error) {
	in, out, err := fans(t)
	if err != nil {
		return 0, err
	}
	switch mode {
	case "fan_in":
		return in, nil
	case "fan_out":
		return out, nil
	}
	return 0, torch.NewError("init", torch.ErrArgument, []*torch.Tensor{t}, "Mode %s not supported, please use one of fan_in, fan_out", mode)
}

// zeroElements reports whether t is a tensor without elements, which the
// Kaiming initializers leave as it is (PyTorch: "Initializing zero-element
// tensors is a no-op").
func zeroElements(t *torch.Tensor) bool {
	return t != nil && t.Err() == nil && t.Numel() == 0
}

// KaimingUniform_ fills t from U(-b, b) with b = gain*sqrt(3/fan), the gain
// of nonlinearity with negative slope a (He et al., 2015). mode is
// "fan_in" or "fan_out". nn.Linear uses a = sqrt(5), "fan_in", "leaky_relu".
func KaimingUniform_(t *torch.Tensor, a float64, mode, nonlinearity string, opts ...torch.Option) *torch.Tensor {
	if zeroElements(t) {
		return t
	}
	fan, err := fanOf(t, mode)
	gain, gerr := CalculateGain(nonlinearity, a)
	if err == nil {
		err = gerr
	}
	bound := gain * math.Sqrt(3/float64(fan))
	return fill("kaiming_uniform_", t, err, func(x *torch.Tensor) *torch.Tensor { return x.Uniform_(-bound, bound, opts...) })
}

// KaimingNormal_ fills t from N(0, std^2) with std = gain/sqrt(fan).
func KaimingNormal_(t *torch.Tensor, a float64, mode, nonlinearity string, opts ...torch.Option) *torch.Tensor {
	if zeroElements(t) {
		return t
	}
	fan, err := fanOf(t, mode)
	gain, gerr := CalculateGain(nonlinearity, a)
	if err == nil {
		err = gerr
	}
	std := gain / math.Sqrt(float64(fan))
	return fill("kaiming_normal_", t, err, func(x *torch.Tensor) *torch.Tensor { return x.Normal_(0, std, opts...) })
}

// XavierUniform_ fills t from U(-b, b) with b = gain*sqrt(6/(fan_in+fan_out))
// (Glorot and Bengio, 2010).
func XavierUniform_(t *torch.Tensor, gain float64, opts ...torch.Option) *torch.Tensor {
	in, out, err := fans(t)
	bound := gain * math.Sqrt(6/float64(in+out))
	return fill("xavier_uniform_", t, err, func(x *torch.Tensor) *torch.Tensor { return x.Uniform_(-bound, bound, opts...) })
}

// XavierNormal_ fills t from N(0, std^2) with std = gain*sqrt(2/(fan_in+fan_out)).
func XavierNormal_(t *torch.Tensor, gain float64, opts ...torch.Option) *torch.Tensor {
	in, out, err := fans(t)
	std := gain * math.Sqrt(2/float64(in+out))
	return fill("xavier_normal_", t, err, func(x *torch.Tensor) *torch.Tensor { return x.Normal_(0, std, opts...) })
}
