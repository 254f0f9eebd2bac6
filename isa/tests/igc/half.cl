#include "common.h"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// Half precision arithmetic and conversions.
WIDTH __kernel void half_axpy(__global const half *x, __global half *y, half a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

WIDTH __kernel void half_math(__global const half4 *x, __global half4 *y,
                              __global float4 *wide) {
    size_t i = get_global_id(0);
    half4 v = x[i];
    half4 r = sqrt(v) + exp(v) + sin(v) + fma(v, v, (half4)(1.0h)) + max(v, (half4)(0.5h));
    y[i] = r;
    wide[i] = convert_float4(r) * 2.0f;
}

WIDTH __kernel void half_storage(__global const half *in, __global float *out) {
    size_t i = get_global_id(0);
    float f = vload_half(i, in);
    out[i] = f + vload_half(i + 1, in);
    vstore_half_rte(f * 3.0f, i, (__global half *)out);
}
