package dispatch

import (
	"math/rand/v2"
	"slices"
	"testing"
	"weak"
)

// TestReaderSet adds and removes entries across the switch from list to
// map, in random order, and checks the set against a plain map each step.
func TestReaderSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, fewReaders - 1, fewReaders, fewReaders + 1, 100} {
		nodes := make([]*node, size)
		for i := range nodes {
			nodes[i] = &node{seq: uint64(i)}
		}
		var s readerSet
		want := map[*node]bool{}
		check := func(step string) {
			t.Helper()
			if s.len() != len(want) {
				t.Fatalf("size %d, %s: len %d, want %d", size, step, s.len(), len(want))
			}
			got := s.live(nil)
			slices.SortFunc(got, func(a, b *node) int { return int(a.seq) - int(b.seq) })
			for i, n := range got {
				if !want[n] || (i > 0 && got[i-1] == n) {
					t.Fatalf("size %d, %s: the set holds %v", size, step, got)
				}
			}
		}
		for _, n := range nodes {
			s.add(weak.Make(n))
			want[n] = true
			check("add")
		}
		s.remove(weak.Make(&node{})) // not a member: nothing happens
		check("remove of a stranger")
		for _, i := range r.Perm(size) {
			s.remove(weak.Make(nodes[i]))
			delete(want, nodes[i])
			check("remove")
		}
		for _, n := range nodes[:size/2] { // the set is usable again once empty
			s.add(weak.Make(n))
			want[n] = true
		}
		check("add after emptying")
	}
}
