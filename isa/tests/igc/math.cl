#include "common.h"

// The extended math unit and the library around it.
WIDTH __kernel void transcendental(__global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    float v = x[i];
    y[i] = sin(v) + cos(v) * exp(v) - log(fabs(v) + 1.0f) + pow(v, 1.7f) + sqrt(v) +
           rsqrt(v + 2.0f) + v / (x[i + 1] + 0.5f);
}

WIDTH __kernel void native_fast(__global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    float v = x[i];
    y[i] = native_sin(v) * native_cos(v) + native_exp2(v) + native_log2(v) +
           native_powr(v, 0.5f) + native_recip(v) + native_divide(v, 3.0f) + native_rsqrt(v) +
           native_sqrt(v) + native_tan(v);
}

WIDTH __kernel void more_builtins(__global const float4 *x, __global float4 *y) {
    size_t i = get_global_id(0);
    float4 v = x[i];
    float4 w = fma(v, v.wzyx, (float4)(1.0f));
    y[i] = floor(w) + ceil(v) + round(v) + trunc(w) + fmin(v, w) + fmax(v, w) +
           clamp(v, -1.0f, 1.0f) + mix(v, w, 0.25f) + atan2(v, w) + tanh(v) + fmod(v, w) +
           (float4)(dot(v, w), length(v), distance(v, w), 0.0f) + normalize(w) +
           cross(v, w) + degrees(v) + step(0.5f, v) + smoothstep(0.0f, 1.0f, w);
}

WIDTH __kernel void division(__global const float *a, __global const float *b,
                             __global float *q, __global int *iq, __global uint *ur) {
    size_t i = get_global_id(0);
    q[i] = a[i] / b[i];
    int n = (int)a[i], d = (int)b[i] | 1;
    iq[i] = n / d;
    ur[i] = (uint)n % (uint)d;
}
