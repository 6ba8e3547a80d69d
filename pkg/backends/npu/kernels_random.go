package npu

import (
	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The random ops on the device: uniform_, normal_, random_, bernoulli_ and
// bernoulli by aclnnInplaceUniform, aclnnInplaceNormal, aclnnInplaceRandom,
// aclnnInplaceBernoulli and aclnnBernoulliTensor (prototypes, dtypes and
// sources in docs/npu-ops.md, "Random ops"). They draw from the counter-
// based stream the generator keeps for the device (kernel.Philox): the
// generator's seed and the device's offset, which every launch advances by
// the counters its kernel consumes, as op-plugin's UniformKernelNpuOpApi.cpp
// and RandomKernelNpuOpApi.cpp do with NPUGeneratorImpl. So a seeded program
// draws the same numbers on the NPU every run, and other numbers than on the
// CPU, as PyTorch's devices do. A form the kernels would draw otherwise than
// PyTorch's distribution declines (randomExact and the checks below), and
// the dispatcher draws it on the host from the CPU stream.

// Dtype sets of the random ops' rows in opRules (dtypes.go): what CANN takes
// on Atlas A2/A3 (docs/npu-ops.md, "Random ops").
const (
	// M: random/dsa_random_uniform/op_host/op_api/aclnn_uniform.cpp DTYPE_SUPPORT_LIST (no BOOL)
	uniformDTypes = f32 | i32 | i64 | f16 | i16 | i8 | u8 | f64 | bf16
	// M: random/stateless_bernoulli/docs/aclnnBernoulliTensor&aclnnInplaceBernoulliTensor.md: prob
	bernoulliProb = f16 | f32 | f64
)

// randomExact are the dtypes the native route takes per op. DOUBLE is not
// among uniform_'s and normal_'s: on Atlas A2/A3 the DSA kernels draw in
// float (aclnn_uniform.cpp passes from and to as float and DSARandomUniform
// computes in it), 24 bits where PyTorch draws 53. bernoulli's probabilities
// cannot be BFLOAT16 (bernoulliProb).
var randomExact = map[kernel.OpID]dset{
	kernel.OpUniform:         f32 | f16 | bf16,
	kernel.OpNormal:          f32 | f16 | bf16,
	kernel.OpRandomFromTo:    anyDType,
	kernel.OpBernoulliScalar: anyDType,
	kernel.OpBernoulliTensor: bernoulliProb,
}

func init() {
	kernel.Register(kernel.OpUniform, device.NPU, uniformKernel)
	kernel.Register(kernel.OpNormal, device.NPU, normalKernel)
	kernel.Register(kernel.OpRandomFromTo, device.NPU, randomFromToKernel)
	kernel.Register(kernel.OpBernoulliScalar, device.NPU, bernoulliScalarKernel)
	kernel.Register(kernel.OpBernoulliTensor, device.NPU, bernoulliTensorKernel)
}

// randomOptional reports whether name is one of the random ops' ACLNN
// calls: each is optional (without it the op draws on the host), so
// SymbolsOK does not require it.
func randomOptional(name string) bool {
	for _, op := range []int{npushim.InplaceUniform, npushim.InplaceNormal, npushim.InplaceRandom,
		npushim.InplaceBernoulli, npushim.BernoulliTensor} {
		if name == opRules[op].name {
			return true
		}
	}
	return false
}

func uniformKernel(c *kernel.Call) error {
	a := &npushim.Attrs{}
	a.F[0], a.F[1] = c.Scalars[0].Float(), c.Scalars[1].Float()
	return draw(c, npushim.InplaceUniform, a, unrollOf(c.Out[0].DType), &c.Out[0])
}

func normalKernel(c *kernel.Call) error {
	a := &npushim.Attrs{}
	a.F[0], a.F[1] = c.Scalars[0].Float(), c.Scalars[1].Float()
	return draw(c, npushim.InplaceNormal, a, unrollOf(c.Out[0].DType), &c.Out[0])
}

// randomFromToKernel is random_(from, to). On Atlas A2/A3 aclnn_random.cpp
// draws a float in [float(from), float(to)) (DSARandomUniform) and
// truncates it toward zero, so the call is taken only where that is
// PyTorch's uniform integer: 0 <= from (truncation toward zero would give
// 0 twice the weight and almost never from) and to <= 2^24 (float holds
// every integer below), and for FLOAT16 and BFLOAT16 to - 1 at most 2^11
// and 2^8, where updateTo leaves to as it is. Other chips run another
// path (StatelessRandomUniformV2 and Muls/Sub in the dtype), not verified.
func randomFromToKernel(c *kernel.Call) error {
	from, to := c.Scalars[0].Int(), c.Scalars[1].Int()
	if chipOf(state.soc) != chipA2 {
		return kernel.Errorf(kernel.ErrNotImplemented, "random_ is drawn on the host on %s: its kernel path there is not verified", socName())
	}
	limit := int64(1) << 24
	switch c.Out[0].DType {
	case dtype.Float16:
		limit = 1<<11 + 1
	case dtype.BFloat16:
		limit = 1<<8 + 1
	}
	if from < 0 || to > limit {
		return kernel.Errorf(kernel.ErrNotImplemented, "random_(%d, %d) of %s is drawn on the host: aclnnInplaceRandom "+
			"draws it in float and truncates, which is uniform only for 0 <= from and to <= %d", from, to,
			c.Out[0].DType.Name(), limit)
	}
	a := &npushim.Attrs{}
	a.SI[0], a.SI[1] = from, to
	unroll := int64(4)
	if to-from >= 1<<28 { // RandomUtil.h: RAND_INT64_THRESHOLD
		unroll = 2
	}
	return draw(c, npushim.InplaceRandom, a, unroll, &c.Out[0])
}

func bernoulliScalarKernel(c *kernel.Call) error {
	a := scalars(c.Scalars[0])
	return draw(c, npushim.InplaceBernoulli, a, unrollOf(c.Out[0].DType), &c.Out[0])
}

// bernoulliTensorKernel is bernoulli(p) by aclnnBernoulliTensor(self = p,
// prob = p, out): out has p's shape and dtype (bernoulliMeta). That every
// probability is in [0, 1] is the caller's check (torch.Bernoulli): CANN's
// doc leaves the others undefined.
func bernoulliTensorKernel(c *kernel.Call) error {
	return draw(c, npushim.BernoulliTensor, &npushim.Attrs{}, unrollOf(c.Out[0].DType), &c.Out[0], &c.In[0], &c.In[0])
}

// unrollOf is the elements a thread of the random kernels draws per
// Philox block: 2 for INT64, else 4 (op-plugin op_plugin/utils/RandomUtil.h,
// calc_final_counter_offset).
func unrollOf(d dtype.DType) int64 {
	if d == dtype.Int64 {
		return 2
	}
	return 4
}

// draw launches op over the operands (the written tensor first) with the
// seed and offset of the device's stream of c.Random. Every check that can
// decline runs before the offset is taken, so that a declined call, drawn
// on the host, leaves the device's stream as it was. An empty tensor needs
// no draw.
func draw(c *kernel.Call, op int, a *npushim.Attrs, unroll int64, ops ...*kernel.Operand) error {
	o := ops[0]
	if !randomExact[c.Op].has(aclDType[o.DType]) {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s of %s is drawn on the host: the NPU's kernel does not draw "+
			"it as PyTorch does", c.Op, o.DType.Name())
	}
	if err := onThisChip(op); err != nil {
		return err
	}
	if !npushim.OpAvailable(op) {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s is not in this CANN", opRules[op].name)
	}
	if err := checkDTypes(op, ops); err != nil {
		return err
	}
	philox, ok := c.Random.(kernel.Philox)
	if !ok {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s: the generator keeps no stream for devices", c.Op)
	}
	n := kernel.Numel(o.Shape)
	if n == 0 {
		return nil
	}
	dev := c.Device.Index
	if dev < 0 {
		dev = deviceOf(ops)
	}
	c.Random.Lock()
	seed, offset := philox.PhiloxInputs(dev, counterOffset(o, unroll))
	c.Random.Unlock()
	a.I[0], a.I[1] = int64(seed), int64(offset)
	return launch(c, op, a, ops...)
}

// The constants of op-plugin's counter offsets (op_plugin/utils/RandomUtil.h),
// which model PyTorch's CUDA random kernels: blocks of 256 threads, at most
// 2048 threads on each of 78 processors, 4 counters per Philox call.
const (
	philoxBlockSize  = 256
	philoxMaxThreads = 2048
	philoxProcessors = 78
	philoxPerCall    = 4
)

// counterOffset is how far a draw into o advances the device's offset:
// op-plugin's calc_final_counter_offset, the counters a thread consumes
// (philoxPerCall per round of unroll elements over the whole grid), plus
// those of the halves a kernel splits a tensor into when it cannot index
// it in 32 bits.
func counterOffset(o *kernel.Operand, unroll int64) uint64 {
	n, size := int64(kernel.Numel(o.Shape)), int64(o.DType.ItemSize())
	total := callCounters(n, unroll)
	if !index32(o.Shape, o.Strides, n, size) {
		total += splitCounters(o.Shape, o.Strides, n, size, unroll)
	}
	return uint64(total)
}

// callCounters is RandomUtil.h's calc_counter_offset for n elements.
func callCounters(n, unroll int64) int64 {
	grid := min((n+philoxBlockSize-1)/philoxBlockSize, philoxProcessors*(philoxMaxThreads/philoxBlockSize))
	return ((n-1)/(philoxBlockSize*grid*unroll) + 1) * philoxPerCall
}

// index32 is can_use_32bit_indexing: fewer than 2^31 elements and every
// byte offset below 2^31.
func index32(shape, strides []int, n, size int64) bool {
	if n > 1<<31-1 {
		return false
	}
	span := int64(1)
	for d := range shape {
		if shape[d] > 1 {
			span += int64(shape[d]-1) * int64(abs(strides[d])) * size
		}
	}
	return span <= 1<<31-1
}

// splitCounters is calc_split_counter_offset: a tensor that needs 64-bit
// indexing is halved along its widest dim (in bytes, the last such from
// the end) until each part fits, each part counted as a launch of its own.
func splitCounters(shape, strides []int, n, size, unroll int64) int64 {
	if index32(shape, strides, n, size) {
		return callCounters(n, unroll)
	}
	split, widest := -1, int64(-1)
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] >= 2 {
			if w := int64(shape[d]-1) * int64(abs(strides[d])) * size; w > widest {
				split, widest = d, w
			}
		}
	}
	if split < 0 {
		return callCounters(n, unroll)
	}
	left := append([]int(nil), shape...)
	left[split] = shape[split] / 2
	right := append([]int(nil), shape...)
	right[split] = shape[split] - left[split]
	return splitCounters(left, strides, n/int64(shape[split])*int64(left[split]), size, unroll) +
		splitCounters(right, strides, n/int64(shape[split])*int64(right[split]), size, unroll)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
