//! PVH entry: QEMU's `-kernel` loader jumps to the address in the Xen
//! `PHYS32_ENTRY` ELF note, in 32-bit protected mode with paging off and
//! `%ebx` pointing at a `hvm_start_info` structure.
//!
//! The trampoline identity-maps the low 4 GiB with 2 MiB pages (RAM, PCI
//! BARs below 4 GiB and the local APIC all reachable), enables long mode,
//! loads a 64-bit GDT and calls [`boot_rust_entry`]. Layouts follow Xen's
//! public `arch-x86/hvm/start_info.h` (version 1 adds the memory map).

/// Magic value of `hvm_start_info`.
pub const START_INFO_MAGIC: u32 = 0x336e_c578;

/// `hvm_start_info` (Xen public header, version 1).
#[repr(C)]
#[derive(Debug)]
pub struct StartInfo {
    pub magic: u32,
    pub version: u32,
    pub flags: u32,
    pub nr_modules: u32,
    pub modlist_paddr: u64,
    pub cmdline_paddr: u64,
    pub rsdp_paddr: u64,
    pub memmap_paddr: u64,
    pub memmap_entries: u32,
    pub reserved: u32,
}

/// One e820-style memory map entry (`hvm_memmap_table_entry`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemmapEntry {
    pub addr: u64,
    pub size: u64,
    pub kind: u32,
    pub reserved: u32,
}

/// Memory map type of usable RAM.
pub const MEMMAP_RAM: u32 = 1;

impl StartInfo {
    /// The firmware memory map (empty before version 1).
    pub fn memory_map(&self) -> &[MemmapEntry] {
        if self.version < 1 || self.memmap_paddr == 0 || self.memmap_entries == 0 {
            return &[];
        }
        // SAFETY: PVH guarantees the table lives in low memory, which the
        // trampoline identity-mapped, and is not reused while the kernel runs.
        unsafe {
            core::slice::from_raw_parts(
                self.memmap_paddr as *const MemmapEntry,
                self.memmap_entries as usize,
            )
        }
    }

    /// Bytes of usable RAM in the memory map.
    pub fn ram_bytes(&self) -> u64 {
        self.memory_map()
            .iter()
            .filter(|e| e.kind == MEMMAP_RAM)
            .map(|e| e.size)
            .sum()
    }
}

#[cfg(target_os = "none")]
core::arch::global_asm!(
    r#"
.section .note.pvh, "a", @note
    .balign 4
    .long 4, 4, 18              /* namesz, descsz, XEN_ELFNOTE_PHYS32_ENTRY */
    .asciz "Xen"
    .balign 4
    .long pvh_start32
    .balign 4

.section .text.boot, "ax"
.code32
.global pvh_start32
pvh_start32:
    cli
    cld
    mov %ebx, %esi              /* keep the start_info pointer */
    /* Zero PML4, PDPT and the four page directories. */
    mov $boot_pml4, %edi
    mov $(6 * 4096 / 4), %ecx
    xor %eax, %eax
    rep stosl
    movl $(boot_pdpt + 0x3), boot_pml4
    movl $(boot_pd + 0x0003), boot_pdpt
    movl $(boot_pd + 0x1003), boot_pdpt + 8
    movl $(boot_pd + 0x2003), boot_pdpt + 16
    movl $(boot_pd + 0x3003), boot_pdpt + 24
    /* 2048 entries of 2 MiB: present, writable, page size. */
    mov $boot_pd, %edi
    mov $0x83, %eax
    xor %edx, %edx
    mov $2048, %ecx
1:  mov %eax, (%edi)
    mov %edx, 4(%edi)
    add $0x200000, %eax
    add $8, %edi
    loop 1b
    mov %cr4, %eax
    or $0x20, %eax              /* PAE */
    mov %eax, %cr4
    mov $boot_pml4, %eax
    mov %eax, %cr3
    mov $0xC0000080, %ecx       /* EFER.LME */
    rdmsr
    or $0x100, %eax
    wrmsr
    mov %cr0, %eax
    or $0x80000001, %eax        /* PG | PE */
    mov %eax, %cr0
    lgdt boot_gdt_ptr
    ljmp $0x08, $2f
.code64
2:  xor %eax, %eax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %ax, %fs
    mov %ax, %gs
    mov $boot_stack_top, %rsp
    mov %esi, %edi              /* first argument: start_info address */
    call baregpu_boot_rust_entry
3:  hlt
    jmp 3b

.section .rodata.boot, "a"
    .balign 8
boot_gdt:
    .quad 0
    .quad 0x00AF9A000000FFFF    /* 0x08: 64-bit code */
    .quad 0x00CF92000000FFFF    /* 0x10: data */
boot_gdt_ptr:
    .word boot_gdt_ptr - boot_gdt - 1
    .long boot_gdt

.section .bss.boot, "aw", @nobits
    .balign 4096
.global boot_pd
boot_pml4:  .skip 4096
boot_pdpt:  .skip 4096
boot_pd:    .skip 4 * 4096
boot_stack: .skip 1024 * 1024
boot_stack_top:
"#,
    options(att_syntax)
);

#[cfg(target_os = "none")]
unsafe extern "Rust" {
    /// Defined by the kernel binary through [`crate::entry!`].
    fn baregpu_kmain(info: &'static StartInfo) -> !;
}

/// First Rust code: consoles, heap, clock, then the kernel's main.
#[cfg(target_os = "none")]
#[unsafe(no_mangle)]
extern "C" fn baregpu_boot_rust_entry(start_info: u32) -> ! {
    crate::serial::init(crate::serial::COM1);
    crate::serial::init(crate::serial::COM2);
    // SAFETY: PVH passes the physical address of a start_info structure in
    // identity-mapped low memory; it stays valid for the kernel's lifetime.
    let info: &'static StartInfo = unsafe { &*(start_info as usize as *const StartInfo) };
    if info.magic != START_INFO_MAGIC {
        crate::println!("[boot] bad PVH start_info magic {:#x}", info.magic);
        crate::exit_qemu(crate::ExitCode::Failed);
    }
    crate::heap::init(info);
    crate::clock::calibrate();
    // SAFETY: `baregpu_kmain` is defined once by the `entry!` macro of the
    // binary being linked, with exactly this signature.
    unsafe { baregpu_kmain(info) }
}
