package npu_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// coverageTable renders docs/npu-coverage.md from torch.RegisteredOps: how
// every op runs on the NPU.
func coverageTable() string {
	var b strings.Builder
	b.WriteString("# How each op runs on the NPU\n\n" +
		"Written by `go generate ./pkg/backends/npu` from `torch.RegisteredOps()`\n" +
		"(pkg/backends/npu/coverage_test.go); do not edit. The routes are in the\n" +
		"order the dispatcher tries them: **native** (an ACLNN op; its dtypes per\n" +
		"chip are in docs/npu-ops.md, and a dtype or form the table refuses takes\n" +
		"the next route), **decomposed** (other ops that run on the NPU), **host**\n" +
		"(the CPU kernel on copies of the operands).\n\n")
	count := map[string]int{}
	var rows []string
	for _, op := range torch.RegisteredOps() {
		var routes []string
		for _, dr := range op.Routes {
			if dr.Device != device.NPU {
				continue
			}
			for _, r := range dr.Routes {
				name := r.String()
				if r == dispatch.HostFallback {
					name = "host"
				}
				routes = append(routes, name)
			}
		}
		if len(routes) == 0 {
			routes = []string{"none"}
		}
		count[routes[0]]++
		rows = append(rows, fmt.Sprintf("| %s | %s |\n", op.Op, strings.Join(routes, ", ")))
	}
	fmt.Fprintf(&b, "%d ops: %d native first, %d decomposed first, %d on the host only, %d with no route.\n\n",
		len(rows), count["native"], count["decomposed"], count["host"], count["none"])
	b.WriteString("| op | routes on npu |\n|---|---|\n")
	for _, r := range rows {
		b.WriteString(r)
	}
	return b.String()
}

// TestCoverageTableIsCurrent fails when docs/npu-coverage.md is not the
// table the registry gives; MINDTORCH_WRITE_COVERAGE=1 (go generate)
// writes it.
//
//go:generate env MINDTORCH_NPU_REAL=1 MINDTORCH_WRITE_COVERAGE=1 go test -run TestCoverageTableIsCurrent .
func TestCoverageTableIsCurrent(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "docs", "npu-coverage.md")
	want := coverageTable()
	if os.Getenv("MINDTORCH_WRITE_COVERAGE") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not the registry's table: run go generate ./pkg/backends/npu", path)
	}
}
