package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// FuzzIndexPut reads with Index and writes with IndexPut_ at random
// (possibly repeated, negative or out-of-range) positions of a random shape
// and compares the results with Go loops: an error exactly when a position
// is out of range, otherwise the same values and sums.
func FuzzIndexPut(f *testing.F) {
	f.Add(uint8(3), uint8(4), uint8(2), []byte{0, 1, 2, 3, 255, 254})
	f.Add(uint8(1), uint8(1), uint8(0), []byte{7, 0})
	f.Add(uint8(2), uint8(0), uint8(3), []byte{})
	f.Fuzz(func(t *testing.T, a, b, c uint8, pos []byte) {
		shape := []int{int(a % 5), int(b % 5), int(c % 4)}
		if len(pos) > 16 {
			pos = pos[:16]
		}
		n := len(pos) / 2
		rows, cols := make([]int64, n), make([]int64, n)
		valid := true
		for i := range n {
			// Positions from -6 to 6: some out of range.
			rows[i], cols[i] = int64(int8(pos[2*i])%7), int64(int8(pos[2*i+1])%7)
			valid = valid && inRange(rows[i], shape[0]) && inRange(cols[i], shape[1])
		}
		numel := shape[0] * shape[1] * shape[2]
		x := torch.Arange(numel, torch.WithDType(torch.Float64)).View(shape...)
		vals := torch.Arange(n*shape[2], torch.WithDType(torch.Float64)).AddScalar(100).View(n, shape[2])
		read := x.Index(torch.FromSlice(rows), torch.FromSlice(cols))
		if valid != (read.Err() == nil) {
			t.Fatalf("rows %v cols %v of %v: read error %v, valid %v", rows, cols, shape, read.Err(), valid)
		}
		if valid {
			r, err := torch.ToSlice[float64](read)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				for k := range shape[2] {
					want := float64((wrap(rows[i], shape[0])*shape[1]+wrap(cols[i], shape[1]))*shape[2] + k)
					if r[i*shape[2]+k] != want {
						t.Fatalf("rows %v cols %v of %v: read %v", rows, cols, shape, r)
					}
				}
			}
		}
		got := x.IndexPut_([]*torch.Tensor{torch.FromSlice(rows), torch.FromSlice(cols)}, vals, true)
		if !valid {
			if got.Err() == nil {
				t.Fatalf("rows %v cols %v into %v: no error", rows, cols, shape)
			}
			return
		}
		if got.Err() != nil {
			t.Fatalf("rows %v cols %v into %v: %v", rows, cols, shape, got.Err())
		}
		want := make([]float64, numel)
		for i := range want {
			want[i] = float64(i)
		}
		for i := range n {
			r, q := wrap(rows[i], shape[0]), wrap(cols[i], shape[1])
			for k := range shape[2] {
				want[(r*shape[1]+q)*shape[2]+k] += float64(100 + i*shape[2] + k)
			}
		}
		v, err := torch.ToSlice[float64](x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if v[i] != want[i] {
				t.Fatalf("rows %v cols %v into %v: got %v, want %v", rows, cols, shape, v, want)
			}
		}
	})
}

func inRange(i int64, n int) bool { return i >= -int64(n) && i < int64(n) }

func wrap(i int64, n int) int {
	if i < 0 {
		return int(i) + n
	}
	return int(i)
}
