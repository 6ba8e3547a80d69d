// Package meta is the meta device: memory with a size and no data, and the
// meta function of every op (the output dtype, shape and strides, and the
// errors of bad input). The meta device runs these functions alone; the cpu
// and npu devices run them before their kernels to allocate outputs, so one
// function decides every op's shapes and dtypes on every device.
package meta
