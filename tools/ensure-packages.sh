#!/bin/sh
# Makes sure commands the tests need are installed, from Debian's packages:
#   ensure-packages.sh <what> <command> <package> [<command> <package>]...
# A <command> with a slash is a file the package installs (for packages
# without a command, such as GRUB's platform files or OVMF).
# Installs the packages of the missing commands when running as root or with
# password-less sudo; otherwise stops with the command to run. <what> names
# them in messages ("QEMU", "the EU assembler oracles", ...).
what="$1"
shift
missing=""
while [ $# -ge 2 ]; do
    case "$1" in
        */*) [ -e "$1" ] || missing="$missing $2" ;;
        *) command -v "$1" >/dev/null 2>&1 || missing="$missing $2" ;;
    esac
    shift 2
done
[ -z "$missing" ] && exit 0
cmd="apt-get update && apt-get install -y$missing"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "$what: missing ($missing ); install them with your package manager" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo"
else
    echo "$what: missing; run: sudo sh -c '$cmd'" >&2
    exit 1
fi
echo "installing $what: $cmd" >&2
# shellcheck disable=SC2086
$sudo sh -c "DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$missing" >&2 \
    && exit 0
echo "installing $what failed; run: sudo sh -c '$cmd'" >&2
exit 1
