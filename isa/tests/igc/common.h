// Shared by the IGC corpus kernels (tests/xehpg_igc.rs compiles each with
// ocloc for dg2). -DSIMD=8|16|32 pins the subgroup size, and with it the
// SIMD width IGC compiles the kernel for.
#ifdef SIMD
#define WIDTH __attribute__((intel_reqd_sub_group_size(SIMD)))
#else
#define WIDTH
#endif
