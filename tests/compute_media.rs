//! Media-pipeline dispatch on every generation: the command order of each
//! generation's programming model, MEDIA_OBJECT inline data, constants,
//! binding checks, URB and VFE sizing, MEDIA_OBJECT_WALKER, and a batch the
//! software GPU's command streamer accepts from first to last command.

use baregpu::compute::{Compute, ComputeError, Dispatch, KernelDesc, Resource, Threads};
use baregpu::hal::Generation;

mod compute_common;
use compute_common::*;

/// The expected command sequence (MI_NOOPs left out) for `objects` MEDIA_OBJECTs.
fn expected_order(g: Generation, objects: usize, curbe: bool) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    match g {
        // intel-vaapi-driver i965_media_pipeline_setup (see src/compute/state/gen4.rs).
        Generation::Gen4 | Generation::G45 => {
            v.extend([
                "MI_FLUSH",
                "PIPELINE_SELECT",
                "URB_FENCE",
                "STATE_BASE_ADDRESS",
                "MEDIA_STATE_POINTERS",
            ]);
            if curbe {
                v.extend(["CS_URB_STATE", "CONSTANT_BUFFER"]);
            }
            v.extend(std::iter::repeat_n("MEDIA_OBJECT", objects));
            v.push("MI_FLUSH");
        }
        // 003 lines 46642-46772: flush, PIPELINE_SELECT, STATE_BASE_ADDRESS,
        // MEDIA_VFE_STATE, MEDIA_CURBE_LOAD, MEDIA_INTERFACE_DESCRIPTOR_LOAD, objects.
        Generation::Gen6 => {
            v.extend(["PIPE_CONTROL"; 4]);
            v.extend(["PIPELINE_SELECT", "STATE_BASE_ADDRESS", "MEDIA_VFE_STATE"]);
            if curbe {
                v.push("MEDIA_CURBE_LOAD");
            }
            v.push("MEDIA_INTERFACE_DESCRIPTOR_LOAD");
            v.extend(std::iter::repeat_n("MEDIA_OBJECT", objects));
            v.push("MEDIA_STATE_FLUSH");
            v.extend(["PIPE_CONTROL"; 3]);
        }
        _ => {
            v.extend(["PIPE_CONTROL"; 2]);
            v.extend(["PIPELINE_SELECT", "STATE_BASE_ADDRESS", "MEDIA_VFE_STATE"]);
            if curbe {
                v.push("MEDIA_CURBE_LOAD");
            }
            v.push("MEDIA_INTERFACE_DESCRIPTOR_LOAD");
            v.extend(std::iter::repeat_n("MEDIA_OBJECT", objects));
            v.push("MEDIA_STATE_FLUSH");
            v.push("PIPE_CONTROL");
        }
    }
    v.push("MI_BATCH_BUFFER_END");
    v
}

#[test]
fn each_generation_follows_its_programming_model() {
    for g in GENERATIONS {
        for curbe in [false, true] {
            with_gpu(g, |gpu, _| {
                let bin = eot_kernel(g);
                let mut cx = Compute::new(gpu).unwrap();
                let desc = KernelDesc {
                    curbe_bytes: if curbe { 32 } else { 0 },
                    ..KernelDesc::new(&bin)
                };
                let k = cx.load_kernel(gpu, &desc).unwrap();
                let data = [7u8; 32];
                let d = Dispatch {
                    threads: Threads::Objects {
                        count: 3,
                        inline: &[],
                    },
                    curbe: if curbe { &data } else { &[] },
                    bindings: &[],
                    samplers: &[],
                };
                let batch = cx.record(gpu, &k, &d).unwrap();
                let cmds = commands(g, &batch);
                assert_eq!(names(&cmds), expected_order(g, 3, curbe), "{g}");
                let select = one(&cmds, "PIPELINE_SELECT");
                assert_eq!(select.get("pipeline_selection"), 1, "{g}: media");
            });
        }
    }
}

#[test]
fn every_media_object_carries_its_threads_inline_data() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, _| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
            let inline = [10, 11, 20, 21, 30, 31];
            let d = Dispatch {
                threads: Threads::Objects {
                    count: 3,
                    inline: &inline,
                },
                curbe: &[],
                bindings: &[],
                samplers: &[],
            };
            let batch = cx.record(gpu, &k, &d).unwrap();
            let cmds = commands(g, &batch);
            let objects = all(&cmds, "MEDIA_OBJECT");
            assert_eq!(objects.len(), 3, "{g}");
            for (t, o) in objects.iter().enumerate() {
                let base = 10 * (t as u32 + 1);
                assert_eq!(o.inline(), [base, base + 1], "{g} thread {t}");
                assert_eq!(o.get("interface_descriptor_offset"), 0);
                assert_eq!(o.get("indirect_data_length"), 0);
            }
            let uneven = Dispatch {
                threads: Threads::Objects {
                    count: 4,
                    inline: &inline,
                },
                ..d
            };
            assert!(matches!(
                cx.record(gpu, &k, &uneven),
                Err(ComputeError::Invalid(_))
            ));
        });
    }
}

#[test]
fn constants_reach_the_curbe_padded_to_whole_registers() {
    let data: Vec<u8> = (1..=40).collect();
    let mut want = data.clone();
    want.resize(64, 0);
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let desc = KernelDesc {
                curbe_bytes: 64,
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let d = Dispatch {
                threads: Threads::Objects {
                    count: 2,
                    inline: &[1, 2],
                },
                curbe: &data,
                bindings: &[],
                samplers: &[],
            };
            let batch = cx.record(gpu, &k, &d).unwrap();
            let cmds = commands(g, &batch);
            let id = interface_descriptor(gpu, p, &cmds);
            assert_eq!(
                id.get("constant_urb_entry_read_length"),
                2,
                "{g}: two registers"
            );
            assert_eq!(id.get("constant_urb_entry_read_offset"), 0);
            match g {
                Generation::Gen4 | Generation::G45 => {
                    let cb = one(&cmds, "CONSTANT_BUFFER");
                    assert_eq!(cb.get("valid"), 1);
                    // 64 bytes = one 512-bit unit, written minus one.
                    assert_eq!(cb.get("buffer_length"), 0);
                    let at = cb.get("buffer_starting_address");
                    assert_eq!(gfx_read(gpu, p, at, 64), want, "{g}");
                    let cs = one(&cmds, "CS_URB_STATE");
                    assert_eq!(cs.get("number_of_urb_entries"), 1);
                    assert_eq!(cs.get("urb_entry_allocation_size"), 0);
                }
                _ => {
                    let (_, dynamic) = bases(g, &cmds);
                    let load = one(&cmds, "MEDIA_CURBE_LOAD");
                    assert_eq!(load.get("curbe_total_data_length"), 64, "{g}");
                    let at = dynamic + load.get("curbe_data_start_address");
                    assert_eq!(at % 32, 0);
                    assert_eq!(gfx_read(gpu, p, at, 64), want, "{g}");
                    let vfe = one(&cmds, "MEDIA_VFE_STATE");
                    assert_eq!(vfe.get("curbe_allocation_size"), 2, "{g}");
                }
            }
            let too_much = vec![0u8; 65];
            assert!(matches!(
                cx.record(
                    gpu,
                    &k,
                    &Dispatch {
                        curbe: &too_much,
                        ..d
                    }
                ),
                Err(ComputeError::OutOfRange { .. })
            ));
            let plain = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
            assert!(matches!(
                cx.record(gpu, &plain, &d),
                Err(ComputeError::Invalid(_))
            ));
        });
    }
}

#[test]
fn bindings_must_cover_the_kernel_and_stay_in_range() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, p| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let buf = cx.create_buffer(gpu, 4096).unwrap();
            let desc = KernelDesc {
                bindings: &[0, 2],
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let one_thread = Threads::Objects {
                count: 1,
                inline: &[],
            };
            let with = |bindings| Dispatch {
                threads: one_thread,
                curbe: &[],
                bindings,
                samplers: &[],
            };
            let missing = [(0, Resource::Buffer(&buf))];
            assert_eq!(
                cx.record(gpu, &k, &with(&missing)).err(),
                Some(ComputeError::MissingResource { bti: 2 })
            );
            let reserved = [
                (0, Resource::Buffer(&buf)),
                (2, Resource::Buffer(&buf)),
                (255, Resource::Buffer(&buf)),
            ];
            assert_eq!(
                cx.record(gpu, &k, &with(&reserved)).err(),
                Some(ComputeError::BadBinding { bti: 255 })
            );
            let twice = [
                (2, Resource::Buffer(&buf)),
                (0, Resource::Buffer(&buf)),
                (2, Resource::Buffer(&buf)),
            ];
            assert_eq!(
                cx.record(gpu, &k, &with(&twice)).err(),
                Some(ComputeError::BadBinding { bti: 2 })
            );
            let good = [(2, Resource::Buffer(&buf)), (0, Resource::Buffer(&buf))];
            let batch = cx.record(gpu, &k, &with(&good)).unwrap();
            let cmds = commands(g, &batch);
            let id = interface_descriptor(gpu, p, &cmds);
            // Entries 0..=2: the prefetch hint counts the table's length.
            assert_eq!(id.get("binding_table_entry_count"), 3, "{g}");
            for bti in [0, 2] {
                let ss = bound_surface(gpu, p, &cmds, bti);
                assert_eq!(ss.get("surface_base_address"), buf.gfx().0, "{g} bti {bti}");
            }
            let (surface_base, _) = bases(g, &cmds);
            let table = surface_base + id.get("binding_table_pointer");
            assert_eq!(
                gfx_dwords(gpu, p, table + 4, 1)[0],
                0,
                "{g}: entry 1 is empty"
            );
        });
    }
}

#[test]
fn the_965_urb_holds_one_vfe_entry_per_thread_then_the_curbe() {
    // 20 inline dwords need two 512-bit units per entry; 32 entries fit
    // the URB (256 rows on 965, 384 on G45); CURBE gets the CS region.
    for (g, rows) in [(Generation::Gen4, 256), (Generation::G45, 384)] {
        with_gpu(g, |gpu, p| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let desc = KernelDesc {
                curbe_bytes: 96,
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let inline: Vec<u32> = (0..20).collect();
            let d = Dispatch {
                threads: Threads::Objects {
                    count: 1,
                    inline: &inline,
                },
                curbe: &[1; 96],
                bindings: &[],
                samplers: &[],
            };
            let batch = cx.record(gpu, &k, &d).unwrap();
            let cmds = commands(g, &batch);
            let vfe = vfe_state(gpu, p, &cmds);
            assert_eq!(vfe.get("number_of_urb_entries"), 32);
            assert_eq!(
                vfe.get("urb_entry_allocation_size"),
                1,
                "2 units, minus one"
            );
            assert_eq!(vfe.get("maximum_number_of_threads"), 31);
            assert_eq!(vfe.get("vfe_mode"), 0, "generic mode");
            let fence = one(&cmds, "URB_FENCE");
            assert_eq!(fence.get("vfe_fence"), 64);
            assert_eq!(fence.get("cs_fence"), rows);
            for f in ["vs_fence", "gs_fence", "clip_fence", "sf_fence"] {
                assert_eq!(fence.get(f), 0, "{f}");
            }
            // URB_FENCE must not cross a 64-byte line of the batch.
            assert_eq!(
                fence.offset / 16,
                (fence.offset + 2) / 16,
                "dword {}",
                fence.offset
            );
            // 96 bytes = 3 registers = 2 units of 512 bits.
            assert_eq!(
                one(&cmds, "CS_URB_STATE").get("urb_entry_allocation_size"),
                1
            );
        });
    }
}

#[test]
fn snb_and_ivb_size_the_vfe_urb_from_the_inline_data() {
    // 10 inline dwords = 2 rows per entry; 64 entries (the maximum) fit the
    // 1024-row URB with 32 rows reserved (003 MEDIA_VFE_STATE capacity rule).
    for g in [Generation::Gen6, Generation::Gen7] {
        with_gpu(g, |gpu, _| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
            let inline: Vec<u32> = (0..10).collect();
            let d = Dispatch {
                threads: Threads::Objects {
                    count: 1,
                    inline: &inline,
                },
                curbe: &[],
                bindings: &[],
                samplers: &[],
            };
            let batch = cx.record(gpu, &k, &d).unwrap();
            let cmds = commands(g, &batch);
            let vfe = one(&cmds, "MEDIA_VFE_STATE");
            assert_eq!(vfe.get("urb_entry_allocation_size"), 2, "{g}");
            assert_eq!(vfe.get("number_of_urb_entries"), 64, "{g}");
            assert_eq!(vfe.get("curbe_allocation_size"), 0, "{g}");
            let max = if g == Generation::Gen6 { 23 } else { 35 };
            assert_eq!(vfe.get("maximum_number_of_threads"), max, "{g}");
            if g == Generation::Gen7 {
                assert_eq!(vfe.get("gpgpu_mode"), 0);
            }
        });
    }
}

#[test]
fn the_walker_raster_scans_its_grid_with_shared_inline_data() {
    for g in [Generation::Gen6, Generation::Gen7] {
        with_gpu(g, |gpu, _| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
            let d = Dispatch {
                threads: Threads::Walker {
                    width: 5,
                    height: 3,
                    inline: &[7, 8],
                },
                curbe: &[],
                bindings: &[],
                samplers: &[],
            };
            let batch = cx.record(gpu, &k, &d).unwrap();
            let cmds = commands(g, &batch);
            assert!(all(&cmds, "MEDIA_OBJECT").is_empty());
            let w = one(&cmds, "MEDIA_OBJECT_WALKER");
            assert_eq!(w.inline(), [7, 8], "{g}");
            assert_eq!(w.get("global_resolution_x"), 5);
            assert_eq!(w.get("global_resolution_y"), 3);
            assert_eq!(w.get("block_resolution_x"), 5);
            assert_eq!(w.get("block_resolution_y"), 3);
            assert_eq!(w.get("local_start_x"), 0);
            assert_eq!(w.get("local_end_x"), 4);
            assert_eq!(w.get("local_end_y"), 0);
            // Rows one by one, left to right within a row.
            assert_eq!(w.get_signed("local_outer_loop_stride_x"), 0);
            assert_eq!(w.get_signed("local_outer_loop_stride_y"), 1);
            assert_eq!(w.get_signed("local_inner_loop_unit_x"), 1);
            assert_eq!(w.get_signed("local_inner_loop_unit_y"), 0);
            assert_eq!(w.get_signed("global_outer_loop_stride_x"), 5);
            assert_eq!(w.get_signed("global_inner_loop_unit_y"), 3);
            assert_eq!(w.get("scoreboard_mask"), 0);
            let too_wide = Dispatch {
                threads: Threads::Walker {
                    width: 512,
                    height: 1,
                    inline: &[],
                },
                ..d
            };
            assert!(matches!(
                cx.record(gpu, &k, &too_wide),
                Err(ComputeError::OutOfRange { .. })
            ));
        });
    }
    with_gpu(Generation::Gen4, |gpu, _| {
        let bin = eot_kernel(Generation::Gen4);
        let mut cx = Compute::new(gpu).unwrap();
        let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
        let d = Dispatch {
            threads: Threads::Walker {
                width: 2,
                height: 2,
                inline: &[],
            },
            curbe: &[],
            bindings: &[],
            samplers: &[],
        };
        assert!(matches!(
            cx.record(gpu, &k, &d),
            Err(ComputeError::Unsupported { .. })
        ));
    });
}

#[test]
fn state_bases_and_bounds_enclose_the_state() {
    for g in GENERATIONS {
        with_gpu(g, |gpu, _| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let k = cx.load_kernel(gpu, &KernelDesc::new(&bin)).unwrap();
            let buf = cx.create_buffer(gpu, 64).unwrap();
            let d = Dispatch {
                threads: Threads::Objects {
                    count: 1,
                    inline: &[],
                },
                curbe: &[],
                bindings: &[(0, Resource::Buffer(&buf))],
                samplers: &[],
            };
            let batch = cx.record(gpu, &k, &d).unwrap();
            let cmds = commands(g, &batch);
            let sba = one(&cmds, "STATE_BASE_ADDRESS");
            let surface = sba.get("surface_state_base_address");
            assert_eq!(surface % 4096, 0);
            // The state follows the commands inside the batch.
            let end_of_commands = batch.gfx().0 + 4 * cmds.last().unwrap().offset as u64 + 4;
            assert!(surface >= end_of_commands, "{g}");
            assert!(surface < batch.gfx().0 + 4 * batch.len() as u64, "{g}");
            for f in [
                "general_state_base_address_modify_enable",
                "surface_state_base_address_modify_enable",
                "indirect_object_base_address_modify_enable",
            ] {
                assert_eq!(sba.get(f), 1, "{g} {f}");
            }
            if g != Generation::Gen4 && g != Generation::G45 {
                assert_eq!(sba.get("dynamic_state_base_address"), surface);
                let bound = sba.get("dynamic_state_access_upper_bound");
                assert!(
                    bound > surface && bound.is_multiple_of(4096),
                    "{g}: {bound:#x}"
                );
            }
        });
    }
}

#[test]
fn dispatches_run_through_the_command_streamer_to_their_fence() {
    // The software GPU parses every command, runs the four end-of-thread
    // threads and performs the flushes and post-sync writes: the fence
    // completes only if the whole batch is well formed and the threads end.
    for g in GENERATIONS {
        with_gpu(g, |gpu, _| {
            let bin = eot_kernel(g);
            let mut cx = Compute::new(gpu).unwrap();
            let desc = KernelDesc {
                curbe_bytes: 32,
                bindings: &[0],
                ..KernelDesc::new(&bin)
            };
            let k = cx.load_kernel(gpu, &desc).unwrap();
            let buf = cx.create_buffer(gpu, 256).unwrap();
            let bindings = [(0, Resource::Buffer(&buf))];
            let inline = [1, 2, 3, 4];
            let d = Dispatch {
                threads: Threads::Objects {
                    count: 4,
                    inline: &inline,
                },
                curbe: &[5; 32],
                bindings: &bindings,
                samplers: &[],
            };
            let fence = cx.dispatch(gpu, &k, &d).unwrap();
            assert_eq!(fence.engine, cx.engine());
            gpu.wait(fence, 1_000_000).unwrap();
            assert_eq!(gpu.completed(fence.engine), fence.seqno);
            if g != Generation::Gen4 && g != Generation::G45 {
                let walk = Dispatch {
                    threads: Threads::Walker {
                        width: 4,
                        height: 2,
                        inline: &[9],
                    },
                    ..d
                };
                let fence = cx.dispatch(gpu, &k, &walk).unwrap();
                gpu.wait(fence, 1_000_000).unwrap();
            }
        });
    }
}
