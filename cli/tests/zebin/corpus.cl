// OpenCL kernels of the kind public compute samples are made of, compiled by
// ocloc for DG2 in cli/tests/run_zebin.rs and run through `baregpu run
// --zebin`; every result is checked against the same computation on the host.

__kernel void int_ops(__global const int *a, __global const int *b, __global int *o) {
    size_t i = get_global_id(0);
    int x = a[i], y = b[i];
    o[16*i+0] = x * y;
    o[16*i+1] = y != 0 ? x / y : 0;
    o[16*i+2] = y != 0 ? x % y : 0;
    o[16*i+3] = mul_hi(x, y);
    o[16*i+4] = rotate(x, y);
    o[16*i+5] = popcount(x);
    o[16*i+6] = clz(x);
    o[16*i+7] = min(x, y) + max(x, y);
    o[16*i+8] = abs(x);
    o[16*i+9] = add_sat(x, y);
    o[16*i+10] = (uint)x >> (y & 31);
    o[16*i+11] = x >> (y & 31);
    o[16*i+12] = mad24(x, y, 3);
    o[16*i+13] = (int)((long)x * (long)y >> 7);
    o[16*i+14] = hadd(x, y);
    o[16*i+15] = x ^ ~y;
}
__kernel void float_ops(__global const float *a, __global const float *b, __global float *o) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    o[16*i+0] = x / y;
    o[16*i+1] = sqrt(fabs(x));
    o[16*i+2] = native_sin(x);
    o[16*i+3] = floor(x) + ceil(y);
    o[16*i+4] = fmin(x, y) * fmax(x, y);
    o[16*i+5] = (float)(int)x;
    o[16*i+6] = rsqrt(fabs(y) + 1.0f);
    o[16*i+7] = fma(x, y, 1.5f);
    o[16*i+8] = native_exp2(x * 0.01f);
    o[16*i+9] = native_log2(fabs(x) + 1.0f);
    o[16*i+10] = copysign(x, y);
    o[16*i+11] = x > y ? x : y;
    o[16*i+12] = round(x);
    o[16*i+13] = trunc(y);
    o[16*i+14] = (float)(uint)(fabs(x));
    o[16*i+15] = mad(x, 2.0f, y);
}
__kernel void bytes(__global const uchar *a, __global const short *b, __global uchar *o, __global short *p) {
    size_t i = get_global_id(0);
    o[i] = a[i] + (uchar)i;
    p[i] = b[i] * 3 - (short)i;
}
__kernel void vec4(__global const float4 *a, __global float4 *o) {
    size_t i = get_global_id(0);
    float4 v = a[i];
    o[i] = v.wzyx * (float4)(1, 2, 3, 4) + (float4)(dot(v, v));
}
__kernel void loop_sum(__global const int *a, __global int *o, int n) {
    size_t i = get_global_id(0);
    int s = 0;
    for (int k = 0; k < n; k++) s += a[(i + k) % 64] * k;
    o[i] = s;
}
__kernel void local_reverse(__global const int *a, __global int *o, __local int *t) {
    size_t l = get_local_id(0), n = get_local_size(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = t[n - 1 - l];
}
__kernel void atomics(__global const uint *a, __global uint *o) {
    size_t i = get_global_id(0);
    atomic_add(&o[0], a[i]);
    atomic_max(&o[1], a[i]);
    atomic_min(&o[2], a[i]);
    atomic_or(&o[3], a[i]);
    atomic_xor(&o[4], a[i]);
    atomic_inc(&o[5]);
    atomic_cmpxchg(&o[6], 0u, a[i]);
}
__kernel void longs(__global const long *a, __global long *o) {
    size_t i = get_global_id(0);
    long x = a[i];
    o[4*i] = x * 3 + 7;
    o[4*i+1] = x >> 5;
    o[4*i+2] = x / 7;
    o[4*i+3] = (long)((ulong)x >> 9);
}
__kernel void subgroup(__global const int *a, __global int *o) {
    size_t i = get_global_id(0);
    o[2*i] = sub_group_reduce_add(a[i]);
    o[2*i+1] = sub_group_broadcast(a[i], 3);
}
__kernel void local_atomics(__global const uint *a, __global uint *o, __local uint *t) {
    size_t l = get_local_id(0);
    if (l < 4) t[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&t[a[get_global_id(0)] % 4], 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 4) o[get_group_id(0) * 4 + l] = t[l];
}

#define TILE 16
__kernel void matmul(__global const float *A, __global const float *B, __global float *C, int N) {
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int row = get_global_id(1), col = get_global_id(0);
    int lr = get_local_id(1), lc = get_local_id(0);
    float acc = 0.0f;
    for (int t = 0; t < N / TILE; t++) {
        As[lr][lc] = A[row * N + t * TILE + lc];
        Bs[lr][lc] = B[(t * TILE + lr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++) acc += As[lr][k] * Bs[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
__kernel void transpose(__global const float *in, __global float *out, int w, int h) {
    __local float tile[TILE][TILE + 1];
    int x = get_group_id(0) * TILE + get_local_id(0);
    int y = get_group_id(1) * TILE + get_local_id(1);
    if (x < w && y < h) tile[get_local_id(1)][get_local_id(0)] = in[y * w + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = get_group_id(1) * TILE + get_local_id(0);
    y = get_group_id(0) * TILE + get_local_id(1);
    if (x < h && y < w) out[y * h + x] = tile[get_local_id(0)][get_local_id(1)];
}
__kernel void bitonic_step(__global int *data, uint j, uint k) {
    uint i = get_global_id(0);
    uint ixj = i ^ j;
    if (ixj > i) {
        int a = data[i], b = data[ixj];
        if (((i & k) == 0 && a > b) || ((i & k) != 0 && a < b)) { data[i] = b; data[ixj] = a; }
    }
}
__kernel void scan_local(__global const int *in, __global int *out, __local int *tmp) {
    int l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < n; off <<= 1) {
        int v = l >= off ? tmp[l - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[l] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = tmp[l];
}
/* A private array indexed at run time: IGC keeps it in stateless private
 * memory, each hardware thread's part found from sr0.0. The barrier makes
 * every thread of the group write its part before any reads it back. */
__kernel void private_array(__global const int *a, __global int *o, int n) {
    int t[64];
    int g = get_global_id(0);
    for (int i = 0; i < 64; i++) t[i] = a[(g + i) % n] * (i + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    int s = 0;
    for (int i = 0; i < 64; i++) s += t[(i * 7 + g) & 63];
    o[g] = s;
}
/* Program-scope constants and a built-in's tables: `weights` and pow's
 * tables live in .data.const, reached through relocated addresses; IGC's
 * fmod ands a float cmp result (all ones) with the divisor's bits. */
__constant float weights[8] = {0.5f, 1.25f, -2.0f, 3.5f, 0.125f, -0.75f, 4.0f, 1.0f};
__kernel void const_pow_fmod(__global const float *a, __global float *o) {
    int i = get_global_id(0);
    float x = a[i];
    o[i * 3 + 0] = weights[i & 7] * x;
    o[i * 3 + 1] = pow(fabs(x) + 0.5f, 1.5f);
    o[i * 3 + 2] = fmod(x, 1.75f);
}
/* A small private array indexed at run time: IGC keeps it in registers
 * and reads it through a0 (a SIMD16 VxH region over a0.0-a0.15). */
__kernel void dynamic_index(__global const int *a, __global int *o) {
    int i = get_global_id(0);
    int acc[8];
    for (int k = 0; k < 8; k++) acc[k] = a[(i + k) & 63] + k;
    o[i] = acc[a[i] & 7];
}
/* OpenCL 2.0 work-group functions and an async copy into local memory
 * (IGC's copy loop writes two halves of one dword and waits on the first
 * only: the model's SWSB check orders by bytes). */
__kernel void work_group_fns(__global const int *a, __global int *o) {
    int i = get_global_id(0);
    int x = a[i];
    o[i * 3 + 0] = work_group_reduce_add(x);
    o[i * 3 + 1] = work_group_scan_inclusive_add(x);
    o[i * 3 + 2] = work_group_broadcast(x, 5);
}
__kernel void async_copy(__global const int *a, __global int *o, __local int *t) {
    int g = get_group_id(0), n = get_local_size(0);
    event_t e = async_work_group_copy(t, a + g * n, n, 0);
    wait_group_events(1, &e);
    int l = get_local_id(0);
    o[g * n + l] = t[n - 1 - l] * 2;
}
/* Integer built-ins and conversions with saturation and rounding modes. */
__kernel void int_builtins(__global const int *a, __global const int *b, __global int *o) {
    int i = get_global_id(0);
    int x = a[i], y = b[i];
    /* mul24 of values past 24 bits is implementation-defined: shifted in. */
    o[i * 10 + 0] = mad24(x >> 8, y >> 8, 7);
    o[i * 10 + 1] = mul24(x >> 8, y >> 8);
    o[i * 10 + 2] = abs(x) + abs_diff(x, y);
    o[i * 10 + 3] = hadd(x, y);
    o[i * 10 + 4] = rhadd(x, y);
    o[i * 10 + 5] = (int)upsample((short)x, (ushort)y);
    o[i * 10 + 6] = bitselect(x, y, 0x0f0f0f0f);
    o[i * 10 + 7] = ctz(x) + clz(y);
    o[i * 10 + 8] = sub_sat(x, y);
    o[i * 10 + 9] = mad_hi(x, y, 7);
}
__kernel void conversions(__global const float *a, __global const int *b, __global int *o) {
    int i = get_global_id(0);
    float x = a[i];
    int n = b[i];
    o[i * 8 + 0] = convert_int_sat(x * 1e9f);
    o[i * 8 + 1] = convert_uchar_sat(n);
    o[i * 8 + 2] = convert_int_rte(x);
    o[i * 8 + 3] = convert_int_rtp(x);
    o[i * 8 + 4] = convert_int_rtn(x);
    o[i * 8 + 5] = convert_short_sat(n * 7);
    o[i * 8 + 6] = convert_uint_sat(x);
    o[i * 8 + 7] = as_int(convert_float((uint)n));
}
__kernel void half_stores(__global const float *a, __global ushort *o) {
    int i = get_global_id(0);
    vstore_half_rtz(a[i], i * 3, (__global half *)o);
    vstore_half_rtp(a[i], i * 3 + 1, (__global half *)o);
    vstore_half_rtn(a[i], i * 3 + 2, (__global half *)o);
}
/* Twelve live float16 values at SIMD32 overflow the 128 registers: IGC
 * spills to scratch with dc0 HWord scratch blocks (slot 0 of
 * per_thread_memory_buffers). */
__attribute__((intel_reqd_sub_group_size(32)))
__kernel void spills(__global const float16 *a, __global float16 *o) {
    int i = get_global_id(0);
    float16 v0 = a[i*12+0], v1 = a[i*12+1], v2 = a[i*12+2], v3 = a[i*12+3], v4 = a[i*12+4], v5 = a[i*12+5];
    float16 v6 = a[i*12+6], v7 = a[i*12+7], v8 = a[i*12+8], v9 = a[i*12+9], v10 = a[i*12+10], v11 = a[i*12+11];
    for (int k = 0; k < 4; k++) {
        v0 = v0 * v1 + v2; v3 = v3 * v4 + v5; v6 = v6 * v7 + v8; v9 = v9 * v10 + v11;
        v1 = v1 + v0 * 0.5f; v4 = v4 + v3 * 0.5f; v7 = v7 + v6 * 0.5f; v10 = v10 + v9 * 0.5f;
        v2 = v2 - v11; v5 = v5 - v8; v8 = v8 - v2; v11 = v11 - v5;
    }
    o[i*4+0] = v0 + v1 + v2; o[i*4+1] = v3 + v4 + v5; o[i*4+2] = v6 + v7 + v8; o[i*4+3] = v9 + v10 + v11;
}
/* IEEE special values: fmin/fmax with NaNs and signed zeros,
 * classification, saturating conversion (IGC selects the integer results
 * through a float sel), copysign. */
__kernel void float_specials(__global const float *a, __global const float *b, __global int *o) {
    int i = get_global_id(0);
    float x = a[i], y = b[i];
    o[i * 5 + 0] = as_int(fmin(x, y));
    o[i * 5 + 1] = as_int(fmax(x, y));
    o[i * 5 + 2] = isnan(x) + 2 * isinf(y) + 4 * signbit(x) + 8 * isfinite(y);
    o[i * 5 + 3] = convert_int_sat(x);
    o[i * 5 + 4] = as_int(copysign(x, y));
}
