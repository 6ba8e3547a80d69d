package npu_test

import (
	"slices"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Scalars reach ACLNN in their own type (a Go float as ACL_DOUBLE, an int
// as ACL_INT64), as op-plugin passes them: an integer tensor compared with
// 2.5 is not compared with 2, and int64 scalars past 2^53 stay exact.
func TestScalarsKeepTheirType(t *testing.T) {
	x, err := torch.FromSlice([]int64{1, 2, 3}).To("npu")
	if err != nil {
		t.Fatal(err)
	}
	lt, err := torch.ToSlice[bool](x.LtScalar(2.5))
	if err != nil || !slices.Equal(lt, []bool{true, true, false}) {
		t.Errorf("[1 2 3] < 2.5 = %v, %v; want [true true false]", lt, err)
	}
	const big = 1<<53 + 1
	sum, err := torch.ToSlice[int64](x.AddScalar(big))
	if err != nil || !slices.Equal(sum, []int64{big + 1, big + 2, big + 3}) {
		t.Errorf("[1 2 3] + (2^53+1) = %v, %v", sum, err)
	}
	full, err := torch.ToSlice[int64](torch.Full([]int{2}, big, torch.WithDType(torch.Int64), torch.WithDevice("npu")))
	if err != nil || !slices.Equal(full, []int64{big, big}) {
		t.Errorf("full(2^53+1) = %v, %v", full, err)
	}
	diff, err := torch.ToSlice[int64](x.SubScalar(big))
	if err != nil || !slices.Equal(diff, []int64{1 - big, 2 - big, 3 - big}) {
		t.Errorf("[1 2 3] - (2^53+1) = %v, %v", diff, err)
	}
}
