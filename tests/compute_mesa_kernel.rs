//! A Sandy Bridge kernel in the form Mesa's emitter writes immediates:
//! `elk_set_src0` (Mesa src/intel/compiler/elk/elk_eu_emit.c) sets the
//! unused src1's file to ARF and copies the immediate's type code into its
//! type, a code that is reserved as a register type for V (6) before Gen7.
//! Hardware ignores those bits; the driver's kernel upload must accept the
//! kernel, and the software GPU must run it with the immediates' meaning.

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Threads};
use baregpu::hal::Generation;
use baregpu_isa::IsaGen;
use baregpu_isa::codec::to_dwords;
use baregpu_isa::tables;
use compute_run_common::*;

const G: Generation = Generation::Gen6;

/// Writes eight words 0-7 (a V immediate) and four floats 1.5 to OWords
/// 0-1 of the buffer at binding 0. The two movs state Mesa's src1 fields
/// with the disassembler's `src1=arf:<type>` syntax.
fn kernel() -> Vec<u8> {
    let mut k = String::from(
        "mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n\
         mov (1|M0) r10.2<1>:ud 0x0:ud\n",
    );
    k += &format!("mov (8|M0) {}.0<1>:uw 0x76543210:v src1=arf:v\n", msg(G, 1));
    k += &format!("mov (4|M0) {}.4<1>:f 0x3fc00000:f src1=arf:f\n", msg(G, 1));
    let desc = format!(
        "{}.oword_block_write(bti=0, owords=2) mlen=2 rlen=0 hdr",
        write_port(G)
    );
    k += &send(G, "r10", "null", &desc);
    k += &end_thread(G);
    assemble(G, &k)
}

#[test]
fn a_kernel_with_mesa_form_immediates_loads_and_runs() {
    let bin = kernel();
    // The immediate movs carry Mesa's src1 type codes: V = 6, F = 7.
    let src1_ty = tables::for_platform(IsaGen::Gen6).fields.src1.ty;
    let codes: Vec<u32> = bin
        .chunks(16)
        .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
        .filter(|w| w & 0x7F == 1 && (w >> 37) & 3 == 3) // mov, src0 IMM
        .map(|w| ((w & src1_ty.mask()) >> src1_ty.lo) as u32)
        .collect();
    assert_eq!(
        codes,
        [0, 6, 7],
        "src1 types of the immediate movs: {:08x?}",
        bin.chunks(16)
            .map(|c| to_dwords(u128::from_le_bytes(c.try_into().unwrap())))
            .collect::<Vec<_>>()
    );
    with_soft(G, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let k = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    bindings: &[0],
                    ..KernelDesc::new(&bin)
                },
            )
            .expect("the driver accepts Mesa's immediate form");
        let out = cx.create_buffer(gpu, 64).unwrap();
        out.write(0, &[0xAA; 64]).unwrap();
        let bindings = [(0, Resource::Buffer(&out))];
        let d = Dispatch {
            threads: Threads::Objects {
                count: 1,
                inline: &[],
            },
            curbe: &[],
            bindings: &bindings,
            samplers: &[],
        };
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        gpu.wait(fence, DONE_US)
            .unwrap_or_else(|e| panic!("{e}\nEU: {:?}", soft.eu_report()));
        let mut raw = [0u8; 64];
        out.read(0, &mut raw).unwrap();
        let words: Vec<u16> = raw[..16]
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(words, [0, 1, 2, 3, 4, 5, 6, 7], "the V immediate");
        let floats: Vec<f32> = raw[16..32]
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(floats, [1.5; 4], "the F immediate");
        assert_eq!(&raw[32..], &[0xAA; 32][..], "only two OWords written");
        assert!(soft.eu_report().is_none(), "{:?}", soft.eu_report());
    });
}
