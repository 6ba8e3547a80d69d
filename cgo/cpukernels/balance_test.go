package cpukernels_test

import (
	"errors"
	"testing"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
)

// TestBalancedRunsEachOnce checks that the self-balancing loop runs every
// element exactly once, whatever the sizes, pieces and the slow share, and
// that the others take work from a slow share.
func TestBalancedRunsEachOnce(t *testing.T) {
	cpukernels.StartPool(2)
	for _, c := range []struct{ n, grain, piece, slow int }{
		{0, 1, 1, -1}, {1, 1, 1, -1}, {2, 1, 1, 0}, {7, 1, 3, 1}, {1000, 1, 4, 0},
		{1000, 1, 4, 1}, {1000, 10, 1000, 0}, {4096, 64, 7, 0}, {5, 10, 1, 0},
	} {
		hits, owner := make([]int32, c.n), make([]int32, c.n)
		ready, err := cpukernels.BalanceProbe(c.n, c.grain, c.piece, c.slow, 20000, -1, hits, owner)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		stolen := 0
		for i, h := range hits {
			if h != 1 {
				t.Fatalf("%+v: element %d ran %d times", c, i, h)
			}
			if c.slow >= 0 && i >= c.n*c.slow/2 && i < c.n*(c.slow+1)/2 && owner[i] != int32(c.slow) {
				stolen++ // with two shares, the slow share's half is [n*slow/2, n*(slow+1)/2)
			}
		}
		// The slow share waits for the other to finish its half, which then
		// must take over part of the slow one's (unless the owner took its whole range as
		// one piece). On a machine too loaded to run share 1 within a
		// second, there is nothing to check.
		if ready && c.n >= 1000 && c.piece < c.n/4 && stolen == 0 {
			t.Errorf("%+v: no element of the slow share's range ran elsewhere", c)
		}
	}
}

// TestBalancedReportsError checks that a failing element's error reaches
// the caller and that the other elements still run once.
func TestBalancedReportsError(t *testing.T) {
	cpukernels.StartPool(2)
	n := 500
	hits, owner := make([]int32, n), make([]int32, n)
	_, err := cpukernels.BalanceProbe(n, 1, 3, -1, 0, 321, hits, owner)
	if !errors.Is(err, cpukernels.ErrUnsupported) {
		t.Fatalf("got %v, want ErrUnsupported", err)
	}
	for i, h := range hits {
		if h != 1 {
			t.Fatalf("element %d ran %d times", i, h)
		}
	}
}
