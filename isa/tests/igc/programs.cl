#include "common.h"

// Small whole programs: a tiled matrix multiply, a mandelbrot, printf.
#define TILE 16
WIDTH __kernel void matmul(__global const float *a, __global const float *b, __global float *c,
                           int n) {
    __local float ta[TILE][TILE];
    __local float tb[TILE][TILE];
    int row = get_global_id(1), col = get_global_id(0);
    int lr = get_local_id(1), lc = get_local_id(0);
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[lr][lc] = a[row * n + t + lc];
        tb[lr][lc] = b[(t + lr) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc = fma(ta[lr][k], tb[k][lc], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}

WIDTH __kernel void mandelbrot(__global uchar *pixels, float x0, float y0, float step,
                               int max_iter) {
    int px = get_global_id(0), py = get_global_id(1);
    float cr = x0 + px * step, ci = y0 + py * step;
    float zr = 0.0f, zi = 0.0f;
    int k = 0;
    while (k < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        k++;
    }
    pixels[py * get_global_size(0) + px] = (uchar)(k * 255 / max_iter);
}

WIDTH __kernel void say(__global const int *v) {
    size_t i = get_global_id(0);
    if (i < 2)
        printf("item %d has %d and %f\n", (int)i, v[i], (float)v[i] * 0.5f);
}
