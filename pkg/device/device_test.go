package device

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Device
		str  string
	}{
		{"cpu", CPUDevice, "cpu"},
		{"cpu:0", CPUDevice, "cpu"},
		{"meta", MetaDevice, "meta"},
		{"npu", Device{NPU, -1}, "npu"},
		{"npu:0", Device{NPU, 0}, "npu:0"},
		{"npu:7", Device{NPU, 7}, "npu:7"},
		{"ascend", Device{NPU, -1}, "npu"},
		{"ascend:3", Device{NPU, 3}, "npu:3"},
	}
	for _, tc := range tests {
		got, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got)\n%s", tc.in, diff)
		}
		if got.String() != tc.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got.String(), tc.str)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "cuda", "gpu:0", "npu:-1", "npu:x", "npu:01", "cpu:1", "meta:2", "npu:",
		" cpu", "cpu ", "CPU", "NPU:1", "npu :1", "npu: 1", "cpu\n"} {
		if d, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, d)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"cpu", "npu:3", "ascend", "meta", "x:y:z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			return
		}
		// What parses prints as a name that parses to the same device.
		again, err := Parse(d.String())
		if err != nil || again != d {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, d, d.String(), again, err)
		}
	})
}
