//! Entries taken from Mesa (Gen7 send descriptors, DG2 surface and sampler
//! state) pack where Mesa's own encoders put the bits: each expected word is
//! built here with the shifts of Mesa's elk_sampler_desc / elk_urb_desc /
//! elk_dp_desc (src/intel/compiler/elk/elk_eu.h, Gen7 branches) or the
//! genxml start bits, independently of the tables.

use baregpu_hal::Packet;
use baregpu_hal::gen7::structs as g7;
use baregpu_hal::gen12_5::structs as g125;

fn pack1<P: Packet>(p: &P) -> u32 {
    let mut out = [0u32; 1];
    assert_eq!(p.pack(&mut out).unwrap(), 1);
    out[0]
}

#[test]
fn gen7_sampler_descriptor_matches_elk_sampler_desc() {
    for (bti, sampler, msg_type, simd) in [
        (0u32, 0u32, 0u32, 1u32),
        (5, 3, 7, 2),
        (255, 15, 31, 0),
        (17, 9, 16, 3),
    ] {
        let (mlen, rlen) = (4u32, 8u32);
        let d = g7::SamplerMessageDescriptor {
            message_length: mlen,
            response_length: rlen,
            header_present: true,
            simd_mode: simd,
            message_type: msg_type,
            sampler_index: sampler,
            binding_table_index: bti,
            ..Default::default()
        };
        let mesa = (mlen << 25)
            | (rlen << 20)
            | (1 << 19)
            | (simd << 17)
            | (msg_type << 12)
            | (sampler << 8)
            | bti;
        assert_eq!(
            pack1(&d),
            mesa,
            "bti {bti} sampler {sampler} type {msg_type} simd {simd}"
        );
        assert_eq!(g7::SamplerMessageDescriptor::unpack(&[mesa]).unwrap(), d);
    }
}

#[test]
fn gen7_urb_and_data_port_descriptors_match_elk() {
    // elk_urb_desc, ver 7: per-slot offset 16, global offset 13:3, opcode 3:0
    // (2:0 used); complete and swizzle from elk_inst.h's Gen7 column.
    let urb = g7::UrbMessageDescriptor {
        message_length: 5,
        header_present: true,
        per_slot_offset: true,
        complete: true,
        swizzle_control: g7::UrbMessageDescriptor::SWIZZLE_CONTROL_URB_INTERLEAVED,
        global_offset: 0x7ff,
        urb_opcode: g7::UrbMessageDescriptor::URB_OPCODE_READ_OWORD,
        ..Default::default()
    };
    let mesa = (5 << 25) | (1 << 19) | (1 << 16) | (1 << 15) | (1 << 14) | (0x7ff << 3) | 3;
    assert_eq!(pack1(&urb), mesa);
    // elk_dp_desc, ver 7: message type 17:14, control 13:8.
    let dc = g7::DataportDataCacheMessageDescriptor {
        message_length: 1,
        response_length: 1,
        message_type: g7::DataportDataCacheMessageDescriptor::MESSAGE_TYPE_UNTYPED_SURFACE_READ,
        message_specific_control: 0x3e,
        binding_table_index: 255,
        ..Default::default()
    };
    assert_eq!(
        pack1(&dc),
        (1 << 25) | (1 << 20) | (5 << 14) | (0x3e << 8) | 255
    );
    // A value that does not fit is refused, not truncated.
    let bad = g7::UrbMessageDescriptor {
        global_offset: 0x800,
        ..Default::default()
    };
    assert!(bad.pack(&mut [0u32; 1]).is_err());
}

#[test]
fn dg2_render_surface_state_places_fields_at_genxml_bits() {
    let s = g125::RenderSurfaceState {
        surface_type: g125::RenderSurfaceState::SURFACE_TYPE_SURFTYPE_BUFFER,
        surface_format: 511,
        tile_mode: g125::RenderSurfaceState::TILE_MODE_TILE4,
        mocs: 0x41,
        width: 0x3fff,
        height: 0x1234,
        surface_pitch: 0x3ffff,
        depth: 0x7ff,
        surface_base_address: 0x0000_1234_5678_9000,
        clear_value_address: 0x0000_abcd_ef01_2340,
        ..Default::default()
    };
    let mut d = [0u32; 16];
    assert_eq!(s.pack(&mut d).unwrap(), 16);
    // genxml gen125.xml starts: Surface Type 29, Surface Format 18, Tile Mode
    // 12, MOCS 56, Width 64, Height 80, Surface Pitch 96, Depth 117, Surface
    // Base Address 256..319, Clear Value Address 390..431.
    assert_eq!(d[0], (4 << 29) | (511 << 18) | (3 << 12));
    assert_eq!(d[1], 0x41 << 24);
    assert_eq!(d[2], 0x3fff | (0x1234 << 16));
    assert_eq!(d[3], 0x3ffff | (0x7ff << 21));
    assert_eq!((d[8], d[9]), (0x5678_9000, 0x1234));
    assert_eq!((d[12], d[13]), (0xef01_2340, 0xabcd));
    assert_eq!(g125::RenderSurfaceState::unpack(&d).unwrap(), s);
}

#[test]
fn dg2_sampler_and_binding_table_state_place_fields_at_genxml_bits() {
    let s = g125::SamplerState {
        min_mode_filter: g125::SamplerState::MIN_MODE_FILTER_MAPFILTER_LINEAR,
        mag_mode_filter: g125::SamplerState::MAG_MODE_FILTER_MAPFILTER_LINEAR,
        max_lod: 0xfff,
        border_color_pointer: 0x40,
        tcx_address_control_mode: g125::SamplerState::TCX_ADDRESS_CONTROL_MODE_TCM_CLAMP,
        non_normalized_coordinate_enable: true,
        u_address_min_filter_rounding_enable: true,
        ..Default::default()
    };
    let mut d = [0u32; 4];
    s.pack(&mut d).unwrap();
    // gen12.xml: Min Mode Filter 14, Mag 17, Max LOD 40, Border Color Pointer
    // 70 (an offset, 64-byte aligned), TCX 102, Non-normalized 106, U min
    // rounding 113.
    assert_eq!(d[0], (1 << 14) | (1 << 17));
    assert_eq!(d[1], 0xfff << 8);
    assert_eq!(d[2], 0x40);
    assert_eq!(d[3], (2 << 6) | (1 << 10) | (1 << 17));
    let bt = g125::BindingTableState {
        surface_state_pointer: 0x1_0040,
    };
    assert_eq!(pack1(&bt), 0x1_0040);
    assert!(
        g125::BindingTableState {
            surface_state_pointer: 0x1_0020
        }
        .pack(&mut [0u32; 1])
        .is_err()
    );
}
