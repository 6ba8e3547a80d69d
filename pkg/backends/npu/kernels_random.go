package npu

import "github.com/mindtorch/mindtorch/cgo/npushim"

// Dtype sets of the random ops' rows in opRules (dtypes.go): what CANN takes
// on Atlas A2/A3 (docs/npu-ops.md, "Random ops").
const (
	// M: random/dsa_random_uniform/op_host/op_api/aclnn_uniform.cpp DTYPE_SUPPORT_LIST (no BOOL)
	uniformDTypes = f32 | i32 | i64 | f16 | i16 | i8 | u8 | f64 | bf16
	// M: random/stateless_bernoulli/docs/aclnnBernoulliTensor&aclnnInplaceBernoulliTensor.md: prob
	bernoulliProb = f16 | f32 | f64
)

// randomOptional reports whether name is one of the random ops' ACLNN
// calls: each is optional (without it the op draws on the host), so
// SymbolsOK does not require it.
func randomOptional(name string) bool {
	for _, op := range []int{npushim.InplaceUniform, npushim.InplaceNormal, npushim.InplaceRandom,
		npushim.InplaceBernoulli, npushim.BernoulliTensor} {
		if name == opRules[op].name {
			return true
		}
	}
	return false
}
