#include "common.h"

// The sampler and typed surface messages.
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
__constant sampler_t linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

WIDTH __kernel void blur2d(__read_only image2d_t src, __write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float4 acc = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            acc += read_imagef(src, nearest, p + (int2)(dx, dy));
    write_imagef(dst, p, acc / 9.0f);
}

WIDTH __kernel void sample_linear(__read_only image2d_t src, __global float4 *out, float lod) {
    float2 uv = (float2)(get_global_id(0), get_global_id(1)) / 64.0f;
    out[get_global_id(1) * get_global_size(0) + get_global_id(0)] =
        read_imagef(src, linear, uv) + read_imagef(src, linear, uv, lod);
}

WIDTH __kernel void image1d_and_3d(__read_only image1d_t a, __read_only image3d_t b,
                                   __write_only image1d_t c, __global uint4 *size_out) {
    int x = get_global_id(0);
    float4 v = read_imagef(a, nearest, x) +
               read_imagef(b, nearest, (int4)(x, x / 2, x / 4, 0));
    write_imagef(c, x, v);
    if (x == 0)
        size_out[0] = (uint4)(get_image_width(a), get_image_height(b), get_image_depth(b),
                              get_image_channel_order(b));
}

WIDTH __kernel void image_integer(__read_only image2d_t src, __write_only image3d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    uint4 v = read_imageui(src, p);
    int4 s = read_imagei(src, p + 1);
    write_imagef(dst, (int4)(p, 1, 0), convert_float4(v) + convert_float4(s));
}

WIDTH __kernel void image_read_write(__read_write image2d_t img) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float4 v = read_imagef(img, p);
    write_imagef(img, p, v * 0.5f);
}
