package nn_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestModuleCasesMatchPyTorch runs the golden cases of the modules (the
// ops named nn.*: convolutions with their padding modes and padding
// strings, transposed convolutions with output_size) on the CPU: values,
// gradients against PyTorch's and by finite differences; and for every
// case PyTorch refuses, of the modules or of the functional layers of
// layers.json (F.pad, F.interpolate, F.group_norm, ...), its message word
// for word within ours. (pkg/torch runs the same files on cpu and meta, without
// the messages.)
func TestModuleCasesMatchPyTorch(t *testing.T) {
	for _, file := range []string{"conv.json", "layers.json"} {
		f := conformance.Load(t, file)
		counts := map[string]int{}
		for _, c := range f.Cases {
			module := strings.HasPrefix(c.Op, "nn.")
			if !module && (c.Error == "" || file != "layers.json") {
				continue
			}
			counts[c.Op]++
			t.Run(fmt.Sprintf("%s/%s/%d", strings.TrimSuffix(file, ".json"), c.Op, counts[c.Op]), func(t *testing.T) {
				if module {
					conformance.RunCase(t, c, "cpu")
				}
				if c.Error != "" {
					checkMessage(t, c)
				}
			})
		}
		if len(counts) == 0 && file == "conv.json" {
			t.Errorf("%s has no module cases", file)
		}
	}
}

// checkMessage runs a case PyTorch refuses and looks for PyTorch's message
// in our error.
func checkMessage(t *testing.T, c conformance.Case) {
	t.Helper()
	run, ok := conformance.Lookup(c.Op)
	if !ok {
		t.Fatalf("no Go call for %s", c.Op)
	}
	in := make([]*torch.Tensor, len(c.Inputs))
	for i, s := range c.Inputs {
		in[i] = s.Build(t, "cpu")
	}
	err := run(in, c.Args)[0].Err()
	if err == nil || !strings.Contains(err.Error(), c.Error) {
		t.Errorf("error %v\nPyTorch's: %s", err, c.Error)
	}
}
