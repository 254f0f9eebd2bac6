//! What the compute tests share: a GPU on the software GPU, small kernels
//! assembled with the ISA toolkit, and readers that look at what the driver
//! wrote the way the hardware will: commands through the hal's decoder, and
//! state through the GGTT (PTE -> physical page -> CPU view), never through
//! the driver's own bookkeeping.

#![allow(dead_code)]

use baregpu::hal::Generation;
use baregpu::hal::decode::decode;
use baregpu::hal::reflect::{FieldInfo, FieldKind};
use baregpu::platform::host::HostPlatform;
use baregpu::platform::{Platform, PlatformBus};
use baregpu::{Batch, Gpu, PhysAddr};
use baregpu_isa::IsaGen as Isa;
use baregpu_soft::SoftGpu;

pub type HostGpu<'a> = Gpu<'a, HostPlatform>;

/// Runs `f` with a GPU of `generation` on the software GPU.
pub fn with_gpu(generation: Generation, f: impl FnOnce(&mut HostGpu<'_>, &HostPlatform)) {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(generation, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, generation).expect("GPU bring-up");
    f(&mut gpu, &p);
}

pub fn isa(generation: Generation) -> Isa {
    match generation {
        Generation::Gen4 => Isa::Gen4,
        Generation::G45 => Isa::G45,
        Generation::Gen6 => Isa::Gen6,
        _ => Isa::Gen7,
    }
}

/// The smallest root-thread kernel: copy R0 into the message payload and
/// send it to the thread spawner with End Of Thread (notes seed-003 §3.11:
/// desc 0x0200_0010 = mlen 1, resource select "keep the URB handle"). Gen4
/// sends from an MRF (a null source: no implied move, which would copy by the
/// source's region), Gen6 from an MRF, Gen7 from a GRF.
pub fn eot_kernel(generation: Generation) -> Vec<u8> {
    let text = match generation {
        Generation::Gen4 | Generation::G45 => {
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud\nsend (8|M0) null:ud m1 null:ud 0x7 0x100010 {EOT}"
        }
        Generation::Gen6 => {
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud\nsend (8|M0) null:ud m1 0x27 0x02000010 {EOT}"
        }
        _ => {
            "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud\nsend (8|M0) null:ud r112 0x27 0x02000010 {EOT}"
        }
    };
    baregpu_isa::text::assemble(isa(generation), text).expect("test kernel assembles")
}

/// A kernel that runs but never ends its thread.
pub fn endless_kernel(generation: Generation) -> Vec<u8> {
    let text = match generation {
        Generation::Gen7 => "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud",
        _ => "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud",
    };
    baregpu_isa::text::assemble(isa(generation), text).expect("test kernel assembles")
}

/// Reads `len` bytes at a GGTT address the way the GPU does: each page's
/// PTE from the GTT alias in the register BAR, its physical page, then the
/// platform's CPU view of that page. PTE layouts: 965/G45 address bits 35:32
/// in PTE bits 7:4 (Linux intel-gtt i965_write_entry), SNB/IVB bits 39:32 in
/// 11:4 (003 lines 6875-6963).
pub fn gfx_read(gpu: &mut HostGpu<'_>, p: &HostPlatform, addr: u64, len: usize) -> Vec<u8> {
    let generation = gpu.generation();
    let alias = gpu.ggtt().unwrap().layout().alias_offset;
    let mut out = Vec::with_capacity(len);
    let mut at = addr;
    while out.len() < len {
        let pte = gpu.mmio().read32(alias + ((at >> 12) * 4) as u32);
        assert_eq!(pte & 1, 1, "GGTT address {at:#x} is not mapped");
        let ext = match generation {
            Generation::Gen4 | Generation::G45 => ((pte >> 4) & 0xf) as u64,
            _ => ((pte >> 4) & 0xff) as u64,
        };
        let phys = (pte & 0xffff_f000) as u64 | ext << 32;
        let page = p
            .phys_to_virt(PhysAddr(phys))
            .expect("PTE points at platform memory");
        let in_page = (at & 0xfff) as usize;
        let take = (4096 - in_page).min(len - out.len());
        // SAFETY: test-owned DMA page, read while the GPU is idle.
        let bytes = unsafe { std::slice::from_raw_parts(page.as_ptr().add(in_page), take) };
        out.extend_from_slice(bytes);
        at += take as u64;
    }
    out
}

pub fn gfx_dwords(gpu: &mut HostGpu<'_>, p: &HostPlatform, addr: u64, n: usize) -> Vec<u32> {
    gfx_read(gpu, p, addr, n * 4)
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The raw PTE of a GGTT address.
pub fn pte(gpu: &mut HostGpu<'_>, addr: u64) -> u32 {
    let alias = gpu.ggtt().unwrap().layout().alias_offset;
    gpu.mmio().read32(alias + ((addr >> 12) * 4) as u32)
}

/// A decoded command: its name and dwords.
#[derive(Clone, Debug)]
pub struct Cmd {
    pub name: &'static str,
    /// Dword index in the batch.
    pub offset: usize,
    pub dwords: Vec<u32>,
    pub fields: &'static [FieldInfo],
    /// Where the repeated group (inline data) starts, if the command has one.
    pub group_dw: Option<usize>,
}

impl Cmd {
    /// A field's value (addresses and offsets shifted back into place).
    pub fn get(&self, field: &str) -> u64 {
        get(self.fields, &self.dwords, field)
    }

    /// A signed field (two's complement of its width).
    pub fn get_signed(&self, field: &str) -> i64 {
        let f = self.fields.iter().find(|f| f.name == field).expect("field");
        let raw = f.extract(&self.dwords);
        let shift = 64 - f.width();
        ((raw << shift) as i64) >> shift
    }

    /// The inline data dwords.
    pub fn inline(&self) -> &[u32] {
        &self.dwords[self.group_dw.expect("command with inline data")..]
    }
}

/// The commands of a batch up to MI_BATCH_BUFFER_END, decoded with the
/// generation's tables; every one must be known and well formed.
pub fn commands(generation: Generation, batch: &Batch) -> Vec<Cmd> {
    decode(generation.tables(), "render", batch.contents())
        .stop_at_batch_end()
        .map(|d| {
            assert_eq!(d.problem, None, "bad command at dword {}: {d}", d.offset);
            let info = d.command.expect("known command");
            Cmd {
                name: info.name,
                offset: d.offset,
                dwords: d.dwords.to_vec(),
                fields: info.fields,
                group_dw: info.group.map(|g| g.dw as usize),
            }
        })
        .collect()
}

/// Command names in order, MI_NOOP padding left out.
pub fn names(cmds: &[Cmd]) -> Vec<&'static str> {
    cmds.iter()
        .map(|c| c.name)
        .filter(|n| *n != "MI_NOOP")
        .collect()
}

pub fn all<'c>(cmds: &'c [Cmd], name: &str) -> Vec<&'c Cmd> {
    cmds.iter().filter(|c| c.name == name).collect()
}

/// The single command called `name`.
pub fn one<'c>(cmds: &'c [Cmd], name: &str) -> &'c Cmd {
    let all: Vec<&Cmd> = cmds.iter().filter(|c| c.name == name).collect();
    assert_eq!(all.len(), 1, "one {name} in {:?}", names(cmds));
    all[0]
}

/// A field by name, from the reflection tables.
pub fn get(fields: &[FieldInfo], dwords: &[u32], name: &str) -> u64 {
    let f = fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name}"));
    let raw = f.extract(dwords);
    match f.kind {
        FieldKind::Address | FieldKind::Offset => raw << f.shift,
        _ => raw,
    }
}

/// A state structure in GPU memory, read through the GGTT.
pub struct State {
    pub dwords: Vec<u32>,
    pub fields: &'static [FieldInfo],
}

impl State {
    pub fn get(&self, field: &str) -> u64 {
        get(self.fields, &self.dwords, field)
    }
}

pub fn state_at(gpu: &mut HostGpu<'_>, p: &HostPlatform, name: &str, addr: u64) -> State {
    let info = gpu
        .generation()
        .tables()
        .structure(name)
        .unwrap_or_else(|| panic!("no struct {name}"));
    State {
        dwords: gfx_dwords(gpu, p, addr, info.length as usize),
        fields: info.fields,
    }
}

pub fn interface_descriptor_name(generation: Generation) -> &'static str {
    match generation {
        Generation::Gen4 | Generation::G45 => "INTERFACE_DESCRIPTOR",
        _ => "INTERFACE_DESCRIPTOR_DATA",
    }
}

pub fn surface_state_name(generation: Generation) -> &'static str {
    match generation {
        Generation::Gen7 => "RENDER_SURFACE_STATE",
        _ => "SURFACE_STATE",
    }
}

/// Where the batch's state lives, from its STATE_BASE_ADDRESS: (surface
/// state base, dynamic state base). 965/G45 have no dynamic base: their
/// descriptor and VFE pointers are graphics addresses (general base 0).
pub fn bases(generation: Generation, cmds: &[Cmd]) -> (u64, u64) {
    let sba = one(cmds, "STATE_BASE_ADDRESS");
    let surface = sba.get("surface_state_base_address");
    let dynamic = match generation {
        Generation::Gen4 | Generation::G45 => 0,
        _ => sba.get("dynamic_state_base_address"),
    };
    (surface, dynamic)
}

/// The interface descriptor a dispatch loaded: from MEDIA_STATE_POINTERS ->
/// VFE state (965/G45) or MEDIA_INTERFACE_DESCRIPTOR_LOAD (SNB/IVB).
pub fn interface_descriptor(gpu: &mut HostGpu<'_>, p: &HostPlatform, cmds: &[Cmd]) -> State {
    let generation = gpu.generation();
    let name = interface_descriptor_name(generation);
    match generation {
        Generation::Gen4 | Generation::G45 => {
            let vfe = vfe_state(gpu, p, cmds);
            let at = vfe.get("interface_descriptor_base_pointer");
            state_at(gpu, p, name, at)
        }
        _ => {
            let (_, dynamic) = bases(generation, cmds);
            let load = one(cmds, "MEDIA_INTERFACE_DESCRIPTOR_LOAD");
            assert_eq!(load.get("interface_descriptor_total_length"), 32);
            let at = dynamic + load.get("interface_descriptor_data_start_address");
            state_at(gpu, p, name, at)
        }
    }
}

/// 965/G45: the VFE state MEDIA_STATE_POINTERS points to (general base 0).
pub fn vfe_state(gpu: &mut HostGpu<'_>, p: &HostPlatform, cmds: &[Cmd]) -> State {
    let at = one(cmds, "MEDIA_STATE_POINTERS").get("vfe_state_pointer");
    state_at(gpu, p, "MEDIA_VFE_STATE", at)
}

/// The SURFACE_STATE binding table entry `bti` points to.
pub fn bound_surface(gpu: &mut HostGpu<'_>, p: &HostPlatform, cmds: &[Cmd], bti: u32) -> State {
    let generation = gpu.generation();
    let (surface_base, _) = bases(generation, cmds);
    let id = interface_descriptor(gpu, p, cmds);
    let table = surface_base + id.get("binding_table_pointer");
    assert_eq!(table % 32, 0, "binding tables are 32-byte aligned");
    let entry = gfx_dwords(gpu, p, table + 4 * bti as u64, 1)[0];
    assert_eq!(entry % 32, 0, "SURFACE_STATE is 32-byte aligned");
    state_at(
        gpu,
        p,
        surface_state_name(generation),
        surface_base + entry as u64,
    )
}

/// Where the kernel an interface descriptor names starts.
pub fn kernel_address(generation: Generation, cmds: &[Cmd], id: &State) -> u64 {
    let ksp = id.get("kernel_start_pointer");
    match generation {
        // Relative to the General State Base, which the driver sets to 0.
        Generation::Gen4 | Generation::G45 => {
            assert_eq!(
                one(cmds, "STATE_BASE_ADDRESS").get("general_state_base_address"),
                0
            );
            ksp
        }
        _ => one(cmds, "STATE_BASE_ADDRESS").get("instruction_base_address") + ksp,
    }
}

pub const GENERATIONS: [Generation; 4] = [
    Generation::Gen4,
    Generation::G45,
    Generation::Gen6,
    Generation::Gen7,
];
