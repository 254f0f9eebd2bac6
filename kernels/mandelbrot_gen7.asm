// Mandelbrot set, Gen7 (Ivy Bridge) GPGPU kernel, SIMD8: one thread per
// 8 horizontal pixels, one thread per group, dispatched over a grid of
// (width / 8, height, 1) groups by GPGPU_WALKER.
//
// Payload: r0 is the thread's header, with the group ID X in r0.1 and Y in
// r0.6; r1 is the CURBE: r1.0 x0, r1.1 y0, r1.2 dx, r1.3 dy (floats: the
// point of pixel (0, 0) and the step between pixels), r1.4 the iteration
// limit (dword).
// Output: binding table entry 0, a 2D R32_UINT surface; each pixel gets the
// number of iterations its point stayed inside |z| <= 2, written with one
// media block write of 8 dwords.

// The pixel's column: group X * 8 + lane.
mov (8|M0) r2.0<1>:uw 0x76543210:uv
mov (8|M0) r3.0<1>:f r2.0<8;8,1>:uw
shl (1|M0) r4.0<1>:ud r0.1<0;1,0>:ud 0x3:ud
mov (8|M0) r5.0<1>:f r4.0<0;1,0>:ud
add (8|M0) r5.0<1>:f r5.0<8;8,1>:f r3.0<8;8,1>:f
// c = (x0 + column * dx, y0 + row * dy)
mul (8|M0) r6.0<1>:f r5.0<8;8,1>:f r1.2<0;1,0>:f
add (8|M0) r6.0<1>:f r6.0<8;8,1>:f r1.0<0;1,0>:f
mov (1|M0) r7.0<1>:f r0.6<0;1,0>:ud
mul (1|M0) r7.0<1>:f r7.0<0;1,0>:f r1.3<0;1,0>:f
add (1|M0) r7.0<1>:f r7.0<0;1,0>:f r1.1<0;1,0>:f
// z = 0, count = 0, iteration = 0
mov (8|M0) r8.0<1>:f 0x0:f
mov (8|M0) r9.0<1>:f 0x0:f
mov (8|M0) r10.0<1>:d 0x0:d
mov (1|M0) r15.0<1>:d 0x0:d
LOOP:
mul (8|M0) r11.0<1>:f r8.0<8;8,1>:f r8.0<8;8,1>:f
mul (8|M0) r12.0<1>:f r9.0<8;8,1>:f r9.0<8;8,1>:f
add (8|M0) r13.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f
// Points still inside count one more iteration (a NaN compares false).
// {Switch}: Ivy Bridge needs it on a cmp into null (see baregpu validate).
cmp (8|M0) (le)f0.0 null<1>:f r13.0<8;8,1>:f 0x40800000:f {Switch}
(f0.0) add (8|M0) r10.0<1>:d r10.0<8;8,1>:d 0x1:d
// z = z * z + c
mul (8|M0) r14.0<1>:f r8.0<8;8,1>:f r9.0<8;8,1>:f
add (8|M0) r14.0<1>:f r14.0<8;8,1>:f r14.0<8;8,1>:f
add (8|M0) r9.0<1>:f r14.0<8;8,1>:f r7.0<0;1,0>:f
add (8|M0) r8.0<1>:f r11.0<8;8,1>:f -r12.0<8;8,1>:f
add (8|M0) r8.0<1>:f r8.0<8;8,1>:f r6.0<8;8,1>:f
add (1|M0) r15.0<1>:d r15.0<0;1,0>:d 0x1:d
cmp (8|M0) (lt)f0.1 null<1>:d r15.0<0;1,0>:d r1.4<0;1,0>:d {Switch}
(f0.1) while (8|M0) LOOP
// Media block write of 8 dwords at (column * 4 bytes, row): header r120
// (X offset in bytes, Y offset in rows, height - 1 in 21:16, width - 1 in
// bytes in 4:0), data r121.
mov (8|M0) r120.0<1>:ud r0.0<8;8,1>:ud {NoMask}
shl (1|M0) r120.0<1>:ud r4.0<0;1,0>:ud 0x2:ud {NoMask}
mov (1|M0) r120.1<1>:ud r0.6<0;1,0>:ud {NoMask}
mov (1|M0) r120.2<1>:ud 0x1f:ud {NoMask}
mov (8|M0) r121.0<1>:ud r10.0<8;8,1>:ud
send (8|M0) null:ud r120 rc.media_block_write(bti=0) mlen=2 rlen=0 hdr
// End of thread: r0 to the thread spawner.
mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}
send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
