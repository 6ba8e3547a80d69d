package dispatch

import (
	"slices"
	"weak"
)

// readerSet is the set of calls registered under one key (readers.go): a
// short list while it is small, as most keys are (a pending result read by
// the next op), and a map once it grows, as the keys of weights read by
// every pipeline of a loop do, so that adding and removing an entry never
// scans more than a few.
type readerSet struct {
	few  []weak.Pointer[node]
	many map[weak.Pointer[node]]struct{}
}

// fewReaders is how many entries a set keeps in its list.
const fewReaders = 8

// add adds w, which is not in the set (register adds a call once, under
// its distinct keys).
func (s *readerSet) add(w weak.Pointer[node]) {
	if s.many == nil && len(s.few) < fewReaders {
		s.few = append(s.few, w)
		return
	}
	if s.many == nil {
		s.many = make(map[weak.Pointer[node]]struct{}, 2*fewReaders)
		for _, e := range s.few {
			s.many[e] = struct{}{}
		}
		s.few = nil
	}
	s.many[w] = struct{}{}
}

func (s *readerSet) remove(w weak.Pointer[node]) {
	if s.many != nil {
		delete(s.many, w)
		return
	}
	for i, e := range s.few {
		if e == w {
			last := len(s.few) - 1
			s.few[i], s.few[last] = s.few[last], weak.Pointer[node]{}
			s.few = s.few[:last]
			return
		}
	}
}

// prune drops the entries of collected calls and returns how many are
// left.
func (s *readerSet) prune() int {
	if s.many != nil {
		for w := range s.many {
			if w.Value() == nil {
				delete(s.many, w)
			}
		}
		return len(s.many)
	}
	s.few = slices.DeleteFunc(s.few, func(w weak.Pointer[node]) bool { return w.Value() == nil })
	return len(s.few)
}

func (s *readerSet) len() int { return len(s.few) + len(s.many) }

// live appends the calls of the set that are still reachable to l.
func (s *readerSet) live(l []*node) []*node {
	for _, w := range s.few {
		if n := w.Value(); n != nil {
			l = append(l, n)
		}
	}
	for w := range s.many {
		if n := w.Value(); n != nil {
			l = append(l, n)
		}
	}
	return l
}
