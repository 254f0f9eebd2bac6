//! A command's fields resolved once, when an engine's command table is
//! built: the model reads a field through its [`F`] (an index into the
//! command's resolved fields), never by name while commands run. Each
//! operation lists the fields it cannot do without (`cs::table::required`);
//! a generation whose tables lack one fails `SoftGpu::new` with
//! [`crate::SoftGpuError::MissingField`], and a test builds every
//! generation's tables.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ops::Deref;

use baregpu_hal::reflect::{CommandInfo, FieldInfo};

macro_rules! fields {
    ($($v:ident = $n:literal,)*) => {
        /// The command fields the model reads, each with its name in the tables.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum F {
            $($v,)*
        }

        impl F {
            pub(crate) const ALL: &'static [F] = &[$(F::$v,)*];

            pub(crate) const fn name(self) -> &'static str {
                match self {
                    $(F::$v => $n,)*
                }
            }
        }
    };
}

fields! {
    AddCsMmioStartOffset = "add_cs_mmio_start_offset",
    AddCsMmioStartOffsetDestination = "add_cs_mmio_start_offset_destination",
    AddCsMmioStartOffsetSource = "add_cs_mmio_start_offset_source",
    Address = "address",
    AddressSpaceIndicator = "address_space_indicator",
    AtomicOpcode = "atomic_opcode",
    BarrierByte = "barrier_byte",
    BarrierId = "barrier_id",
    BarrierThreadCount = "barrier_thread_count",
    BatchBufferStartAddress = "batch_buffer_start_address",
    BitBytePacked = "bit_byte_packed",
    BlockResolutionX = "block_resolution_x",
    BlockResolutionY = "block_resolution_y",
    BottomExecutionMask = "bottom_execution_mask",
    Bpp32ByteMask = "bpp32_byte_mask",
    BufferAddressSpace = "buffer_address_space",
    BufferLength = "buffer_length",
    BufferSecurityIndicator = "buffer_security_indicator",
    BufferStartingAddress = "buffer_starting_address",
    BypassGatewayControl = "bypass_gateway_control",
    ByteWriteDisables = "byte_write_disables",
    ClippingEnable = "clipping_enable",
    CliprectX1 = "cliprect_x1",
    CliprectX2 = "cliprect_x2",
    CliprectY1 = "cliprect_y1",
    CliprectY2 = "cliprect_y2",
    ColorDepth = "color_depth",
    CombineOperation = "combine_operation",
    CompareAddress = "compare_address",
    CompareDataDword = "compare_data_dword",
    CompareMaskMode = "compare_mask_mode",
    CompareOperation = "compare_operation",
    CompareRegister = "compare_register",
    CompareSemaphore = "compare_semaphore",
    CurbeDataStartAddress = "curbe_data_start_address",
    CurbeTotalDataLength = "curbe_total_data_length",
    DataDword0 = "data_dword0",
    DataDword1 = "data_dword1",
    DataSize = "data_size",
    DestTilingEnable = "dest_tiling_enable",
    DestinationAddress = "destination_address",
    DestinationArrayIndex = "destination_array_index",
    DestinationAuxiliarySurfaceMode = "destination_auxiliary_surface_mode",
    DestinationBaseAddress = "destination_base_address",
    DestinationClearValueEnable = "destination_clear_value_enable",
    DestinationCompressionEnable = "destination_compression_enable",
    DestinationDepthStencilResource = "destination_depth_stencil_resource",
    DestinationHeight = "destination_height",
    DestinationLod = "destination_lod",
    DestinationMemoryAddress = "destination_memory_address",
    DestinationMipTailStartLod = "destination_mip_tail_start_lod",
    DestinationPitch = "destination_pitch",
    DestinationRegisterAddress = "destination_register_address",
    DestinationSurfaceType = "destination_surface_type",
    DestinationTiling = "destination_tiling",
    DestinationTilingMethod = "destination_tiling_method",
    DestinationWidth = "destination_width",
    DestinationX1 = "destination_x1",
    DestinationX2 = "destination_x2",
    DestinationXOffset = "destination_x_offset",
    DestinationY1 = "destination_y1",
    DestinationY2 = "destination_y2",
    DestinationYOffset = "destination_y_offset",
    DisplayBufferBaseAddress = "display_buffer_base_address",
    DisplayBufferPitch = "display_buffer_pitch",
    DisplayPlaneSelect = "display_plane_select",
    DynamicStateAccessUpperBound = "dynamic_state_access_upper_bound",
    DynamicStateAccessUpperBoundModifyEnable = "dynamic_state_access_upper_bound_modify_enable",
    DynamicStateBaseAddress = "dynamic_state_base_address",
    DynamicStateBaseAddressModifyEnable = "dynamic_state_base_address_modify_enable",
    EndContext = "end_context",
    EndCurrentBatchBufferLevel = "end_current_batch_buffer_level",
    EntryAddress = "entry_address",
    FillColor0 = "fill_color_0",
    FillColor1 = "fill_color_1",
    FillColor2 = "fill_color_2",
    FillColor3 = "fill_color_3",
    FixedPattern = "fixed_pattern",
    FlipType = "flip_type",
    ForceRestore = "force_restore",
    GeneralStateAccessUpperBound = "general_state_access_upper_bound",
    GeneralStateAccessUpperBoundModifyEnable = "general_state_access_upper_bound_modify_enable",
    GeneralStateBaseAddress = "general_state_base_address",
    GeneralStateBaseAddressModifyEnable = "general_state_base_address_modify_enable",
    GlobalInnerLoopUnitX = "global_inner_loop_unit_x",
    GlobalInnerLoopUnitY = "global_inner_loop_unit_y",
    GlobalLoopExecCount = "global_loop_exec_count",
    GlobalOuterLoopStrideX = "global_outer_loop_stride_x",
    GlobalOuterLoopStrideY = "global_outer_loop_stride_y",
    GlobalResolutionX = "global_resolution_x",
    GlobalResolutionY = "global_resolution_y",
    GlobalStartX = "global_start_x",
    GlobalStartY = "global_start_y",
    GpgpuMode = "gpgpu_mode",
    IdentificationNumber = "identification_number",
    IdentificationNumberRegisterWriteEnable = "identification_number_register_write_enable",
    ImmediateData = "immediate_data",
    ImmediateDataHigh = "immediate_data_high",
    ImmediateDataLow = "immediate_data_low",
    IndirectDataLength = "indirect_data_length",
    IndirectDataStartAddress = "indirect_data_start_address",
    IndirectObjectAccessUpperBound = "indirect_object_access_upper_bound",
    IndirectObjectAccessUpperBoundModifyEnable = "indirect_object_access_upper_bound_modify_enable",
    IndirectObjectBaseAddress = "indirect_object_base_address",
    IndirectObjectBaseAddressModifyEnable = "indirect_object_base_address_modify_enable",
    IndirectParameterEnable = "indirect_parameter_enable",
    InlineData = "inline_data",
    InstructionAccessUpperBound = "instruction_access_upper_bound",
    InstructionAccessUpperBoundModifyEnable = "instruction_access_upper_bound_modify_enable",
    InstructionBaseAddress = "instruction_base_address",
    InstructionBaseAddressModifyEnable = "instruction_base_address_modify_enable",
    InterfaceDescriptorDataStartAddress = "interface_descriptor_data_start_address",
    InterfaceDescriptorOffset = "interface_descriptor_offset",
    InterfaceDescriptorTotalLength = "interface_descriptor_total_length",
    LoadOperation = "load_operation",
    LocalInnerLoopUnitX = "local_inner_loop_unit_x",
    LocalInnerLoopUnitY = "local_inner_loop_unit_y",
    LocalLoopExecCount = "local_loop_exec_count",
    LocalOuterLoopStrideX = "local_outer_loop_stride_x",
    LocalOuterLoopStrideY = "local_outer_loop_stride_y",
    LocalStartX = "local_start_x",
    LocalStartY = "local_start_y",
    LogicalContextAddress = "logical_context_address",
    LriPostSyncOperation = "lri_post_sync_operation",
    MaximumNumberOfThreads = "maximum_number_of_threads",
    MemoryAddress = "memory_address",
    MmioRemapEnable = "mmio_remap_enable",
    MonoPatternTransparencyMode = "mono_pattern_transparency_mode",
    MonoSourceAddress = "mono_source_address",
    MonoSourceTransparencyMode = "mono_source_transparency_mode",
    MonochromeSourceDataBitPosition = "monochrome_source_data_bit_position",
    NotifyEnable = "notify_enable",
    NumberOfMultisamples = "number_of_multisamples",
    Offset = "offset",
    Operand1DataDword0 = "operand1_data_dword0",
    Operand1DataDword1 = "operand1_data_dword1",
    Operand2DataDword0 = "operand2_data_dword0",
    Operand2DataDword1 = "operand2_data_dword1",
    PatternBackgroundColor = "pattern_background_color",
    PatternBaseAddress = "pattern_base_address",
    PatternData0 = "pattern_data_0",
    PatternData1 = "pattern_data_1",
    PatternForegroundColor = "pattern_foreground_color",
    PatternHorizontalSeed = "pattern_horizontal_seed",
    PatternVerticalSeed = "pattern_vertical_seed",
    PerThreadScratchSpace = "per_thread_scratch_space",
    PhysicalStartAddressExtension = "physical_start_address_extension",
    PipelineSelection = "pipeline_selection",
    PostSyncOperation = "post_sync_operation",
    PredicateEnable = "predicate_enable",
    PredicateEnableWparid = "predicate_enable_wparid",
    PredicationEnable = "predication_enable",
    PrimitiveTopologyType = "primitive_topology_type",
    RasterOperation = "raster_operation",
    RegisterAddress = "register_address",
    RegisterOffset = "register_offset",
    RegisterPollMode = "register_poll_mode",
    RegisterSelect = "register_select",
    ReportId = "report_id",
    RestoreInhibit = "restore_inhibit",
    ReturnDataControl = "return_data_control",
    RightExecutionMask = "right_execution_mask",
    ScoreboardMask = "scoreboard_mask",
    ScoreboardX = "scoreboard_x",
    ScoreboardY = "scoreboard_y",
    ScratchSpaceBasePointer = "scratch_space_base_pointer",
    SecondLevelBatchBuffer = "second_level_batch_buffer",
    SemaphoreAddress = "semaphore_address",
    SemaphoreDataDword = "semaphore_data_dword",
    SetupBackgroundColor = "setup_background_color",
    SetupDestinationBaseAddress = "setup_destination_base_address",
    SetupForegroundColor = "setup_foreground_color",
    SetupPatternBaseAddress = "setup_pattern_base_address",
    SimdSize = "simd_size",
    SolidPatternColor = "solid_pattern_color",
    SolidPatternSelect = "solid_pattern_select",
    SourceAddress = "source_address",
    SourceArrayIndex = "source_array_index",
    SourceAuxiliarySurfaceMode = "source_auxiliary_surface_mode",
    SourceBackgroundColor = "source_background_color",
    SourceBaseAddress = "source_base_address",
    SourceClearValueEnable = "source_clear_value_enable",
    SourceCompressionEnable = "source_compression_enable",
    SourceDepthStencilResource = "source_depth_stencil_resource",
    SourceForegroundColor = "source_foreground_color",
    SourceLod = "source_lod",
    SourceMemoryAddress = "source_memory_address",
    SourceMipTailStartLod = "source_mip_tail_start_lod",
    SourcePitch = "source_pitch",
    SourceRegisterAddress = "source_register_address",
    SourceSurfaceType = "source_surface_type",
    SourceTiling = "source_tiling",
    SourceTilingMethod = "source_tiling_method",
    SourceX1 = "source_x1",
    SourceXOffset = "source_x_offset",
    SourceY1 = "source_y1",
    SourceYOffset = "source_y_offset",
    SpecialModeOfOperation = "special_mode_of_operation",
    SrcTilingEnable = "src_tiling_enable",
    StoreDataIndex = "store_data_index",
    SurfaceStateBaseAddress = "surface_state_base_address",
    SurfaceStateBaseAddressModifyEnable = "surface_state_base_address_modify_enable",
    ThreadDepthCounterMaximum = "thread_depth_counter_maximum",
    ThreadGroupIdStartingX = "thread_group_id_starting_x",
    ThreadGroupIdStartingY = "thread_group_id_starting_y",
    ThreadGroupIdStartingZ = "thread_group_id_starting_z",
    ThreadGroupIdXDimension = "thread_group_id_x_dimension",
    ThreadGroupIdYDimension = "thread_group_id_y_dimension",
    ThreadGroupIdZDimension = "thread_group_id_z_dimension",
    ThreadHeightCounterMaximum = "thread_height_counter_maximum",
    ThreadSynchronization = "thread_synchronization",
    ThreadWidthCounterMaximum = "thread_width_counter_maximum",
    TileParameter = "tile_parameter",
    TileYTypeForDestination = "tile_y_type_for_destination",
    TileYTypeForSource = "tile_y_type_for_source",
    TilingEnable = "tiling_enable",
    TopologyFilterValue = "topology_filter_value",
    TransparencyColorHigh = "transparency_color_high",
    TransparencyColorLow = "transparency_color_low",
    TransparencyRangeMode = "transparency_range_mode",
    UpdateSemaphore = "update_semaphore",
    UseGlobalGtt = "use_global_gtt",
    UseGlobalGttDestination = "use_global_gtt_destination",
    UseGlobalGttSource = "use_global_gtt_source",
    UsePerProcessHardwareStatusPage = "use_per_process_hardware_status_page",
    Valid = "valid",
    VfeStatePointer = "vfe_state_pointer",
    WaitMode = "wait_mode",
    XDirection = "x_direction",
}

/// A command of the tables with the fields the model reads looked up.
pub(crate) struct Cmd {
    pub(crate) info: &'static CommandInfo,
    /// Indexed by [`F`]; empty for commands the model does not execute.
    fields: Box<[Option<&'static FieldInfo>]>,
    /// The register offset and data of each group entry (MI_LOAD_REGISTER_IMM).
    pub(crate) register_pair: Option<(&'static FieldInfo, &'static FieldInfo)>,
    /// The display-event selections of MI_WAIT_FOR_EVENT (the `*blank*` fields).
    pub(crate) blank_events: Box<[&'static FieldInfo]>,
    /// First dword of the immediate data: the group's, else the one after
    /// the last field (the blitter's immediate patterns and sources).
    pub(crate) immediate_dw: usize,
    /// The DWord Length field (`CommandInfo::length_field`, found once).
    length_field: Option<&'static FieldInfo>,
}

impl Deref for Cmd {
    type Target = CommandInfo;
    fn deref(&self) -> &CommandInfo {
        self.info
    }
}

impl Cmd {
    /// Looks up every field of [`F`] in `info`.
    pub(crate) fn resolve(info: &'static CommandInfo) -> Self {
        let find =
            |fields: &'static [FieldInfo], name: &str| fields.iter().find(|f| f.name == name);
        let register_pair = info.group.as_ref().and_then(|g| {
            let offset = find(g.fields, F::RegisterOffset.name())?;
            let data = g
                .fields
                .iter()
                .find(|f| f.name != F::RegisterOffset.name())?;
            Some((offset, data))
        });
        Self {
            info,
            fields: F::ALL.iter().map(|f| find(info.fields, f.name())).collect(),
            register_pair,
            blank_events: info
                .fields
                .iter()
                .filter(|f| f.name.contains("blank"))
                .collect::<Vec<_>>()
                .into_boxed_slice(),
            immediate_dw: immediate_dw(info),
            length_field: info.length_field(),
        }
    }

    /// A command the model refuses or ignores: it reads none of its fields.
    pub(crate) fn unread(info: &'static CommandInfo) -> Self {
        Self {
            info,
            fields: Box::new([]),
            register_pair: None,
            blank_events: Box::new([]),
            immediate_dw: immediate_dw(info),
            length_field: info.length_field(),
        }
    }

    /// The field's layout, if the command has it.
    #[inline]
    pub(crate) fn get(&self, f: F) -> Option<&'static FieldInfo> {
        self.fields.get(f as usize).copied().flatten()
    }

    /// The command's total length in dwords as its header states it
    /// (`CommandInfo::length_from_header` with the length field found once).
    pub(crate) fn length_from_header(&self, dw0: u32) -> usize {
        match self.length_field {
            Some(f) => f.extract(&[dw0]) as usize + self.info.bias as usize,
            None => self.info.length.unwrap_or(self.info.min_length) as usize,
        }
    }

    pub(crate) fn has(&self, f: F) -> bool {
        self.get(f).is_some()
    }
}

fn immediate_dw(info: &CommandInfo) -> usize {
    let after_fields = || info.fields.iter().map(|f| f.end as usize / 32 + 1).max();
    info.group
        .map(|g| g.dw as usize)
        .or_else(after_fields)
        .unwrap_or(1)
}

/// A field of a command (raw bits shifted to their place), if the command
/// has it and the packet is long enough to hold it.
#[inline]
pub(crate) fn field(c: &Cmd, dw: &[u32], f: F) -> Option<u64> {
    let f = c.get(f)?;
    ((f.end as usize) / 32 < dw.len()).then(|| f.extract(dw) << f.shift)
}
