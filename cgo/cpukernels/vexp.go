package cpukernels

/*
#include "loops.h"
*/
import "C"

// VexpActive reports whether the float32 exp, sigmoid and silu loops are
// vexp.h's AVX-512 ones, and whether they should be on this CPU (a GCC
// build for x86-64, a CPU with x86-64-v4).
func VexpActive() (active, expected bool) {
	return C.mt_vexp_active() != 0, C.mt_vexp_expected() != 0
}
