// The spinning cube's pixel shader, Gen6 (Sandy Bridge), SIMD16: samples
// the texture at the interpolated coordinates and modulates it by the
// interpolated light and face colour.
//
// Payload (003 3D volume, Windower thread payload): r0-r1 the header,
// r2-r5 the perspective pixel barycentrics (two registers per eight
// pixels); from r6 (GRF start 6) the setup data, two registers an
// attribute, one plane of four floats per component: r6-r7 attribute 0
// (u, v, light, 1), r8-r9 attribute 1 (the face colour).
// Bindings: surface 1 the texture, sampler 0; surface 0 the render target.

// u and v to the sampler message, light to r22-r23.
pln (8|M0) m2.0<1>:f r6.0<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) m3.0<1>:f r6.0<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) m4.0<1>:f r6.4<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) m5.0<1>:f r6.4<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) r22.0<1>:f r7.0<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r23.0<1>:f r7.0<0;1,0>:f r4.0<8;8,1>:f
// The face colour's red, green and blue times the light: r24-r29.
pln (8|M0) r24.0<1>:f r8.0<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r25.0<1>:f r8.0<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) r26.0<1>:f r8.4<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r27.0<1>:f r8.4<0;1,0>:f r4.0<8;8,1>:f
pln (8|M0) r28.0<1>:f r9.0<0;1,0>:f r2.0<8;8,1>:f
pln (8|M0) r29.0<1>:f r9.0<0;1,0>:f r4.0<8;8,1>:f
mul (16|M0) r24.0<1>:f r24.0<8;8,1>:f r22.0<8;8,1>:f
mul (16|M0) r26.0<1>:f r26.0<8;8,1>:f r22.0<8;8,1>:f
mul (16|M0) r28.0<1>:f r28.0<8;8,1>:f r22.0<8;8,1>:f
// Sample (header: r0 with no offsets in r0.2): RGBA in r14-r21.
(W) mov (1|M0) r0.2<1>:ud 0x0:ud
mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud
send (16|M0) r14:uw m1 sampler.sample(bti=1, sampler=0, simd=16) mlen=5 rlen=8 hdr
// The render target write, SIMD16 without a header: R, G, B, A.
mul (16|M0) m2.0<1>:f r14.0<8;8,1>:f r24.0<8;8,1>:f
mul (16|M0) m4.0<1>:f r16.0<8;8,1>:f r26.0<8;8,1>:f
mul (16|M0) m6.0<1>:f r18.0<8;8,1>:f r28.0<8;8,1>:f
mov (16|M0) m8.0<1>:f 0x3f800000:f
send (16|M0) null:ud m2 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {EOT}
