package kernel

import "testing"

func TestAllocateWith(t *testing.T) {
	type owner struct{ p *int }
	for _, n := range []int{0, 1, 64, 65, SmallMax} {
		o, m := AllocateWith[owner](n)
		if o == nil || m == nil || m.Nbytes() != n || uintptr(m.HostPtr())%HostAlignment != 0 || !m.Zeroed() {
			t.Fatalf("AllocateWith(%d) = %v, %v", n, o, m)
		}
		for i := range m.Bytes() {
			if m.Bytes()[i] != 0 {
				t.Fatalf("AllocateWith(%d): byte %d not zero", n, i)
			}
			m.Bytes()[i] = 0xAB
		}
		if o.p != nil {
			t.Fatal("owner not zero")
		}
		if m.Released() {
			t.Fatal("fresh memory is released")
		}
		m.Release()
		if !m.Released() {
			t.Fatal("Release did not mark the memory released")
		}
	}
	if o, m := AllocateWith[owner](SmallMax + 1); o != nil || m != nil {
		t.Error("AllocateWith above SmallMax must decline")
	}
	if o, m := AllocateWith[owner](-1); o != nil || m != nil {
		t.Error("AllocateWith of a negative size must decline")
	}
}

// Owners whose allocation does not round up to a multiple of
// HostAlignment get aligned bytes too (with slack).
func TestAllocateWithOddOwner(t *testing.T) {
	type odd struct{ b [3]byte }
	for range 50 {
		_, m := AllocateWith[odd](5)
		if uintptr(m.HostPtr())%HostAlignment != 0 || m.Nbytes() != 5 {
			t.Fatalf("unaligned: %p", m.HostPtr())
		}
	}
}
