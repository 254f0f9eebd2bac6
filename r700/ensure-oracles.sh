#!/bin/sh
# Makes sure the independent R700 encoder the differential test compares
# against is installed: llc-14 with LLVM's R600 backend (Debian llvm-14).
exec sh "$(dirname "$0")/../tools/ensure-packages.sh" "the R700 oracle (LLVM 14)" llc-14 llvm-14
