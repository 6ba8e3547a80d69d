// cgo compiles only the C files of this folder: pull in the CPU kernels.
// Integer arithmetic wraps (as PyTorch's does); math functions never set
// errno; no FMA contraction, so every instruction set gives the same bits.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("wrapv", "no-math-errno", "fp-contract=off")
#endif
#include "../../csrc/cpu/plan.c"
#include "../../csrc/cpu/pointwise.c"
#include "../../csrc/cpu/cast.c"
