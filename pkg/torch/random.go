package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/cpu"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// Generator is a seedable source of random numbers: PyTorch's CPU generator
// (mt19937), so that ManualSeed(s) followed by the same calls gives the same
// numbers PyTorch gives. A Generator is safe for concurrent use.
type Generator struct{ g *cpu.Generator }

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed uint64) *Generator { return &Generator{g: cpu.NewGenerator(seed)} }

// ManualSeed reseeds the generator and returns it.
func (g *Generator) ManualSeed(seed uint64) *Generator {
	g.g.Lock()
	g.g.Seed(seed)
	g.g.Unlock()
	return g
}

// InitialSeed is the seed the generator was last seeded with.
func (g *Generator) InitialSeed() uint64 { return g.g.InitialSeed() }

var defaultGenerator = NewGenerator(cpu.DefaultSeed)

// DefaultGenerator is the generator random ops use unless told otherwise.
func DefaultGenerator() *Generator { return defaultGenerator }

// ManualSeed seeds the default generator.
func ManualSeed(seed uint64) { defaultGenerator.ManualSeed(seed) }

func (o *options) generator() *Generator {
	if o.gen != nil {
		return o.gen
	}
	return defaultGenerator
}

// random runs an in-place random op on t; t carries the error of a
// failure.
func random(op kernel.OpID, t *Tensor, g *Generator, a, b kernel.Scalar) *Tensor {
	if t.err != nil {
		return t
	}
	if err := t.checkBounds(op.String()); err != nil {
		return t.keepFailure(failed(err))
	}
	c := dispatch.NewCall(op, t.Device(), 0, 1)
	c.Scalars[0], c.Scalars[1] = a, b
	c.Random = g.g
	return t.keepFailure(runInPlace(c, t))
}

// Uniform_ fills t with values drawn uniformly from [from, to).
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
	if p.err != nil {
		return p
	}
	if err := p.checkBounds("bernoulli"); err != nil {
		return failed(err)
	}
	o := collect(opts)
	c := dispatch.NewCall(kernel.OpBernoulliTensor, p.Device(), 1, 1)
	c.In[0] = p.operand()
	c.Random = o.generator().g
	return run(c)
}
