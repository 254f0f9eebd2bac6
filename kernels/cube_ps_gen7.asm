// The spinning cube's pixel shader, Gen7 (Ivy Bridge), SIMD16: the Gen6
// shader (cube_ps_gen6.asm: same payload, same computation) with its
// messages built in GRFs (Ivy Bridge has no message registers; an
// end-of-thread send comes from r112 or above).
//
// Payload: r0-r1 the header, r2-r5 the perspective pixel barycentrics,
// from r6 (GRF start 6) the setup data: r6-r7 attribute 0 (u, v, light,
// 1), r8-r9 attribute 1 (the face colour), a plane of four floats per
// component. Bindings: surface 1 the texture, sampler 0; surface 0 the
// render target.

pln (8|M0) r113.0<1>:f r6.0<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r114.0<1>:f r6.0<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) r115.0<1>:f r6.4<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r116.0<1>:f r6.4<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) r22.0<1>:f r7.0<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r23.0<1>:f r7.0<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) r24.0<1>:f r8.0<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r25.0<1>:f r8.0<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) r26.0<1>:f r8.4<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r27.0<1>:f r8.4<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) r28.0<1>:f r9.0<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r29.0<1>:f r9.0<0;1,0>:f r4.0<8;8,1>:f
mul (16|M0) r24.0<1>:f r24.0<8;8,1>:f r22.0<8;8,1>:f
mul (16|M0) r26.0<1>:f r26.0<8;8,1>:f r22.0<8;8,1>:f
mul (16|M0) r28.0<1>:f r28.0<8;8,1>:f r22.0<8;8,1>:f
// Sample (header: r0 with no offsets in dword 2): RGBA in r14-r21.
mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud {NoMask}
mov (1|M0) r112.2<1>:ud 0x0:ud {NoMask}
send (16|M0) r14:uw r112 sampler.sample(bti=1, sampler=0, simd=16) mlen=5 rlen=8 hdr
mul (16|M0) r114.0<1>:f r14.0<8;8,1>:f r24.0<8;8,1>:f
mul (16|M0) r116.0<1>:f r16.0<8;8,1>:f r26.0<8;8,1>:f
mul (16|M0) r118.0<1>:f r18.0<8;8,1>:f r28.0<8;8,1>:f
mov (16|M0) r120.0<1>:f 0x3f800000:f
send (16|M0) null:ud r114 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {EOT}
