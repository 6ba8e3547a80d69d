// Package benchsuite holds the benchmarks of `make bench` that need more
// than pkg/torch (nn layers, optimizers, whole training steps and an
// inference loop), each beside its PyTorch twin in scripts/bench_suite_torch.py.
//
// Every case runs in up to four modes, as sub-benchmarks: gc leaves each
// result to the garbage collector (Go code as it is usually written),
// released calls Release on each tensor as soon as it is dead (PyTorch frees
// a result when its last reference goes, an intermediate when the op that
// reads it returns), tidy makes them inside torch.Tidy, and into writes each
// result into one tensor (torch.Into, PyTorch's out=). Before timing, a case
// prints the checksum of one result ("checksum NAME VALUE"), which
// scripts/bench_report.py compares with PyTorch's before trusting either
// time.
package benchsuite
