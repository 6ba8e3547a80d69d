package cpu

import "math/bits"

// stl holds libstdc++'s (GCC 12) sorting algorithms on q, with less as the
// comparator, step by step, so that elements equal under less end where
// they end in C++. Positions are indices into q.
type stl struct {
	q    []int64
	less func(a, b int64) bool
}

func (s stl) swap(i, j int) { s.q[i], s.q[j] = s.q[j], s.q[i] }

// lg is std::__lg: floor(log2(n)) for n > 0.
func lg(n int) int { return bits.Len(uint(n)) - 1 }

// sort is std::sort of [first, last): introsort, then insertion sort.
func (s stl) sort(first, last int) {
	if first == last {
		return
	}
	s.introsortLoop(first, last, 2*lg(last-first))
	s.finalInsertionSort(first, last)
}

// threshold is libstdc++'s _S_threshold.
const threshold = 16

func (s stl) introsortLoop(first, last, depth int) {
	for last-first > threshold {
		if depth == 0 {
			s.heapSelect(first, last, last) // std::__partial_sort(first, last, last)
			s.sortHeap(first, last)
			return
		}
		depth--
		cut := s.partitionPivot(first, last)
		s.introsortLoop(cut, last, depth)
		last = cut
	}
}

func (s stl) finalInsertionSort(first, last int) {
	if last-first <= threshold {
		s.insertionSort(first, last)
		return
	}
	s.insertionSort(first, first+threshold)
	for i := first + threshold; i < last; i++ {
		s.linearInsert(first, i)
	}
}

// partitionPivot is std::__unguarded_partition_pivot: the median of
// first+1, mid and last-1 moved to first, then a partition around it.
func (s stl) partitionPivot(first, last int) int {
	mid := first + (last-first)/2
	a, b, c := first+1, mid, last-1
	q, less := s.q, s.less
	switch {
	case less(q[a], q[b]):
		switch {
		case less(q[b], q[c]):
			s.swap(first, b)
		case less(q[a], q[c]):
			s.swap(first, c)
		default:
			s.swap(first, a)
		}
	case less(q[a], q[c]):
		s.swap(first, a)
	case less(q[b], q[c]):
		s.swap(first, c)
	default:
		s.swap(first, b)
	}
	// std::__unguarded_partition(first+1, last, first); the bounds checks
	// never fail for a strict weak order, which less is.
	pivot, lo, hi := first, first+1, last
	for {
		for lo < last && less(q[lo], q[pivot]) {
			lo++
		}
		hi--
		for hi > first && less(q[pivot], q[hi]) {
			hi--
		}
		if lo >= hi {
			return lo
		}
		s.swap(lo, hi)
		lo++
	}
}

// insertionSort is std::__insertion_sort of [first, last).
func (s stl) insertionSort(first, last int) {
	for i := first + 1; i < last; i++ {
		if s.less(s.q[i], s.q[first]) {
			v := s.q[i]
			copy(s.q[first+1:i+1], s.q[first:i])
			s.q[first] = v
		} else {
			s.linearInsert(first, i)
		}
	}
}

// linearInsert is std::__unguarded_linear_insert of position i (first
// bounds the walk, which a smaller element before i stops anyway).
func (s stl) linearInsert(first, i int) {
	v := s.q[i]
	for i > first && s.less(v, s.q[i-1]) {
		s.q[i] = s.q[i-1]
		i--
	}
	s.q[i] = v
}

// heapSelect is std::__heap_select: a heap of [first, mid) that keeps the
// elements that come first of [first, last).
func (s stl) heapSelect(first, mid, last int) {
	s.makeHeap(first, mid)
	for i := mid; i < last; i++ {
		if s.less(s.q[i], s.q[first]) {
			s.popHeap(first, mid, i)
		}
	}
}

// sortHeap is std::__sort_heap of [first, last).
func (s stl) sortHeap(first, last int) {
	for last-first > 1 {
		last--
		s.popHeap(first, last, last)
	}
}

func (s stl) makeHeap(first, last int) {
	n := last - first
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		s.adjustHeap(first, parent, n, s.q[first+parent])
		if parent == 0 {
			return
		}
	}
}

// popHeap is std::__pop_heap(first, last, result): the top to result,
// result's element into the heap [first, last).
func (s stl) popHeap(first, last, result int) {
	v := s.q[result]
	s.q[result] = s.q[first]
	s.adjustHeap(first, 0, last-first, v)
}

// adjustHeap is std::__adjust_heap: the hole at hole (relative to first)
// sinks to a leaf, then v rises from it (std::__push_heap).
func (s stl) adjustHeap(first, hole, n int, v int64) {
	q := s.q[first : first+n]
	top, child := hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if s.less(q[child], q[child-1]) {
			child--
		}
		q[hole] = q[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		q[hole] = q[child-1]
		hole = child - 1
	}
	for parent := (hole - 1) / 2; hole > top && s.less(q[parent], v); parent = (hole - 1) / 2 {
		q[hole] = q[parent]
		hole = parent
	}
	q[hole] = v
}
