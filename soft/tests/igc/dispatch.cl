// Kernels that soft/tests/dg2_igc.rs compiles with ocloc for dg2 and runs
// on the DG2 model with the dispatch NEO gives them; each result is checked
// against a host computation.

__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *out) {
    size_t i = get_global_id(0);
    out[i] = a[i] + b[i];
}

// What every work-item sees of the NDRange, one uint4 per work-item.
__kernel void ndrange_ids(__global uint4 *out) {
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t i = y * get_global_size(0) + x;
    out[i] = (uint4)(get_local_id(0) | get_local_id(1) << 8 | get_group_id(0) << 16 |
                         get_group_id(1) << 24,
                     get_global_size(0) | get_global_size(1) << 16,
                     get_local_size(0) | get_local_size(1) << 16,
                     get_num_groups(0) | get_num_groups(1) << 16);
}

// A group's sum through local memory and barriers.
__kernel void group_sum(__global const uint *in, __global uint *sums,
                        __local uint *scratch) {
    uint lid = get_local_id(0), n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = n / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}

// Global atomics from every work-item.
__kernel void histogram(__global const uint *data, __global uint *bins,
                        __global uint *total) {
    uint v = data[get_global_id(0)];
    atomic_inc(&bins[v % 16]);
    atomic_add(total, v);
}

// More global atomics: a 64-bit sum, signed min and max, and tickets: each
// work-item's returned old value of one counter, so every ticket 0..n-1 is
// taken once.
__kernel void atomics_mix(__global const uint *data, __global ulong *sum64,
                          __global int *minmax, __global uint *tickets,
                          __global uint *counter) {
    uint gid = get_global_id(0);
    uint v = data[gid];
    atom_add(sum64, (ulong)v << 24);
    atomic_min(&minmax[0], (int)v - 2048);
    atomic_max(&minmax[1], (int)v - 2048);
    tickets[gid] = atomic_inc(counter);
}
