//go:build !cgo

package cpukernels

// MindTorch's kernels are C, compiled by cgo, so a build without cgo cannot
// work: with CGO_ENABLED=0, when cross-compiling, or when no C compiler is
// found (the go command then turns cgo off by itself). Such a build fails
// here, at an undefined name that says what to do, rather than with the
// package's cgo files all excluded: install a C compiler (gcc or clang; CC
// names another) and build with CGO_ENABLED=1.
var _ = MindTorch_requires_cgo_and_a_C_compiler__build_with_CGO_ENABLED_1
