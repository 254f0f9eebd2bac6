// OpenCL kernels that cli/tests/run_zebin.rs compiles with ocloc for DG2
// and runs through `baregpu run --zebin`; each result is checked against a
// computation on the host.

// Buffers only: reached through the binding table (IGC's default) or as
// 64-bit pointers (-cl-intel-greater-than-4GB-buffer-required).
__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *out) {
    size_t i = get_global_id(0);
    out[i] = a[i] + b[i];
}

// Arguments by value: a float, a struct of two members, a bound.
typedef struct {
    float scale;
    int bias;
} params;

__kernel void axpb(__global const float *x, __global float *y, float a,
                   params p, uint n) {
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] * p.scale + (float)p.bias;
}

// What each work-item sees of a 2D NDRange, one uint4 per work-item.
__kernel void ids_2d(__global uint4 *out) {
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t i = y * get_global_size(0) + x;
    out[i] = (uint4)(get_local_id(0) | get_local_id(1) << 8 |
                         get_group_id(0) << 16 | get_group_id(1) << 24,
                     get_global_size(0) | get_global_size(1) << 16,
                     get_local_size(0) | get_local_size(1) << 16,
                     get_num_groups(0) | get_num_groups(1) << 16);
}
