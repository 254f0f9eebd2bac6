#!/bin/sh
# Makes sure qemu-system-x86_64 is installed (Debian qemu-system-x86).
exec sh "$(dirname "$0")/../tools/ensure-packages.sh" "QEMU" qemu-system-x86_64 qemu-system-x86
