//! Where a typed message's texel is: a slot's U, V, R and LOD against the
//! surface's type and size.
//!
//! The coordinates are integer texel addresses, one per dimension
//! [ext: intel-graphics-compiler documentation/visa/instructions/
//! TYPED_ATOMIC.md, "offsets for each surface type"]: buffer U = element;
//! 1D U = x, V = array index; 2D U = x, V = y, R = array index; 3D U, V,
//! R = x, y, z; LOD the mip level. A coordinate the surface type does not
//! use is ignored, though it keeps its place in the payload [ext: IGC
//! vISA builder `buildTypedSurfaceAddressPayload`, its list of valid
//! address patterns]).
//! Coordinates are unsigned: a negative one is far out of range.
//!
//! Bounds: a texel outside the surface is not accessed; reads return 0
//! with alpha 1, writes and atomics are dropped (IGC vISA GATHER4_TYPED,
//! SCATTER4_TYPED, TYPED_ATOMIC "Out-of-bound Access").
//!
//! Layout (003 lines 6137-6262; Gen7 keeps it [ext: mesa
//! brw_fs_surface_builder.cpp `emit_address_calculation`]): array slices
//! sit QPitch rows apart, 3D planes of LOD 0 are stacked one below the
//! other, each padded to the vertical alignment j (2 or 4, by Surface
//! Vertical Alignment: 003 lines 6063-6090).
//!
//! Not modelled, refused with an error rather than guessed: mip levels
//! other than 0 (the surface model has no mip count, so neither their
//! place nor their bounds are known), array slices other than 0 (QPitch
//! needs the array spacing and alignment), and 3D planes other than 0
//! whose height is not a multiple of 4 (the plane pitch then depends on
//! the alignment, which the surface model does not carry).

use super::super::super::payload::bad;
use super::super::super::surface::{Surface, SurfaceKind};
use crate::eu::send::SendError;

/// One slot's address parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Coords {
    pub u: u32,
    pub v: u32,
    pub r: u32,
    pub lod: u32,
}

/// The graphics address of the texel at `c` of `s` (whose texels are
/// `bpp` bytes), or `None` outside the surface.
pub(super) fn locate(s: &Surface, bpp: u64, c: &Coords) -> Result<Option<u64>, SendError> {
    if c.lod != 0 {
        return Err(bad(
            "typed message: mip levels other than 0 are not modelled",
        ));
    }
    let x = u64::from(c.u);
    let row = match s.kind {
        SurfaceKind::Buffer => {
            if x >= s.entries() {
                return Ok(None);
            }
            return Ok(Some(s.base.wrapping_add(x * u64::from(s.pitch))));
        }
        SurfaceKind::D1 => {
            if c.u >= s.width {
                return Ok(None);
            }
            match array_slice(s, c.v)? {
                Some(row) => row,
                None => return Ok(None),
            }
        }
        SurfaceKind::D2 => {
            if c.u >= s.width || c.v >= s.height {
                return Ok(None);
            }
            match array_slice(s, c.r)? {
                Some(row) => u64::from(c.v) + row,
                None => return Ok(None),
            }
        }
        SurfaceKind::D3 => {
            if c.u >= s.width || c.v >= s.height || c.r >= s.depth {
                return Ok(None);
            }
            u64::from(c.v) + plane_row(s, c.r)?
        }
        SurfaceKind::Cube => {
            return Err(bad("typed message: cube surfaces are not modelled"));
        }
        SurfaceKind::Null => return Ok(None),
    };
    Ok(Some(s.address(x * bpp, row)))
}

/// First row of array slice `index` of a 1D or 2D surface (a surface
/// with depth above one is an array, 003 lines 6141-6142), or `None` past
/// the last slice. A single surface ignores the index.
fn array_slice(s: &Surface, index: u32) -> Result<Option<u64>, SendError> {
    if s.depth <= 1 || index == 0 {
        return Ok(Some(0));
    }
    if index >= s.depth {
        return Ok(None);
    }
    Err(bad(
        "typed message: array slices other than 0 are not modelled (QPitch)",
    ))
}

/// First row of LOD-0 plane `r` of a 3D surface: planes are the height
/// padded to j rows apart (003 lines 6232-6233, 6255-6262).
fn plane_row(s: &Surface, r: u32) -> Result<u64, SendError> {
    if r == 0 {
        return Ok(0);
    }
    if !s.height.is_multiple_of(4) {
        return Err(bad(
            "typed message: 3D planes above 0 need the vertical alignment (height not a multiple of 4)",
        ));
    }
    Ok(u64::from(r) * u64::from(s.height))
}
