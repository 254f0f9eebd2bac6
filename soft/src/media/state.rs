//! The state commands of the media pipeline, read with the command
//! streamer's field tables (one implementation for every generation whose
//! tables use the same field names), and the state structures they point
//! to, unpacked with the hal's typed structures.

use alloc::vec;

use crate::command::Cmd;
use baregpu_hal::Packet;
use baregpu_isa::IsaGen;

use super::{Media, MediaError, MediaOp, Selected, descriptor};
use crate::command::{F, field};
use crate::eu::shared::GfxMemory;

/// Bytes of the interface descriptor store: the SNB range is 32-992 (003
/// lines 47716-47722); the 5-bit descriptor offset of the dispatch commands
/// addresses 32 descriptors, so up to 32 x 32 bytes are kept.
const MAX_DESCRIPTOR_BYTES: usize = 32 * 32;

/// Largest CURBE the model loads: the CURBE Total Data Length is a U17
/// (003 line 47636).
const MAX_CURBE_BYTES: usize = (1 << 17) - 1;

/// A field that must be present, as an unsigned value.
fn get(c: &Cmd, dw: &[u32], name: F) -> u64 {
    field(c, dw, name).unwrap_or(0)
}

/// Reads `len` bytes at `addr`.
fn read(mem: &mut dyn GfxMemory, addr: u64, len: usize) -> Result<alloc::vec::Vec<u8>, MediaError> {
    let mut b = vec![0u8; len];
    mem.read(addr, &mut b)?;
    Ok(b)
}

fn dwords(bytes: &[u8]) -> alloc::vec::Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

impl Media {
    /// Executes a media command once its gate has passed. Dispatch
    /// commands did their work in the gate.
    pub fn execute(
        &mut self,
        mem: &mut dyn GfxMemory,
        c: &Cmd,
        op: MediaOp,
        dw: &[u32],
    ) -> Result<(), MediaError> {
        match op {
            MediaOp::PipelineSelect => self.pipeline_select(c, dw),
            MediaOp::StateBaseAddress => self.state_base_address(c, dw),
            MediaOp::VfeState => self.vfe_state(c, dw),
            MediaOp::CurbeLoad => {
                // CURBE Data Start Address is Dynamic State relative (003
                // lines 47646-47655).
                let len = (get(c, dw, F::CurbeTotalDataLength) as usize).min(MAX_CURBE_BYTES);
                let at = self
                    .bases
                    .dynamic
                    .wrapping_add(get(c, dw, F::CurbeDataStartAddress));
                self.curbe = read(mem, at, len)?;
            }
            MediaOp::DescriptorLoad => {
                // Interface descriptors, Dynamic State relative (003 lines
                // 47735-47745).
                let len = (get(c, dw, F::InterfaceDescriptorTotalLength) as usize)
                    .min(MAX_DESCRIPTOR_BYTES);
                let at = self.bases.dynamic.wrapping_add(get(
                    c,
                    dw,
                    F::InterfaceDescriptorDataStartAddress,
                ));
                self.descriptors = dwords(&read(mem, at, len)?);
                // New descriptors may name reloaded kernels.
                self.cache.invalidate();
            }
            MediaOp::GatewayState => {
                // MEDIA_GATEWAY_STATE DW1: barrier ID 23:16, byte 15:8,
                // thread count 7:0 (003 lines 47992-48063).
                self.array.set_barrier_state(
                    get(c, dw, F::BarrierId) as u8,
                    get(c, dw, F::BarrierByte) as u8,
                    get(c, dw, F::BarrierThreadCount) as u8,
                );
            }
            MediaOp::StatePointers => self.state_pointers(mem, c, dw)?,
            MediaOp::ConstantBuffer => {
                // CONSTANT_BUFFER: Valid, Buffer Starting Address (a graphics
                // address), Buffer Length in 512-bit units minus one (hal
                // gen4 commands.toml, from Mesa gen4.xml [ext]).
                if get(c, dw, F::Valid) == 1 {
                    let len = (get(c, dw, F::BufferLength) as usize + 1) * 64;
                    self.curbe = read(mem, get(c, dw, F::BufferStartingAddress), len)?;
                } else {
                    self.curbe.clear();
                }
            }
            MediaOp::Unsupported => return Err(MediaError::Command),
            MediaOp::State3d(name) => self.keep_3d(mem, name, dw)?,
            MediaOp::StateFlush
            | MediaOp::UrbLayout
            | MediaOp::Object
            | MediaOp::ObjectWalker
            | MediaOp::GpgpuWalker
            | MediaOp::Primitive => {}
        }
        Ok(())
    }

    /// PIPELINE_SELECT: 0 3D, 1 media (003 lines 842-860), 2 GPGPU on Gen7
    /// [ext: Mesa gen7.xml].
    fn pipeline_select(&mut self, c: &Cmd, dw: &[u32]) {
        let v = field(c, dw, F::PipelineSelection).unwrap_or(0);
        self.selected = match v {
            1 => Selected::Media,
            2 => Selected::Gpgpu,
            _ => Selected::ThreeD,
        };
    }

    /// STATE_BASE_ADDRESS: each base and bound changes only when its Modify
    /// Enable is set (003 lines 1092-1504; 965/G45 have no dynamic or
    /// instruction base).
    fn state_base_address(&mut self, c: &Cmd, dw: &[u32]) {
        let b = &mut self.bases;
        let set = |target: &mut u64, name: F, enable: F| {
            if field(c, dw, enable) == Some(1) {
                *target = field(c, dw, name).unwrap_or(0);
            }
        };
        set(
            &mut b.general,
            F::GeneralStateBaseAddress,
            F::GeneralStateBaseAddressModifyEnable,
        );
        set(
            &mut b.surface,
            F::SurfaceStateBaseAddress,
            F::SurfaceStateBaseAddressModifyEnable,
        );
        set(
            &mut b.dynamic,
            F::DynamicStateBaseAddress,
            F::DynamicStateBaseAddressModifyEnable,
        );
        set(
            &mut b.indirect,
            F::IndirectObjectBaseAddress,
            F::IndirectObjectBaseAddressModifyEnable,
        );
        set(
            &mut b.instruction,
            F::InstructionBaseAddress,
            F::InstructionBaseAddressModifyEnable,
        );
        set(
            &mut b.general_bound,
            F::GeneralStateAccessUpperBound,
            F::GeneralStateAccessUpperBoundModifyEnable,
        );
        set(
            &mut b.dynamic_bound,
            F::DynamicStateAccessUpperBound,
            F::DynamicStateAccessUpperBoundModifyEnable,
        );
        set(
            &mut b.indirect_bound,
            F::IndirectObjectAccessUpperBound,
            F::IndirectObjectAccessUpperBoundModifyEnable,
        );
        set(
            &mut b.instruction_bound,
            F::InstructionAccessUpperBound,
            F::InstructionAccessUpperBoundModifyEnable,
        );
    }

    /// SNB/IVB MEDIA_VFE_STATE (003 lines 47419-47587; Gen7 adds GPGPU
    /// mode [ext: Mesa gen7.xml]).
    fn vfe_state(&mut self, c: &Cmd, dw: &[u32]) {
        self.vfe.max_threads = get(c, dw, F::MaximumNumberOfThreads) as u32 + 1;
        self.vfe.scratch_base = get(c, dw, F::ScratchSpaceBasePointer);
        self.vfe.scratch_code = get(c, dw, F::PerThreadScratchSpace) as u8;
        self.vfe.gpgpu = get(c, dw, F::GpgpuMode) == 1;
        self.vfe.bypass_gateway = get(c, dw, F::BypassGatewayControl) == 1;
        self.apply_vfe_limits();
    }

    /// 965/G45 MEDIA_STATE_POINTERS: the VFE state structure at the VFE
    /// State Pointer (General State relative, hal gen4 media.toml [ext]).
    fn state_pointers(
        &mut self,
        mem: &mut dyn GfxMemory,
        c: &Cmd,
        dw: &[u32],
    ) -> Result<(), MediaError> {
        let at = self
            .bases
            .general
            .wrapping_add(get(c, dw, F::VfeStatePointer));
        let raw = dwords(&read(mem, at, 12)?);
        macro_rules! vfe {
            ($gen:ident) => {{
                let v = baregpu_hal::$gen::structs::MediaVfeState::unpack(&raw)
                    .map_err(|_| MediaError::Command)?;
                (
                    v.maximum_number_of_threads + 1,
                    v.scratch_space_base_pointer,
                    v.per_thread_scratch_space as u8,
                    v.interface_descriptor_base_pointer,
                )
            }};
        }
        let (threads, scratch, code, ids) = match self.platform {
            IsaGen::Gen4 => vfe!(gen4),
            IsaGen::G45 => vfe!(g45),
            _ => return Err(MediaError::Command),
        };
        self.vfe.max_threads = threads;
        self.vfe.scratch_base = scratch;
        self.vfe.scratch_code = code;
        self.vfe.descriptors = ids;
        self.cache.invalidate();
        self.apply_vfe_limits();
        Ok(())
    }

    fn apply_vfe_limits(&mut self) {
        self.array.set_limit(self.vfe.max_threads as usize);
        self.array.set_bypass_gateway(self.vfe.bypass_gateway);
    }

    /// The interface descriptor at `offset` (in descriptors).
    pub fn descriptor(
        &mut self,
        mem: &mut dyn GfxMemory,
        offset: u32,
    ) -> Result<descriptor::Descriptor, MediaError> {
        let p = self.platform;
        let n = descriptor::dwords(p);
        let at = offset as usize * n;
        match p {
            IsaGen::Gen4 | IsaGen::G45 => {
                let addr = self
                    .bases
                    .general
                    .wrapping_add(self.vfe.descriptors)
                    .wrapping_add(at as u64 * 4);
                let raw = dwords(&read(mem, addr, n * 4)?);
                descriptor::unpack(p, &raw, self.bases.general, 0)
            }
            _ => {
                let raw = self
                    .descriptors
                    .get(at..at + n)
                    .ok_or(MediaError::Command)?;
                descriptor::unpack(p, raw, self.bases.general, self.bases.instruction)
            }
        }
    }
}
