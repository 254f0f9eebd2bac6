#include "common.h"

// Integer builtins, 64-bit arithmetic and conversions.
WIDTH __kernel void int_builtins(__global const int *a, __global const int *b,
                                 __global int *out) {
    size_t i = get_global_id(0);
    int x = a[i], y = b[i];
    uint ux = (uint)x, uy = (uint)y;
    out[i] = mul_hi(x, y) + mad_sat(x, y, 7) + popcount(x) + clz(y) + rotate(x, y & 31) +
             (int)abs_diff(x, y) + (int)mul_hi(ux, uy) + add_sat(x, y) + sub_sat(x, y) +
             hadd(x, y) + rhadd(x, y) + mad24(x, y, 3) + mul24(x, y) + (int)abs(x) +
             ctz(x) + (int)upsample((short)x, (ushort)y) + max(x, y) - min(ux, uy);
}

WIDTH __kernel void long_math(__global const long *a, __global const long *b,
                              __global long *out, __global ulong *uout) {
    size_t i = get_global_id(0);
    long x = a[i], y = b[i] | 1;
    out[i] = x * y + x / y + x % y + (x << (y & 63)) + (x >> 5) + mul_hi(x, y);
    ulong ux = (ulong)x, uy = (ulong)y;
    uout[i] = ux / uy + ux % uy + popcount(ux) + clz(uy) + rotate(ux, (ulong)7);
}

WIDTH __kernel void conversions(__global const float *f, __global char *c,
                                __global short *s, __global uint *u, __global long *l) {
    size_t i = get_global_id(0);
    float v = f[i];
    c[i] = convert_char_sat_rte(v);
    s[i] = convert_short_rtz(v * 100.0f);
    u[i] = convert_uint_sat(v);
    l[i] = convert_long_rtn(v) + as_int(v);
}

WIDTH __kernel void bits(__global const uint *a, __global uint *out) {
    size_t i = get_global_id(0);
    uint x = a[i];
    uint rev = 0;
    for (int k = 0; k < 32; k++)
        rev |= ((x >> k) & 1u) << (31 - k);
    out[i] = rev ^ ((x & 0xF0F0F0F0u) >> 4) ^ bitselect(x, rev, 0x00FFFF00u) ^ (x << 3);
}
