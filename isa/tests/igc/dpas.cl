#include "common.h"

// The systolic array (dpas) through the matrix multiply-accumulate builtins
// of cl_intel_subgroup_matrix_multiply_accumulate. This IGC (1.0.12504, Debian
// bookworm) does not support the extension on dg2: its OpenCL headers do not
// declare the builtins (the pragma is an "unknown OpenCL extension"), and with
// the declarations below it compiles them as calls to undefined external
// functions (`calla` through a relocation), not as dpas. The kernel stays for
// those indirect calls; tests/xehpg_iga.rs covers dpas against iga64.
float8 intel_sub_group_f16_f16_matrix_mad_k16(short8 a, int8 b, float8 acc);
int8 intel_sub_group_i8_i8_matrix_mad_k32(int8 a, int8 b, int8 acc);

__attribute__((intel_reqd_sub_group_size(8))) __kernel void
systolic(__global const int *a, __global const int8 *b, __global float8 *c,
         __global int8 *d) {
    size_t i = get_global_id(0);
    short8 ah = as_short8(vload4(i, a));
    int8 bh = b[i];
    c[i] = intel_sub_group_f16_f16_matrix_mad_k16(ah, bh, c[i]);
    int8 ai = (int8)(a[i], a[i + 1], a[i + 2], a[i + 3], a[i + 4], a[i + 5], a[i + 6], a[i + 7]);
    d[i] = intel_sub_group_i8_i8_matrix_mad_k32(ai, bh, d[i]);
}
