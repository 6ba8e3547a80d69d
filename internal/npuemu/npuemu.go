// Package npuemu builds the CANN emulator (csrc/testing) for tests: a
// host-memory library exporting the ACL/ACLNN symbols under CANN's library
// names, a fixture of CANN's rules and not a simulator of the hardware. Tests
// call Setup from TestMain; with MINDTORCH_NPU_REAL=1 (make test-npu) they
// use the real CANN instead.
package npuemu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Setup compiles the emulator with the C compiler into a temporary
// directory, installs it as libascendcl.so, libnnopbase.so and libopapi.so,
// and points MINDTORCH_NPU_LIB_DIR at it. It returns a function that
// removes the directory. With MINDTORCH_NPU_REAL=1 it does nothing.
func Setup() (func(), error) {
	if os.Getenv("MINDTORCH_NPU_REAL") == "1" {
		return func() {}, nil
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "csrc", "testing", "acl_emulator.c")
	dir, err := os.MkdirTemp("", "mindtorch-cann-emulator-")
	if err != nil {
		return nil, err
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	lib := filepath.Join(dir, "libascendcl.so")
	out, err := exec.Command(cc, "-O1", "-shared", "-fPIC", "-Wl,-soname,libascendcl.so", "-o", lib, src, "-lm", "-lpthread").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("building the CANN emulator: %v: %s", err, out)
	}
	// One library under every name, so that all see one state.
	for _, name := range []string{"libnnopbase.so", "libopapi.so"} {
		if err := os.Symlink("libascendcl.so", filepath.Join(dir, name)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	os.Setenv("MINDTORCH_NPU_LIB_DIR", dir)
	return func() { os.RemoveAll(dir) }, nil
}
