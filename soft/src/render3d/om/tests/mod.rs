//! The output merger against a host reference written here from the
//! manual's tables (003 lines 44593-46487): state is packed with the hal
//! into memory as a driver would, writes go through
//! [`PixelBackend::render_target`], and the render target and depth buffer
//! are read back at addresses this file computes itself.

mod aa;
mod blend;
mod depth;
mod fast_clear;
mod gen7;
mod hiz;
mod message;
mod msaa;
mod refuse;

use alloc::vec::Vec;

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands::{
    Cmd3dstateBindingTablePointers, Cmd3dstateCcStatePointers, Cmd3dstateDepthBuffer,
    Cmd3dstateViewportStatePointers, Cmd3dstateWm,
};
use baregpu_hal::gen6::structs::{
    BlendState, CcViewport, ColorCalcState, DepthStencilState, SurfaceState,
};

use super::OutputMerger;
use crate::eu::shared::{FlatMemory, PixelBackend, PixelDispatch, RtWrite};
use crate::gpe::Bases;
use crate::render3d::types::{DrawEnv, DrawError, Packets};

pub(super) const DYNAMIC: u64 = 0x1_0000;
pub(super) const SURFACES: u64 = 0x2_0000;
pub(super) const RT: u64 = 0x4_0000;
pub(super) const DEPTH: u64 = 0x8_0000;
pub(super) const BLEND_AT: u32 = 0x100;
pub(super) const DS_AT: u32 = 0x200;
pub(super) const CC_AT: u32 = 0x240;
pub(super) const VP_AT: u32 = 0x300;

/// A small xorshift generator: tests draw their values from it.
pub(super) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A float in [lo, hi).
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
}

/// Memory, packets and bases of one draw.
pub(super) struct Fixture {
    pub mem: FlatMemory,
    pub packets: Packets,
    pub bases: Bases,
    /// The render target's bytes per pixel and pitch (linear).
    pub bpp: u64,
    pub pitch: u64,
    /// 0 linear, 1 X tiled, 2 Y tiled.
    pub tiling: u32,
    /// Depth buffer: bytes per pixel and pitch (Y tiled).
    pub dbpp: u64,
    pub dpitch: u64,
    /// Whose command layouts `packets` hold.
    pub generation: baregpu_hal::Generation,
}

pub(super) fn pack<P: Packet>(p: &P) -> Vec<u32> {
    let mut dw = alloc::vec![0u32; p.dwords()];
    p.pack(&mut dw).expect("packs");
    dw
}

impl Fixture {
    /// CC state pointers all loaded (every test state zero: everything
    /// off), 3DSTATE_WM with statistics and dispatch on, the PS binding table with entry 0 at a render target of
    /// `format` (`bpp` bytes a pixel, 16 x 8, linear).
    pub fn new(format: u32, bpp: u64) -> Fixture {
        let mut f = Fixture {
            mem: FlatMemory::new(0, 0x10_0000),
            packets: Packets::default(),
            bases: Bases {
                dynamic: DYNAMIC,
                surface: SURFACES,
                ..Bases::default()
            },
            bpp,
            pitch: 16 * bpp,
            dbpp: 0,
            dpitch: 0,
            tiling: 0,
            generation: baregpu_hal::Generation::Gen6,
        };
        let cc = Cmd3dstateCcStatePointers {
            pointer_to_blend_state: BLEND_AT,
            blend_state_change: true,
            pointer_to_depth_stencil_state: DS_AT,
            depth_stencil_state_change: true,
            pointer_to_color_calc_state: CC_AT,
            color_calc_state_change: true,
        };
        f.packets.set(Cmd3dstateCcStatePointers::NAME, &pack(&cc));
        let bt = Cmd3dstateBindingTablePointers {
            ps_binding_table_change: true,
            pointer_to_ps_binding_table: 0x20,
            ..Default::default()
        };
        f.packets
            .set(Cmd3dstateBindingTablePointers::NAME, &pack(&bt));
        // Statistics on, so that PS_DEPTH_COUNT counts what passes.
        let wm = Cmd3dstateWm {
            statistics_enable: true,
            thread_dispatch_enable: true,
            ..Default::default()
        };
        f.packets.set(Cmd3dstateWm::NAME, &pack(&wm));
        f.set_dw(SURFACES + 0x20, &[0x40]);
        let ss = SurfaceState {
            surface_type: 1,
            surface_format: format,
            surface_base_address: RT,
            width: 15,
            height: 7,
            surface_pitch: (f.pitch - 1) as u32,
            ..Default::default()
        };
        f.set_dw(SURFACES + 0x40, &pack(&ss));
        f.blend(0, &BlendState::default());
        f
    }

    pub fn set_dw(&mut self, at: u64, dw: &[u32]) {
        for (i, d) in dw.iter().enumerate() {
            assert!(self.mem.set_dword(at + 4 * i as u64, *d));
        }
    }

    pub fn blend(&mut self, index: u64, b: &BlendState) {
        self.set_dw(DYNAMIC + u64::from(BLEND_AT) + 8 * index, &pack(b));
    }

    pub fn depth_stencil(&mut self, d: &DepthStencilState) {
        self.set_dw(DYNAMIC + u64::from(DS_AT), &pack(d));
    }

    pub fn color_calc(&mut self, c: &ColorCalcState) {
        self.set_dw(DYNAMIC + u64::from(CC_AT), &pack(c));
    }

    /// CC_VIEWPORT 0 with the depth range [lo, hi].
    pub fn viewport(&mut self, lo: f32, hi: f32) {
        let p = Cmd3dstateViewportStatePointers {
            cc_viewport_state_change: true,
            pointer_to_cc_viewport: VP_AT,
            ..Default::default()
        };
        self.packets
            .set(Cmd3dstateViewportStatePointers::NAME, &pack(&p));
        let vp = CcViewport {
            minimum_depth: lo,
            maximum_depth: hi,
        };
        self.set_dw(DYNAMIC + u64::from(VP_AT), &pack(&vp));
    }

    /// A Y-tiled 16 x 8 depth buffer of 3DSTATE_DEPTH_BUFFER format `code`.
    pub fn depth_buffer(&mut self, code: u32) {
        self.dbpp = match code {
            0 => 8,
            5 => 2,
            _ => 4,
        };
        self.dpitch = 128;
        let p = Cmd3dstateDepthBuffer {
            surface_type: 1,
            tiled_surface: true,
            tile_walk: 1,
            surface_format: code,
            surface_pitch: 127,
            surface_base_address: DEPTH,
            width: 15,
            height: 7,
            ..Default::default()
        };
        self.packets.set(Cmd3dstateDepthBuffer::NAME, &pack(&p));
    }

    pub fn om(&mut self) -> Result<OutputMerger, DrawError> {
        let mut env = DrawEnv {
            generation: self.generation,
            packets: &self.packets,
            bases: &self.bases,
            memory: &mut self.mem,
        };
        OutputMerger::new(&mut env)
    }

    /// Makes the render target X (1) or Y (2) tiled with a 512-byte pitch.
    pub fn tile_rt(&mut self, tiling: u32) {
        self.tiling = tiling;
        self.pitch = 512;
        let at = SURFACES + 0x40;
        let mut dw: Vec<u32> = (0..6).map(|i| self.mem.dword(at + 4 * i)).collect();
        let mut ss = SurfaceState::unpack(&dw).unwrap();
        ss.tiled_surface = true;
        ss.tile_walk = u32::from(tiling == 2);
        ss.surface_pitch = 511;
        dw = pack(&ss);
        self.set_dw(at, &dw);
    }

    /// Address of render-target pixel (x, y): linear, or by the tile
    /// layouts (003 lines 7382-7476): X tiles of 512 bytes by 8 rows
    /// stored row after row, Y tiles of 128 bytes by 32 rows stored in
    /// 16-byte columns.
    pub fn rt_at(&self, x: u64, y: u64) -> u64 {
        let xb = x * self.bpp;
        let per_row = self.pitch / if self.tiling == 1 { 512 } else { 128 };
        RT + match self.tiling {
            0 => y * self.pitch + xb,
            1 => ((y / 8) * per_row + xb / 512) * 4096 + (y % 8) * 512 + xb % 512,
            _ => {
                ((y / 32) * per_row + xb / 128) * 4096
                    + (xb % 128 / 16) * 512
                    + (y % 32) * 16
                    + xb % 16
            }
        }
    }

    pub fn rt_bytes(&self, x: u64, y: u64) -> Vec<u8> {
        self.mem
            .get(self.rt_at(x, y), self.bpp as usize)
            .unwrap()
            .to_vec()
    }

    /// Address of depth pixel (x, y) by the Y-major tile layout: tiles of
    /// 128 bytes by 32 rows, in each 16-byte columns of 32 rows (003 lines
    /// 7382-7476).
    pub fn depth_at(&self, x: u64, y: u64) -> u64 {
        let xb = x * self.dbpp;
        let tile = (y / 32) * (self.dpitch / 128) + xb / 128;
        DEPTH + tile * 4096 + (xb % 128 / 16) * 512 + (y % 32) * 16 + xb % 16
    }

    pub fn run(
        &mut self,
        om: &mut OutputMerger,
        w: &RtWrite,
    ) -> Result<(), crate::eu::send::SendError> {
        om.render_target(&mut self.mem, Some(&dispatch()), w)
    }
}

/// A SIMD16 dispatch covering the subspans at (0,0), (2,0), (4,0), (6,0)
/// with rasteriser depth 0.5 everywhere.
pub(super) fn dispatch() -> PixelDispatch {
    let mut corners = [0u32; 8];
    for (k, c) in corners.iter_mut().enumerate().take(4) {
        *c = 2 * k as u32;
    }
    PixelDispatch {
        simd: 16,
        corners,
        mask: 0xFFFF,
        depth: [0.5; 32],
        front_facing: true,
        aa_alpha: None,
        samples: None,
    }
}

/// A SIMD8 write of the pixels (0..4, 0..2) with colour `colour(slot)`.
pub(super) fn write8(colour: impl Fn(usize) -> [f32; 4]) -> RtWrite {
    let mut w = RtWrite {
        binding_table_index: 0,
        render_target_index: 0,
        last: true,
        slots: 8,
        mask: 0xFF,
        corners: [0, 2, 0, 0],
        dispatch_slot: 0,
        back_facing: false,
        viewport_index: 0,
        color: [[0; 4]; 16],
        color1: None,
        replicated: false,
        src0_alpha: None,
        depth: None,
        omask: None,
    };
    for (s, c) in w.color.iter_mut().enumerate().take(8) {
        *c = colour(s).map(f32::to_bits);
    }
    w
}

/// Pixel of slot `s` of [`write8`]: subspans at x 0 and 2, pixels UL, UR,
/// LL, LR.
pub(super) fn xy8(s: usize) -> (u64, u64) {
    let base = if s < 4 { 0 } else { 2 };
    (base + (s % 2) as u64, (s % 4 / 2) as u64)
}

/// Nearest integer to v * max on [0, max] from a float in [0, 1] (ties
/// are avoided by the tests that use it).
pub(super) fn unorm(v: f64, max: f64) -> u32 {
    (v.clamp(0.0, 1.0) * max + 0.5).floor() as u32
}
