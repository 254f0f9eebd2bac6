#!/bin/sh
# Boots the demo kernel and saves what QEMU's display shows once the demo has
# drawn its Mandelbrot picture there, as a PNG:
#
#   qemu/screenshot.sh [out.png]        (default docs/demo-display.png)
#   SCREENSHOT_AFTER="copied the plane's picture" qemu/screenshot.sh docs/demo-scanout.png
#
# SCREENSHOT_AFTER is the demo's serial line to wait for (default: its Mandelbrot
# drawn directly; the line above: the picture the modelled primary plane scans out).
#
# It builds the demo like `cargo demo`, runs it through qemu/run.sh with a
# monitor socket, waits for the demo's "drew it on the screen" line and
# asks the monitor for a screendump (PPM), which python3 turns into a PNG.
set -eu
cd "$(dirname "$0")/.."
out="${1:-docs/demo-display.png}"
after="${SCREENSHOT_AFTER:-drew it on the screen}"
cargo build -q -p baregpu-boot --bin baregpu-demo --target x86_64-unknown-none --release
kernel=target/x86_64-unknown-none/release/baregpu-demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
qemu/run.sh "$kernel" -monitor "unix:$tmp/monitor,server,nowait" > "$tmp/serial" 2>&1 &
qemu=$!
while ! grep -qF "$after" "$tmp/serial" 2>/dev/null; do
    if ! kill -0 "$qemu" 2>/dev/null; then
        cat "$tmp/serial"; echo "the demo ended without drawing on the display" >&2; exit 1
    fi
    sleep 0.2
done
python3 - "$tmp/monitor" "$tmp/screen.ppm" "$out" <<'PY'
import socket, struct, sys, time, zlib
mon, ppm, png = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX); s.connect(mon)
s.sendall(f"screendump {ppm}\n".encode()); time.sleep(1.0); s.close()
data = open(ppm, "rb").read()
# P6 header: magic, width, height, maxval, then RGB bytes.
parts = data.split(maxsplit=4)
w, h = int(parts[1]), int(parts[2])
rgb = parts[4][: w * h * 3]
rows = b"".join(b"\0" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
with open(png, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
print(f"{png}: {w}x{h}")
PY
wait "$qemu" || true
