// The spinning cube's vertex shader, Gen6 (Sandy Bridge), SIMD4x2: two
// vertices a thread, each register holding vertex 0 in dwords 0-3 and
// vertex 1 in dwords 4-7 (003 Table 12, lines 33297-33410).
//
// Payload: r0 the header (URB handles in r0.0 and r0.1); push constants
// r1-r3: r1.0-3 and r1.4-7 the model-view-projection matrix's columns 0
// and 1, r2.0-3 and r2.4-7 columns 2 and 3; r3.0-2 the direction to the
// light in object space, r3.4 the ambient term, r3.5 the diffuse weight.
// Vertex data from r4: r4 position (x, y, z, 1), r5 normal, r6 texture
// coordinates (u, v, 0, 1), r7 face colour (r, g, b, a).
// Output: the vertex URB entry, interleaved: slot 0 the VUE header (zero),
// slot 1 the clip-space position, slot 2 (u, v, light, 1), slot 3 the
// face colour.

// position = M * p: a <4;4,0> region repeats one component of each vertex
// over that vertex's four channels; <0;4,1> repeats a column for both.
mul (8|M0) r10.0<1>:f r1.0<0;4,1>:f r4.0<4;4,0>:f
mul (8|M0) r11.0<1>:f r1.4<0;4,1>:f r4.1<4;4,0>:f
add (8|M0) r10.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
mul (8|M0) r11.0<1>:f r2.0<0;4,1>:f r4.2<4;4,0>:f
add (8|M0) r10.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
mul (8|M0) r11.0<1>:f r2.4<0;4,1>:f r4.3<4;4,0>:f
add (8|M0) m2.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
// Lambert: light = ambient + diffuse * max(0, n . l).
mul (8|M0) r12.0<1>:f r5.0<8;8,1>:f r3.0<0;4,1>:f
add (8|M0) r13.0<1>:f r12.0<4;4,0>:f r12.1<4;4,0>:f
add (8|M0) r13.0<1>:f r13.0<8;8,1>:f r12.2<4;4,0>:f
sel (8|M0) (ge)f0.0 r13.0<1>:f r13.0<8;8,1>:f 0x0:f
mul (8|M0) r13.0<1>:f r13.0<8;8,1>:f r3.5<0;1,0>:f
add (8|M0) r13.0<1>:f r13.0<8;8,1>:f r3.4<0;1,0>:f
// Attribute 0: (u, v, light, 1); attribute 1: the face colour.
mov (8|M0) m3.0<1>:f r6.0<8;8,1>:f
mov (2|M0) m3.2<4>:f r13.0<4;1,0>:f
mov (8|M0) m4.0<1>:f r7.0<8;8,1>:f
// The VUE header: no point width, viewport or render target index.
mov (8|M0) m1.0<1>:ud 0x0:ud
mov (8|M0) m0.0<1>:ud r0.0<8;8,1>:ud
// The message has a header (m0) [ext: Mesa brw_eu_emit.c
// brw_set_urb_message: header present on every URB write].
send (8|M0) null:ud m0 urb.write(offset=0, swizzle=interleave, complete) mlen=5 rlen=0 hdr {EOT}
