// Package cpu is the CPU backend: host memory, and the kernels of every op
// for the cpu device. Pointwise ops, casts and copies run in the C engine of
// cgo/cpukernels (the C sources and their Go binding) over an iteration plan
// built here; large ops are split across cores by a C worker pool, inside
// their one C call (pool.go). Add, sub, mul and div of a few float elements
// run in Go (small.go), where a cgo call would cost more than the arithmetic.
// A pipeline's batch runs through fuse.go: chains of pointwise ops in one C
// call (fuse_chain.go), with a sum of all (fuse_sum.go) or a reduction along
// the last dims (fuse_rows.go) that follows them.
package cpu
