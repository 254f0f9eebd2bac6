//! Per-stage tests of the raster stages. Expected values come from host
//! references written here (exact rational coverage, perspective-correct
//! interpolation from clip space, the manual's tables), not from the code
//! under test.

mod clip;
mod coverage;
mod draw;
mod gen7;
mod lines;
mod msaa;
mod setup;
mod windower;

use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_hal::gen6::commands::{
    Cmd3dstateClip, Cmd3dstateDrawingRectangle, Cmd3dstateSf, Cmd3dstateViewportStatePointers,
    Cmd3dstateWm,
};
use baregpu_hal::packet::Packet;

use super::state::RasterState;
use crate::eu::send::SendError;
use crate::eu::shared::{FlatMemory, GfxMemory, PixelBackend, PixelDispatch, RtWrite};
use crate::gpe::Bases;
use crate::render3d::types::{DrawEnv, DrawError, Object, ObjectKind, Packets, PixelThread, Vue};

/// Dynamic State Base of the rig and where its viewports live.
pub(super) const DYNAMIC: u64 = 0x1_0000;
pub(super) const SF_VP: u32 = 0x100;
pub(super) const CLIP_VP: u32 = 0x400;
pub(super) const SCISSOR: u32 = 0x600;

/// A draw's state and memory, built from typed packets.
pub(super) struct Rig {
    /// The generation the draw runs on (the packets are Gen6's).
    pub generation: Generation,
    pub packets: Packets,
    pub bases: Bases,
    pub mem: FlatMemory,
    pub clip: Cmd3dstateClip,
    pub sf: Cmd3dstateSf,
    pub wm: Cmd3dstateWm,
    pub rect: Cmd3dstateDrawingRectangle,
    /// Further packets a test sets.
    pub extras: Vec<(&'static str, Vec<u32>)>,
}

fn put<P: Packet>(packets: &mut Packets, p: &P) {
    let mut dw = vec![0u32; p.dwords()];
    p.pack(&mut dw).expect("test packet packs");
    packets.set(P::NAME, &dw);
}

impl Rig {
    /// A 64x64 target, clipping off, no viewport transform, cull none, one
    /// output attribute read from VUE DW8, SIMD16 dispatch with
    /// perspective-pixel barycentrics and setup data at r6.
    pub fn new() -> Rig {
        let bases = Bases {
            dynamic: DYNAMIC,
            instruction: 0x100_0000,
            ..Default::default()
        };
        let sf = Cmd3dstateSf {
            number_of_sf_output_attributes: 1,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 1,
            cull_mode: 1,
            ..Default::default()
        };
        let wm = Cmd3dstateWm {
            kernel_start_pointer_0: 0x40,
            kernel_start_pointer_1: 0x80,
            kernel_start_pointer_2: 0xc0,
            dispatch_grf_start_register_for_constant_setup_data_0: 6,
            dispatch_grf_start_register_for_constant_setup_data_1: 10,
            dispatch_grf_start_register_for_constant_setup_data_2: 8,
            thread_dispatch_enable: true,
            pixel_dispatch_enable_16: true,
            number_of_sf_output_attributes: 1,
            barycentric_interpolation_mode: 1,
            ..Default::default()
        };
        let rect = Cmd3dstateDrawingRectangle {
            clipped_drawing_rectangle_x_max: 63,
            clipped_drawing_rectangle_y_max: 63,
            ..Default::default()
        };
        Rig {
            generation: Generation::Gen6,
            packets: Packets::default(),
            bases,
            mem: FlatMemory::new(DYNAMIC, 0x1000),
            clip: Cmd3dstateClip::default(),
            sf,
            wm,
            rect,
            extras: Vec::new(),
        }
    }

    /// Writes float dwords at a Dynamic-State offset.
    pub fn write(&mut self, offset: u32, dw: &[u32]) {
        let bytes: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.mem
            .write(DYNAMIC + u64::from(offset), &bytes)
            .expect("rig memory");
    }

    /// SF_VIEWPORT[i] = m00, m11, m22, m30, m31, m32 and points the
    /// viewport pointers at the rig's arrays.
    pub fn sf_viewport(&mut self, i: u32, m: [f32; 6]) {
        let dw: Vec<u32> = m.iter().map(|f| f.to_bits()).collect();
        self.write(SF_VP + 32 * i, &dw);
        self.sf.viewport_transform_enable = true;
    }

    pub fn clip_viewport(&mut self, i: u32, gb: [f32; 4]) {
        let dw: Vec<u32> = gb.iter().map(|f| f.to_bits()).collect();
        self.write(CLIP_VP + 16 * i, &dw);
    }

    fn pack(&mut self) {
        let mut p = Packets::default();
        put(&mut p, &self.clip);
        put(&mut p, &self.sf);
        put(&mut p, &self.wm);
        put(&mut p, &self.rect);
        put(
            &mut p,
            &Cmd3dstateViewportStatePointers {
                pointer_to_clip_viewport: CLIP_VP,
                pointer_to_sf_viewport: SF_VP,
                ..Default::default()
            },
        );
        put(
            &mut p,
            &baregpu_hal::gen6::commands::Cmd3dstateScissorStatePointers {
                pointer_to_scissor_rect: SCISSOR,
            },
        );
        for (name, dw) in &self.extras {
            p.set(name, dw);
        }
        self.packets = p;
    }

    /// Adds another packet.
    pub fn set<P: Packet>(&mut self, p: &P) {
        let mut dw = vec![0u32; p.dwords()];
        p.pack(&mut dw).expect("test packet packs");
        self.extras.push((P::NAME, dw));
    }

    pub fn state(&mut self) -> Result<RasterState, DrawError> {
        self.pack();
        let env = DrawEnv {
            generation: self.generation,
            packets: &self.packets,
            bases: &self.bases,
            memory: &mut self.mem,
        };
        RasterState::decode(&env)
    }

    /// Runs `rasterize` on the objects.
    pub fn run(
        &mut self,
        vues: &[Vue],
        objects: &[Object],
        om: &mut Recorder,
    ) -> Result<Vec<PixelThread>, DrawError> {
        self.pack();
        let mut env = DrawEnv {
            generation: self.generation,
            packets: &self.packets,
            bases: &self.bases,
            memory: &mut self.mem,
        };
        super::rasterize(&mut env, vues, objects, om)
    }
}

impl Rig {
    /// Runs `rasterize_carried` on the objects with `counter`.
    pub fn run_carried(
        &mut self,
        vues: &[Vue],
        objects: &[Object],
        counter: &mut Option<super::StippleCounter>,
    ) -> Result<Vec<PixelThread>, DrawError> {
        self.pack();
        let mut env = DrawEnv {
            generation: self.generation,
            packets: &self.packets,
            bases: &self.bases,
            memory: &mut self.mem,
        };
        super::rasterize_carried(&mut env, vues, objects, &mut Recorder::default(), counter)
            .map(|(t, _)| t)
    }

    /// Runs `rasterize_counted` on the objects.
    pub fn run_counted(
        &mut self,
        vues: &[Vue],
        objects: &[Object],
        om: &mut Recorder,
    ) -> Result<(Vec<PixelThread>, super::RasterStatistics), DrawError> {
        self.pack();
        let mut env = DrawEnv {
            generation: self.generation,
            packets: &self.packets,
            bases: &self.bases,
            memory: &mut self.mem,
        };
        super::rasterize_counted(&mut env, vues, objects, om)
    }
}

/// A vertex entry: zero header (with VPIndex and point width), position,
/// then attributes (4 dwords each) from DW8.
pub(super) fn vue(pos: [f32; 4], attrs: &[[f32; 4]]) -> Vue {
    let mut dw = vec![0u32; 8];
    for (i, p) in pos.iter().enumerate() {
        dw[4 + i] = p.to_bits();
    }
    for a in attrs {
        dw.extend(a.iter().map(|f| f.to_bits()));
    }
    Vue { dw }
}

pub(super) fn tri(v: [u32; 3], topology: u8, ordinal: u32) -> Object {
    Object {
        kind: ObjectKind::Triangle,
        v,
        topology,
        ordinal,
    }
}

/// The output merger's side, recording the depth-only pixels.
#[derive(Default)]
pub(super) struct Recorder {
    pub depth_only: Vec<PixelDispatch>,
}

impl PixelBackend for Recorder {
    fn render_target(
        &mut self,
        _memory: &mut dyn GfxMemory,
        _dispatch: Option<&PixelDispatch>,
        _write: &RtWrite,
    ) -> Result<(), SendError> {
        Err(SendError::Unhandled)
    }

    fn depth_stencil_only(
        &mut self,
        _memory: &mut dyn GfxMemory,
        dispatch: &PixelDispatch,
    ) -> Result<(), SendError> {
        self.depth_only.push(dispatch.clone());
        Ok(())
    }

    fn samples_passed(&self) -> u64 {
        0
    }
}

/// The lit pixels of a set of threads (from their PixelDispatch), sorted.
pub(super) fn lit_pixels(ds: &[PixelDispatch]) -> Vec<(i32, i32)> {
    let mut v = Vec::new();
    for d in ds {
        for slot in 0..usize::from(d.simd) {
            if d.mask >> slot & 1 != 0 {
                let c = d.corners[slot / 4];
                let (x, y) = ((c & 0xffff) as i32, (c >> 16) as i32);
                v.push((x + (slot as i32 & 1), y + ((slot as i32 >> 1) & 1)));
            }
        }
    }
    v.sort_unstable();
    v
}

/// Dword `i` of register `r` of a payload.
pub(super) fn reg_dw(payload: &[u8], r: usize, i: usize) -> u32 {
    let o = 32 * r + 4 * i;
    u32::from_le_bytes([payload[o], payload[o + 1], payload[o + 2], payload[o + 3]])
}

pub(super) fn reg_f(payload: &[u8], r: usize, i: usize) -> f32 {
    f32::from_bits(reg_dw(payload, r, i))
}
