//! The state the driver writes for samplers and mip chains, read back
//! through the GGTT with the hal's reflection tables, and what a dispatch
//! is refused.

use baregpu::Batch;
use baregpu::compute::{
    AddressMode, Compute, ComputeError, Dispatch, Filter, Format, KernelDesc, MipFilter, Resource,
    Sampler, Threads, Tiling,
};
use baregpu::hal::Generation;

use crate::compute_common::{
    self, Cmd, GENERATIONS, HostGpu, State, bases, bound_surface, commands, eot_kernel, with_gpu,
};
use crate::sample::BORDER;

/// Records a one-thread dispatch of the EOT kernel (which declares
/// `used` samplers) with `samplers` bound and returns its commands, and the
/// batch: its state area is read through the GGTT while the batch lives.
fn record<'g>(
    gpu: &mut HostGpu<'g>,
    cx: &mut Compute<'g>,
    used: &[u32],
    samplers: &[(u32, Sampler)],
    bindings: &[(u32, Resource<'_>)],
) -> Result<(Vec<Cmd>, Batch<'g>), ComputeError> {
    let g = gpu.generation();
    let bin = eot_kernel(g);
    let k = cx.load_kernel(
        gpu,
        &KernelDesc {
            samplers: used,
            ..KernelDesc::new(&bin)
        },
    )?;
    let d = Dispatch {
        threads: Threads::Objects {
            count: 1,
            inline: &[],
        },
        curbe: &[],
        bindings,
        samplers,
    };
    let batch = cx.record(gpu, &k, &d)?;
    Ok((commands(g, &batch), batch))
}

/// Border colour field names: 965/G45 call the floats `border_color_red`
/// (hal gen4 state.toml), SNB and Ivy Bridge `border_color_float_red`.
fn border_field(g: Generation, channel: &str) -> String {
    match g {
        Generation::Gen4 | Generation::G45 => format!("border_color_{channel}"),
        _ => format!("border_color_float_{channel}"),
    }
}

#[test]
fn sampler_tables_and_border_colours_are_where_the_descriptor_points() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let mut cx = Compute::new(gpu).unwrap();
            let edge = Sampler {
                min_filter: Filter::Nearest,
                mag_filter: Filter::Linear,
                mip_filter: MipFilter::Linear,
                address: [
                    AddressMode::Wrap,
                    AddressMode::ClampBorder,
                    AddressMode::Mirror,
                ],
                border: BORDER,
                min_lod: 0.5,
                max_lod: 3.25,
                lod_bias: -1.5,
                non_normalized: false,
            };
            // Index 1 is left unbound: a gap in the table.
            let (cmds, _batch) = record(
                gpu,
                &mut cx,
                &[0, 2],
                &[(2, edge), (0, Sampler::new())],
                &[],
            )
            .unwrap();
            let id = compute_common::interface_descriptor(gpu, p, &cmds);
            let (_, dynamic) = bases(g, &cmds);
            // 965/G45: General State relative, base 0 (000 line 3657);
            // SNB/IVB: Dynamic State relative (003 lines 47856-47867).
            let table = dynamic + id.get("sampler_state_pointer");
            assert_eq!(table % 32, 0, "{g}: the array is 32-byte aligned");
            // Three entries: "Sampler Count" in multiples of 4 (003 lines
            // 47869-47876).
            assert_eq!(id.get("sampler_count"), 1, "{g}");
            let entry = |gpu: &mut HostGpu<'_>, i: u64| {
                compute_common::state_at(gpu, p, "SAMPLER_STATE", table + 16 * i)
            };
            let gap = entry(gpu, 1);
            assert_eq!(gap.get("sampler_disable"), 1, "{g}: unbound entry");
            let plain = entry(gpu, 0);
            assert_eq!(plain.get("sampler_disable"), 0, "{g}");
            // MAPFILTER_LINEAR = 1, MIPFILTER_NONE = 0, TEXCOORDMODE_CLAMP
            // = 2 (000 lines 3682-3700, 3753-3760).
            assert_eq!(plain.get("min_mode_filter"), 1, "{g}");
            assert_eq!(plain.get("mag_mode_filter"), 1, "{g}");
            assert_eq!(plain.get("mip_mode_filter"), 0, "{g}");
            for axis in ["tcx", "tcy", "tcz"] {
                assert_eq!(plain.get(&format!("{axis}_address_control_mode")), 2, "{g}");
            }
            let s = entry(gpu, 2);
            check_edge_sampler(g, &s);
            // The border colour: 32-byte aligned, same base (000 line 3773).
            let border_at = dynamic + s.get("border_color_pointer");
            assert_eq!(border_at % 32, 0, "{g}");
            let bc = compute_common::state_at(gpu, p, "SAMPLER_BORDER_COLOR_STATE", border_at);
            for (c, name) in ["red", "green", "blue", "alpha"].iter().enumerate() {
                let bits = bc.get(&border_field(g, name)) as u32;
                assert_eq!(f32::from_bits(bits), BORDER[c], "{g}: border {name}");
            }
            if g == Generation::Gen6 {
                // The UNORM8 copy: round(c * 255) [ext: Mesa gen6.xml
                // SAMPLER_BORDER_COLOR_STATE, DW0].
                let unorm8: Vec<u64> = ["red", "green", "blue", "alpha"]
                    .iter()
                    .map(|n| bc.get(&format!("border_color_unorm_{n}")))
                    .collect();
                assert_eq!(unorm8, [64, 128, 191, 255]);
                // Half floats: 0.25 = 0x3400, 0.5 = 0x3800, 0.75 = 0x3a00, 1 = 0x3c00.
                let half: Vec<u64> = ["red", "green", "blue", "alpha"]
                    .iter()
                    .map(|n| bc.get(&format!("border_color_float16_{n}")))
                    .collect();
                assert_eq!(half, [0x3400, 0x3800, 0x3a00, 0x3c00]);
            }
            if g >= Generation::Gen6 {
                // The whole table lies below the Dynamic State bound.
                let sba = compute_common::one(&cmds, "STATE_BASE_ADDRESS");
                let bound = sba.get("dynamic_state_access_upper_bound");
                assert!(border_at + 16 <= bound, "{g}: {border_at:#x} vs {bound:#x}");
            }

            // Without samplers: pointer and count 0.
            let (cmds, _batch) = record(gpu, &mut cx, &[], &[], &[]).unwrap();
            let id = compute_common::interface_descriptor(gpu, p, &cmds);
            assert_eq!(id.get("sampler_state_pointer"), 0, "{g}");
            assert_eq!(id.get("sampler_count"), 0, "{g}");
        });
    }
}

/// The `edge` sampler of the test above, field by field: nearest min (0),
/// linear mag (1), linear mip (3), wrap (0), clamp border (4), mirror (1)
/// (000 lines 3682-3760); LODs in U4.6 and bias in S4.6 (000 lines 3705,
/// 3722, 3726), U4.8 and S4.8 on Ivy Bridge [ext: Mesa gen7.xml].
fn check_edge_sampler(g: Generation, s: &State) {
    let frac = if g == Generation::Gen7 { 8 } else { 6 };
    assert_eq!(s.get("sampler_disable"), 0, "{g}");
    assert_eq!(s.get("min_mode_filter"), 0, "{g}");
    assert_eq!(s.get("mag_mode_filter"), 1, "{g}");
    assert_eq!(s.get("mip_mode_filter"), 3, "{g}");
    assert_eq!(s.get("tcx_address_control_mode"), 0, "{g}");
    assert_eq!(s.get("tcy_address_control_mode"), 4, "{g}");
    assert_eq!(s.get("tcz_address_control_mode"), 1, "{g}");
    assert_eq!(s.get("min_lod"), (0.5 * f64::from(1 << frac)) as u64, "{g}");
    assert_eq!(
        s.get("max_lod"),
        (3.25 * f64::from(1 << frac)) as u64,
        "{g}"
    );
    let bias_bits = if g == Generation::Gen7 { 13 } else { 11 };
    let bias = (-1.5 * f64::from(1 << frac)) as i64;
    assert_eq!(
        s.get("texture_lod_bias"),
        (bias as u64) & ((1 << bias_bits) - 1),
        "{g}"
    );
    // LOD PreClamp, OGL mode (000 line 3672).
    assert_eq!(s.get("lod_preclamp_enable"), 1, "{g}");
    if g == Generation::Gen6 {
        // Min and mag filters differ (003 lines 77352-77382).
        assert_eq!(s.get("min_and_mag_state_not_equal"), 1);
    }
}

#[test]
fn a_texture_with_mip_levels_says_so_in_its_surface_state() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let mut cx = Compute::new(gpu).unwrap();
            let tex = cx
                .create_texture_2d(gpu, 16, 8, 5, Format::R32Float, Tiling::Linear)
                .unwrap();
            assert_eq!(tex.levels(), 5);
            assert_eq!(tex.level_size(4), Some((1, 1)));
            assert_eq!(tex.level_size(5), None);
            let bindings = [(0, Resource::Surface(&tex))];
            let (cmds, _batch) = record(gpu, &mut cx, &[], &[], &bindings).unwrap();
            let ss = bound_surface(gpu, p, &cmds, 0);
            // MIP Count = levels - 1 (000 line 3256).
            assert_eq!(ss.get("mip_count_lod"), 4, "{g}");
            assert_eq!(ss.get("surface_min_lod"), 0, "{g}");
            // The MIPLAYOUT_BELOW rectangle of 16x8 .. 1x1 in 4x2 units is
            // 16 texels wide and 8 + 4 + 2 rows high (003 lines 6018-6090):
            // the pitch covers the widest level.
            assert!(tex.pitch() >= 16 * 4, "{g}");
            assert!(tex.size() >= tex.pitch() as usize * 14, "{g}");
        });
    }
}

#[test]
fn what_a_dispatch_cannot_have_is_refused() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let mut cx = Compute::new(gpu).unwrap();
            let s = Sampler::new();
            // The kernel samples with sampler 3; only 0 and 1 are bound.
            assert_eq!(
                record(gpu, &mut cx, &[0, 3], &[(0, s), (1, s)], &[]).err(),
                Some(ComputeError::MissingSampler { index: 3 }),
                "{g}"
            );
            // 16 entries at most (000 line 3657).
            assert_eq!(
                record(gpu, &mut cx, &[], &[(16, s)], &[]).err(),
                Some(ComputeError::BadSampler { index: 16 }),
                "{g}"
            );
            assert_eq!(
                record(gpu, &mut cx, &[], &[(2, s), (2, s)], &[]).err(),
                Some(ComputeError::BadSampler { index: 2 }),
                "{g}"
            );
            // A kernel cannot name a sampler past 15 either.
            assert_eq!(
                record(gpu, &mut cx, &[16], &[], &[]).err(),
                Some(ComputeError::BadSampler { index: 16 }),
                "{g}"
            );
            // Sampler 15 is the last one a table holds: count 4 = 13-16
            // samplers (003 lines 47869-47876).
            let (cmds, _batch) = record(gpu, &mut cx, &[15], &[(15, s)], &[]).unwrap();
            let id = compute_common::interface_descriptor(gpu, p, &cmds);
            assert_eq!(id.get("sampler_count"), 4, "{g}");
            let lod = Sampler { max_lod: 14.0, ..s };
            assert!(matches!(
                record(gpu, &mut cx, &[], &[(0, lod)], &[]),
                Err(ComputeError::Invalid(_))
            ));
            let nn = Sampler {
                non_normalized: true,
                ..s
            };
            let r = record(gpu, &mut cx, &[], &[(0, nn)], &[]);
            if matches!(g, Generation::Gen4 | Generation::G45) {
                assert!(matches!(r, Err(ComputeError::Unsupported { .. })), "{g}");
            } else {
                assert!(r.is_ok(), "{g}: {r:?}");
            }
            // Mip chains stop at 1x1 and are linear.
            assert!(matches!(
                cx.create_texture_2d(gpu, 8, 8, 5, Format::R8Unorm, Tiling::Linear),
                Err(ComputeError::OutOfRange { .. })
            ));
            assert!(matches!(
                cx.create_texture_2d(gpu, 8, 8, 2, Format::R8Unorm, Tiling::Y),
                Err(ComputeError::Unsupported { .. })
            ));
        });
    }
}
