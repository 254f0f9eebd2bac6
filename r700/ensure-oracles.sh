#!/bin/sh
# Makes sure the independent R700 encoder the differential test compares
# against is installed: llc with LLVM's R600 backend (Debian llvm-14).
# Installs it when running as root or with password-less sudo, or stops
# with the command to run.
if command -v llc-14 >/dev/null 2>&1 || command -v llc >/dev/null 2>&1; then
    exit 0
fi
cmd="apt-get update && apt-get install -y llvm-14"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "llc (LLVM 14 with the R600 backend) is missing; install it with your package manager" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo"
else
    echo "llc is missing; run: sudo sh -c '$cmd'" >&2
    exit 1
fi
echo "installing the R700 oracle: $cmd" >&2
$sudo sh -c "DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq llvm-14" >&2 \
    && command -v llc-14 >/dev/null 2>&1 && exit 0
echo "installing llvm-14 failed; run: sudo sh -c '$cmd'" >&2
exit 1
