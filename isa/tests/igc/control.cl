#include "common.h"

// Loops, switches, divergent branches, early returns.
WIDTH __kernel void collatz(__global const uint *start, __global uint *steps) {
    size_t i = get_global_id(0);
    uint n = start[i], k = 0;
    while (n != 1 && k < 1000) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        k++;
    }
    steps[i] = k;
}

WIDTH __kernel void dispatch(__global const int *op, __global float *v) {
    size_t i = get_global_id(0);
    float x = v[i];
    switch (op[i]) {
    case 0: x = x + 1.0f; break;
    case 1: x = x * 2.0f; break;
    case 2: x = -x; break;
    case 3: x = sqrt(x); break;
    case 7: x = 1.0f / x; break;
    default: return;
    }
    v[i] = x;
}

WIDTH __kernel void nested(__global const int *a, __global int *b, int n) {
    size_t i = get_global_id(0);
    int acc = 0;
    for (int y = 0; y < n; y++) {
        if (a[i + y] < 0)
            continue;
        for (int x = 0; x < y; x++) {
            if ((a[x] ^ y) == 5)
                break;
            acc += a[x] * y;
        }
        if (acc > 1 << 20)
            break;
    }
    if (i & 1)
        b[i] = acc;
    else if (i & 2)
        b[i] = -acc;
}

WIDTH __kernel void private_array(__global const int *idx, __global int *out) {
    int table[64];
    size_t i = get_global_id(0);
    for (int k = 0; k < 64; k++)
        table[k] = k * (int)i;
    table[idx[i] & 63] += 5;
    out[i] = table[idx[i + 1] & 63] + table[(idx[i] >> 3) & 63];
}

WIDTH __kernel void pressure(__global const float4 *in, __global float4 *out) {
    size_t i = get_global_id(0);
    float4 r[48];
#pragma unroll
    for (int k = 0; k < 48; k++)
        r[k] = in[i * 48 + k];
    float4 acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 48; k++)
#pragma unroll
        for (int j = 0; j < 48; j += 5)
            acc = mad(r[k], r[j], acc) + r[(k + j) % 48] * acc.yzwx;
#pragma unroll
    for (int k = 0; k < 48; k++)
        out[i * 48 + k] = r[k] * acc;
}
