#include "common.h"

// Plain loads and stores: stateful (binding table) by default, stateless
// A64 with -cl-intel-greater-than-4GB-buffer-required.
WIDTH __kernel void vector_add(__global const float *a, __global const float *b,
                               __global float *out) {
    size_t i = get_global_id(0);
    out[i] = a[i] + b[i];
}

WIDTH __kernel void copy_strided(__global const int4 *in, __global int2 *out,
                                 uint stride) {
    size_t i = get_global_id(0);
    int4 v = in[i * stride];
    out[i] = v.xz + v.yw;
}

WIDTH __kernel void bytes_and_shorts(__global const uchar *in, __global ushort *out,
                                     __global char *signs) {
    size_t i = get_global_id(0);
    uchar b = in[i];
    out[i] = (ushort)b * 257;
    signs[i] = (char)(b ^ 0x80);
}

WIDTH __kernel void gather_scatter(__global const uint *index, __global const float *src,
                                   __global float *dst, uint n) {
    size_t i = get_global_id(0);
    uint k = index[i] % n;
    dst[k] = src[i] * 3.0f;
}

WIDTH __kernel void doubles_and_longs(__global const long *a, __global ulong *b) {
    size_t i = get_global_id(0);
    b[i] = (ulong)a[i] * 0x10001UL + (ulong)get_local_id(0);
}
