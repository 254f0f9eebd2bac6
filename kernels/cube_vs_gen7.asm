// The spinning cube's vertex shader, Gen7 (Ivy Bridge), SIMD4x2: the Gen6
// shader (cube_vs_gen6.asm: same payload, same computation) with Gen7's
// URB write. Ivy Bridge has no message registers: the message is built in
// r112-r116 (where Mesa's Gen7 backend puts its MRF stand-ins [ext: Mesa
// brw_vec4 GEN7_MRF_HACK_START 112]), and an end-of-thread send must come
// from r112 or above.
//
// Payload: r0 the header (the URB handles); push constants r1-r3: r1.0-3,
// r1.4-7, r2.0-3, r2.4-7 the model-view-projection matrix's columns 0-3;
// r3.0-2 the direction to the light in object space, r3.4 the ambient
// term, r3.5 the diffuse weight. Vertex data from r4: r4 position, r5
// normal, r6 texture coordinates (u, v, 0, 1), r7 face colour.
// Output: the vertex URB entry, interleaved, from offset 0: slot 0 the VUE
// header (zero), slot 1 the clip-space position, slot 2 (u, v, light, 1),
// slot 3 the face colour.

mul (8|M0) r10.0<1>:f r1.0<0;4,1>:f r4.0<4;4,0>:f
mul (8|M0) r11.0<1>:f r1.4<0;4,1>:f r4.1<4;4,0>:f
add (8|M0) r10.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
mul (8|M0) r11.0<1>:f r2.0<0;4,1>:f r4.2<4;4,0>:f
add (8|M0) r10.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
mul (8|M0) r11.0<1>:f r2.4<0;4,1>:f r4.3<4;4,0>:f
add (8|M0) r114.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
// Lambert: light = ambient + diffuse * max(0, n . l).
mul (8|M0) r12.0<1>:f r5.0<8;8,1>:f r3.0<0;4,1>:f
add (8|M0) r13.0<1>:f r12.0<4;4,0>:f r12.1<4;4,0>:f
add (8|M0) r13.0<1>:f r13.0<8;8,1>:f r12.2<4;4,0>:f
sel (8|M0) (ge)f0.0 r13.0<1>:f r13.0<8;8,1>:f 0x0:f
mul (8|M0) r13.0<1>:f r13.0<8;8,1>:f r3.5<0;1,0>:f
add (8|M0) r13.0<1>:f r13.0<8;8,1>:f r3.4<0;1,0>:f
mov (8|M0) r115.0<1>:f r6.0<8;8,1>:f
mov (2|M0) r115.2<4>:f r13.0<4;1,0>:f
mov (8|M0) r116.0<1>:f r7.0<8;8,1>:f
mov (8|M0) r113.0<1>:ud 0x0:ud
// The header: r0 with both vertices' channel masks enabled in dword 5
// [ext: Mesa brw_eu_emit.c brw_urb_WRITE, Gen7 "Enable Channel Masks in
// the URB_WRITE_HWORD message header"].
mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud {NoMask}
or (1|M0) r112.5<1>:ud r0.5<0;1,0>:ud 0xff00:ud {NoMask}
// The message has a header (r112) [ext: Mesa brw_eu_emit.c
// brw_set_urb_message: header present on every URB write].
send (8|M0) null:ud r112 urb.write_hword(offset=0, interleave, complete) mlen=5 rlen=0 hdr {EOT}
