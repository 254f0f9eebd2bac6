//! SURFACE_STATE decoding and binding tables read from memory. The state
//! dwords are assembled here from the manuals' bit positions (000 lines
//! 3052-3334 for Gen4/G45, 003 lines 75428-76407 for Gen6; Mesa gen7.xml
//! for Gen7), not from the hal's packers.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::surface::format;
use baregpu_soft::eu::shared::{
    BindingTable, FlatMemory, GfxMemory, Surface, SurfaceError, SurfaceKind, Tiling,
};

use super::rig::*;

/// A 2D surface's state dwords on `p`.
fn state_2d(
    p: IsaGen,
    base: u32,
    fmt: u32,
    w: u32,
    h: u32,
    pitch: u32,
    tiling: Tiling,
) -> Vec<u32> {
    let (tiled, walk) = match tiling {
        Tiling::Linear => (0, 0),
        Tiling::X => (1, 0),
        Tiling::Y => (1, 1),
        Tiling::Tile4 => unreachable!("no Gen4-Gen7.5 surface is Tile4"),
    };
    if p >= IsaGen::Gen7 {
        let mut dw = vec![0u32; 8];
        dw[0] = 1 << 29 | fmt << 18 | tiled << 14 | walk << 13;
        dw[1] = base;
        dw[2] = (h - 1) << 16 | (w - 1);
        dw[3] = pitch - 1;
        dw
    } else {
        let mut dw = vec![0u32; if p == IsaGen::Gen4 { 5 } else { 6 }];
        dw[0] = 1 << 29 | fmt << 18;
        dw[1] = base;
        dw[2] = (h - 1) << 19 | (w - 1) << 6;
        dw[3] = (pitch - 1) << 3 | tiled << 1 | walk;
        dw
    }
}

/// A buffer of `entries` entries: entries - 1 split into Width[6:0],
/// Height and Depth (000 lines 3234-3245: 13 and 7 bits; Gen7 14 and 6).
fn state_buffer(p: IsaGen, base: u32, entries: u32, pitch: u32) -> Vec<u32> {
    let n = entries - 1;
    let mut dw = vec![0u32; if p >= IsaGen::Gen7 { 8 } else { 6 }];
    dw[0] = 4 << 29 | format::R32G32B32A32_FLOAT << 18;
    dw[1] = base;
    if p >= IsaGen::Gen7 {
        dw[2] = ((n >> 7) & 0x3FFF) << 16 | (n & 0x7F);
        dw[3] = ((n >> 21) & 0x3F) << 21 | (pitch - 1);
    } else {
        dw[2] = ((n >> 7) & 0x1FFF) << 19 | (n & 0x7F) << 6;
        dw[3] = ((n >> 20) & 0x7F) << 21 | (pitch - 1) << 3;
    }
    dw
}

#[test]
fn two_d_state_decodes_on_every_generation() {
    for p in ALL {
        for t in [Tiling::Linear, Tiling::X, Tiling::Y] {
            let dw = state_2d(p, 0x0012_3000, format::R8G8B8A8_UNORM, 640, 480, 4096, t);
            let s = Surface::from_surface_state(p, &dw).unwrap();
            assert_eq!(s.kind, SurfaceKind::D2, "{p:?}");
            assert_eq!(
                (s.base, s.format, s.width, s.height, s.pitch, s.tiling),
                (0x0012_3000, format::R8G8B8A8_UNORM, 640, 480, 4096, t),
                "{p:?} {t:?}"
            );
            assert_eq!(s.row_bytes(), Some(2560));
        }
    }
}

#[test]
fn buffer_entries_reassemble_from_three_fields() {
    for p in ALL {
        for entries in [1u32, 128, 129, 1 << 20, (1 << 20) + 77, 100_000_000] {
            let dw = state_buffer(p, 0x4000, entries, 16);
            let s = Surface::from_surface_state(p, &dw).unwrap();
            assert_eq!(s.kind, SurfaceKind::Buffer);
            assert_eq!(s.entries(), u64::from(entries), "{p:?}");
            assert_eq!(s.buffer_bytes(16), u64::from(entries) * 16);
        }
    }
}

#[test]
fn truncated_or_reserved_state_is_an_error() {
    assert!(Surface::from_surface_state(IsaGen::Gen6, &[0; 3]).is_err());
    let mut dw = state_2d(IsaGen::Gen6, 0, 0, 1, 1, 64, Tiling::Linear);
    dw[0] = 5 << 29; // reserved surface type on Gen6
    assert!(matches!(
        Surface::from_surface_state(IsaGen::Gen6, &dw),
        Err(SurfaceError::BadState(_))
    ));
}

#[test]
fn binding_table_entries_point_into_surface_state_base() {
    // Entry bits 31:5 are a Surface State Base relative pointer (000 lines
    // 3044-3050; 003 lines 75392-75410).
    for p in ALL {
        let mut mem = FlatMemory::new(MEM_BASE, MEM_LEN);
        let ssb = MEM_BASE + 0x2000;
        let table = MEM_BASE + 0x100;
        let dw = state_buffer(p, 0x9000, 40, 16);
        for (i, d) in dw.iter().enumerate() {
            mem.set_dword(ssb + 0x240 + 4 * i as u64, *d);
        }
        mem.set_dword(table + 4 * 7, 0x240 | 0x1F); // low bits ignored
        let bt = BindingTable {
            platform: p,
            table,
            surface_state_base: ssb,
        };
        let s = bt.resolve(&mut mem, 7).unwrap();
        assert_eq!((s.base, s.entries()), (0x9000, 40), "{p:?}");
        // An entry pointing outside memory is a fault, not a panic.
        mem.set_dword(table + 4 * 8, 0xFFFF_FFE0);
        assert!(matches!(
            bt.resolve(&mut mem, 8),
            Err(SurfaceError::Fault(_))
        ));
    }
}

#[test]
fn surface_state_in_memory_serves_messages() {
    // The same binding table through MessageEnv: a Gen6 OWord block read.
    use baregpu_soft::eu::shared::{MessageEnv, SurfaceSource, handle};
    let p = IsaGen::Gen6;
    let mut mem = FlatMemory::new(MEM_BASE, MEM_LEN);
    let ssb = MEM_BASE + 0x2000;
    for (i, d) in state_buffer(p, (MEM_BASE + 0x3000) as u32, 8, 16)
        .iter()
        .enumerate()
    {
        mem.set_dword(ssb + 0x40 + 4 * i as u64, *d);
    }
    mem.set_dword(MEM_BASE + 4 * 3, 0x40);
    for i in 0..32 {
        mem.set_dword(MEM_BASE + 0x3000 + 4 * i, 0x100 + i as u32);
    }
    let mut rig = Rig::new(p);
    rig.set(0, [0, 0, 1, 0, 0, 0, 0, 0]); // OWord 1
    let (sfid, desc) = baregpu_isa::message::parse_symbolic(
        p,
        "rc.oword_block_read(bti=3, owords=2) mlen=1 rlen=1 hdr",
    )
    .unwrap();
    let req = baregpu_soft::eu::send::SendRequest {
        ip: 0,
        sfid: Some(sfid),
        desc: 0,
        mlen: desc.mlen,
        rlen: desc.rlen,
        header: desc.header,
        function: desc.function,
        payload: baregpu_soft::eu::send::Payload {
            file: baregpu_isa::inst::RegFile::Mrf,
            reg: PAYLOAD_MRF,
        },
        dst: Some(DST),
        dst_type: baregpu_isa::inst::Type::Ud,
        exec_size: 8,
        first_channel: 0,
        channels: 0xFF,
        eot: false,
        conditional: false,
        extended: baregpu_soft::eu::send::ExtendedSend::NONE,
    };
    let memory: &mut dyn GfxMemory = &mut mem;
    let mut env = MessageEnv::new(
        memory,
        SurfaceSource::Table(BindingTable {
            platform: p,
            table: MEM_BASE,
            surface_state_base: ssb,
        }),
    );
    handle(&mut env, &mut rig.thread, &req).unwrap();
    assert_eq!(rig.resp(0), core::array::from_fn(|d| 0x104 + d as u32));
}

#[test]
fn offsets_match_the_tiling_function() {
    // Spot values of the tiling function (003 lines 7444-7463) for a
    // 1024-byte pitch: X tile (x=515, y=9) is in tile row 1, tile 1.
    let x = Surface::two_d(0, 0, 256, 64, 1024, Tiling::X);
    assert_eq!(x.offset(515, 9), 2 * 4096 + 4096 + 512 + 3);
    let y = Surface::two_d(0, 0, 256, 64, 1024, Tiling::Y);
    // Y tile: (x=130, y=33): tile row 1 (8 tiles of 4 KB), tile 1,
    // column 0, row 1, byte 2.
    assert_eq!(y.offset(130, 33), 8 * 4096 + 4096 + 16 + 2);
    assert_eq!(y.offset(47, 5), 2 * 512 + 5 * 16 + 15);
    let l = Surface::two_d(0, 0, 256, 64, 1000, Tiling::Linear);
    assert_eq!(l.offset(7, 3), 3007);
}
