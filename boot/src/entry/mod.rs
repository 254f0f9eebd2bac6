//! From the loader to the kernel's main function.
//!
//! Two 32-bit entry points share one trampoline: `pvh_start32` (QEMU's
//! `-kernel`, [`pvh`]) and `multiboot2_start32` (GRUB, [`multiboot2`]).
//! Both arrive in 32-bit protected mode with paging off and EBX pointing
//! at the loader's information; neither promises a stack or a valid GDT
//! (Multiboot2 spec 2.0 §3.3 says ESP is undefined and the GDT may be
//! invalid), so the trampoline uses no stack until it loads its own.
//!
//! The trampoline identity-maps the low 4 GiB with 2 MiB pages (RAM, PCI
//! BARs below 4 GiB and the local APIC all reachable), enables long mode,
//! loads a 64-bit GDT and calls `baregpu_boot_rust_entry(loader, eax,
//! ebx)`. The Rust side turns the loader's data into a [`BootInfo`](crate::BootInfo), and
//! [`crate::paging`] maps anything else later.

pub mod multiboot2;
pub mod pvh;

#[cfg(target_os = "none")]
use crate::bootinfo::BootInfo;

/// `loader` argument of the Rust entry: which entry point ran.
#[cfg(target_os = "none")]
const ENTERED_BY_PVH: u32 = 1;
#[cfg(target_os = "none")]
const ENTERED_BY_MULTIBOOT2: u32 = 2;

#[cfg(target_os = "none")]
core::arch::global_asm!(
    r#"
.section .text.boot, "ax"
.code32
.global pvh_start32
pvh_start32:
    mov $1, %ebp                /* ENTERED_BY_PVH */
    jmp boot_start32
.global multiboot2_start32
multiboot2_start32:
    mov $2, %ebp                /* ENTERED_BY_MULTIBOOT2 */
boot_start32:
    /* Kept across the setup: EBP loader, ESI = EAX (the Multiboot2
       magic), EBX the information's address. */
    cli
    cld
    mov %eax, %esi
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
    /* Arguments: loader, EAX at entry, information address (the upper
       halves are undefined after the mode switch: 32-bit moves clear them). */
    mov %ebp, %edi
    mov %esi, %esi
    mov %ebx, %edx
    xor %ebp, %ebp
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
.global boot_pml4
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
    fn baregpu_kmain(info: &'static BootInfo) -> !;
}

/// The boot information, built once at entry.
#[cfg(target_os = "none")]
static BOOT_INFO: spin::Once<BootInfo> = spin::Once::new();

/// Reads identity-mapped physical memory below 4 GiB (what the trampoline
/// mapped), refusing address 0 and anything above. (Low addresses are
/// fine: QEMU's PVH loader puts its memory map at 0x5a8.)
#[cfg(target_os = "none")]
fn read_low(addr: u64, len: usize) -> Option<&'static [u8]> {
    let end = addr.checked_add(len as u64)?;
    if addr == 0 || end > 4 << 30 {
        return None;
    }
    // SAFETY: the range is inside the trampoline's identity map; the
    // loaders' data stays where it is (the heap avoids it, see heap.rs).
    Some(unsafe { core::slice::from_raw_parts(addr as usize as *const u8, len) })
}

#[cfg(target_os = "none")]
fn read_boot_info(loader: u32, eax: u32, info: u32) -> BootInfo {
    match loader {
        ENTERED_BY_PVH => pvh::parse(u64::from(info), &read_low),
        ENTERED_BY_MULTIBOOT2 => {
            if eax != multiboot2::BOOTLOADER_MAGIC {
                crate::println!(
                    "[boot] multiboot2 entry with EAX {:#x}, not the loader magic",
                    eax
                );
                crate::exit_qemu(crate::ExitCode::Failed);
            }
            let size = read_low(u64::from(info), 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, multiboot2::total_size) as usize;
            let bytes =
                read_low(u64::from(info), size.min(multiboot2::MAX_INFO_BYTES)).unwrap_or(&[]);
            multiboot2::parse(bytes, u64::from(info))
        }
        _ => {
            crate::println!("[boot] unknown entry {}", loader);
            crate::exit_qemu(crate::ExitCode::Failed);
        }
    }
}

/// First Rust code: consoles, boot information, heap, clock, screen, then
/// the kernel's main.
#[cfg(target_os = "none")]
#[unsafe(no_mangle)]
extern "C" fn baregpu_boot_rust_entry(loader: u32, eax: u32, info: u32) -> ! {
    crate::serial::init(crate::serial::COM1);
    crate::serial::init(crate::serial::COM2);
    crate::paging::init();
    let info: &'static BootInfo = BOOT_INFO.call_once(|| read_boot_info(loader, eax, info));
    for note in info.notes() {
        crate::println!("[boot] skipped (tag {}): {}", note.tag, note.what);
    }
    if info.notes_dropped + info.regions_dropped > 0 {
        crate::println!(
            "[boot] {} more notes and {} memory map entries not kept",
            info.notes_dropped,
            info.regions_dropped
        );
    }
    crate::heap::init(info);
    crate::clock::calibrate();
    crate::screen::init(info);
    // SAFETY: `baregpu_kmain` is defined once by the `entry!` macro of the
    // binary being linked, with exactly this signature.
    unsafe { baregpu_kmain(info) }
}
