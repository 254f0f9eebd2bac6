#!/bin/sh
# Makes sure the independent EU assemblers the differential tests compare
# against are installed: iga64 (Debian libigc-tools), intel-gen4asm /
# intel-gen4disasm (Debian intel-gpu-tools), and Intel's OpenCL compiler
# ocloc (Debian intel-opencl-icd: IGC, for tests/xehpg_igc.rs's corpus).
exec sh "$(dirname "$0")/../tools/ensure-packages.sh" "the EU assembler oracles" \
    iga64 libigc-tools intel-gen4asm intel-gpu-tools ocloc intel-opencl-icd
