package data

import (
	"context"
	"errors"
	"iter"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// slowDataset is rangeDataset whose items take longer the lower their
// index, so that workers finish out of order; Get fails at index bad.
type slowDataset struct {
	n, bad int
	reads  atomic.Int64
}

func (s *slowDataset) Len() int { return s.n }

func (s *slowDataset) Get(i int) (int, error) {
	s.reads.Add(1)
	if i == s.bad {
		return 0, errors.New("corrupt record")
	}
	time.Sleep(time.Duration((s.n-i)%7) * 50 * time.Microsecond)
	return i, nil
}

// collectInts runs one epoch of a loader of int batches.
func collectInts(t *testing.T, l *Loader[int, []int]) [][]int {
	t.Helper()
	var out [][]int
	for b, err := range l.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func TestLoaderSameBatchesWhateverTheWorkers(t *testing.T) {
	var want [][]int
	for _, workers := range []int{0, 1, 4} {
		l, err := NewLoader[[]int](&slowDataset{n: 103, bad: -1}, nil, Options{BatchSize: 8, Shuffle: true, Generator: torch.NewGenerator(9), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		got := collectInts(t, l)
		if len(got) != l.Len() || l.Len() != 13 {
			t.Fatalf("%d workers: %d batches, Len %d, want 13", workers, len(got), l.Len())
		}
		if want == nil {
			want = got
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d workers: %v\nwithout workers: %v", workers, got, want)
		}
	}
}

func TestLoaderShuffleIsReproducible(t *testing.T) {
	run := func(seed uint64) [][][]int {
		l, err := NewLoader[[]int](rangeDataset(20), nil, Options{BatchSize: 3, Shuffle: true, Generator: torch.NewGenerator(seed), Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		return [][][]int{collectInts(t, l), collectInts(t, l)}
	}
	a, b, c := run(5), run(5), run(6)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("seed 5 twice: %v and %v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 5 and 6 give the same batches %v", a)
	}
	if reflect.DeepEqual(a[0], a[1]) {
		t.Errorf("two epochs have the same order %v", a[0])
	}
}

func TestLoaderDropLast(t *testing.T) {
	for _, c := range []struct {
		drop  bool
		sizes []int
	}{{false, []int{4, 4, 2}}, {true, []int{4, 4}}} {
		l, err := NewLoader[[]int](rangeDataset(10), nil, Options{BatchSize: 4, DropLast: c.drop})
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int
		for _, b := range collectInts(t, l) {
			sizes = append(sizes, len(b))
		}
		if !reflect.DeepEqual(sizes, c.sizes) || l.Len() != len(c.sizes) {
			t.Errorf("drop_last %v: batch sizes %v, Len %d, want %v", c.drop, sizes, l.Len(), c.sizes)
		}
	}
}

// goroutinesSettle waits for the number of goroutines to fall to n.
func goroutinesSettle(n int) int {
	got := runtime.NumGoroutine()
	for i := 0; i < 200 && got > n; i++ {
		time.Sleep(5 * time.Millisecond)
		got = runtime.NumGoroutine()
	}
	return got
}

func TestLoaderEarlyBreakLeaksNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	ds := &slowDataset{n: 500, bad: -1}
	l, err := NewLoader[[]int](ds, nil, Options{BatchSize: 4, Workers: 4, PrefetchFactor: 3})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, err := range l.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		seen++
		if seen == 3 {
			break
		}
	}
	// All returns after its workers: none may be left.
	if n := runtime.NumGoroutine(); n > before {
		if n = goroutinesSettle(before); n > before {
			t.Errorf("%d goroutines after breaking out of the loop, %d before", n, before)
		}
	}
	// At most 3 yielded + 4*3 prefetched batches were read.
	if r := ds.reads.Load(); r > (3+12)*4 {
		t.Errorf("read %d items for 3 batches: the prefetch window is not kept", r)
	}
}

func TestLoaderCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, workers := range []int{0, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		l, err := NewLoader[[]int](&slowDataset{n: 200, bad: -1}, nil, Options{BatchSize: 2, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		seen, errs := 0, 0
		for _, err := range l.All(ctx) {
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%d workers: %v, want context.Canceled", workers, err)
				}
				errs++
				continue
			}
			seen++
			if seen == 2 {
				cancel()
			}
		}
		cancel()
		if seen != 2 && !(workers > 0 && seen <= 2+3*2) || errs != 1 {
			t.Errorf("%d workers: %d batches and %d errors after cancelling at the second", workers, seen, errs)
		}
	}
	if n := goroutinesSettle(before); n > before {
		t.Errorf("%d goroutines after cancelling, %d before", n, before)
	}
}

func TestLoaderItemError(t *testing.T) {
	for _, workers := range []int{0, 4} {
		l, err := NewLoader[[]int](&slowDataset{n: 50, bad: 17}, nil, Options{BatchSize: 5, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		var batches int
		var got error
		for _, err := range l.All(context.Background()) {
			if err != nil {
				got = err
				continue
			}
			batches++
		}
		var ie *ItemError
		if !errors.As(got, &ie) || ie.Index != 17 || !strings.Contains(got.Error(), "item 17: corrupt record") {
			t.Errorf("%d workers: error %v, want item 17's", workers, got)
		}
		if batches != 3 {
			t.Errorf("%d workers: %d batches before the failing one, want 3", workers, batches)
		}
	}
}

// panicDataset panics in Get.
type panicDataset struct{}

func (panicDataset) Len() int               { return 4 }
func (panicDataset) Get(i int) (int, error) { panic("broken") }

func TestLoaderPanicBecomesError(t *testing.T) {
	l, err := NewLoader[[]int](panicDataset{}, nil, Options{BatchSize: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range l.All(context.Background()) {
		if err == nil || !strings.Contains(err.Error(), "item 0: panic: broken") {
			t.Errorf("error %v, want item 0's panic", err)
		}
	}
}

func TestLoaderTensorBatches(t *testing.T) {
	ds := arangeDataset(t, 7)
	l, err := NewLoader[[]*torch.Tensor](ds, nil, Options{BatchSize: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var xs, ys [][]int
	for b, err := range l.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		xs, ys = append(xs, ints(t, b[0])), append(ys, ints(t, b[1]))
	}
	if want := [][]int{{0, 1, 2}, {3, 4, 5}, {6}}; !reflect.DeepEqual(xs, want) {
		t.Errorf("x batches %v, want %v", xs, want)
	}
	if want := [][]int{{0, 10, 20}, {30, 40, 50}, {60}}; !reflect.DeepEqual(ys, want) {
		t.Errorf("y batches %v, want %v", ys, want)
	}
}

func TestBadArguments(t *testing.T) {
	ds := rangeDataset(4)
	for _, c := range []struct {
		name string
		err  error
	}{
		{"data.NewLoader: nil dataset", second(NewLoader[[]int, int](nil, nil, Options{BatchSize: 1}))},
		{"batch size must be at least 1, got 0", second(NewLoader[[]int](ds, nil, Options{}))},
		{"batch size must be at least 1, got -2", second(NewLoader[[]int](ds, nil, Options{BatchSize: -2}))},
		{"workers must be at least 0", second(NewLoader[[]int](ds, nil, Options{BatchSize: 1, Workers: -1}))},
		{"prefetch factor", second(NewLoader[[]int](ds, nil, Options{BatchSize: 1, PrefetchFactor: 2}))},
		{"mutually exclusive", second(NewLoader[[]int](ds, nil, Options{BatchSize: 1, Shuffle: true, Sampler: &SequentialSampler{N: 4}}))},
		{"negative length", second(NewLoader[[]int](rangeDataset(-3), nil, Options{BatchSize: 1}))},
		{"data.NewTensorDataset: no tensors", second(NewTensorDataset())},
		{"data.NewTensorDataset: tensor 1 is nil", second(NewTensorDataset(torch.Arange(3), nil))},
		{"data.NewTensorDataset: size mismatch", second(NewTensorDataset(torch.Arange(3), torch.Arange(4)))},
		{"data.NewTensorDataset: tensor 0 has no dimensions", second(NewTensorDataset(torch.Scalar(1)))},
		{"data.NewConcatDataset: datasets should not be an empty list", second(NewConcatDataset[int]())},
		{"data.NewConcatDataset: dataset 1 is nil", second(NewConcatDataset[int](ds, nil))},
		{"data.RandomSplit: nil dataset", second(RandomSplit[int](nil, []int{1}, nil))},
		{"data.RandomSplit: length at index 1 is negative", second(RandomSplit[int](ds, []int{5, -1}, nil))},
		{"does not equal the length", second(RandomSplit[int](ds, []int{1, 2}, nil))},
		{"data.RandomSplitFractions: fraction at index 0", second(RandomSplitFractions[int](ds, []float64{-0.5, 1.5}, nil))},
		{"the fractions sum to 0.9", second(RandomSplitFractions[int](ds, []float64{0.4, 0.5}, nil))},
		{"data.NewRandomSampler: negative length", second(NewRandomSampler(-1, RandomOptions{}))},
		{"num_samples=0", second(NewRandomSampler(0, RandomOptions{}))},
		{"num_samples=-1", second(NewRandomSampler(3, RandomOptions{NumSamples: -1}))},
		{"num_samples=0", second(NewWeightedRandomSampler([]float64{1}, 0, true, nil))},
		{"cannot sample 3 > 2", second(NewWeightedRandomSampler([]float64{1, 1}, 3, false, nil))},
		{"weight 1 is -1", second(NewWeightedRandomSampler([]float64{1, -1}, 1, true, nil))},
		{"weight 0 is NaN", second(NewWeightedRandomSampler([]float64{nan()}, 1, true, nil))},
		{"the weights sum to 0", second(NewWeightedRandomSampler([]float64{0, 0}, 1, true, nil))},
		{"data.NewBatchSampler: nil sampler", second(NewBatchSampler(nil, 1, false))},
		{"batch_size=0", second(NewBatchSampler(&SequentialSampler{N: 3}, 0, false))},
		{"data.DefaultCollate: no items", second(DefaultCollate[int, any](nil))},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.name) {
			t.Errorf("error %v, want one containing %q", c.err, c.name)
		}
	}
}

func second[A any](_ A, err error) error { return err }

func nan() float64 { z := 0.0; return z / z }

// TestNilReceivers calls every method on a nil or zero value: errors, no
// panics.
func TestNilReceivers(t *testing.T) {
	var td *TensorDataset
	var sub *Subset[int]
	var cat *ConcatDataset[int]
	var seq *SequentialSampler
	var rs *RandomSampler
	var ws *WeightedRandomSampler
	var bs *BatchSampler
	var l *Loader[int, []int]
	var ie *ItemError
	lens := []int{td.Len(), sub.Len(), cat.Len(), seq.Len(), rs.Len(), ws.Len(), bs.Len(), l.Len(), (&Subset[int]{}).Len()}
	for i, n := range lens {
		if n != 0 {
			t.Errorf("Len %d of a nil value is %d", i, n)
		}
	}
	errs := []error{
		second(td.Get(0)), second(sub.Get(0)), second((&Subset[int]{}).Get(0)), second(cat.Get(0)),
		second(seq.Indices()), second(rs.Indices()), second(ws.Indices()), second(bs.Batches()),
		second((&SequentialSampler{N: -1}).Indices()), second((&RandomSampler{}).Indices()),
		second((&WeightedRandomSampler{}).Indices()), second((&BatchSampler{}).Batches()),
		second((&Subset[int]{Dataset: rangeDataset(3), Indices: []int{0}}).Get(1)),
	}
	for _, err := range l.All(context.Background()) {
		errs = append(errs, err)
	}
	for _, err := range (&Loader[int, []int]{}).All(context.Background()) {
		errs = append(errs, err)
	}
	for i, err := range errs {
		if err == nil {
			t.Errorf("call %d on a nil value gave no error", i)
		}
	}
	if td.Tensors() != nil || ie.Unwrap() != nil || ie.Error() == "" {
		t.Errorf("nil TensorDataset or ItemError accessors")
	}
}

func TestDatasets(t *testing.T) {
	cat, err := NewConcatDataset[int](rangeDataset(2), rangeDataset(0), rangeDataset(3))
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for i := range cat.Len() {
		v, err := cat.Get(i)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if want := []int{0, 1, 0, 1, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("ConcatDataset items %v, want %v", got, want)
	}
	for _, i := range []int{-1, 5} {
		if _, err := cat.Get(i); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("Get(%d): %v", i, err)
		}
	}
	ds := arangeDataset(t, 4)
	if _, err := ds.Get(4); err == nil {
		t.Error("TensorDataset.Get(4) of 4 items gave no error")
	}
	item, err := ds.Get(2)
	if err != nil || len(item) != 2 || ints(t, item[1].Unsqueeze(0))[0] != 20 {
		t.Errorf("TensorDataset.Get(2) = %v, %v", item, err)
	}
	sub := &Subset[int]{Dataset: rangeDataset(10), Indices: []int{7, 3}}
	if v, err := sub.Get(1); err != nil || v != 3 {
		t.Errorf("Subset.Get(1) = %d, %v; want 3", v, err)
	}
}

// stream is an IterableDataset of 0..n-1 that fails at bad.
type stream struct{ n, bad int }

func (s stream) All() iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for i := range s.n {
			if i == s.bad {
				yield(0, errors.New("broken stream"))
				return
			}
			if !yield(i, nil) {
				return
			}
		}
	}
}

func TestBatches(t *testing.T) {
	var got [][]int
	for b, err := range Batches[[]int, int](context.Background(), stream{n: 7, bad: -1}, 3, false, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if want := [][]int{{0, 1, 2}, {3, 4, 5}, {6}}; !reflect.DeepEqual(got, want) {
		t.Errorf("batches %v, want %v", got, want)
	}
	var last error
	n := 0
	for _, err := range Batches[[]int, int](context.Background(), stream{n: 7, bad: 4}, 3, true, nil) {
		last = err
		n++
	}
	if n != 2 || last == nil || !strings.Contains(last.Error(), "item 4: broken stream") {
		t.Errorf("%d yields, last error %v", n, last)
	}
	for _, err := range Batches[[]int, int](context.Background(), nil, 3, true, nil) {
		last = err
	}
	if last == nil {
		t.Error("Batches of a nil dataset gave no error")
	}
}
