#!/bin/sh
# Makes sure the independent EU assemblers the differential tests compare
# against are installed: iga64 (Debian libigc-tools) and intel-gen4asm /
# intel-gen4disasm (Debian intel-gpu-tools). Installs them when running as
# root or with password-less sudo, or stops with the command to run.
missing=""
command -v iga64 >/dev/null 2>&1 || missing="$missing libigc-tools"
command -v intel-gen4asm >/dev/null 2>&1 || missing="$missing intel-gpu-tools"
[ -z "$missing" ] && exit 0
cmd="apt-get update && apt-get install -y$missing"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "the EU assembler oracles are missing ($missing ); install them with your package manager" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo"
else
    echo "the EU assembler oracles are missing; run: sudo sh -c '$cmd'" >&2
    exit 1
fi
echo "installing the EU assembler oracles: $cmd" >&2
# shellcheck disable=SC2086
$sudo sh -c "DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$missing" >&2 \
    && command -v iga64 >/dev/null 2>&1 && command -v intel-gen4asm >/dev/null 2>&1 && exit 0
echo "installing the EU assembler oracles failed; run: sudo sh -c '$cmd'" >&2
exit 1
