package cpu

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

var allDTypes = []dtype.DType{dtype.Bool, dtype.Uint8, dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64,
	dtype.Float16, dtype.BFloat16, dtype.Float32, dtype.Float64}

// ixTensor makes an operand of shape in a layout: 0 contiguous, 1
// transposed (dims reversed in memory), 2 every other element of the last
// dim. f gives element i in logical order.
func ixTensor(t testing.TB, d dtype.DType, shape []int, layout int, f func(i int) float64) kernel.Operand {
	nd := len(shape)
	if nd == 0 {
		layout = 0
	}
	alloc := slices.Clone(shape)
	switch layout {
	case 1:
		slices.Reverse(alloc)
	case 2:
		alloc[nd-1] *= 2
	}
	base, err := newContiguous(alloc, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(base.Mem.Release)
	v := base
	v.Shape = slices.Clone(shape)
	v.Strides = slices.Clone(base.Strides)
	switch layout {
	case 1:
		slices.Reverse(v.Strides)
	case 2:
		v.Strides[nd-1] = 2
	}
	es := d.ItemSize()
	idx := make([]int, nd)
	for i := range kernel.Numel(shape) {
		off := 0
		for k := range nd {
			off += idx[k] * v.Strides[k]
		}
		p := unsafe.Add(v.Data(), off*es)
		if d.IsFloatingPoint() {
			storeFloat(p, d, f(i))
		} else {
			storeInt(p, d, int64(f(i)))
		}
		for k := nd - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return v
}

// logicalBytes is o's elements in logical order.
func logicalBytes(t testing.TB, o *kernel.Operand) []byte {
	c, err := contiguousCopy(o, o.DType)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Mem.Release()
	return slices.Clone(bytesAt(c.Data(), kernel.Numel(o.Shape)*o.DType.ItemSize()))
}

func randValue(r *rand.Rand, d dtype.DType) float64 {
	switch {
	case d == dtype.Bool:
		return float64(r.Intn(2))
	case d == dtype.Uint8:
		return float64(r.Intn(6))
	case !d.IsFloatingPoint():
		return float64(r.Intn(9) - 4)
	}
	vals := []float64{-2, -1, -0.5, 0, 0.25, 1, 1.5, 3, 1e4, 1.0 / 3, -7.125}
	if r.Intn(40) == 0 {
		return math.NaN()
	}
	return vals[r.Intn(len(vals))]
}

// ixCase is one call, run twice: by the kernel and by the reference.
type ixCase struct {
	op      kernel.OpID
	dim     int
	mode    int
	keep    bool
	scalar  kernel.Scalar
	in      []kernel.Operand
	inPlace bool
}

func (k *ixCase) String() string {
	s := fmt.Sprintf("%s dim=%d mode=%d include_self=%v inplace=%v", k.op, k.dim, k.mode, k.keep, k.inPlace)
	for _, in := range k.in {
		s += fmt.Sprintf(" %s%v/%v", in.DType, in.Shape, in.Strides)
	}
	return s
}

// run runs the case with kernel f; the output is fresh, or for an
// in-place case a copy of self in self's layout.
func (k *ixCase) run(t testing.TB, f kernel.KernelFunc) (*kernel.Operand, error) {
	c := new(kernel.Call)
	c.Init(k.op, device.CPUDevice, len(k.in), 1)
	copy(c.In, k.in)
	c.Dim, c.Mode, c.KeepDim = k.dim, k.mode, k.keep
	c.Scalars[0] = k.scalar
	if err := kernel.Meta(k.op)(c); err != nil {
		t.Fatalf("%s: meta: %v", k, err)
	}
	o := &c.Out[0]
	if k.inPlace {
		self := c.In[0]
		cp := ixTensor(t, self.DType, self.Shape, 1, func(int) float64 { return 0 })
		if err := castInto(opnd(&cp), cp.DType, opnd(&self), self.DType, self.Shape); err != nil {
			t.Fatal(err)
		}
		c.In[0], c.Out[0] = cp, cp
	} else {
		if err := bindNew(o, kernel.Numel(o.Shape)*o.DType.ItemSize()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(o.Mem.Release)
		clear(bytesAt(o.Data(), kernel.Numel(o.Shape)*o.DType.ItemSize()))
	}
	return &c.Out[0], f(c)
}

func (k *ixCase) check(t *testing.T) {
	t.Helper()
	got, gerr := k.run(t, kernel.Lookup(k.op, device.CPU))
	want, werr := k.run(t, map[kernel.OpID]kernel.KernelFunc{kernel.OpGather: refGather,
		kernel.OpIndexSelect: refIndexSelect, kernel.OpScatter: refScatter, kernel.OpScatterAdd: refScatter,
		kernel.OpScatterReduce: refScatter, kernel.OpIndexAdd: refIndexAdd}[k.op])
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%s: error %v, want %v", k, gerr, werr)
	}
	if gerr != nil {
		return
	}
	if g, w := logicalBytes(t, got), logicalBytes(t, want); !bytes.Equal(g, w) {
		t.Fatalf("%s: bytes differ\n got %v\nwant %v", k, g[:min(len(g), 64)], w[:min(len(w), 64)])
	}
}

func randShape(r *rand.Rand, nd, maxSize int) []int {
	s := make([]int, nd)
	for i := range s {
		s[i] = r.Intn(maxSize + 1)
		if r.Intn(4) != 0 && s[i] == 0 {
			s[i] = 1 + r.Intn(maxSize)
		}
	}
	return s
}

// randIndex fills an index of shape with values in [lo, n), one of them
// out of range when bad.
func randIndex(t testing.TB, r *rand.Rand, d dtype.DType, shape []int, lo, n int, bad bool) kernel.Operand {
	numel := kernel.Numel(shape)
	badAt := -1
	if bad && numel > 0 {
		badAt = r.Intn(numel)
	}
	return ixTensor(t, d, shape, r.Intn(3), func(i int) float64 {
		if i == badAt || n-lo <= 0 {
			return float64([]int{n, n + 3, -n - 1, -1}[r.Intn(4)])
		}
		return float64(lo + r.Intn(n-lo))
	})
}

// TestIndexKernelsMatchReference runs random calls of every index op on
// every dtype and layout (transposed and strided inputs and indices, 0-dim
// and empty tensors, duplicate indices, in-place outputs, indices out of
// range) through the C kernels and through the Go kernels they replaced:
// results bit for bit, errors word for word.
func TestIndexKernelsMatchReference(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	cases := 3000
	if testing.Short() {
		cases = 600
	}
	for range cases {
		k := randCase(t, r, 4)
		k.check(t)
	}
}

func randCase(t testing.TB, r *rand.Rand, maxSize int) *ixCase {
	ops := []kernel.OpID{kernel.OpGather, kernel.OpIndexSelect, kernel.OpScatter, kernel.OpScatterAdd,
		kernel.OpScatterReduce, kernel.OpIndexAdd}
	k := &ixCase{op: ops[r.Intn(len(ops))]}
	d := allDTypes[r.Intn(len(allDTypes))]
	nd := r.Intn(4)
	shape := randShape(r, nd, maxSize)
	k.dim = 0
	if nd > 0 {
		k.dim = r.Intn(nd)
	}
	n := 1
	if nd > 0 {
		n = shape[k.dim]
	}
	bad := r.Intn(15) == 0
	fill := func(i int) float64 { return randValue(r, d) }
	self := ixTensor(t, d, shape, r.Intn(3), fill)
	ixd := dtype.Int64
	switch k.op {
	case kernel.OpGather, kernel.OpScatter, kernel.OpScatterAdd, kernel.OpScatterReduce:
		ishape := slices.Clone(shape)
		for i := range ishape {
			if i == k.dim {
				ishape[i] = r.Intn(maxSize + 2)
			} else if ishape[i] > 0 {
				ishape[i] = r.Intn(ishape[i] + 1)
			}
		}
		if nd == 1 && r.Intn(4) == 0 {
			ishape = nil // a 0-dim index of a 1-D self
		}
		ix := randIndex(t, r, ixd, ishape, 0, n, bad)
		k.in = []kernel.Operand{self, ix}
		if k.op == kernel.OpGather {
			break
		}
		if k.op == kernel.OpScatter && r.Intn(3) == 0 {
			if d.IsFloatingPoint() {
				k.scalar = kernel.FloatScalar(randValue(r, d))
			} else {
				k.scalar = kernel.IntScalar(int64(randValue(r, d)))
			}
		} else {
			sshape := slices.Clone(ishape)
			for i := range sshape {
				sshape[i] += r.Intn(2)
			}
			k.in = append(k.in, ixTensor(t, d, sshape, r.Intn(3), fill))
		}
		switch k.op {
		case kernel.OpScatter:
			k.mode = []int{kernel.ReduceNone, kernel.ReduceSum, kernel.ReduceProd}[r.Intn(3)]
		case kernel.OpScatterReduce:
			k.mode = kernel.ReduceSum + r.Intn(5)
			k.keep = r.Intn(2) == 0
		}
	case kernel.OpIndexSelect, kernel.OpIndexAdd:
		if r.Intn(2) == 0 {
			ixd = dtype.Int32
		}
		var ishape []int
		if nd > 0 || r.Intn(2) == 0 {
			ishape = []int{r.Intn(maxSize + 2)}
		}
		if nd == 0 && len(ishape) == 1 {
			ishape[0] = 1 // a 0-dim self takes one index
		}
		lo := 0
		if k.op == kernel.OpIndexAdd {
			lo = -n
		}
		ix := randIndex(t, r, ixd, ishape, lo, n, bad)
		k.in = []kernel.Operand{self, ix}
		if k.op == kernel.OpIndexAdd {
			sshape := slices.Clone(shape)
			if nd > 0 {
				sshape[k.dim] = kernel.Numel(ishape)
			} else if len(ishape) == 1 && r.Intn(2) == 0 {
				sshape = []int{1}
			}
			k.in = append(k.in, ixTensor(t, d, sshape, r.Intn(3), fill))
			switch {
			case d.IsFloatingPoint():
				k.scalar = kernel.FloatScalar([]float64{1, 0.5, -3, 1.0 / 3}[r.Intn(4)])
			default:
				k.scalar = kernel.IntScalar([]int64{1, 2, -3}[r.Intn(3)])
			}
		}
	}
	k.inPlace = k.op != kernel.OpGather && k.op != kernel.OpIndexSelect && r.Intn(3) == 0
	return k
}

// TestIndexKernelsLarge runs ops large enough to split across the worker
// pool, with many duplicate indices, against the single-threaded Go
// reference: the split keeps PyTorch's order of combination.
func TestIndexKernelsLarge(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	f32 := func(i int) float64 { return float64(r.Intn(1000))/7 - 50 }
	type shapeCase struct {
		op             kernel.OpID
		self, ix, src  []int
		dim, mode      int
		keep, inPlace  bool
		d              dtype.DType
		selfLayout, lo int
	}
	cases := []shapeCase{
		{op: kernel.OpGather, self: []int{300, 400}, ix: []int{300, 256}, dim: 1, d: dtype.Float32},
		{op: kernel.OpGather, self: []int{400, 300}, ix: []int{256, 300}, dim: 0, d: dtype.Float16, selfLayout: 1},
		{op: kernel.OpIndexSelect, self: []int{500, 300}, ix: []int{200}, dim: 0, d: dtype.Float32},
		{op: kernel.OpIndexSelect, self: []int{200, 500}, ix: []int{300}, dim: 1, d: dtype.Int16, selfLayout: 2},
		{op: kernel.OpScatterAdd, self: []int{300, 64}, ix: []int{300, 256}, src: []int{300, 256}, dim: 1, d: dtype.Float32},
		{op: kernel.OpScatterAdd, self: []int{64, 300}, ix: []int{256, 300}, src: []int{256, 300}, dim: 0, d: dtype.Float32, inPlace: true},
		{op: kernel.OpScatter, self: []int{300, 64}, ix: []int{300, 256}, src: []int{300, 256}, dim: 1, d: dtype.Float64},
		{op: kernel.OpScatterReduce, self: []int{64, 300}, ix: []int{256, 300}, src: []int{256, 300}, dim: 0, mode: kernel.ReduceMean, d: dtype.BFloat16},
		{op: kernel.OpScatterReduce, self: []int{300, 64}, ix: []int{300, 256}, src: []int{300, 256}, dim: 1, mode: kernel.ReduceProd, d: dtype.Float32, keep: true},
		{op: kernel.OpScatterReduce, self: []int{2, 64, 300}, ix: []int{2, 256, 300}, src: []int{2, 256, 300}, dim: 1, mode: kernel.ReduceAmax, d: dtype.Int32},
		{op: kernel.OpIndexAdd, self: []int{64, 600}, ix: []int{200}, src: []int{200, 600}, dim: 0, d: dtype.Float32, lo: -64},
		{op: kernel.OpIndexAdd, self: []int{64, 600}, ix: []int{200}, src: []int{200, 600}, dim: 0, d: dtype.Float16, inPlace: true},
		{op: kernel.OpIndexAdd, self: []int{600, 64}, ix: []int{200}, src: []int{600, 200}, dim: 1, d: dtype.Float64},
	}
	for _, sc := range cases {
		k := &ixCase{op: sc.op, dim: sc.dim, mode: sc.mode, keep: sc.keep, inPlace: sc.inPlace}
		n := sc.self[sc.dim]
		ixd := dtype.Int64
		if sc.op == kernel.OpIndexAdd || sc.op == kernel.OpIndexSelect {
			ixd = dtype.Int32
		}
		k.in = []kernel.Operand{ixTensor(t, sc.d, sc.self, sc.selfLayout, f32), randIndex(t, r, ixd, sc.ix, sc.lo, n, false)}
		if sc.src != nil {
			k.in = append(k.in, ixTensor(t, sc.d, sc.src, 1, f32))
		}
		if sc.op == kernel.OpIndexAdd {
			k.scalar = kernel.FloatScalar(0.5)
		}
		k.check(t)
	}
}

// TestScatterDuplicatesInPyTorchOrder pins results PyTorch 1.13 gives for
// duplicate indices: the last write wins in scatter, float sums add in
// index order.
func TestScatterDuplicatesInPyTorchOrder(t *testing.T) {
	self := ixTensor(t, dtype.Float32, []int{2}, 0, func(int) float64 { return 0 })
	ix := ixTensor(t, dtype.Int64, []int{4}, 0, func(i int) float64 { return float64([]int{1, 0, 1, 1}[i]) })
	src := ixTensor(t, dtype.Float32, []int{4}, 0, func(i int) float64 { return []float64{1e8, 5, 1, -1e8}[i] })
	for _, tc := range []struct {
		op   kernel.OpID
		want []float32
	}{
		// torch.zeros(2).scatter(0, torch.tensor([1,0,1,1]), torch.tensor([1e8,5,1,-1e8]))
		{kernel.OpScatter, []float32{5, -1e8}},
		// .scatter_add: (1e8 + 1) rounds to 1e8 in float32, then -1e8: 0
		{kernel.OpScatterAdd, []float32{5, 0}},
	} {
		k := &ixCase{op: tc.op, in: []kernel.Operand{self, ix, src}}
		o, err := k.run(t, kernel.Lookup(tc.op, device.CPU))
		if err != nil {
			t.Fatal(err)
		}
		got := unsafe.Slice((*float32)(o.Data()), 2)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.op, got, tc.want)
		}
	}
}
