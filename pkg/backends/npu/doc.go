// Package npu is the backend of Huawei Ascend NPUs: device memory with a
// caching allocator, host and device copies, and kernels that launch ACLNN
// operators through the C shim (cgo/npushim: shim.c and its Go binding),
// which loads CANN with dlopen at first use. Without CANN (or a device) the backend is
// unavailable and says why (UnavailableReason); nothing CANN is needed to
// build.
//
// The libraries are looked up in MINDTORCH_NPU_LIB_DIR, $ASCEND_HOME_PATH/lib64,
// $ASCEND_TOOLKIT_HOME/lib64, /usr/local/Ascend/cann/lib64,
// /usr/local/Ascend/ascend-toolkit/latest/lib64, then the loader's own path
// (LD_LIBRARY_PATH). MINDTORCH_LAUNCH_BLOCKING=1 waits for the device after
// every op, to find the op that failed.
//
// Each ACLNN op takes only some dtypes, per chip (dtypes.go; docs/npu-ops.md
// lists them with their sources): a call the op would refuse runs by the
// op's decomposition or on the host instead. Matrix products pass
// torch_npu's cubeMathType for the SoC (0, KEEP_DTYPE, on Atlas A2/A3; 2,
// USE_FP16, on the older Atlas training and inference chips);
// MINDTORCH_NPU_CUBE_MATH_TYPE=0..4 overrides it.
//
// Work runs in order on one stream per device; only copies to the host
// (Item, ToSlice, To("cpu")) and Synchronize wait for it.
//
// In tests, an emulator of the ACL/ACLNN symbols (csrc/testing) stands in
// for CANN: a fixture of CANN's rules, not a simulator of the hardware.
package npu
