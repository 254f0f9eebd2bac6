#include "common.h"
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#pragma OPENCL EXTENSION cl_intel_subgroups_short : enable

// Subgroup shuffles, reductions and block messages.
WIDTH __kernel void shuffles(__global const float *in, __global float *out) {
    size_t i = get_global_id(0);
    float v = in[i];
    uint lane = get_sub_group_local_id();
    float a = intel_sub_group_shuffle(v, (lane + 1) % get_sub_group_size());
    float b = intel_sub_group_shuffle_down(v, a, 2);
    float c = intel_sub_group_shuffle_xor(v, 3);
    out[i] = a + b + c + sub_group_broadcast(v, 0);
}

WIDTH __kernel void reductions(__global const int *in, __global int *out) {
    size_t i = get_global_id(0);
    int v = in[i];
    out[i] = sub_group_reduce_add(v) + sub_group_reduce_max(v) + sub_group_scan_exclusive_add(v) +
             sub_group_any(v > 3) + sub_group_all(v < 100);
}

// IGC refuses block messages at SIMD32 ("Block reads not supported in SIMD32").
#if !defined(SIMD) || SIMD != 32
WIDTH __kernel void block_io(__global const uint *in, __global uint *out,
                             __global const ushort *sin, __global ushort *sout) {
    uint base = get_group_id(0) * get_local_size(0);
    uint v = intel_sub_group_block_read(in + base);
    uint2 w = intel_sub_group_block_read2(in + base + 2 * get_local_size(0));
    intel_sub_group_block_write(out + base, v + w.x + w.y);
    ushort s = intel_sub_group_block_read_us(sin + base);
    intel_sub_group_block_write_us(sout + base, s * (ushort)3);
}

WIDTH __kernel void block_image(__read_only image2d_t src, __write_only image2d_t dst) {
    int2 at = (int2)(get_group_id(0) * 4 * get_max_sub_group_size(), get_global_id(1));
    uint v = intel_sub_group_block_read(src, at);
    intel_sub_group_block_write(dst, at, v ^ 0xFFu);
}
#endif
