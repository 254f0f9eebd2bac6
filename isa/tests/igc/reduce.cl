#include "common.h"

// Work-group reductions through shared local memory and barriers.
WIDTH __kernel void tree_sum(__global const float *in, __global float *partial,
                             __local float *scratch) {
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = n / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

WIDTH __kernel void int_max_fixed(__global const int *in, __global int *out) {
    __local int tile[256];
    uint lid = get_local_id(0);
    tile[lid & 255] = in[get_global_id(0)];
    work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    int m = tile[0];
    for (uint k = 1; k < 256; k += 17)
        m = max(m, tile[(lid + k) & 255]);
    out[get_global_id(0)] = m;
}

WIDTH __kernel void group_builtins(__global const uint *in, __global uint *out) {
    uint v = in[get_global_id(0)];
    uint s = work_group_reduce_add(v);
    uint p = work_group_scan_inclusive_max(v);
    out[get_global_id(0)] = s ^ p;
}
