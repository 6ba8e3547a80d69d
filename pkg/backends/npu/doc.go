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
// Work runs in order on one stream per device; only copies to the host
// (Item, ToSlice, To("cpu")) and Synchronize wait for it.
//
// In tests, an emulator of the ACL/ACLNN symbols (csrc/testing) stands in
// for CANN: a fixture of CANN's rules, not a simulator of the hardware.
package npu
