package cpu

import (
	"sync"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The index ops (gather, index_select and so embedding, scatter,
// scatter_add, scatter_reduce, index_add) run in C (cgo/cpukernels/index.c),
// one call per op: the planner lays out the iteration shape over three
// operands (the output, self or src, the index) as for pointwise ops, with
// the operand the index jumps in given stride 0 along the indexed dim; C
// checks every index first, then walks the plan, reading the index and
// jumping by its stride, with a row copy where the index is constant along
// a row (index_select, embedding). Large gathers split anywhere across the
// worker pool; large scatters only where no two positions can hit the same
// output element, so duplicate indices combine in PyTorch's CPU order
// (ascending along the indexed dim) whatever the thread count.

func init() {
	kernel.Register(kernel.OpIndexSelect, device.CPU, indexSelectKernel)
	kernel.Register(kernel.OpGather, device.CPU, gatherKernel)
	kernel.Register(kernel.OpScatter, device.CPU, scatterKernel)
	kernel.Register(kernel.OpScatterAdd, device.CPU, scatterKernel)
	kernel.Register(kernel.OpScatterReduce, device.CPU, scatterKernel)
	kernel.Register(kernel.OpIndexAdd, device.CPU, indexAddKernel)
}

// indexJob is a pooled job with the planner state that builds it.
type indexJob struct {
	job     *cpukernels.IndexJob // a pointer-free allocation of its own, which C may read and write
	scratch *uint64              // scatter's value as a one-element source (pointer-free, C reads it)
	ops     [3]operand
	strides [3][cpukernels.MaxDims]int
}

var indexJobs = sync.Pool{New: func() any {
	return &indexJob{job: new(cpukernels.IndexJob), scratch: new(uint64)}
}}

// along returns o's element strides over an nd-dim iteration shape (a
// 0-dim operand, or one of another rank, reads one element: zeros), with
// dim (when >= 0) at zero: the index gives the position there.
func along(dst *[cpukernels.MaxDims]int, o *kernel.Operand, nd, dim int) []int {
	st := dst[:nd]
	clear(st)
	if len(o.Strides) == nd {
		copy(st, o.Strides)
	}
	if dim >= 0 && dim < nd {
		st[dim] = 0
	}
	return st
}

// indexAlong is the index's strides over an nd-dim iteration shape in
// which the 1-D (or 0-dim) index runs along dim only.
func indexAlong(dst *[cpukernels.MaxDims]int, ix *kernel.Operand, nd, dim int) []int {
	st := dst[:nd]
	clear(st)
	if dim < nd && len(ix.Strides) == 1 {
		st[dim] = ix.Strides[0]
	}
	return st
}

// dimInfo is the size and stride of o in dim (1 and 0 for a 0-dim operand).
func dimInfo(o *kernel.Operand, dim int) (size, stride int) {
	if dim < len(o.Shape) {
		return o.Shape[dim], o.Strides[dim]
	}
	return 1, 0
}

// run plans shape (indexed along dim) over the job's three operands,
// checks the index (all of ix, unless check is false) and runs the job. outOK says that the
// output's elements do not overlap, so that a scatter may split.
func (j *indexJob) run(shape []int, dim int, ix *kernel.Operand, check, outOK bool) error {
	job := j.job
	if len(shape) > cpukernels.MaxDims || len(ix.Shape) > cpukernels.MaxDims {
		return kernel.Errorf(kernel.ErrArgument, "index ops take at most %d dimensions", cpukernels.MaxDims)
	}
	it := getIter()
	defer it.put()
	it.build(shape, j.ops[:])
	job.Plan = *it.plan
	job.Numel = int64(it.numel)
	job.IxDim = -1
	if dim < len(shape) {
		job.IxDim = int64(it.planDim[dim])
	}
	job.IndexDType = int64(ix.DType)
	job.CheckNumel = 0
	if check {
		rowMajorPlan(&job.Check, ix.Shape, ix.Strides, ix.DType.ItemSize())
		job.CheckNumel = int64(kernel.Numel(ix.Shape))
	}
	job.Grain = 0
	if it.numel >= grain || int(job.CheckNumel) >= grain {
		if job.Kind == cpukernels.IndexGather || outOK {
			job.Grain = grain / 2
		}
		beginLarge()
	}
	return cpukernels.Index(job, j.ops[0].data, j.ops[1].data, j.ops[2].data)
}

func getIndexJob(kind int, d dtype.DType) *indexJob {
	j := indexJobs.Get().(*indexJob)
	*j.job = cpukernels.IndexJob{Kind: int64(kind), DType: int64(d), IxDim: -1}
	return j
}

func (j *indexJob) put() {
	j.ops = [3]operand{}
	indexJobs.Put(j)
}

// setOperand makes o, with strides st over shape, operand k of the job.
func (j *indexJob) setOperand(k int, o *kernel.Operand, shape, st []int) {
	j.ops[k] = operand{mem: o.Mem, data: o.Data(), shape: shape, strides: st, size: o.DType.ItemSize()}
}

// gatherKernel is out[i] = self[i with index[i] in dim].
func gatherKernel(c *kernel.Call) error {
	self, ix, o := &c.In[0], &c.In[1], &c.Out[0]
	j := getIndexJob(cpukernels.IndexGather, o.DType)
	defer j.put()
	shape := ix.Shape
	nd := len(shape)
	n, stride := dimInfo(self, c.Dim)
	j.job.Bound, j.job.Jump = int64(n), int64(stride*self.DType.ItemSize())
	j.setOperand(0, o, shape, along(&j.strides[0], o, nd, -1))
	j.setOperand(1, self, shape, along(&j.strides[1], self, nd, c.Dim))
	j.setOperand(2, ix, shape, along(&j.strides[2], ix, nd, -1))
	err := j.run(shape, c.Dim, ix, true, false)
	if err == cpukernels.ErrIndex {
		return kernel.Errorf(kernel.ErrIndex, "index %d is out of bounds for dimension %d with size %d", j.job.Bad, c.Dim, n)
	}
	return indexErr(err)
}

// indexErr turns the other errors of the C engine into kernel errors.
func indexErr(err error) error {
	switch err {
	case nil:
		return nil
	case cpukernels.ErrNoMem:
		return kernel.Errorf(kernel.ErrOutOfMemory, "CPU: out of memory for the index op's hit counts")
	}
	if _, ok := err.(*kernel.OpError); ok {
		return err
	}
	return kernel.Errorf(kernel.ErrArgument, "%v", err)
}

// indexSelectKernel copies the slices of self along c.Dim that the 1-D
// index names: a row copy per index where the slices' rows are contiguous.
func indexSelectKernel(c *kernel.Call) error {
	self, ix, o := &c.In[0], &c.In[1], &c.Out[0]
	j := getIndexJob(cpukernels.IndexGather, o.DType)
	defer j.put()
	shape := o.Shape
	nd := len(shape)
	n, stride := dimInfo(self, c.Dim)
	j.job.Bound, j.job.Jump = int64(n), int64(stride*self.DType.ItemSize())
	j.setOperand(0, o, shape, along(&j.strides[0], o, nd, -1))
	j.setOperand(1, self, shape, along(&j.strides[1], self, nd, c.Dim))
	j.setOperand(2, ix, shape, indexAlong(&j.strides[2], ix, nd, c.Dim))
	if kernel.Numel(ix.Shape) == 0 {
		return nil // nothing to read (a 0-dim self's output is left as it is)
	}
	err := j.run(shape, c.Dim, ix, true, false)
	if err == cpukernels.ErrIndex {
		return kernel.Errorf(kernel.ErrIndex, "INDICES element is out of DATA bounds, id=%d axis_dim=%d", j.job.Bad, n)
	}
	return indexErr(err)
}

// copySelf makes the output a copy of In[0] (unless it is In[0], in place).
func copySelf(c *kernel.Call) error {
	self, o := &c.In[0], &c.Out[0]
	if o.Data() == self.Data() && o.Mem == self.Mem {
		return nil
	}
	if kernel.Numel(o.Shape) == 0 {
		return nil
	}
	return castInto(opnd(o), o.DType, opnd(self), self.DType, o.Shape)
}

// scatterKernel is scatter, scatter_add and scatter_reduce: a copy of self
// with out[i with index[i] in dim] combined with src[i] (or the scalar),
// in the order of the index along dim where positions repeat.
func scatterKernel(c *kernel.Call) error {
	if err := copySelf(c); err != nil {
		return err
	}
	ix, o := &c.In[1], &c.Out[0]
	d := o.DType
	j := getIndexJob(cpukernels.IndexScatter, d)
	defer j.put()
	shape := ix.Shape
	nd := len(shape)
	n, stride := dimInfo(o, c.Dim)
	mode := c.Mode
	if c.Op == kernel.OpScatterAdd {
		mode = kernel.ReduceSum
	}
	includeSelf := c.Op != kernel.OpScatterReduce || c.KeepDim
	job := j.job
	job.Bound, job.Jump = int64(n), int64(stride*d.ItemSize())
	job.Reduce = int64(mode)
	if includeSelf {
		job.IncludeSelf = 1
	}
	// Reductions that skip self, and mean, count the hits of each output.
	if c.Op == kernel.OpScatterReduce && (!includeSelf || mode == kernel.ReduceMean) && kernel.Numel(o.Shape) > 0 {
		job.HitsLo, job.HitsSpan = elementSpan(o)
	}
	j.setOperand(0, o, shape, along(&j.strides[0], o, nd, c.Dim))
	if len(c.In) > 2 {
		j.setOperand(1, &c.In[2], shape, along(&j.strides[1], &c.In[2], nd, -1))
	} else {
		// The scalar as a one-element source.
		p := unsafe.Pointer(j.scratch)
		if d.IsFloatingPoint() {
			storeFloat(p, d, c.Scalars[0].Float())
		} else {
			storeInt(p, d, c.Scalars[0].Int())
		}
		j.ops[1] = operand{data: p, shape: shape, strides: j.strides[1][:nd], size: d.ItemSize()}
		clear(j.strides[1][:nd])
	}
	j.setOperand(2, ix, shape, along(&j.strides[2], ix, nd, -1))
	err := j.run(shape, c.Dim, ix, true, nonOverlapping(o.Shape, o.Strides))
	if err == cpukernels.ErrIndex {
		return kernel.Errorf(kernel.ErrIndex, "index %d is out of bounds for dimension %d with size %d", job.Bad, c.Dim, n)
	}
	return indexErr(err)
}

// elementSpan is the lowest element offset of o and the number of offsets from
// there to its highest.
func elementSpan(o *kernel.Operand) (lo, n int64) {
	var hi int64
	for d, s := range o.Strides {
		e := int64(o.Shape[d]-1) * int64(s)
		if e < 0 {
			lo += e
		} else {
			hi += e
		}
	}
	return lo, hi - lo + 1
}

// nonOverlapping reports (conservatively) whether no two positions of a
// layout share an element: with dims sorted by stride, each stride passes
// the extent of the dims below it.
func nonOverlapping(shape, strides []int) bool {
	var st, sz [cpukernels.MaxDims]int
	n := 0
	for d := range shape {
		if shape[d] == 1 {
			continue
		}
		if n == cpukernels.MaxDims || strides[d] <= 0 {
			return false
		}
		// insert by stride
		i := n
		for i > 0 && st[i-1] > strides[d] {
			st[i], sz[i] = st[i-1], sz[i-1]
			i--
		}
		st[i], sz[i] = strides[d], shape[d]
		n++
	}
	for i := 1; i < n; i++ {
		if st[i] < st[i-1]*sz[i-1] {
			return false
		}
	}
	return true
}

// indexAddKernel is a copy of self with out[.., index[i], ..] += alpha *
// source[.., i, ..]; negative indices count from the end.
func indexAddKernel(c *kernel.Call) error {
	if err := copySelf(c); err != nil {
		return err
	}
	ix, src, o := &c.In[1], &c.In[2], &c.Out[0]
	d := o.DType
	j := getIndexJob(cpukernels.IndexScatter, d)
	defer j.put()
	shape := src.Shape
	nd := len(shape)
	n, stride := dimInfo(o, c.Dim)
	job := j.job
	job.Bound, job.Jump, job.Wrap = int64(n), int64(stride*d.ItemSize()), 1
	job.Reduce, job.IncludeSelf = cpukernels.IndexAddAlpha, 1
	job.AlphaI, job.AlphaF = c.Scalars[0].Int(), c.Scalars[0].Float()
	j.setOperand(0, o, shape, along(&j.strides[0], o, nd, c.Dim))
	j.setOperand(1, src, shape, along(&j.strides[1], src, nd, -1))
	j.setOperand(2, ix, shape, indexAlong(&j.strides[2], ix, nd, c.Dim))
	// The index is checked where the source reads it: not at all when the
	// source is empty.
	err := j.run(shape, c.Dim, ix, kernel.Numel(shape) > 0, nonOverlapping(o.Shape, o.Strides))
	if err == cpukernels.ErrIndex {
		return kernel.Errorf(kernel.ErrIndex, "index out of range in self")
	}
	return indexErr(err)
}
