#include "common.h"

// Integer and float atomics on global and local memory.
WIDTH __kernel void histogram(__global const uchar *data, __global uint *bins) {
    __local uint local_bins[64];
    uint lid = get_local_id(0);
    if (lid < 64)
        local_bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&local_bins[data[get_global_id(0)] & 63]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 64)
        atomic_add(&bins[lid], local_bins[lid]);
}

WIDTH __kernel void int_atomics(__global int *g, __global uint *u, int v) {
    __local int l[4];
    if (get_local_id(0) == 0)
        l[0] = l[1] = l[2] = l[3] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_min(&g[0], v);
    atomic_max(&g[1], v);
    atomic_and(&u[0], (uint)v);
    atomic_or(&u[1], (uint)v);
    atomic_xor(&u[2], (uint)v);
    int old = atomic_cmpxchg(&g[2], v, v + 1);
    atomic_xchg(&g[3], old);
    atomic_dec(&u[3]);
    atomic_sub(&l[0], v);
    atomic_max(&l[1], v);
    atomic_cmpxchg(&l[2], 0, v);
    barrier(CLK_LOCAL_MEM_FENCE);
    g[4 + get_local_id(0)] = l[get_local_id(0) & 3];
}

WIDTH __kernel void float_atomics(__global float *g, float v) {
    __local atomic_float acc;
    if (get_local_id(0) == 0)
        atomic_init(&acc, 0.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_fetch_add_explicit(&acc, v, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_add_explicit((__global atomic_float *)g, v, memory_order_relaxed,
                              memory_scope_device);
    float seen = atomic_load_explicit((__global atomic_float *)&g[1], memory_order_acquire,
                                      memory_scope_device);
    atomic_store_explicit((__global atomic_float *)&g[2], seen * 2.0f,
                          memory_order_release, memory_scope_device);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        g[3] = atomic_load_explicit(&acc, memory_order_relaxed, memory_scope_work_group);
}

WIDTH __kernel void long_atomics(__global long *g, long v) {
    atom_add(&g[0], v);
    atom_cmpxchg(&g[1], v, v * 2);
}
