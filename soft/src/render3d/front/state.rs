//! The command side: every Gen6 3DSTATE_* command kept in [`Packets`],
//! with the commands that update only part of their state merged into one
//! packet that holds all of it.
//!
//! - 3DSTATE_VERTEX_BUFFERS: each VERTEX_BUFFER_STATE replaces the buffer
//!   its Vertex Buffer Index names; the others keep theirs (003 lines
//!   30062-30115: "up to 33 VBs", one structure per buffer being changed).
//!   The kept packet lists every buffer ever loaded, by index.
//! - The *_POINTERS commands: a pointer is loaded only when its change bit
//!   is set (003 lines 26761-26907 binding tables, 26908-27040 samplers,
//!   27041-27162 viewports, 26645-26758 CC state); the kept packet has the
//!   latest loaded pointer of each unit and the change bit set for the
//!   units ever loaded.
//! - 3DSTATE_CONSTANT_VS/GS/PS: "the constant data pointed to by this
//!   command will be loaded into the unit's push constant buffer" (003
//!   lines 33080-33082): the data is read when the command executes and
//!   kept beside the command as [`pcb_name`]'s packet (dwords, buffer 0
//!   first, each valid buffer's read length in 256-bit units).
//!
//! Gen7 (`super::gen7`): the pointer commands are one per stage or state
//! without change bits, each kept as it came; 3DSTATE_VERTEX_BUFFERS and
//! 3DSTATE_CONSTANT_* (HS and DS too) in their Gen7 layouts, merged and
//! read as above; 3DSTATE_SO_BUFFER one packet per buffer index; 3DSTATE_PUSH_CONSTANT_ALLOC_* checked against the push
//! constant space.

use alloc::vec::Vec;

use baregpu_hal::gen6::commands::{
    Cmd3dstateConstantGs, Cmd3dstateConstantPs, Cmd3dstateConstantVs, Cmd3dstateVertexBuffers,
    Cmd3dstateVertexBuffersVertexBufferState,
};
use baregpu_hal::{Generation, Packet};

use crate::eu::shared::GfxMemory;
use crate::gpe::Bases;
use crate::render3d::types::{DrawError, Packets};

/// The name under which the push constants a 3DSTATE_CONSTANT_* command
/// loaded are kept.
pub(crate) fn pcb_name(command: &str) -> Option<&'static str> {
    Some(match command {
        "3DSTATE_CONSTANT_VS" => "PCB_VS",
        "3DSTATE_CONSTANT_GS" => "PCB_GS",
        "3DSTATE_CONSTANT_PS" => "PCB_PS",
        // Gen7.
        "3DSTATE_CONSTANT_HS" => "PCB_HS",
        "3DSTATE_CONSTANT_DS" => "PCB_DS",
        _ => return None,
    })
}

/// Header change bits of the three-pointer commands, for the pointers in
/// dwords 1, 2 and 3.
fn change_bits(name: &str) -> Option<[u32; 3]> {
    Some(match name {
        // VS, GS, PS (003 lines 26790-26830, 26935-26970).
        "3DSTATE_BINDING_TABLE_POINTERS" | "3DSTATE_SAMPLER_STATE_POINTERS" => {
            [1 << 8, 1 << 9, 1 << 12]
        }
        // CLIP, SF, CC viewports (003 lines 27060-27100).
        "3DSTATE_VIEWPORT_STATE_POINTERS" => [1 << 10, 1 << 11, 1 << 12],
        _ => return None,
    })
}

/// Keeps a 3D state command (`dw` with its header) in `packets`, merged
/// with what the earlier commands of its kind left. `name` is the
/// command's name in the tables of `generation`.
pub(crate) fn keep(
    generation: Generation,
    packets: &mut Packets,
    name: &'static str,
    dw: &[u32],
    mem: &mut dyn GfxMemory,
    bases: &Bases,
    constants_absolute: bool,
) -> Result<(), DrawError> {
    if generation == Generation::Gen7 {
        return keep_gen7(packets, name, dw, mem, bases, constants_absolute);
    }
    if name == "3DSTATE_VERTEX_BUFFERS" {
        return vertex_buffers(packets, dw);
    }
    if name == "3DSTATE_CC_STATE_POINTERS" {
        // Each pointer dword carries its own change bit 0.
        let mut merged = packets.get(name).map(<[u32]>::to_vec).unwrap_or_else(|| {
            let mut v = alloc::vec![0u32; 4];
            v[0] = dw[0];
            v
        });
        merged[0] = dw[0];
        for k in 1..4 {
            if dw.get(k).is_some_and(|d| d & 1 == 1) {
                merged[k] = dw[k];
            }
        }
        packets.set(name, &merged);
        return Ok(());
    }
    if let Some(bits) = change_bits(name) {
        let mut merged = packets
            .get(name)
            .map(<[u32]>::to_vec)
            .unwrap_or_else(|| alloc::vec![0u32; 4]);
        let loaded = merged[0] & (bits[0] | bits[1] | bits[2]);
        merged[0] = dw[0] | loaded;
        for (k, bit) in bits.iter().enumerate() {
            if dw[0] & bit != 0 {
                merged[k + 1] = dw.get(k + 1).copied().unwrap_or(0);
            }
        }
        packets.set(name, &merged);
        return Ok(());
    }
    if let Some(pcb) = pcb_name(name) {
        let data = push_constants(name, dw, mem, bases, constants_absolute)?;
        packets.set(name, dw);
        packets.set(pcb, &data);
        return Ok(());
    }
    packets.set(name, dw);
    Ok(())
}

/// A Gen7 command: nothing merged but the vertex buffers.
fn keep_gen7(
    packets: &mut Packets,
    name: &'static str,
    dw: &[u32],
    mem: &mut dyn GfxMemory,
    bases: &Bases,
    constants_absolute: bool,
) -> Result<(), DrawError> {
    if name == "3DSTATE_VERTEX_BUFFERS" {
        return super::gen7::keep_vertex_buffers(packets, dw);
    }
    if name == "3DSTATE_SO_BUFFER" {
        return super::gen7::keep_so_buffer(packets, dw);
    }
    if name.starts_with("3DSTATE_PUSH_CONSTANT_ALLOC_") {
        super::gen7::check_push_constant_alloc(name, dw)?;
    }
    if let Some(pcb) = pcb_name(name) {
        let buffers = super::gen7::constant_buffers(name, dw, bases, constants_absolute)?;
        let data = read_constants(&buffers, mem)?;
        packets.set(name, dw);
        packets.set(pcb, &data);
        return Ok(());
    }
    packets.set(name, dw);
    Ok(())
}

/// 3DSTATE_VERTEX_BUFFERS merged by buffer index.
fn vertex_buffers(packets: &mut Packets, dw: &[u32]) -> Result<(), DrawError> {
    let new = Cmd3dstateVertexBuffers::unpack(dw)
        .map_err(|_| DrawError::Invalid("3DSTATE_VERTEX_BUFFERS does not decode"))?;
    let mut all: Vec<Cmd3dstateVertexBuffersVertexBufferState> = match packets
        .get("3DSTATE_VERTEX_BUFFERS")
        .map(Cmd3dstateVertexBuffers::unpack)
    {
        Some(Ok(old)) => old.vertex_buffer_state,
        _ => Vec::new(),
    };
    for b in new.vertex_buffer_state {
        // 33 buffers, indices 0-32 (003 line 30130).
        if b.vertex_buffer_index > 32 {
            return Err(DrawError::Invalid("vertex buffer index above 32"));
        }
        all.retain(|o| o.vertex_buffer_index != b.vertex_buffer_index);
        all.push(b);
    }
    all.sort_by_key(|b| b.vertex_buffer_index);
    let merged = Cmd3dstateVertexBuffers {
        vertex_buffer_state: all,
    };
    let mut out = alloc::vec![0u32; merged.dwords()];
    merged
        .pack(&mut out)
        .map_err(|_| DrawError::Invalid("3DSTATE_VERTEX_BUFFERS does not pack"))?;
    packets.set("3DSTATE_VERTEX_BUFFERS", &out);
    Ok(())
}

/// The valid buffers of a 3DSTATE_CONSTANT_* command as (graphics
/// address, 256-bit rows).
fn constant_buffers(
    name: &str,
    dw: &[u32],
    bases: &Bases,
    absolute: bool,
) -> Result<Vec<(u64, usize)>, DrawError> {
    let bad = DrawError::Invalid("3DSTATE_CONSTANT_* does not decode");
    // (valid, pointer, read length) of buffers 0-3; the three commands
    // share the layout (003 lines 33078-33271, 34166-34386, 40780-40999).
    let b: [(bool, u32, u32); 4] = match name {
        "3DSTATE_CONSTANT_VS" => {
            let c = Cmd3dstateConstantVs::unpack(dw).map_err(|_| bad)?;
            [
                (
                    c.buffer_0_valid,
                    c.pointer_to_vs_constant_buffer_0,
                    c.vs_constant_buffer_0_read_length,
                ),
                (
                    c.buffer_1_valid,
                    c.pointer_to_vs_constant_buffer_1 as u32,
                    c.vs_constant_buffer_1_read_length,
                ),
                (
                    c.buffer_2_valid,
                    c.pointer_to_vs_constant_buffer_2 as u32,
                    c.vs_constant_buffer_2_read_length,
                ),
                (
                    c.buffer_3_valid,
                    c.pointer_to_vs_constant_buffer_3 as u32,
                    c.vs_constant_buffer_3_read_length,
                ),
            ]
        }
        "3DSTATE_CONSTANT_GS" => {
            let c = Cmd3dstateConstantGs::unpack(dw).map_err(|_| bad)?;
            [
                (
                    c.buffer_0_valid,
                    c.pointer_to_gs_constant_buffer_0,
                    c.gs_constant_buffer_0_read_length,
                ),
                (
                    c.buffer_1_valid,
                    c.pointer_to_gs_constant_buffer_1 as u32,
                    c.gs_constant_buffer_1_read_length,
                ),
                (
                    c.buffer_2_valid,
                    c.pointer_to_gs_constant_buffer_2 as u32,
                    c.gs_constant_buffer_2_read_length,
                ),
                (
                    c.buffer_3_valid,
                    c.pointer_to_gs_constant_buffer_3 as u32,
                    c.gs_constant_buffer_3_read_length,
                ),
            ]
        }
        _ => {
            let c = Cmd3dstateConstantPs::unpack(dw).map_err(|_| bad)?;
            [
                (
                    c.buffer_0_valid,
                    c.pointer_to_ps_constant_buffer_0,
                    c.ps_constant_buffer_0_read_length,
                ),
                (
                    c.buffer_1_valid,
                    c.pointer_to_ps_constant_buffer_1 as u32,
                    c.ps_constant_buffer_1_read_length,
                ),
                (
                    c.buffer_2_valid,
                    c.pointer_to_ps_constant_buffer_2 as u32,
                    c.ps_constant_buffer_2_read_length,
                ),
                (
                    c.buffer_3_valid,
                    c.pointer_to_ps_constant_buffer_3 as u32,
                    c.ps_constant_buffer_3_read_length,
                ),
            ]
        }
    };
    let mut out = Vec::new();
    let mut total = 0;
    for (k, &(valid, pointer, len)) in b.iter().enumerate() {
        if !valid {
            continue;
        }
        // Buffer 0 is Dynamic State relative unless INSTPM's CONSTANT_BUFFER
        // Address Offset Disable is set; buffers 1-3 are graphics addresses
        // (003 lines 33160-33230).
        let at = if k == 0 && !absolute {
            bases.dynamic.wrapping_add(u64::from(pointer))
        } else {
            u64::from(pointer)
        };
        let rows = len as usize + 1;
        total += rows;
        out.push((at, rows));
    }
    // "The sum of all four read length fields (each incremented to
    // represent the actual read length) must be less than or equal to" 32
    // for the VS (003 lines 33177-33178) and 64 for the GS and PS (34292-34293,
    // 40909-40910).
    let limit = if name == "3DSTATE_CONSTANT_VS" {
        32
    } else {
        64
    };
    if total > limit {
        return Err(DrawError::Invalid(if limit == 32 {
            "3DSTATE_CONSTANT_VS read lengths above 32"
        } else {
            "3DSTATE_CONSTANT_GS/PS read lengths above 64"
        }));
    }
    Ok(out)
}

/// The push constants a 3DSTATE_CONSTANT_* command loads, as dwords.
fn push_constants(
    name: &str,
    dw: &[u32],
    mem: &mut dyn GfxMemory,
    bases: &Bases,
    absolute: bool,
) -> Result<Vec<u32>, DrawError> {
    read_constants(&constant_buffers(name, dw, bases, absolute)?, mem)
}

/// The dwords of `buffers` ((graphics address, 256-bit rows)), in order.
fn read_constants(
    buffers: &[(u64, usize)],
    mem: &mut dyn GfxMemory,
) -> Result<Vec<u32>, DrawError> {
    let mut data = Vec::new();
    for &(at, rows) in buffers {
        let mut bytes = alloc::vec![0u8; rows * 32];
        mem.read(at, &mut bytes)?;
        data.extend(
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eu::shared::FlatMemory;

    fn keep_simple(p: &mut Packets, name: &'static str, dw: &[u32]) {
        let mut mem = FlatMemory::new(0, 0x1000);
        keep(
            Generation::Gen6,
            p,
            name,
            dw,
            &mut mem,
            &Bases::default(),
            false,
        )
        .unwrap();
    }

    fn vb(index: u32, start: u32) -> [u32; 4] {
        [index << 26 | 16, start, start + 0xff, 0]
    }

    #[test]
    fn vertex_buffers_merge_by_index() {
        let mut p = Packets::default();
        let a = vb(0, 0x1000);
        let b = vb(3, 0x2000);
        keep_simple(
            &mut p,
            "3DSTATE_VERTEX_BUFFERS",
            &[0x7808_0007, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]],
        );
        let c = vb(0, 0x5000);
        keep_simple(
            &mut p,
            "3DSTATE_VERTEX_BUFFERS",
            &[0x7808_0003, c[0], c[1], c[2], c[3]],
        );
        let all =
            Cmd3dstateVertexBuffers::unpack(p.get("3DSTATE_VERTEX_BUFFERS").unwrap()).unwrap();
        let starts: Vec<_> = all
            .vertex_buffer_state
            .iter()
            .map(|s| (s.vertex_buffer_index, s.buffer_starting_address))
            .collect();
        assert_eq!(starts, [(0, 0x5000), (3, 0x2000)]);
    }

    #[test]
    fn pointers_load_only_with_their_change_bit() {
        let mut p = Packets::default();
        keep_simple(
            &mut p,
            "3DSTATE_BINDING_TABLE_POINTERS",
            &[0x7801_1302, 0x20, 0x40, 0x60],
        );
        // Only PS changes.
        keep_simple(
            &mut p,
            "3DSTATE_BINDING_TABLE_POINTERS",
            &[0x7801_1002, 0x80, 0xA0, 0xC0],
        );
        let kept = p.get("3DSTATE_BINDING_TABLE_POINTERS").unwrap();
        assert_eq!(&kept[1..], &[0x20, 0x40, 0xC0]);
        assert_eq!(
            kept[0] & 0x1300,
            0x1300,
            "every unit loaded once stays marked"
        );
        keep_simple(
            &mut p,
            "3DSTATE_CC_STATE_POINTERS",
            &[0x780E_0002, 0x41, 0x80, 0xC1],
        );
        keep_simple(
            &mut p,
            "3DSTATE_CC_STATE_POINTERS",
            &[0x780E_0002, 0x100, 0x141, 0x200],
        );
        assert_eq!(
            &p.get("3DSTATE_CC_STATE_POINTERS").unwrap()[1..],
            &[0x41, 0x141, 0xC1]
        );
    }

    #[test]
    fn push_constants_are_read_when_the_command_executes() {
        let mut p = Packets::default();
        let mut mem = FlatMemory::new(0, 0x4000);
        for k in 0..32u32 {
            mem.write(0x1000 + 4 * u64::from(k), &(k + 7).to_le_bytes())
                .unwrap();
            mem.write(0x3000 + 4 * u64::from(k), &(k + 100).to_le_bytes())
                .unwrap();
        }
        let bases = Bases {
            dynamic: 0x800,
            ..Bases::default()
        };
        // Buffer 0 (Dynamic State relative, 0x800 + 0x800) one row, buffer 2 two rows.
        let dw = [0x7815_5003, 0x800, 0, 0x3000 | 1, 0];
        keep(
            Generation::Gen6,
            &mut p,
            "3DSTATE_CONSTANT_VS",
            &dw,
            &mut mem,
            &bases,
            false,
        )
        .unwrap();
        let pcb = p.get("PCB_VS").unwrap();
        assert_eq!(pcb.len(), 24);
        assert_eq!(pcb[0], 7);
        assert_eq!(pcb[7], 14);
        assert_eq!(pcb[8], 100);
        assert_eq!(pcb[23], 115);
        // Memory changed later does not change the loaded constants.
        mem.write(0x1000, &99u32.to_le_bytes()).unwrap();
        assert_eq!(p.get("PCB_VS").unwrap()[0], 7);
    }
    #[test]
    fn push_constant_read_lengths_sum_to_32_for_the_vs_and_64_for_the_ps() {
        // Buffers 0 and 1 of 32 rows each (read length 31), and buffer 2 of
        // one more row.
        let two = |op: u32| [op << 16 | 0x3003, 0x1000 | 31, 0x2000 | 31, 0, 0];
        let three = |op: u32| [op << 16 | 0x7003, 0x1000 | 31, 0x2000 | 31, 0x3000, 0];
        let run = |name: &'static str, dw: &[u32]| {
            let mut mem = FlatMemory::new(0, 0x4000);
            keep(
                Generation::Gen6,
                &mut Packets::default(),
                name,
                dw,
                &mut mem,
                &Bases::default(),
                false,
            )
        };
        assert!(run("3DSTATE_CONSTANT_PS", &two(0x7817)).is_ok());
        assert!(run("3DSTATE_CONSTANT_GS", &two(0x7816)).is_ok());
        assert!(matches!(
            run("3DSTATE_CONSTANT_VS", &two(0x7815)),
            Err(DrawError::Invalid(s)) if s.contains("above 32")
        ));
        assert!(matches!(
            run("3DSTATE_CONSTANT_PS", &three(0x7817)),
            Err(DrawError::Invalid(s)) if s.contains("above 64")
        ));
    }
}
