//! Which vector instructions the host CPU offers the fast paths.
//!
//! The lane loops are plain Rust that the compiler vectorises for the
//! build's target (SSE2 on a default x86_64 build). On a CPU with AVX2 and
//! FMA whose OS saves the wide registers, the same loops compiled for
//! those features process twice the lanes per instruction; the handlers
//! are then chosen at predecode. Everything else (other CPUs, the
//! bare-metal kernel under QEMU's default CPU) keeps the portable loops,
//! which compute the same bits.

use core::sync::atomic::{AtomicU8, Ordering};

/// 0: not asked yet; 1: no; 2: yes.
static WIDE: AtomicU8 = AtomicU8::new(0);

/// Whether the AVX2 + FMA variants may run on this CPU.
pub fn wide() -> bool {
    match WIDE.load(Ordering::Relaxed) {
        0 => {
            let yes = detect();
            WIDE.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
            yes
        }
        v => v == 2,
    }
}

#[cfg(target_arch = "x86_64")]
fn detect() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    let leaf1 = __cpuid(1);
    // CPUID.1:ECX: FMA (12), OSXSAVE (27: XGETBV usable), AVX (28).
    let fma = leaf1.ecx >> 12 & 1 == 1;
    let osxsave = leaf1.ecx >> 27 & 1 == 1;
    let avx = leaf1.ecx >> 28 & 1 == 1;
    if !(fma && osxsave && avx) || __cpuid(0).eax < 7 {
        return false;
    }
    // CPUID.(7,0):EBX bit 5: AVX2.
    let avx2 = __cpuid_count(7, 0).ebx >> 5 & 1 == 1;
    // XCR0 bits 1 and 2: the OS saves SSE and AVX state, so YMM registers
    // survive context switches.
    // SAFETY: XGETBV exists and does not fault when CR4.OSXSAVE is set,
    // which CPUID.1:ECX bit 27 (checked above) reports.
    avx2 && unsafe { xcr0() } & 0b110 == 0b110
}

/// XCR0. Callers make sure OSXSAVE is set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: the caller's contract.
    unsafe { core::arch::x86_64::_xgetbv(0) }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> bool {
    false
}

/// `a * b + c` lane by lane with one rounding to nearest even (IEEE
/// fusedMultiplyAdd, gradual underflow), `N` a multiple of 8. Only for
/// the AVX2 + FMA handlers: callers make sure [`wide`] said yes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(super) unsafe fn fma_lanes<const N: usize>(
    a: &[f32; N],
    b: &[f32; N],
    c: &[f32; N],
) -> [f32; N] {
    use core::arch::x86_64::{__m256, _mm256_fmadd_ps};
    let mut r = [0f32; N];
    for k in (0..N).step_by(8) {
        let (Some(x), Some(y), Some(z)) = (a.get(k..k + 8), b.get(k..k + 8), c.get(k..k + 8))
        else {
            break;
        };
        let mut v = [[0f32; 8]; 3];
        v[0].copy_from_slice(x);
        v[1].copy_from_slice(y);
        v[2].copy_from_slice(z);
        // SAFETY: `[f32; 8]` and `__m256` have the same size (32 bytes) and
        // every bit pattern is valid in both; this is the register view of
        // eight floats.
        let f: [f32; 8] = unsafe {
            let [x, y, z] = v.map(|l| core::mem::transmute::<[f32; 8], __m256>(l));
            core::mem::transmute::<__m256, [f32; 8]>(_mm256_fmadd_ps(x, y, z))
        };
        if let Some(out) = r.get_mut(k..k + 8) {
            out.copy_from_slice(&f);
        }
    }
    r
}
