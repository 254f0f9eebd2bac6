//! What the stages of the 3D pipeline hand each other.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::eu::shared::{GfxMemory, MemFault, PixelDispatch};
use crate::gpe::Bases;

/// The 3D state as the commands left it: the latest dwords of each
/// 3DSTATE_* command by name, with the commands that update only part of
/// their state (change bits, per-buffer entries) merged by the front end.
/// Each stage decodes what it needs with the hal's typed packets.
#[derive(Clone, Debug, Default)]
pub(crate) struct Packets {
    latest: BTreeMap<&'static str, Vec<u32>>,
}

impl Packets {
    /// The dwords of the last `name` command (header included).
    pub fn get(&self, name: &str) -> Option<&[u32]> {
        self.latest.get(name).map(Vec::as_slice)
    }

    /// Keeps `dw` as the state of `name`.
    pub fn set(&mut self, name: &'static str, dw: &[u32]) {
        self.latest.insert(name, dw.to_vec());
    }

    /// Forgets `name` (tests of state never sent).
    #[cfg(test)]
    pub fn remove(&mut self, name: &str) {
        self.latest.remove(name);
    }

    /// Forgets every command (an engine reset).
    pub fn clear(&mut self) {
        self.latest.clear();
    }
}

/// One vertex as the stages after the vertex (or geometry) shader see it:
/// its URB entry as the thread wrote it, dword by dword (vertex header,
/// position, then the attributes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Vue {
    pub dw: Vec<u32>,
}

/// The kind of an object handed to clipping and setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ObjectKind {
    Point,
    Line,
    Triangle,
    /// A RECTLIST rectangle: three corners, the fourth implied.
    Rectangle,
}

/// One primitive out of primitive assembly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Object {
    pub kind: ObjectKind,
    /// Its vertices as indices into the draw's [`Vue`]s, in the order the
    /// manual hands them on for its topology; unused entries repeat the
    /// last vertex.
    pub v: [u32; 3],
    /// The 3DPRIMITIVE topology it came from (the `_3DPRIM_*` value),
    /// as the GS and CLIP pass it on when they do not run threads: the
    /// adjacency forms without their adjacency (LINELIST, LINESTRIP,
    /// TRILIST, TRISTRIP), QUADLIST as POLYGON (`front::assemble`).
    pub topology: u8,
    /// Its ordinal within its strip, fan, loop or list (provoking-vertex
    /// rules and strip parity depend on it).
    pub ordinal: u32,
}

/// One pixel-shader thread the windower made, ready to start.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PixelThread {
    /// Graphics address (instruction-base relative resolved) of the kernel
    /// for its dispatch width.
    pub kernel: u64,
    /// Its GRF image from r0.
    pub payload: Vec<u8>,
    /// sr0 Dispatch Mask.
    pub dispatch_mask: u32,
    /// Its pixels, for the render-target writes and the pixel scoreboard.
    pub pixels: PixelDispatch,
    /// cr0.0 (floating-point mode, single program flow) and cr0.1
    /// (exception enables) from 3DSTATE_WM, as the dispatcher loads them.
    pub cr0: [u32; 2],
    /// sr0.0 FFID of the windower.
    pub ffid: u8,
    /// The PS binding table (Surface State Base relative) and SAMPLER_STATE
    /// array (Dynamic State Base relative); also in R0.4 and R0.3.
    pub binding_table: u32,
    pub sampler_state: u32,
    /// 3DSTATE_WM scratch space: base (General State Base relative, 1 KiB
    /// aligned) and per-thread size code (1 KiB << n); also in R0.5, R0.3.
    /// The payload leaves R0.5[7:0] (FFTID) to the dispatcher.
    pub scratch_base: u32,
    pub scratch_code: u8,
    /// Dispatch GRF Start of its kernel: push constants, then the setup
    /// data, start at this register.
    pub grf_start: u8,
}

/// What a stage reads while a draw runs.
pub(crate) struct DrawEnv<'a> {
    /// Whose command layouts `packets` hold.
    pub generation: baregpu_hal::Generation,
    pub packets: &'a Packets,
    /// STATE_BASE_ADDRESS.
    pub bases: &'a Bases,
    /// Graphics memory in the draw's address space.
    pub memory: &'a mut dyn GfxMemory,
}

/// Why a draw cannot go on; the command streamer stops the engine on it
/// (a fault as a page fault, the rest as an instruction error on
/// 3DPRIMITIVE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DrawError {
    /// State, a buffer or a surface could not be read or written.
    Fault(MemFault),
    /// State the manual forbids or that does not decode.
    Invalid(&'static str),
    /// A feature the model does not have yet: refused, never drawn wrongly.
    Unmodelled(&'static str),
}

impl From<MemFault> for DrawError {
    fn from(f: MemFault) -> Self {
        DrawError::Fault(f)
    }
}
