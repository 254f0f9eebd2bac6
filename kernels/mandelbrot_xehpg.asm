// Mandelbrot set, Xe-HPG (DG2) compute kernel, SIMD16: the same picture as
// kernels/mandelbrot_gen7.asm (kernels/mandelbrot_reference.rs computes it
// on the host), one thread per 16 horizontal pixels, groups of one thread
// (16 x 1 x 1 channels) over a grid of (width / 16, height, 1) groups
// dispatched by COMPUTE_WALKER with the local X IDs generated (Emit Local X)
// and the inline data emitted.
//
// Payload (soft/src/gen12_5/compute/payload.rs): r0 the thread's header,
// with the group ID X in r0.1 and Y in r0.6; r1 the 16 local X IDs (words);
// r2 the inline data: r2.0 x0, r2.1 y0, r2.2 dx, r2.3 dy (floats: the point
// of pixel (0, 0) and the step between pixels), r2.4 the iteration limit,
// r2.5 and r2.6 the low and high dwords of the output buffer's address,
// r2.7 its row pitch in bytes (below 64 KiB: read as a word).
// Output: each pixel's dword gets the number of iterations its point stayed
// inside |z| <= 2, stored by one LSC A64 scattered store per thread.
//
// Dependencies: every instruction that reads a register written by an
// in-order instruction still in flight waits on all pipes ({A@1}); the flag
// a cmp writes is waited for the same way.
//
// Unlike the Gen7 kernel, a channel leaves the loop once |z| > 3: for
// |c| <= 5 (the demo's view has |c| < 2.6), |z * z + c| >= |z|^2 - |c| >
// 9 - 5 = 4, far above 3 for any rounding, so |z| stays above 3 (until it
// overflows to infinity or NaN, which compare false as well) and the point
// never counts again; its count is the one the full loop gives, and the
// thread ends when all its channels have escaped. The iteration counter is one for the thread, counted with
// every channel's loop ({NoMask}).

// The pixel's column: group X * 16 + local X.
shl (1|M0) r3.0<1>:ud r0.1<0;1,0>:ud 0x4:ud
add (16|M0) r4.0<1>:ud r1.0<1;1,0>:uw r3.0<0;1,0>:ud {A@1}
mov (16|M0) r6.0<1>:f r4.0<1;1,0>:ud {A@1}
// c = (x0 + column * dx, y0 + row * dy)
mul (16|M0) r8.0<1>:f r6.0<1;1,0>:f r2.2<0;1,0>:f {A@1}
add (16|M0) r8.0<1>:f r8.0<1;1,0>:f r2.0<0;1,0>:f {A@1}
mov (1|M0) r10.0<1>:f r0.6<0;1,0>:ud
mul (1|M0) r10.0<1>:f r10.0<0;1,0>:f r2.3<0;1,0>:f {A@1}
add (1|M0) r10.0<1>:f r10.0<0;1,0>:f r2.1<0;1,0>:f {A@1}
// z = 0, count = 0, iteration = 0
mov (16|M0) r12.0<1>:f 0x0:f
mov (16|M0) r14.0<1>:f 0x0:f
mov (16|M0) r16.0<1>:d 0x0:d
mov (1|M0) r18.0<1>:d 0x0:d
// Labels are byte offsets (the form IGA prints, and the one our Xe-HPG
// assembler reads), every instruction uncompacted (16 bytes): the loop at
// 192 (12 instructions in), its while at 416.
L192:
mul (16|M0) r20.0<1>:f r12.0<1;1,0>:f r12.0<1;1,0>:f {A@1}
mul (16|M0) r22.0<1>:f r14.0<1;1,0>:f r14.0<1;1,0>:f
add (16|M0) r24.0<1>:f r20.0<1;1,0>:f r22.0<1;1,0>:f {A@1}
// Points still inside count one more iteration (a NaN compares false).
cmp (16|M0) (le)f0.0 null<1>:f r24.0<1;1,0>:f 0x40800000:f {A@1}
(f0.0) add (16|M0) r16.0<1>:d r16.0<1;1,0>:d 0x1:d {A@1}
// Escaped for good (|z|^2 > 9): the channel leaves the loop.
cmp (16|M0) (gt)f1.0 null<1>:f r24.0<1;1,0>:f 0x41100000:f
(f1.0) break (16|M0) L416 L416 {A@1}
// z = z * z + c
mul (16|M0) r26.0<1>:f r12.0<1;1,0>:f r14.0<1;1,0>:f
add (16|M0) r26.0<1>:f r26.0<1;1,0>:f r26.0<1;1,0>:f {A@1}
add (16|M0) r14.0<1>:f r26.0<1;1,0>:f r10.0<0;1,0>:f {A@1}
add (16|M0) r12.0<1>:f r20.0<1;1,0>:f -r22.0<1;1,0>:f
add (16|M0) r12.0<1>:f r12.0<1;1,0>:f r8.0<1;1,0>:f {A@1}
(W) add (1|M0) r18.0<1>:d r18.0<0;1,0>:d 0x1:d
cmp (16|M0) (lt)f0.1 null<1>:d r18.0<0;1,0>:d r2.4<0;1,0>:d {A@1}
L416:
(f0.1) while (16|M0) L192 {A@1}
// The byte offset of each pixel: row * pitch + column * 4.
mul (1|M0) r28.0<1>:ud r0.6<0;1,0>:ud r2.14<0;1,0>:uw
shl (16|M0) r30.0<1>:ud r4.0<1;1,0>:ud 0x2:ud
add (16|M0) r30.0<1>:ud r30.0<1;1,0>:ud r28.0<0;1,0>:ud {A@1}
// Its 64-bit address: the buffer's plus the offset, the carry out of the
// low dword (the sum wrapped below the offset) into the high one.
add (16|M0) r32.0<1>:ud r30.0<1;1,0>:ud r2.5<0;1,0>:ud {A@1}
mov (16|M0) r34.0<1>:ud r2.6<0;1,0>:ud
cmp (16|M0) (lt)f1.0 null<1>:ud r32.0<1;1,0>:ud r30.0<1;1,0>:ud {A@1}
(f1.0) add (16|M0) r34.0<1>:ud r34.0<1;1,0>:ud 0x1:ud {A@1}
// Channel i's address in qword i of r40..r43 (low dword, high dword).
mov (8|M0) r40.0<2>:ud r32.0<1;1,0>:ud
mov (8|M8) r42.0<2>:ud r33.0<1;1,0>:ud
mov (8|M0) r40.1<2>:ud r34.0<1;1,0>:ud {A@1}
mov (8|M8) r42.1<2>:ud r35.0<1;1,0>:ud
sync.nop null {A@1}
store.ugm.d32.a64 (16|M0) [r40:4] r16:2 {$0}
// End of thread: r0 to the thread spawner.
send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}
