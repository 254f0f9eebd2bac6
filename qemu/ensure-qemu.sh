#!/bin/sh
# Makes sure qemu-system-x86_64 is installed: installs Debian's package when
# running as root or with password-less sudo, or stops with the command to run.
command -v qemu-system-x86_64 >/dev/null 2>&1 && exit 0
cmd="apt-get update && apt-get install -y qemu-system-x86"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "qemu-system-x86_64 is missing; install QEMU (x86_64 system emulation) with your package manager" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo"
else
    echo "qemu-system-x86_64 is missing; run: sudo sh -c '$cmd'" >&2
    exit 1
fi
echo "installing QEMU: $cmd" >&2
$sudo sh -c "DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-x86" >&2 \
    && command -v qemu-system-x86_64 >/dev/null 2>&1 && exit 0
echo "installing QEMU failed; run: sudo sh -c '$cmd'" >&2
exit 1
