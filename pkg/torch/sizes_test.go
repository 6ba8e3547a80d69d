package torch_test

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// sizeCase is a call with sizes, strides or values that overflow, run on a
// device, and the kind of error it must give.
type sizeCase struct {
	name string
	want error // torch.ErrShape, ErrArgument, ErrIndex
	run  func(dev torch.Option) error
}

func errOf(t *torch.Tensor) error { return t.Err() }

var sizeCases = []sizeCase{
	{"empty 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Empty([]int{1 << 62}, d)) }},
	{"empty 2^61 float32", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Empty([]int{1 << 61}, d)) }},
	{"empty max int", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Empty([]int{math.MaxInt}, d)) }},
	{"empty 2^62 x 4", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Empty([]int{1 << 62, 4}, d)) }},
	{"empty 2^32 x 2^32 wraps to 0", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Empty([]int{1 << 32, 1 << 32}, d, torch.WithDType(torch.Uint8)))
	}},
	{"empty negative", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Empty([]int{2, -1}, d)) }},
	{"zeros 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Zeros([]int{1 << 62}, d)) }},
	{"ones 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Ones([]int{1 << 62}, d)) }},
	{"full 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Full([]int{1 << 62}, 1.5, d)) }},
	{"rand 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Rand([]int{1 << 62}, d)) }},
	{"randn 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Randn([]int{1 << 62}, d)) }},
	{"randint 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Randint(0, 9, []int{1 << 62}, d)) }},
	{"eye 2^31", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Eye(1<<31, d)) }},
	{"eye negative", torch.ErrArgument, func(d torch.Option) error { return errOf(torch.Eye(-1, d)) }},
	{"eye n x negative", torch.ErrArgument, func(d torch.Option) error { return errOf(torch.EyeNM(2, -1, d)) }},
	{"arange 2^61", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Arange(1<<61, d)) }},
	{"arange 0 to 1e30", torch.ErrShape, func(d torch.Option) error { return errOf(torch.ArangeRange(0, 1e30, 1, d)) }},
	{"arange whole int64 range", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.ArangeRange(math.MinInt64, math.MaxInt64, 1, d))
	}},
	{"arange wrong sign", torch.ErrArgument, func(d torch.Option) error { return errOf(torch.ArangeRange(0, -1, 1, d)) }},
	{"arange close ints wrong sign", torch.ErrArgument, func(d torch.Option) error {
		return errOf(torch.ArangeRange(1<<62+1, 1<<62, 1, d))
	}},
	{"linspace 2^62 steps", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Linspace(0, 1, 1<<62, d)) }},
	{"one_hot 2^61 classes", torch.ErrShape, func(d torch.Option) error {
		x := torch.Zeros([]int{1}, torch.WithDType(torch.Int64))
		if err := x.Err(); err != nil {
			return err
		}
		return errOf(torch.OneHot(x, 1<<61))
	}},
	{"one_hot on meta", torch.ErrArgument, func(torch.Option) error {
		return errOf(torch.OneHot(torch.Zeros([]int{1}, torch.WithDType(torch.Int64), torch.WithDevice("meta")), 3))
	}},
	{"repeat 2^61", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Ones([]int{1}, d).Repeat(1 << 61)) }},
	{"repeat 2^61 x 8 wraps to 0", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Ones([]int{8}, d).Repeat(1 << 61)) }},
	{"tile 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Ones([]int{2}, d).Tile(1 << 62)) }},
	{"repeat_interleave 2^62", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Ones([]int{4}, d).RepeatInterleave(1<<62, 0))
	}},
	{"expand 2^62 then sum", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Ones([]int{1}, d).Expand(1 << 62).Sum()) }},
	{"expand 2^62 x 2^62", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Ones([]int{1, 1}, d).Expand(1<<62, 1<<62))
	}},
	{"broadcast to 2^62 elements", torch.ErrShape, func(d torch.Option) error {
		a := torch.Ones([]int{1, 1}, d).Expand(1<<31, 1)
		return errOf(a.Add(torch.Ones([]int{1, 1}, d).Expand(1, 1<<31)))
	}},
	{"cat to 2^63 bytes", torch.ErrShape, func(d torch.Option) error {
		a := torch.Ones([]int{1}, d, torch.WithDType(torch.Uint8)).Expand(1 << 62)
		return errOf(torch.Cat([]*torch.Tensor{a, a}, 0))
	}},
	{"view of no elements as 2^62 x 2^62 x 3", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Empty([]int{0}, d).View(1<<62, 1<<62, 3))
	}},
	{"reshape of no elements as 2^61 x 0", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Empty([]int{0}, d).Reshape(1<<61, 0))
	}},
	{"as_strided stride 2^61", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Ones([]int{3}, d).AsStrided([]int{3}, []int{1 << 61}, 0))
	}},
	{"as_strided max stride", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Ones([]int{3}, d).AsStrided([]int{3}, []int{math.MaxInt}, 0))
	}},
	{"as_strided max offset", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Ones([]int{3}, d).AsStrided([]int{1}, []int{1}, math.MaxInt))
	}},
	{"as_strided out of bounds", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Ones([]int{3}, d).AsStrided([]int{3}, []int{2}, 0))
	}},
	{"as_strided empty view past the end", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Ones([]int{3}, d).AsStrided([]int{0}, []int{1}, 1<<40))
	}},
	{"as_strided 2^62 x stride 0", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Ones([]int{3}, d).AsStrided([]int{1 << 62}, []int{0}, 0))
	}},
	{"from_storage stride 2^61", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.FromStorage(torch.Ones([]int{3}, d).Storage(), 0, []int{3}, []int{1 << 61}))
	}},
	{"from_storage 2^62 contiguous", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.FromStorage(torch.Ones([]int{3}, d).Storage(), 0, []int{1 << 62}, nil))
	}},
	{"from_storage negative stride", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.FromStorage(torch.Ones([]int{3}, d).Storage(), 2, []int{3}, []int{-1}))
	}},
	{"set_ out of bounds", torch.ErrShape, func(d torch.Option) error {
		return errOf(torch.Empty([]int{1}, d).Set_(torch.Ones([]int{3}, d).Storage(), 0, []int{3}, []int{2}))
	}},
	{"narrow max length", torch.ErrIndex, func(d torch.Option) error { return errOf(torch.Ones([]int{3}, d).Narrow(0, 1, math.MaxInt)) }},
	{"diag 2^62", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Ones([]int{3}, d).Diag(1 << 62)) }},
	{"diag min int", torch.ErrShape, func(d torch.Option) error { return errOf(torch.Ones([]int{3}, d).Diag(math.MinInt)) }},
	{"storage resize_ max int", torch.ErrShape, func(d torch.Option) error {
		return torch.Ones([]int{3}, d).UntypedStorage().Resize_(math.MaxInt)
	}},
	{"typed storage resize_ 2^62 floats", torch.ErrShape, func(d torch.Option) error {
		return torch.Ones([]int{3}, d).Storage().Resize_(1 << 62)
	}},
	{"new storage 2^62+1", torch.ErrShape, func(d torch.Option) error {
		_, err := torch.NewUntypedStorage(1<<62+1, d)
		return err
	}},
	{"storage slice past the end", torch.ErrIndex, func(d torch.Option) error {
		_, err := torch.Ones([]int{3}, d).UntypedStorage().Slice(4, math.MaxInt)
		return err
	}},
	{"fill_ after the storage shrank", torch.ErrShape, func(d torch.Option) error {
		x := torch.Ones([]int{1 << 18}, d)
		if err := x.UntypedStorage().Resize_(16); err != nil {
			return err
		}
		return errOf(x.Fill_(1))
	}},
	{"uniform_ after the storage shrank", torch.ErrShape, func(d torch.Option) error {
		x := torch.Ones([]int{1 << 18}, d)
		if err := x.UntypedStorage().Resize_(16); err != nil {
			return err
		}
		return errOf(x.Uniform_(0, 1))
	}},
	{"as_strided after the storage shrank", torch.ErrShape, func(d torch.Option) error {
		x := torch.Ones([]int{1 << 18}, d)
		if err := x.UntypedStorage().Resize_(16); err != nil {
			return err
		}
		return errOf(x.AsStrided([]int{8}, []int{1}, 0))
	}},
	{"full NaN int64", torch.ErrArgument, func(d torch.Option) error {
		return errOf(torch.Full([]int{2}, math.NaN(), d, torch.WithDType(torch.Int64)))
	}},
	{"full 300 uint8", torch.ErrArgument, func(d torch.Option) error {
		return errOf(torch.Full([]int{2}, 300, d, torch.WithDType(torch.Uint8)))
	}},
	{"full 1e39 float32", torch.ErrArgument, func(d torch.Option) error { return errOf(torch.Full([]int{2}, 1e39, d)) }},
	{"fill_ inf int32", torch.ErrArgument, func(d torch.Option) error {
		return errOf(torch.Zeros([]int{2}, d, torch.WithDType(torch.Int32)).Fill_(math.Inf(1)))
	}},
	{"add max uint64", torch.ErrArgument, func(d torch.Option) error {
		return errOf(torch.Ones([]int{2}, d, torch.WithDType(torch.Int64)).AddScalar(uint64(math.MaxUint64)))
	}},
}

// Every case fails with its error, on the CPU and on the meta device.
// The table runs in a child process, so that a crash (a segfault on memory
// that an overflowed size did not allocate) fails the test instead of
// ending it; the child's output names the case that crashed.
func TestSizesAreChecked(t *testing.T) {
	if os.Getenv("MINDTORCH_SIZES_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSizesAreChecked$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "MINDTORCH_SIZES_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestSizesAreChecked") {
			t.Fatalf("the size cases failed or crashed (%v):\n%s", err, tail(string(out), 60))
		}
		return
	}
	for _, dev := range []string{"cpu", "meta"} {
		for _, c := range sizeCases {
			t.Run(dev+"/"+c.name, func(t *testing.T) {
				err := c.run(torch.WithDevice(dev))
				if err == nil || !errors.Is(err, c.want) {
					t.Fatalf("got %v, want an error of kind %v", err, c.want)
				}
				var e *torch.Error
				if !errors.As(err, &e) || e.Op == "" {
					t.Errorf("the error names no op: %v", err)
				}
			})
		}
	}
}

// The messages are PyTorch's where it has one.
func TestSizeMessages(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{torch.Empty([]int{1 << 62}).Err(), "Storage size calculation overflowed with sizes=[4611686018427387904]"},
		{torch.Empty([]int{-1}).Err(), "Trying to create tensor with negative dimension -1: [-1]"},
		{torch.Eye(1 << 31).Err(), "Storage size calculation overflowed with sizes=[2147483648, 2147483648]"},
		{torch.Eye(-1).Err(), "n must be greater or equal to 0, got -1"},
		{torch.Arange(1 << 61).Err(), "Storage size calculation overflowed with sizes=[2305843009213693952]"},
		{torch.ArangeRange(0, 1e30, 1).Err(), "invalid size, possible overflow?"},
		{torch.ArangeRange(0, -1, 1).Err(), "upper bound and larger bound inconsistent with step sign"},
		{torch.OneHot(torch.Zeros([]int{1}, torch.WithDType(torch.Int64)), 1<<61).Err(),
			"Storage size calculation overflowed with sizes=[1, 2305843009213693952]"},
		{torch.Ones([]int{1}).Repeat(1 << 61).Err(), "Storage size calculation overflowed with sizes=[2305843009213693952]"},
		{torch.Ones([]int{3}).AsStrided([]int{3}, []int{1 << 61}, 0).Err(),
			"Storage size calculation overflowed with sizes=[3] and strides=[2305843009213693952]"},
		{torch.Ones([]int{3}).AsStrided([]int{3}, []int{2}, 0).Err(), "setStorage: sizes [3], strides [2], storage offset 0, " +
			"and itemsize 4 requiring a storage size of 20 are out of bounds for storage of size 12"},
		{torch.Empty([]int{1 << 62}, torch.WithDevice("meta")).Err(), "Storage size calculation overflowed with sizes=[4611686018427387904]"},
		{torch.Full([]int{2}, math.NaN(), torch.WithDType(torch.Int64)).Err(), "value cannot be converted to type int64_t without overflow"},
		{torch.Ones([]int{2}, torch.WithDType(torch.Int64)).AddScalar(uint64(math.MaxUint64)).Err(),
			"value cannot be converted to type int64_t without overflow"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	x := torch.Ones([]int{1 << 18})
	if err := x.UntypedStorage().Resize_(16); err != nil {
		t.Fatal(err)
	}
	want := "fill_: invalid shape: setStorage: sizes [262144], strides [1], storage offset 0, and itemsize 4 requiring a " +
		"storage size of 1048576 are out of bounds for storage of size 16"
	if err := x.Fill_(1).Err(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// Sizes at the limits that are valid still work.
func TestLargeSizesThatFit(t *testing.T) {
	for _, c := range []struct {
		name string
		x    *torch.Tensor
		want []int
	}{
		{"meta empty 2^60 float32", torch.Empty([]int{1 << 60}, torch.WithDevice("meta")), []int{1 << 60}},
		{"meta empty 2^62 uint8", torch.Empty([]int{1 << 62}, torch.WithDevice("meta"), torch.WithDType(torch.Uint8)), []int{1 << 62}},
		{"expand 2^60 float32", torch.Ones([]int{1}).Expand(1 << 60), []int{1 << 60}},
		{"slice with max step", torch.Ones([]int{5}).Slice(0, 0, 5, math.MaxInt), []int{1}},
		{"narrow to the end", torch.Ones([]int{5}).Narrow(0, 2, 3), []int{3}},
		{"as_strided size 1, max stride", torch.Ones([]int{3}).AsStrided([]int{1}, []int{math.MaxInt}, 2), []int{1}},
		{"arange of the largest ints", torch.ArangeRange(math.MaxInt64-2, math.MaxInt64, 1), []int{2}},
		{"arange down to the smallest", torch.ArangeRange(math.MinInt64+3, math.MinInt64, -2), []int{2}},
		{"full -1 uint8 (wraps, as PyTorch)", torch.Full([]int{2}, -1, torch.WithDType(torch.Uint8)), []int{2}},
		{"full inf float16", torch.Full([]int{2}, math.Inf(1), torch.WithDType(torch.Float16)), []int{2}},
	} {
		if err := c.x.Err(); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(c.x.Shape(), c.want) {
			t.Errorf("%s: shape %v, want %v", c.name, c.x.Shape(), c.want)
		}
	}
	chunks, err := torch.Ones([]int{5}).Chunk(math.MaxInt, 0)
	if err != nil || len(chunks) != 5 {
		t.Errorf("chunk with max chunks: %d chunks, %v", len(chunks), err)
	}
	v, err := torch.ToSlice[int64](torch.ArangeRange(math.MinInt64+3, math.MinInt64, -2))
	if err != nil || len(v) != 2 || v[0] != math.MinInt64+3 || v[1] != math.MinInt64+1 {
		t.Errorf("arange near the smallest int64: %v, %v", v, err)
	}
}

func tail(s string, lines int) string {
	l := strings.Split(s, "\n")
	return strings.Join(l[max(0, len(l)-lines):], "\n")
}
