#!/bin/sh
# Cargo runner for x86_64-unknown-none binaries: boots the kernel ELF in QEMU
# (TCG; KVM is pathologically slow on the project machines).
#
#   qemu/run.sh <kernel-elf> [extra QEMU arguments...]
#   qemu/run.sh <image.iso> [extra QEMU arguments...]
#
# An ELF boots through QEMU's PVH loader (-kernel); an .iso (`cargo image`)
# as a CD-ROM through the firmware (SeaBIOS, or OVMF given as pflash in the
# extra arguments) and GRUB.
# QEMU's `edu` test device is attached for the MMIO test.
# COM1 (text) goes to stdout; COM2 (defmt frames) to <kernel-elf>.defmt, or to
# $BAREGPU_DEFMT_OUT when set. Exit status: 0 only when the kernel reported
# success through isa-debug-exit (QEMU status 33). A failed assertion (35), a
# triple fault (QEMU exits 0 with -no-reboot) or a hang (timeout after
# $QEMU_TIMEOUT seconds, default 120) all exit non-zero.
set -u
kernel="$1"; shift
here=$(dirname "$0")
"$here/ensure-qemu.sh" || exit 1
frames="${BAREGPU_DEFMT_OUT:-$kernel.defmt}"
timeout="${QEMU_TIMEOUT:-120}"
case "$kernel" in
    *.iso) set -- -cdrom "$kernel" "$@" ;;
    *) set -- -kernel "$kernel" "$@" ;;
esac
timeout --foreground "$timeout" qemu-system-x86_64 \
    -accel tcg -m "${QEMU_MEMORY:-512M}" -display none -no-reboot \
    -serial stdio -serial "file:$frames" \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
    -device edu \
    "$@" </dev/null
rc=$?
if [ -s "$frames" ] && [ "${kernel%.iso}" = "$kernel" ]; then
    if command -v defmt-print >/dev/null 2>&1; then
        echo "--- defmt log (COM2) ---"
        defmt-print -e "$kernel" < "$frames"
    else
        echo "(defmt frames in $frames; decode: cargo run -q -p baregpu-cli -- defmt-log $kernel $frames)" >&2
    fi
fi
case $rc in
    33) exit 0 ;;
    35) echo "qemu: the kernel reported failure" >&2; exit 1 ;;
    124) echo "qemu: timed out after ${timeout}s (hang?)" >&2; exit 1 ;;
    0) echo "qemu: exited without a status (triple fault or reset)" >&2; exit 1 ;;
    *) echo "qemu: exit status $rc" >&2; exit 1 ;;
esac
