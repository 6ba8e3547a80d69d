// cgo compiles only the C files of this folder: pull in the NPU shim.
#include "../../csrc/npu/shim.c"
