// cgo compiles only the C files of this folder: pull in the CPU kernels.
#include "../../csrc/cpu/pool.c"
#include "../../csrc/cpu/plan.c"
#include "../../csrc/cpu/pointwise.c"
#include "../../csrc/cpu/cast.c"
#include "../../csrc/cpu/reduce.c"
#include "../../csrc/cpu/gemm.c"
