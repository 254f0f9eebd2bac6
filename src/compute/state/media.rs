//! Media commands whose layouts several generations share. Each
//! generation's tables are their own types, sometimes with other field
//! names (Ivy Bridge calls an inline dword `data`, 965/G45 and SNB
//! `inline_data`), so these macros write the builders inside each
//! generation's module. Which commands a generation emits, and in which
//! order, stays in that generation's `record`.

/// `fn media_objects(cmds, inline, per_thread, threads)`: one MEDIA_OBJECT
/// per thread, thread `t` with `inline[t * per_thread..][..per_thread]` as
/// inline data, interface descriptor 0 and no indirect data (SNB: 003 line
/// 48169; 965/G45's shorter layout: hal gen4 MEDIA_OBJECT). `$inline` is
/// the name of the tables' inline dword field.
macro_rules! media_objects {
    ($gen:ident, $inline:ident) => {
        fn media_objects(
            cmds: &mut crate::compute::state::Cmds,
            inline: &[u32],
            per_thread: usize,
            threads: usize,
        ) -> Result<(), crate::compute::error::ComputeError> {
            use baregpu_hal::$gen::commands as c;
            for t in 0..threads {
                let data = inline
                    .get(t * per_thread..(t + 1) * per_thread)
                    .unwrap_or(&[]);
                cmds.push(&c::MediaObject {
                    interface_descriptor_offset: 0,
                    inline_data: data
                        .iter()
                        .map(|&$inline| c::MediaObjectInlineData { $inline })
                        .collect(),
                    ..Default::default()
                })?;
            }
            Ok(())
        }
    };
}

/// The SNB media programming model's builders (003 lines 46642-46772),
/// which Ivy Bridge keeps [ext: Mesa gen7.xml: the same layouts]:
/// `invalidate_read_only_caches`, `state_base_address`,
/// `interface_descriptor`, `curbe_load`, `descriptor_load` and
/// `media_threads` (with `media_objects`). `$generation` names the
/// generation in errors; `$inline` is the inline dword field's name.
macro_rules! snb_media {
    ($gen:ident, $generation:expr, $inline:ident) => {
        $crate::compute::state::media::media_objects!($gen, $inline);

        /// The read-only caches invalidated (the kernel and the state are
        /// new), as PIPELINE_SELECT needs after the write-cache flush [ext:
        /// Mesa i965 brw_emit_select_pipeline quotes the [DevSNB+] rule].
        pub(crate) fn invalidate_read_only_caches() -> baregpu_hal::$gen::commands::PipeControl {
            baregpu_hal::$gen::commands::PipeControl {
                instruction_cache_invalidate_enable: true,
                texture_cache_invalidation_enable: true,
                constant_cache_invalidation_enable: true,
                state_cache_invalidation_enable: true,
                ..Default::default()
            }
        }

        /// STATE_BASE_ADDRESS (003 lines 1092-1504): General 0 (scratch
        /// pointers become addresses), Surface and Dynamic at the state area
        /// at `base`, Instruction at the kernel's heap. Upper bounds are
        /// exclusive, 0 = unchecked; the Dynamic one ends at `dynamic_end`.
        pub(crate) fn state_base_address(
            base: u64,
            dynamic_end: u64,
            kernel: &crate::compute::kernel::Kernel,
        ) -> baregpu_hal::$gen::commands::StateBaseAddress {
            baregpu_hal::$gen::commands::StateBaseAddress {
                general_state_base_address: 0,
                general_state_base_address_modify_enable: true,
                surface_state_base_address: base,
                surface_state_base_address_modify_enable: true,
                dynamic_state_base_address: base,
                dynamic_state_base_address_modify_enable: true,
                indirect_object_base_address: 0,
                indirect_object_base_address_modify_enable: true,
                instruction_base_address: kernel.heap_base.0,
                instruction_base_address_modify_enable: true,
                general_state_access_upper_bound: 0,
                general_state_access_upper_bound_modify_enable: true,
                dynamic_state_access_upper_bound: dynamic_end,
                dynamic_state_access_upper_bound_modify_enable: true,
                indirect_object_access_upper_bound: 0,
                indirect_object_access_upper_bound_modify_enable: true,
                instruction_access_upper_bound: kernel.heap_end.0,
                instruction_access_upper_bound_modify_enable: true,
                ..Default::default()
            }
        }

        /// INTERFACE_DESCRIPTOR_DATA's fields both generations set (003
        /// lines 47660-47749): the kernel relative to Instruction Base (003
        /// line 47762), the binding table at `table`, every thread reading
        /// the kernel's constant rows from the start of the CURBE. Single
        /// program flow is left to the caller (SNB's field is a number,
        /// Ivy Bridge's a flag).
        fn interface_descriptor(
            kernel: &crate::compute::kernel::Kernel,
            table: u32,
            bt_entries: u32,
        ) -> baregpu_hal::$gen::structs::InterfaceDescriptorData {
            baregpu_hal::$gen::structs::InterfaceDescriptorData {
                kernel_start_pointer: (kernel.gfx.0 - kernel.heap_base.0) as u32,
                binding_table_pointer: table,
                binding_table_entry_count: crate::compute::state::bt_prefetch_count(bt_entries),
                constant_urb_entry_read_length: kernel.curbe_rows(),
                constant_urb_entry_read_offset: 0,
                ..Default::default()
            }
        }

        /// MEDIA_CURBE_LOAD of `bytes` CURBE bytes at Dynamic State offset
        /// `at` (003 lines 47588-47659).
        fn curbe_load(at: u32, bytes: usize) -> baregpu_hal::$gen::commands::MediaCurbeLoad {
            baregpu_hal::$gen::commands::MediaCurbeLoad {
                curbe_total_data_length: bytes as u32,
                curbe_data_start_address: at,
            }
        }

        /// MEDIA_INTERFACE_DESCRIPTOR_LOAD of the one 32-byte descriptor at
        /// Dynamic State offset `at` (003 lines 47660-47749).
        fn descriptor_load(at: u32) -> baregpu_hal::$gen::commands::MediaInterfaceDescriptorLoad {
            baregpu_hal::$gen::commands::MediaInterfaceDescriptorLoad {
                interface_descriptor_total_length: 32,
                interface_descriptor_data_start_address: at,
            }
        }

        /// Media threads: a MEDIA_OBJECT per thread, or one
        /// MEDIA_OBJECT_WALKER in a raster walk. Thread groups are refused
        /// here; Ivy Bridge records its GPGPU_WALKER itself.
        fn media_threads(
            cmds: &mut crate::compute::state::Cmds,
            work: crate::compute::state::Work<'_>,
        ) -> Result<(), crate::compute::error::ComputeError> {
            use crate::compute::state::Work;
            match work {
                Work::Objects {
                    inline,
                    per_thread,
                    threads,
                } => media_objects(cmds, inline, per_thread, threads),
                Work::Walker {
                    width,
                    height,
                    inline,
                } => cmds.push(&raster_walker(width, height, inline)),
                Work::Groups { .. } => Err(crate::compute::error::ComputeError::Unsupported {
                    generation: $generation,
                    what: "GPGPU_WALKER (Ivy Bridge and later)",
                }),
                Work::Compute { .. } => Err(crate::compute::error::ComputeError::Unsupported {
                    generation: $generation,
                    what: "COMPUTE_WALKER (Gen12.5)",
                }),
            }
        }

        /// MEDIA_OBJECT_WALKER over a `width` x `height` grid in a raster
        /// walk: one block the size of the grid, rows top to bottom, each
        /// row left to right [ext: intel-vaapi-driver i965_gpe_utils.c
        /// i965_init_media_object_walker_parameter, the no-dependency case:
        /// local outer stride (0,1), inner unit (1,0), local end (w-1,0),
        /// global outer stride (w,0), global inner unit (0,h)]; field widths
        /// from 003 lines 50230-50538. Both loop counts are the largest the
        /// 10-bit fields hold: the walk ends at the resolution. One colour
        /// (Color Count Minus One 0, the default).
        fn raster_walker(
            width: u32,
            height: u32,
            inline: &[u32],
        ) -> baregpu_hal::$gen::commands::MediaObjectWalker {
            use baregpu_hal::$gen::commands as c;
            c::MediaObjectWalker {
                interface_descriptor_offset: 0,
                global_loop_exec_count: 0x3ff,
                local_loop_exec_count: 0x3ff,
                block_resolution_x: width,
                block_resolution_y: height,
                local_end_x: width - 1,
                local_outer_loop_stride_y: 1,
                local_inner_loop_unit_x: 1,
                global_resolution_x: width,
                global_resolution_y: height,
                global_outer_loop_stride_x: width as i32,
                global_inner_loop_unit_y: height as i32,
                inline_data: inline
                    .iter()
                    .map(|&$inline| c::MediaObjectWalkerInlineData { $inline })
                    .collect(),
                ..Default::default()
            }
        }
    };
}

pub(crate) use media_objects;
pub(crate) use snb_media;
