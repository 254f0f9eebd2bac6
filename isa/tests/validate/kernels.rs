//! Realistic kernels: shader and media code as compilers write it, which
//! the validator must pass clean.

/// 965/G45: pixel setup with packed-word vectors, compressed SIMD16 float
/// code, Align16 vertex code, message sends through the MRF, extended math
/// and data-port messages, branches, the rounding idiom with `.r`.
pub const GEN4_KERNEL: &str = "
add (16|M0) r52.0<1>:uw r1.4<2;4,0>:uw 0x10101010:v
add (16|M0) r53.0<1>:uw r1.5<2;4,0>:uw 0x11001100:v
mov (16|M0) r54.0<1>:f r52.0<8;8,1>:uw {Compr}
mov (16|M0) r56.0<1>:f r53.0<8;8,1>:uw {Compr}
add (16|M0) r4.0<1>:f r2.0<8;8,1>:f r6.0<8;8,1>:f {Compr}
mul (16|M0) r8.0<1>:f r4.0<8;8,1>:f r1.0<0;1,0>:f {Compr}
line (8|M0) r19.0<1>:f r20.0<0;1,0>:f r21.0<8;8,1>:f
mac (8|M0) r12.0<1>:f r13.0<8;8,1>:f r14.0<8;8,1>:f
mul (8|M0) r10.0<1>:f r11.0<8;8,1>:f 0x3f000000:f
cmp (8|M0) (lt)f0.0 null<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
(f0.0) sel (8|M0) r15.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
cmp (16|M0) (ge)f0.0 null<1>:f r4.0<8;8,1>:f 0x0:f {Compr}
frc (8|M0) r22.0<1>:f r23.0<8;8,1>:f
rndd (8|M0) r24.0<1>:f r23.0<8;8,1>:f
rndu (8|M0) (r)f0.1 r25.0<1>:f r23.0<8;8,1>:f
(f0.1) add (8|M0) r25.0<1>:f r25.0<8;8,1>:f 0x3f800000:f
mov (8|M0) r26.0<1>:d r25.0<8;8,1>:f
mov (8|M0) r27.0<2>:w r25.0<8;8,1>:f
and (8|M0) r28.0<1>:ud r26.0<8;8,1>:ud 0xff:ud
shl (8|M0) r29.0<1>:ud r26.0<8;8,1>:ud 0x2:ud
asr (8|M0) r30.0<1>:d r26.0<8;8,1>:d 0x1f:d
not (8|M0) r31.0<1>:ud r28.0<8;8,1>:ud
avg (16|M0) r32.0<1>:uw r33.0<16;16,1>:uw r34.0<16;16,1>:uw
mov (16|M0) r35.0<2>:ub r33.0<16;16,1>:uw
mov (16|M0) r36.0<1>:ub r35.0<32;16,2>:ub
mov (16|M0) r37.0<1>:uw 0x76543210:v
mov (8|M0) r38.0<1>:f 0x30303030:vf
mul (8|M0) acc0.0<1>:d r39.0<8;8,1>:d r40.0<8;8,1>:d
mach (8|M0) r41.0<1>:d r39.0<8;8,1>:d r40.0<8;8,1>:d
mov (8|M0) r42.0<1>:d acc0.0<8;8,1>:d
mov (1|M0) a0.0<1>:uw 0x440:uw {NoMask}
mov (8|M0) r43.0<1>:f r[a0.0,0]<8;8,1>:f
mov (8|M0) m2.0<1>.xyzw:f r44.0<4>.xyzw:f {Align16}
dp4 (8|M0) r45.0<1>.x:f r46.0<4>.xyzw:f r47.0<0>.xyzw:f {Align16}
mul (8|M0) r48.0<1>.xyzw:f r46.0<4>.xyzw:f r47.0<0>.xxxx:f {Align16}
add (8|M0) r49.0<1>.xyz:f r46.0<4>.xyzw:f -r48.0<4>.xyzw:f {Align16}
mov (8|M0) m3.0<1>:f r10.0<8;8,1>:f
send (8|M0) r60.0:ud m3 null:ud 0x1 0x0110001
send (16|M0) r62.0:uw m1 r0.0:ud 0x2 0x0780000
mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {NoMask}
mov (1|M0) m1.2<1>:ud r1.0<0;1,0>:ud {NoMask}
mov (8|M0) m2.0<1>:ud r1.1<0;1,0>:ud {NoMask}
send (8|M0) null:uw m1 null:ud 0x5 0x0200200
(f0.0) if (8|M0) L1
mov (8|M0) r44.0<1>:f 0x0:f
else (8|M0) L2 pop(1)
L1:
mov (8|M0) r44.0<1>:f 0x3f800000:f
L2:
endif (8|M0) 0 pop(1)
(W) jmpi (1|M0) L3
nop
L3:
wait (1|M0) n0.0:ud
mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {NoMask}
send (16|M0) null:uw m1 r0.0:ud 0x5 0x0a00400 {EOT}
";

/// Sandy Bridge: SIMD16 pixel code (implicitly compressed dwords), pln,
/// math instructions, three-source mad/lrp, Align16 vertex code, MRF
/// payloads, JIP branches with break/while.
pub const GEN6_KERNEL: &str = "
add (16|M0) r4.0<1>:uw r1.4<2;4,0>:uw 0x10101010:v
mov (16|M0) r6.0<1>:f r4.0<8;8,1>:uw
pln (16|M0) r8.0<1>:f r10.0<0;1,0>:f r2.0<8;8,1>:f
mov (16|M0) r12.0<1>:f r2.0<8;8,1>:f
add (16|M0) r14.0<1>:f r12.0<8;8,1>:f 0x3f800000:f
mul (16|M0) r16.0<1>:f r12.0<8;8,1>:f r10.3<0;1,0>:f
cmp (16|M0) (ge)f0.0 null<1>:f r12.0<8;8,1>:f 0x0:f
(f0.0) sel (16|M0) r18.0<1>:f r12.0<8;8,1>:f r14.0<8;8,1>:f
sel (16|M0) (lt)f0.0 r20.0<1>:f r12.0<8;8,1>:f r14.0<8;8,1>:f
math.inv (8|M0) r22.0<1>:f r12.0<8;8,1>:f
math.inv (8|M8) r23.0<1>:f r13.0<8;8,1>:f
math.pow (8|M0) r24.0<1>:f r12.0<8;8,1>:f r14.0<8;8,1>:f
math.rsqt (8|M0) r25.0<1>:f r12.0<0;1,0>:f
math.iqot (8|M0) r26.0<1>:d r27.0<8;8,1>:d r28.0<8;8,1>:d
mad (8|M0) r30.0<1>.xyzw:f r2.0<4>.xyzw:f r3.0<4>.xyzw:f r4.0<4>.xyzw:f
lrp (8|M0) r31.0<1>.xyzw:f r2.0<4>.xyzw:f r3.0<4>.xyzw:f r4.0<4>.xyzw:f
mov (8|M0) m2.0<1>.xyzw:f r44.0<4>.xyzw:f {Align16}
dp4 (8|M0) r45.0<1>.x:f r46.0<4>.xyzw:f r47.0<0>.xyzw:f {Align16}
mul (8|M0) r48.0<1>.xyzw:f r46.0<4>.xyzw:f r47.0<0>.xxxx:f {Align16}
rndd (16|M0) r32.0<1>:f r12.0<8;8,1>:f
mov (16|M0) r34.0<1>:d r32.0<8;8,1>:f
and (16|M0) r36.0<1>:ud r34.0<8;8,1>:ud 0x1:ud
shr (16|M0) r38.0<1>:ud r34.0<8;8,1>:ud 0x2:ud
mul (8|M0) acc0.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d
mach (8|M0) r5.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d {AccWrEn}
mov (8|M0) r7.0<1>:d acc0.0<8;8,1>:d
mul (8|M0) r9.0<1>:d r8.0<8;8,1>:uw r11.0<8;8,1>:d
mov (1|M0) a0.0<1>:uw 0x440:uw {NoMask}
mov (8|M0) r40.0<1>:f r[a0.0,0]<8;8,1>:f
mov (16|M0) r42.0<1>:uw 0x76543210:v
mov (8|M0) r43.0<1>:f 0x30303030:vf
mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {NoMask}
send (8|M0) r50.0:ud m1 0x2 0x04420001
(f0.0) if (8|M0) L1
mov (8|M0) r48.0<1>:f 0x0:f
else (8|M0) L2
L1:
mov (8|M0) r48.0<1>:f 0x3f800000:f
L2:
endif (8|M0) L3
L3:
L4:
add (8|M0) r49.0<1>:d r49.0<8;8,1>:d 0x1:d
cmp (8|M0) (lt)f0.0 null<1>:d r49.0<8;8,1>:d 0x10:d
(f0.0) break (8|M0) L5 L5
(f0.0) while (8|M0) L4
L5:
mov (8|M0) m2.0<1>:ud r0.0<8;8,1>:ud {NoMask}
mov (16|M0) m3.0<1>:f r18.0<8;8,1>:f
send (16|M0) null:ud m2 0x5 0x0a080000 {EOT}
";

/// Ivy Bridge and Haswell: GRF payloads with the EOT payload in r112+,
/// two flag registers, SIMD16 math, the Gen7 integer and bit instructions,
/// cmp into null with {Switch}, DF moves.
pub const GEN7_KERNEL: &str = "
mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud {NoMask}
mov (16|M0) r10.0<1>:f r2.0<8;8,1>:f
add (16|M0) r12.0<1>:f r10.0<8;8,1>:f 0x3f800000:f
mad (8|M0) r14.0<1>.xyzw:f r2.0<4>.xyzw:f r3.0<4>.xyzw:f r4.0<4>.xyzw:f
bfe (8|M0) r15.0<1>.xyzw:ud r2.0<4>.xyzw:ud r3.0<4>.xyzw:ud r4.0<4>.xyzw:ud
bfi2 (8|M0) r17.0<1>.xyzw:ud r2.0<4>.xyzw:ud r3.0<4>.xyzw:ud r4.0<4>.xyzw:ud
math.inv (16|M0) r16.0<1>:f r10.0<8;8,1>:f
math.fdiv (16|M0) r22.0<1>:f r10.0<8;8,1>:f r12.0<8;8,1>:f
math.iqot (8|M0) r18.0<1>:d r19.0<8;8,1>:d r20.0<8;8,1>:d
cmp (8|M0) (lt)f1.0 null<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f {Switch}
cmp (16|M0) (lt)f0.0 r60.0<1>:f r10.0<8;8,1>:f r12.0<8;8,1>:f
(f1.0) sel (8|M0) r21.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
sel (8|M0) (ge)f0.0 r21.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
mul (8|M0) acc0.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d
mach (8|M0) r5.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d {AccWrEn}
mov (8|M0) r6.0<1>:d acc0.0<8;8,1>:d
addc (8|M0) r70.0<1>:ud r71.0<8;8,1>:ud r72.0<8;8,1>:ud {AccWrEn}
mov (8|M0) r73.0<1>:ud acc0.0<8;8,1>:ud
bfi1 (8|M0) r74.0<1>:ud r75.0<8;8,1>:ud r76.0<8;8,1>:ud
fbl (8|M0) r77.0<1>:ud r75.0<8;8,1>:ud
bfrev (8|M0) r66.0<1>:ud r67.0<8;8,1>:ud
cbit (8|M0) r68.0<1>:ud r67.0<8;8,1>:ud
f32to16 (8|M0) r69.0<2>:w r10.0<8;8,1>:f
send (8|M0) r30:ud r112 0x2 0x04420001
send (16|M0) r32:ud r112 0xa 0x02480000
mov (8|M0) r50.0<1>:df r52.0<8;8,1>:df
mov (16|M0) r54.0<1>:d r56.0<8;8,1>:uw
shl (16|M0) r58.0<1>:ud r54.0<8;8,1>:ud 0x2:ud
mov (32|M0) r62.0<1>:uw r64.0<16;16,1>:uw
lrp (8|M0) r23.0<1>.xyzw:f r2.0<4>.xyzw:f r3.0<4>.xyzw:f r4.0<4>.xyzw:f
asr (16|M0) r24.0<1>:d r54.0<8;8,1>:d 0x1f:d
mov (8|M0) r113.0<1>:f r10.0<8;8,1>:f
mov (8|M0) r114.0<1>:f r11.0<8;8,1>:f
(f0.0) if (8|M0) L1 L2
mov (8|M0) r48.0<1>:f 0x0:f
else (8|M0) L2
L1:
mov (8|M0) r48.0<1>:f 0x3f800000:f
L2:
endif (8|M0) L3
L3:
L4:
add (8|M0) r49.0<1>:d r49.0<8;8,1>:d 0x1:d
cmp (8|M0) (lt)f0.0 null<1>:d r49.0<8;8,1>:d 0x10:d {Switch}
(f0.0) break (8|M0) L5 L5
(f0.0) while (8|M0) L4
L5:
send (8|M0) null:ud r112 0x6 0x02080000 {EOT}
";
