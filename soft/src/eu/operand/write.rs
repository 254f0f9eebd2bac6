//! Storing destination elements (already converted to the destination
//! type) for the enabled channels.

use super::{DstKind, DstPlan, MAX_CH, indirect};
use crate::eu::error::ErrorKind;
use crate::eu::thread::Thread;

/// Flat offsets the destination elements of `n` channels go to (`None` for
/// `null`).
pub fn offsets(
    t: &Thread,
    d: &DstPlan,
    n: usize,
    en: u32,
) -> Result<Option<[u16; MAX_CH]>, ErrorKind> {
    let size = usize::from(d.ty.size());
    Ok(match &d.kind {
        DstKind::Null => None,
        DstKind::Direct { off } => Some(*off),
        DstKind::Indirect(ind) => Some(indirect::offsets(t, ind, n, size, size, en)?),
    })
}

/// Writes `raw[c]` (the low bytes of the destination type) for every
/// channel `c < n` enabled in `en`, stepping `step` channels at a time.
#[inline]
pub fn store(
    t: &mut Thread,
    d: &DstPlan,
    n: usize,
    step: usize,
    en: u32,
    raw: &[u64; MAX_CH],
) -> Result<(), ErrorKind> {
    let Some(off) = offsets(t, d, n, en)? else {
        return Ok(());
    };
    let size = usize::from(d.ty.size());
    let mut c = 0;
    while c < n {
        if en & (1 << c) != 0 {
            t.store(usize::from(off[c]), size, raw[c]);
        }
        c += step.max(1);
    }
    Ok(())
}
