package torch

import (
	"sync"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// Generator is a seedable source of random numbers: PyTorch's CPU generator
// (mt19937), so that ManualSeed(s) followed by the same calls gives the same
// numbers PyTorch gives, and for each NPU the counter-based (Philox) stream
// torch_npu's NPU generator keeps, the seed and an offset per device, from
// which the device's kernels draw. ManualSeed seeds both and restarts the
// devices' offsets, as torch.manual_seed does; the CPU's numbers and a
// device's differ, as in PyTorch. PyTorch keeps a generator per device and
// refuses a CPU generator for a device's op; a Generator here serves every
// device. A Generator is safe for concurrent use.
//
// A zero Generator (new(Generator)) is ready to use, seeded with PyTorch's
// default seed 67280421310721 as torch.Generator() is. A nil *Generator
// stands for the default generator, in WithGenerator and in its methods.
type Generator struct {
	once sync.Once
	g    kernel.Generator // the CPU backend's, made at first use
}

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed uint64) *Generator {
	g := new(Generator)
	s := g.source()
	s.Lock()
	s.Seed(seed)
	s.Unlock()
	return g
}

// source is the generator's state: the default generator's for nil.
func (g *Generator) source() kernel.Generator {
	if g == nil {
		g = defaultGenerator
	}
	g.once.Do(func() { g.g = kernel.NewGenerator() })
	return g.g
}

// ManualSeed reseeds the generator (the default generator for nil) and
// returns it.
func (g *Generator) ManualSeed(seed uint64) *Generator {
	s := g.source()
	s.Lock()
	s.Seed(seed)
	s.Unlock()
	return g
}

// InitialSeed is the seed the generator was last seeded with (the default
// generator's for nil).
func (g *Generator) InitialSeed() uint64 {
	s := g.source()
	s.Lock()
	defer s.Unlock()
	return s.InitialSeed()
}

var defaultGenerator = new(Generator) // PyTorch's default seed

// DefaultGenerator is the generator random ops use unless told otherwise.
func DefaultGenerator() *Generator { return defaultGenerator }

// ManualSeed seeds the default generator.
func ManualSeed(seed uint64) { defaultGenerator.ManualSeed(seed) }

// generator is the generator of the options: the default one unless
// WithGenerator named another (a nil one is the default).
func (o *options) generator() *Generator {
	if o.gen != nil {
		return o.gen
	}
	return defaultGenerator
}

// random runs an in-place random op on t; t carries the error of a
// failure.
func random(op kernel.OpID, t *Tensor, g *Generator, a, b kernel.Scalar) *Tensor {
	if err := inputErr(op.String(), t); err != nil {
		return t.keepFailure(failed(err))
	}
	if err := t.checkBounds(op.String()); err != nil {
		return t.keepFailure(failed(err))
	}
	if err := t.checkWritable(op.String()); err != nil {
		return t.keepFailure(failed(err))
	}
	c := dispatch.NewCall(op, t.Device(), 0, 1)
	c.Scalars[0], c.Scalars[1] = a, b
	c.Random = g.source()
	return t.keepFailure(runInPlace(c, t))
}

// Uniform_ fills t with values drawn uniformly from [from, to); from > to
// is an error, as in PyTorch.
func (t *Tensor) Uniform_(from, to float64, opts ...Option) *Tensor {
	o := collect(opts)
	return random(kernel.OpUniform, t, o.generator(), kernel.FloatScalar(from), kernel.FloatScalar(to))
}

// Normal_ fills t with values drawn from the normal distribution.
func (t *Tensor) Normal_(mean, std float64, opts ...Option) *Tensor {
	o := collect(opts)
	return random(kernel.OpNormal, t, o.generator(), kernel.FloatScalar(mean), kernel.FloatScalar(std))
}

// Random_ fills t with integers drawn uniformly from [low, high).
func (t *Tensor) Random_(low, high int64, opts ...Option) *Tensor {
	o := collect(opts)
	return random(kernel.OpRandomFromTo, t, o.generator(), kernel.IntScalar(low), kernel.IntScalar(high))
}

// Bernoulli_ fills t with 1 with probability p, else 0.
func (t *Tensor) Bernoulli_(p float64, opts ...Option) *Tensor {
	o := collect(opts)
	return random(kernel.OpBernoulliScalar, t, o.generator(), kernel.FloatScalar(p), kernel.Scalar{})
}

// Rand returns a tensor of values drawn uniformly from [0, 1).
func Rand(shape []int, opts ...Option) *Tensor {
	o := collect(opts)
	t := emptyOp("rand", shape, o.floatDType(), &o)
	return finishCreation(t.Uniform_(0, 1, WithGenerator(o.generator())), &o)
}

// Randn returns a tensor of values drawn from the standard normal distribution.
func Randn(shape []int, opts ...Option) *Tensor {
	o := collect(opts)
	t := emptyOp("randn", shape, o.floatDType(), &o)
	return finishCreation(t.Normal_(0, 1, WithGenerator(o.generator())), &o)
}

// Randint returns integers drawn uniformly from [low, high), int64 unless
// a dtype is given.
func Randint(low, high int64, shape []int, opts ...Option) *Tensor {
	o := collect(opts)
	t := emptyOp("randint", shape, o.dtypeOr(Int64), &o)
	return finishCreation(t.Random_(low, high, WithGenerator(o.generator())), &o)
}

// Bernoulli returns a tensor of 0s and 1s drawn with the probabilities in p.
func Bernoulli(p *Tensor, opts ...Option) *Tensor {
	if err := inputErr("bernoulli", p); err != nil {
		return failed(err)
	}
	if err := p.checkBounds("bernoulli"); err != nil {
		return failed(err)
	}
	if err := probabilitiesValid(p); err != nil {
		return failed(err)
	}
	o := collect(opts)
	c := dispatch.NewCall(kernel.OpBernoulliTensor, p.Device(), 1, 1)
	c.In[0] = p.operand()
	c.Random = o.generator().source()
	return run(c)
}

// probabilitiesValid checks, on a device, that every probability in p is in
// [0, 1] (NaN is not), as the CPU kernel does while it reads them: the
// devices' kernels leave other values undefined (CANN's
// aclnnBernoulliTensor doc), and PyTorch's CUDA kernel asserts on the
// device. The check reads one bool back.
func probabilitiesValid(p *Tensor) error {
	if d := p.Device().Type; d == device.CPU || d == device.Meta || p.Numel() == 0 {
		return nil
	}
	var ok bool
	var err error
	NoGrad(func() {
		ge, le := p.GeScalar(0), p.LeScalar(1)
		both := ge.LogicalAnd(le)
		all := both.All()
		ok, err = all.ItemBool()
		for _, x := range []*Tensor{ge, le, both, all} {
			x.Release()
		}
	})
	if err == nil && !ok {
		err = p.opError("bernoulli", ErrArgument, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
	}
	return err
}
