package data

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Options configure a Loader, as the arguments of
// torch.utils.data.DataLoader.
type Options struct {
	// BatchSize is the number of items per batch, at least 1.
	BatchSize int
	// Shuffle reads the items in a new random order each epoch (a
	// RandomSampler drawing from Generator).
	Shuffle bool
	// DropLast drops the last batch of an epoch when it is smaller.
	DropLast bool
	// Generator is the loader's generator: each epoch draws a base seed
	// from it, and a shuffling loader its permutation. Nil is the default
	// generator, from which the sampler draws a fresh seed per epoch, as
	// PyTorch's does.
	Generator *torch.Generator
	// Sampler chooses the indices instead of Shuffle (which must then be
	// false).
	Sampler Sampler
	// Workers is the number of goroutines that read and collate batches;
	// 0 reads them in the caller's goroutine. The batches come in the same
	// order whatever the number.
	Workers int
	// PrefetchFactor is the number of batches each worker loads ahead: at
	// most Workers * PrefetchFactor batches are in flight. 0 means 2; it
	// must be 0 without workers.
	PrefetchFactor int
}

// Loader reads a dataset in batches, as torch.utils.data.DataLoader: a
// batch sampler picks the indices of each batch, the items are read with
// Get and collated into a B. A Loader may be iterated any number of times,
// one epoch each, but not by two loops at once.
type Loader[T, B any] struct {
	ds       Dataset[T]
	collate  func([]T) (B, error)
	batches  *BatchSampler
	gen      *torch.Generator
	workers  int
	prefetch int
}

// ItemError is the error of a dataset's Get: the index of the item and
// what went wrong.
type ItemError struct {
	Index int   // the dataset index of the item
	Err   error // what Get returned, or the panic it raised
}

// Error says which item failed and why.
func (e *ItemError) Error() string {
	if e == nil {
		return "data: <nil ItemError>"
	}
	return fmt.Sprintf("data: item %d: %v", e.Index, e.Err)
}

// Unwrap returns the dataset's error.
func (e *ItemError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// NewLoader makes a loader of ds; a nil collate is DefaultCollate[T, B].
func NewLoader[B, T any](ds Dataset[T], collate func([]T) (B, error), o Options) (*Loader[T, B], error) {
	const op = "data.NewLoader"
	if ds == nil {
		return nil, errors.New(op + ": nil dataset")
	}
	if o.BatchSize <= 0 {
		return nil, fmt.Errorf("%s: batch size must be at least 1, got %d", op, o.BatchSize)
	}
	if o.Workers < 0 {
		return nil, fmt.Errorf("%s: the number of workers must be at least 0, got %d", op, o.Workers)
	}
	if o.PrefetchFactor < 0 || (o.PrefetchFactor > 0 && o.Workers == 0) {
		return nil, fmt.Errorf("%s: prefetch factor %d: it must be positive, and set only with workers", op, o.PrefetchFactor)
	}
	if o.PrefetchFactor == 0 {
		o.PrefetchFactor = 2
	}
	if n := ds.Len(); n < 0 {
		return nil, fmt.Errorf("%s: the dataset has a negative length %d", op, n)
	}
	sampler := o.Sampler
	switch {
	case sampler != nil && o.Shuffle:
		return nil, errors.New(op + ": Sampler is mutually exclusive with Shuffle")
	case o.Shuffle:
		s, err := NewRandomSampler(ds.Len(), RandomOptions{Generator: o.Generator})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		sampler = s
	case sampler == nil:
		sampler = &SequentialSampler{N: ds.Len()}
	}
	batches, err := NewBatchSampler(sampler, o.BatchSize, o.DropLast)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if collate == nil {
		collate = DefaultCollate[T, B]
	}
	return &Loader[T, B]{ds: ds, collate: collate, batches: batches, gen: o.Generator, workers: o.Workers, prefetch: o.PrefetchFactor}, nil
}

// Len is the number of batches of an epoch.
func (l *Loader[T, B]) Len() int {
	if l == nil {
		return 0
	}
	return l.batches.Len()
}

// All yields the batches of one epoch, in order, until ctx is done (a nil
// ctx is context.Background()). An error (a dataset's, an ItemError;
// collate's; ctx's) is yielded once with a zero batch and ends the epoch.
// Breaking out of the loop stops the workers and waits for them.
//
// Each epoch first draws a base seed from the loader's generator, as
// PyTorch's DataLoader iterator does (it seeds PyTorch's worker
// processes; here it only keeps the generator in step with PyTorch's),
// then the sampler's indices.
func (l *Loader[T, B]) All(ctx context.Context) iter.Seq2[B, error] {
	return func(yield func(B, error) bool) {
		var zero B
		if l == nil || l.ds == nil {
			yield(zero, errors.New("data.Loader.All: nil loader"))
			return
		}
		if ctx == nil {
			ctx = context.Background()
		}
		if _, err := drawSeed("data.Loader.All", l.gen); err != nil {
			yield(zero, err)
			return
		}
		batches, err := l.batches.Batches()
		if err != nil {
			yield(zero, err)
			return
		}
		if l.workers == 0 {
			for _, idx := range batches {
				if err := ctx.Err(); err != nil {
					yield(zero, err)
					return
				}
				b, err := l.load(idx)
				if !yield(b, err) || err != nil {
					return
				}
			}
			return
		}
		l.parallel(ctx, batches, yield)
	}
}

// result is a loaded batch.
type result[B any] struct {
	batch B
	err   error
}

// parallel loads batches with the workers, at most workers * prefetch
// ahead of the caller, and yields them in order.
func (l *Loader[T, B]) parallel(ctx context.Context, batches [][]int, yield func(B, error) bool) {
	var zero B
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	window := l.workers * l.prefetch
	jobs := make(chan int, window) // never full: at most window batches are sent and not yet yielded
	results := make([]chan result[B], len(batches))
	for k := range results {
		results[k] = make(chan result[B], 1)
	}
	defer wg.Wait()
	defer cancel()
	defer close(jobs)
	for range l.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				if ctx.Err() != nil {
					return
				}
				b, err := l.load(batches[k])
				results[k] <- result[B]{b, err}
			}
		}()
	}
	sent := 0
	for k := range batches {
		for ; sent < len(batches) && sent < k+window; sent++ {
			jobs <- sent
		}
		select {
		case r := <-results[k]:
			if !yield(r.batch, r.err) || r.err != nil {
				return
			}
		case <-ctx.Done():
			yield(zero, ctx.Err())
			return
		}
	}
}

// load reads the items of a batch and collates them; a panic in the
// dataset or collate becomes an error.
func (l *Loader[T, B]) load(idx []int) (B, error) {
	var zero B
	items := make([]T, len(idx))
	for j, i := range idx {
		err := safely(func() (err error) {
			items[j], err = l.ds.Get(i)
			return err
		})
		if err != nil {
			return zero, &ItemError{Index: i, Err: err}
		}
	}
	var b B
	err := safely(func() (err error) {
		b, err = l.collate(items)
		return err
	})
	if err != nil {
		return zero, fmt.Errorf("data: collating the batch of items %v: %w", idx, err)
	}
	return b, nil
}

// safely runs f, turning a panic into an error.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// Batches yields the items of an iterable dataset in batches of batchSize
// (at least 1) collated by collate (nil: DefaultCollate[T, B]), the last
// one smaller unless dropLast, until ctx is done: a DataLoader of an
// IterableDataset without workers.
func Batches[B, T any](ctx context.Context, ds IterableDataset[T], batchSize int, dropLast bool, collate func([]T) (B, error)) iter.Seq2[B, error] {
	return func(yield func(B, error) bool) {
		var zero B
		if ds == nil {
			yield(zero, errors.New("data.Batches: nil dataset"))
			return
		}
		if batchSize <= 0 {
			yield(zero, fmt.Errorf("data.Batches: batch size must be at least 1, got %d", batchSize))
			return
		}
		if ctx == nil {
			ctx = context.Background()
		}
		if collate == nil {
			collate = DefaultCollate[T, B]
		}
		emit := func(items []T) bool {
			var b B
			err := safely(func() (err error) {
				b, err = collate(items)
				return err
			})
			if err != nil {
				yield(zero, fmt.Errorf("data.Batches: %w", err))
				return false
			}
			return yield(b, nil)
		}
		var items []T
		read := 0 // items read so far
		var stream iter.Seq2[T, error]
		if err := safely(func() error { stream = ds.All(); return nil }); err != nil || stream == nil {
			yield(zero, fmt.Errorf("data.Batches: the dataset gives no stream (%v)", err))
			return
		}
		for it, err := range stream {
			if err != nil {
				yield(zero, fmt.Errorf("data.Batches: item %d: %w", read, err))
				return
			}
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			items = append(items, it)
			read++
			if len(items) == batchSize {
				if !emit(items) {
					return
				}
				items = nil
			}
		}
		if len(items) > 0 && !dropLast {
			emit(items)
		}
	}
}
