package cpu

import (
	"math"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpUniform, device.CPU, uniformKernel)
	kernel.Register(kernel.OpNormal, device.CPU, normalKernel)
	kernel.Register(kernel.OpRandomFromTo, device.CPU, randomFromToKernel)
	kernel.Register(kernel.OpBernoulliScalar, device.CPU, bernoulliScalarKernel)
	kernel.Register(kernel.OpBernoulliTensor, device.CPU, bernoulliTensorKernel)
}

// mantissaDigits is std::numeric_limits<T>::digits of the floating dtypes.
func mantissaDigits(d dtype.DType) uint {
	switch d {
	case dtype.Float64:
		return 53
	case dtype.Float16:
		return 11
	case dtype.BFloat16:
		return 8
	}
	return 24
}

// uniform draws one value in [from, to) as PyTorch's
// uniform_real_distribution<T>: 64 random bits for double, else 32, masked to
// the mantissa's digits, scaled in double.
func uniform(r kernel.Random, d dtype.DType, from, to float64) float64 {
	digits := mantissaDigits(d)
	var v uint64
	if d == dtype.Float64 {
		v = r.Uint64()
	} else {
		v = uint64(r.Uint32())
	}
	x := float64(v&(1<<digits-1)) / float64(uint64(1)<<digits)
	return x*(to-from) + from
}

// roundTo is v rounded to dtype d (how PyTorch casts its from and to).
func roundTo(v float64, d dtype.DType) float64 {
	switch d {
	case dtype.Float32:
		return float64(float32(v))
	case dtype.Float16:
		return float64(dtype.F16FromFloat32(float32(v)).Float32())
	case dtype.BFloat16:
		return float64(dtype.BF16FromFloat32(float32(v)).Float32())
	}
	return v
}

func uniformKernel(c *kernel.Call) error {
	o := &c.Out[0]
	from, to := roundTo(c.Scalars[0].Float(), o.DType), roundTo(c.Scalars[1].Float(), o.DType)
	r := c.Random
	r.Lock()
	defer r.Unlock()
	forEach(o, func(p unsafe.Pointer) { storeFloat(p, o.DType, uniform(r, o.DType, from, to)) })
	return nil
}

// normalKernel is PyTorch's normal_ on the CPU: for contiguous tensors of at
// least 16 elements, uniform draws turned into normals 16 at a time
// (normal_fill); otherwise Box-Muller in double with a cached second sample.
func normalKernel(c *kernel.Call) error {
	o := &c.Out[0]
	mean, std := c.Scalars[0].Float(), c.Scalars[1].Float()
	if std < 0 {
		return kernel.Errorf(kernel.ErrArgument, "normal expects std >= 0.0, but found std %g", std)
	}
	r := c.Random
	r.Lock()
	defer r.Unlock()
	n := kernel.Numel(o.Shape)
	if n >= 16 && kernel.IsContiguous(o.Shape, o.Strides) {
		data := make([]float64, n)
		for i := range data {
			data[i] = roundTo(uniform(r, o.DType, 0, 1), o.DType)
		}
		for i := 0; i+16 <= n; i += 16 {
			normalFill16(data[i:i+16], mean, std, o.DType)
		}
		if n%16 != 0 {
			tail := data[n-16:]
			for i := range tail {
				tail[i] = roundTo(uniform(r, o.DType, 0, 1), o.DType)
			}
			normalFill16(tail, mean, std, o.DType)
		}
		size := o.DType.ItemSize()
		base := o.Data()
		for i, v := range data {
			storeFloat(unsafe.Add(base, i*size), o.DType, v)
		}
		return nil
	}
	forEach(o, func(p unsafe.Pointer) { storeFloat(p, o.DType, normalDouble(r, mean, std)) })
	return nil
}

// normalFill16 turns 16 uniforms into 16 normals, pairing i with i+8.
func normalFill16(d []float64, mean, std float64, dt dtype.DType) {
	for j := range 8 {
		u1 := 1 - d[j]
		u2 := d[j+8]
		radius := math.Sqrt(-2 * math.Log(u1))
		theta := 2 * math.Pi * u2
		d[j] = roundTo(radius*math.Cos(theta)*std+mean, dt)
		d[j+8] = roundTo(radius*math.Sin(theta)*std+mean, dt)
	}
}

// normalDouble is at::normal_distribution<double>.
func normalDouble(r kernel.Random, mean, std float64) float64 {
	if v, ok := r.NextNormal(true); ok {
		return v*std + mean
	}
	u1 := uniform(r, dtype.Float64, 0, 1)
	u2 := uniform(r, dtype.Float64, 0, 1)
	radius := math.Sqrt(-2 * math.Log(1-u2))
	theta := 2 * math.Pi * u1
	r.SetNextNormal(true, radius*math.Sin(theta))
	return radius*math.Cos(theta)*std + mean
}

// randomFromToKernel draws integers in [low, high): 32 random bits when the
// range fits, else 64, modulo the range, as PyTorch's random_from_to.
func randomFromToKernel(c *kernel.Call) error {
	o := &c.Out[0]
	low, high := c.Scalars[0].Int(), c.Scalars[1].Int()
	if low >= high {
		return kernel.Errorf(kernel.ErrArgument, "random_ expects 'from' to be less than 'to', but got from=%d >= to=%d", low, high)
	}
	span := uint64(high - low)
	r := c.Random
	r.Lock()
	defer r.Unlock()
	forEach(o, func(p unsafe.Pointer) {
		var v uint64
		if span >= 1<<32 {
			v = r.Uint64()
		} else {
			v = uint64(r.Uint32())
		}
		x := int64(v%span) + low
		if o.DType.IsFloatingPoint() {
			storeFloat(p, o.DType, float64(x))
		} else {
			storeInt(p, o.DType, x)
		}
	})
	return nil
}

func bernoulliScalarKernel(c *kernel.Call) error {
	o := &c.Out[0]
	prob := c.Scalars[0].Float()
	if !(prob >= 0 && prob <= 1) {
		return kernel.Errorf(kernel.ErrArgument, "bernoulli_ expects p to be in [0, 1], but got p=%g", prob)
	}
	r := c.Random
	r.Lock()
	defer r.Unlock()
	forEach(o, func(p unsafe.Pointer) {
		storeInt(p, o.DType, int64(b2u(uniform(r, dtype.Float64, 0, 1) < prob)))
	})
	return nil
}

func bernoulliTensorKernel(c *kernel.Call) error {
	in, o := &c.In[0], &c.Out[0]
	probs := make([]float64, 0, kernel.Numel(in.Shape))
	bad := false
	forEach(in, func(p unsafe.Pointer) {
		v := loadFloat(p, in.DType)
		bad = bad || !(v >= 0 && v <= 1)
		probs = append(probs, v)
	})
	if bad {
		return kernel.Errorf(kernel.ErrArgument, "bernoulli expects all elements of the input to be in [0, 1]")
	}
	r := c.Random
	r.Lock()
	defer r.Unlock()
	i := 0
	forEach(o, func(p unsafe.Pointer) {
		storeInt(p, o.DType, int64(b2u(uniform(r, dtype.Float64, 0, 1) < probs[i])))
		i++
	})
	return nil
}
