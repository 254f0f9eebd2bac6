//! Region codes shared by Gen4 to Gen7.5.

/// VertStride codes 0000-0110 → elements; 0111-1110 reserved; 1111 is
/// [`VSTRIDE_VXH`]. 000_5e6e9c0c4071cf6e.txt lines 9768 (Table 13-3);
/// 003_e4327438ed1f7ac3.txt lines 94065-94195 (same codes on Gen6).
pub const VSTRIDES: [Option<u8>; 16] = [
    Some(0),
    Some(1),
    Some(2),
    Some(4),
    Some(8),
    Some(16),
    Some(32),
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
];

/// VertStride 1111b: one address sub-register per row (Vx1/VxH), only for
/// register-indirect Align1 sources. 000_5e6e9c0c4071cf6e.txt lines 9768.
pub const VSTRIDE_VXH: u32 = 0xF;

/// Width codes 000-100 → elements; 101-111 reserved.
/// 000_5e6e9c0c4071cf6e.txt lines 9769; 003_e4327438ed1f7ac3.txt lines 94065-94195.
pub const WIDTHS: [Option<u8>; 8] = [
    Some(1),
    Some(2),
    Some(4),
    Some(8),
    Some(16),
    None,
    None,
    None,
];

/// HorzStride codes → elements. 000_5e6e9c0c4071cf6e.txt lines 9774;
/// 003_e4327438ed1f7ac3.txt lines 94065-94195.
pub const HSTRIDES: [Option<u8>; 4] = [Some(0), Some(1), Some(2), Some(4)];
