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
	dir, err := os.MkdirTemp("", "mindtorch-cann-emulator-")
	if err != nil {
		return nil, err
	}
	if err := Build(dir, []string{"libascendcl.so", "libnnopbase.so", "libopapi.so"}); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	os.Setenv("MINDTORCH_NPU_LIB_DIR", dir)
	return func() { os.RemoveAll(dir) }, nil
}

// Build compiles the emulator into dir under the first of names and links
// the other names to it (one file, so that all see one state); defines are
// passed to the compiler (-DMTEMU_OMIT_SOFTMAX leaves out aclnnSoftmax).
func Build(dir string, names []string, defines ...string) error {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "csrc", "testing", "acl_emulator.c")
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	lib := filepath.Join(dir, names[0])
	args := append([]string{"-O1", "-shared", "-fPIC", "-Wl,-soname," + names[0], "-o", lib}, defines...)
	out, err := exec.Command(cc, append(args, src, "-lm", "-lpthread")...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("building the CANN emulator: %v: %s", err, out)
	}
	for _, name := range names[1:] {
		if err := os.Symlink(names[0], filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}
