//! SAMPLER_STATE and the border colour, as the sampler reads them.
//!
//! Where the state is: an array of up to 16 entries, 16 bytes apart, from
//! the Sampler State Pointer; the descriptor's Sampler Index picks the
//! entry (000 line 3657; 003 lines 77315-77318). The pointer is
//! relative to General State Base on Gen4/G45 (000 line 3971) and Dynamic
//! State Base on Gen6+ (003 lines 27028-27031, 47856-47867). Which pointer
//! the message uses:
//! - Gen4/G45: header `M0.3[31:5]` (000 line 3971; the header is always
//!   there).
//! - Gen6: M0.3 is "Ignored" (003 line 79236): the pointer delivered with
//!   the thread ([`SamplerSource::pointer`]).
//! - Gen7.5: M0.3 when the message has a header, since Mesa moves to
//!   samplers 16 and up by adding to it, on Haswell only [ext: mesa
//!   src/intel/compiler/brw_eu_emit.c `brw_adjust_sampler_state_pointer`];
//!   Gen7 and headerless Gen7.5 messages use the delivered pointer.
//! - Gen12.5: the delivered pointer, which `xe::sampler` sets from the
//!   header's M0.3 (and its bindless bit) or the interface descriptor.
//!
//! Layouts come from the hal's typed structures, which cite the manuals
//! (`baregpu_hal::{gen4, g45, gen6, gen7}::structs::SamplerState`: 000
//! lines 3649-3816; 003 lines 77311-77871 with Mesa where the converted
//! text lost field names; Gen7 from [ext: mesa src/intel/genxml/gen7.xml
//! SAMPLER_STATE]; Gen7.5 keeps the Gen7 bits [ext: mesa
//! src/intel/genxml/gen75.xml SAMPLER_STATE]). Fixed-point fields: LOD
//! bias S4.6, Min/Max LOD U4.6 on Gen4-Gen6 (000 lines 3705, 3722, 3726),
//! S4.8 and U4.8 on Gen7; Base Mip Level U4.1 everywhere (000 line
//! 3681).
//!
//! SAMPLER_BORDER_COLOR_STATE, from the Border Color Pointer (32-byte
//! aligned, relative to the same base as the sampler state; 000 line 3773):
//! - Gen4/G45 (000 lines 3817-3854): DX10/OGL mode four IEEE floats R, G,
//!   B, A; DX9 mode one dword of UNORM8 A:B:G:R (red in 7:0).
//! - Gen6 [ext: mesa src/intel/genxml/gen6.xml SAMPLER_BORDER_COLOR_STATE;
//!   003 only names it, line 993]: DW0 UNORM8 R, G, B, A (red in 7:0),
//!   DW1-4 floats, then half, UNORM16, SNORM16 and SNORM8 copies.
//! - Gen7 [ext: mesa gen7.xml]: four floats, or in DX9 mode the UNORM8
//!   dword at DW0.
//! - Gen7.5 [ext: mesa gen75.xml, 20 dwords]: four floats at DW0-3 and the
//!   integer copies from DW16 (8-bit channels packed in DW16, 16-bit
//!   channels two to a dword in DW16-17, 32-bit channels in DW16-19). The
//!   gen75 layout gives no DX9 form, so DX9 mode is refused there.
//!
//! The border colour is read as texture data, not as state ("accessed
//! through the texture cache hierarchy rather than the state cache
//! hierarchy", 000 line 3830).
//!
//! Choices where the sources are silent: float and UNORM surfaces read the
//! float copy in DX10/OGL mode on every generation (Gen6 also carries an
//! UNORM8 copy; which one its sampler reads for UNORM8 surfaces is not
//! documented); integer surfaces read the Gen7.5 integer copies and are
//! refused on Gen4-Gen7, whose layouts have no integer border colour.

use baregpu_isa::IsaGen;

use super::super::payload::bad;
use crate::eu::send::SendError;

/// How a texture coordinate outside [0, 1) maps to texels (SAMPLER_STATE
/// `TC[X,Y,Z]` Address Control Mode, 000 lines 2915-2972 and 3748-3760).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AddressMode {
    /// Repeat the edge texel (TEXCOORDMODE_CLAMP).
    #[default]
    Clamp,
    Wrap,
    Mirror,
    /// Outside texels take the border colour (TEXCOORDMODE_CLAMP_BORDER).
    ClampBorder,
    /// Mirror once about 0, then clamp (TEXCOORDMODE_MIRROR_ONCE, 000 lines
    /// 2949-2951).
    MirrorOnce,
    /// Cube maps only: filtering crosses into the adjacent face
    /// (TEXCOORDMODE_CUBE, 003 lines 73483-73485, 73549-73555).
    Cube,
}

/// Sampler settings used when there is no SAMPLER_STATE to read (no
/// [`SamplerSource`]): nearest filtering of the most detailed level, this
/// address mode on every axis, a zero border colour (DX10/OGL mode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sampling {
    pub address: AddressMode,
}

/// Where SAMPLER_STATE is found for the messages of a thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SamplerSource {
    /// The graphics address the Sampler State Pointer and the Border Color
    /// Pointer are relative to: General State Base (Gen4/G45) or Dynamic
    /// State Base (Gen6+).
    pub base: u64,
    /// The Sampler State Pointer delivered with the thread (`R0.3[31:5]` of
    /// its dispatch), for messages that do not carry one (see the module
    /// doc).
    pub pointer: u32,
}

/// Min/Mag Mode Filter (000 lines 3692-3700; MONO is refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapFilter {
    Nearest,
    Linear,
    Anisotropic,
}

/// Mip Mode Filter (000 line 3682).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MipFilter {
    None,
    Nearest,
    Linear,
}

/// Texture Border Color Mode (000 line 3665).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BorderMode {
    Dx10Ogl,
    Dx9,
}

/// Shadow Function: the sample_c prefilter compare (000 lines 3004-3016,
/// 3708-3717), in code order 0-7.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    Always,
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
}

impl Compare {
    /// The compare result that replaces the texel: 0.0 when the comparison
    /// holds, 1.0 otherwise (000 lines 3008-3016, taken literally).
    pub fn apply(self, texel: f32, reference: f32) -> f32 {
        let pass = match self {
            Compare::Always => true,
            Compare::Never => false,
            Compare::Less => texel < reference,
            Compare::Equal => texel == reference,
            Compare::LessEqual => texel <= reference,
            Compare::Greater => texel > reference,
            Compare::NotEqual => texel != reference,
            Compare::GreaterEqual => texel >= reference,
        };
        if pass { 0.0 } else { 1.0 }
    }
}

/// One SAMPLER_STATE entry, decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerState {
    /// Sampler Disable: every channel returns 0 (000 line 3659).
    pub disabled: bool,
    pub border_mode: BorderMode,
    pub lod_preclamp: bool,
    pub base_mip: f32,
    pub mip_filter: MipFilter,
    pub mag_filter: MapFilter,
    pub min_filter: MapFilter,
    pub lod_bias: f32,
    pub shadow: Compare,
    pub min_lod: f32,
    pub max_lod: f32,
    /// TCX, TCY, TCZ; `None` for a reserved code, refused when the axis is
    /// used.
    pub address: [Option<AddressMode>; 3],
    /// Border Color Pointer; `None` for a zero border colour ([`Sampling`]).
    pub border_pointer: Option<u32>,
    /// Non-normalized Coordinate Enable (Gen6+: 003 line 77855; [ext: mesa
    /// gen7.xml DW3 bit 10]).
    pub non_normalized: bool,
    /// Cube Surface Control Mode CUBECTRLMODE_OVERRIDE: cube surfaces use
    /// TEXCOORDMODE_CUBE on every axis whatever TC\[X,Y,Z\] say (003 lines
    /// 77611-77625).
    pub cube_override: bool,
}

impl Sampling {
    /// The state this fallback stands for.
    pub fn state(self) -> SamplerState {
        SamplerState {
            disabled: false,
            border_mode: BorderMode::Dx10Ogl,
            lod_preclamp: false,
            base_mip: 0.0,
            mip_filter: MipFilter::None,
            mag_filter: MapFilter::Nearest,
            min_filter: MapFilter::Nearest,
            lod_bias: 0.0,
            shadow: Compare::Never,
            min_lod: 0.0,
            max_lod: 0.0,
            address: [Some(self.address); 3],
            border_pointer: None,
            non_normalized: false,
            cube_override: false,
        }
    }
}

/// The generation-neutral fields, before interpretation.
struct Raw {
    disabled: bool,
    border_mode: u32,
    preclamp: bool,
    base: u32,
    mip: u32,
    mag: u32,
    min: u32,
    bias: i32,
    shadow: u32,
    min_lod: u32,
    max_lod: u32,
    tc: [u32; 3],
    border: u32,
    chroma_key: bool,
    non_normalized: bool,
    cube_override: bool,
    /// Fraction bits of the bias and LOD fields: 6 (Gen4-Gen6) or 8 (Gen7).
    frac: u32,
}

macro_rules! raw_of {
    ($s:expr, $preclamp:expr, $nn:expr, $frac:expr) => {{
        let s = $s;
        Raw {
            disabled: s.sampler_disable,
            border_mode: s.texture_border_color_mode,
            preclamp: $preclamp,
            base: s.base_mip_level,
            mip: s.mip_mode_filter,
            mag: s.mag_mode_filter,
            min: s.min_mode_filter,
            bias: s.texture_lod_bias,
            shadow: s.shadow_function,
            min_lod: s.min_lod,
            max_lod: s.max_lod,
            tc: [
                s.tcx_address_control_mode,
                s.tcy_address_control_mode,
                s.tcz_address_control_mode,
            ],
            border: s.border_color_pointer as u32,
            chroma_key: s.chromakey_enable,
            non_normalized: $nn,
            cube_override: s.cube_surface_control_mode == 1,
            frac: $frac,
        }
    }};
}

/// Decodes one 4-dword SAMPLER_STATE entry as `p` lays it out. Refused:
/// MAPFILTER_MONO, ChromaKey, reserved filter codes.
pub fn decode(p: IsaGen, dw: &[u32; 4]) -> Result<SamplerState, SendError> {
    use baregpu_hal::Packet;
    let undecodable = |_| bad("SAMPLER_STATE does not decode");
    let raw = match p {
        IsaGen::Gen4 => {
            let s = baregpu_hal::gen4::structs::SamplerState::unpack(dw).map_err(undecodable)?;
            raw_of!(&s, s.lod_preclamp_enable, false, 6)
        }
        IsaGen::G45 => {
            let s = baregpu_hal::g45::structs::SamplerState::unpack(dw).map_err(undecodable)?;
            raw_of!(&s, s.lod_preclamp_enable, false, 6)
        }
        IsaGen::Gen6 => {
            let s = baregpu_hal::gen6::structs::SamplerState::unpack(dw).map_err(undecodable)?;
            raw_of!(
                &s,
                s.lod_preclamp_enable == 1,
                s.non_normalized_coordinates,
                6
            )
        }
        // Gen12.5 (hal gen12.5 structs.toml SAMPLER_STATE, from Mesa
        // gen12.xml): no Base Mip Level (the level range is the surface's),
        // LOD PreClamp Mode 2 for OpenGL's clamp, U4.8/S4.8 fields.
        IsaGen::Gen12_5 => {
            let s = baregpu_hal::gen12_5::structs::SamplerState::unpack(dw).map_err(undecodable)?;
            Raw {
                disabled: s.sampler_disable,
                border_mode: s.texture_border_color_mode,
                preclamp: s.lod_preclamp_mode == 2,
                base: 0,
                mip: s.mip_mode_filter,
                mag: s.mag_mode_filter,
                min: s.min_mode_filter,
                bias: s.texture_lod_bias,
                shadow: s.shadow_function,
                min_lod: s.min_lod,
                max_lod: s.max_lod,
                tc: [
                    s.tcx_address_control_mode,
                    s.tcy_address_control_mode,
                    s.tcz_address_control_mode,
                ],
                border: s.border_color_pointer,
                chroma_key: s.chromakey_enable,
                non_normalized: s.non_normalized_coordinate_enable,
                cube_override: s.cube_surface_control_mode == 1,
                frac: 8,
            }
        }
        IsaGen::Gen7 | IsaGen::Gen75 => {
            let s = baregpu_hal::gen7::structs::SamplerState::unpack(dw).map_err(undecodable)?;
            raw_of!(
                &s,
                s.lod_preclamp_enable == 1,
                s.non_normalized_coordinate_enable,
                8
            )
        }
    };
    raw.state()
}

impl Raw {
    fn state(&self) -> Result<SamplerState, SendError> {
        if self.chroma_key {
            return Err(bad("SAMPLER_STATE: ChromaKey is not modelled"));
        }
        let map = |code: u32| match code {
            0 => Ok(MapFilter::Nearest),
            1 => Ok(MapFilter::Linear),
            2 => Ok(MapFilter::Anisotropic),
            6 => Err(bad("SAMPLER_STATE: MAPFILTER_MONO is not modelled")),
            _ => Err(bad("SAMPLER_STATE: reserved min/mag filter")),
        };
        let mip_filter = match self.mip {
            0 => MipFilter::None,
            1 => MipFilter::Nearest,
            3 => MipFilter::Linear,
            _ => return Err(bad("SAMPLER_STATE: reserved mip filter")),
        };
        let tc = |code: u32| match code {
            0 => Some(AddressMode::Wrap),
            1 => Some(AddressMode::Mirror),
            2 => Some(AddressMode::Clamp),
            4 => Some(AddressMode::ClampBorder),
            5 => Some(AddressMode::MirrorOnce),
            3 => Some(AddressMode::Cube),
            // 6-7 reserved.
            _ => None,
        };
        let shadow = [
            Compare::Always,
            Compare::Never,
            Compare::Less,
            Compare::Equal,
            Compare::LessEqual,
            Compare::Greater,
            Compare::NotEqual,
            Compare::GreaterEqual,
        ][(self.shadow & 7) as usize];
        let scale = (1u32 << self.frac) as f32;
        Ok(SamplerState {
            disabled: self.disabled,
            border_mode: if self.border_mode == 1 {
                BorderMode::Dx9
            } else {
                BorderMode::Dx10Ogl
            },
            lod_preclamp: self.preclamp,
            base_mip: self.base as f32 / 2.0,
            mip_filter,
            mag_filter: map(self.mag)?,
            min_filter: map(self.min)?,
            lod_bias: self.bias as f32 / scale,
            shadow,
            min_lod: self.min_lod as f32 / scale,
            max_lod: self.max_lod as f32 / scale,
            address: self.tc.map(tc),
            border_pointer: Some(self.border & !0x1F),
            non_normalized: self.non_normalized,
            cube_override: self.cube_override,
        })
    }
}

/// Reads SAMPLER_STATE entry `index` at `base + pointer`.
pub(super) fn read(
    env: &mut super::super::MessageEnv,
    p: IsaGen,
    base: u64,
    pointer: u32,
    index: u8,
) -> Result<SamplerState, SendError> {
    let at = base
        .wrapping_add(u64::from(pointer & !0x1F))
        .wrapping_add(16 * u64::from(index & 0xF));
    let mut bytes = [0u8; 16];
    read_state(env, at, &mut bytes)?;
    decode(p, &dwords(&bytes))
}

/// How texels of a surface format come out of the sampler, for the
/// border colour: integer formats take integer border values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BorderKind {
    /// Float and UNORM formats.
    Float,
    /// Integer formats with channels of this many bits.
    Int(u32),
}

/// The border colour R, G, B, A of `st` as the sampler returns it for a
/// surface of `kind` (float bits, or integers); DX9 mode gives UNORM8
/// values converted to float.
pub(super) fn border_color(
    env: &mut super::super::MessageEnv,
    p: IsaGen,
    base: u64,
    st: &SamplerState,
    kind: BorderKind,
) -> Result<[u32; 4], SendError> {
    let Some(ptr) = st.border_pointer else {
        return Ok([0; 4]);
    };
    let at = base.wrapping_add(u64::from(ptr));
    let mut bytes = [0u8; 16];
    if st.border_mode == BorderMode::Dx9 {
        if p == IsaGen::Gen75 {
            return Err(bad(
                "border colour: DX9 mode has no Gen7.5 layout in this model",
            ));
        }
        env.mem_read(at, &mut bytes[..4])?;
        return Ok(core::array::from_fn(|c| {
            (f32::from(bytes[c]) / 255.0).to_bits()
        }));
    }
    match (kind, p) {
        (BorderKind::Float, _) => {
            // Gen6 keeps the floats after its UNORM8 dword.
            let skip = if p == IsaGen::Gen6 { 4 } else { 0 };
            env.mem_read(at.wrapping_add(skip), &mut bytes)?;
            Ok(dwords(&bytes))
        }
        (BorderKind::Int(bits), IsaGen::Gen75) => {
            env.mem_read(at.wrapping_add(64), &mut bytes)?;
            let d = dwords(&bytes);
            Ok(match bits {
                8 => core::array::from_fn(|c| u32::from(bytes[c])),
                16 => core::array::from_fn(|c| (d[c / 2] >> (16 * (c % 2))) & 0xFFFF),
                _ => d,
            })
        }
        (BorderKind::Int(_), _) => Err(bad(
            "border colour for integer formats is not modelled before Gen7.5",
        )),
    }
}

fn read_state(
    env: &mut super::super::MessageEnv,
    at: u64,
    out: &mut [u8],
) -> Result<(), SendError> {
    env.memory.read_state(at, out).map_err(|f| {
        env.fault = Some(f);
        bad("memory fault reading sampler state (see MessageEnv::fault)")
    })
}

fn dwords(b: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|i| {
        u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    })
}
