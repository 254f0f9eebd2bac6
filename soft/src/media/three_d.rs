//! The 3D pipeline's commands on the media unit (which holds the EU array
//! both pipelines share): 3DSTATE_* commands kept by `render3d::front`,
//! and 3DPRIMITIVE run in the gate like the walkers, its failures turned
//! into the media unit's errors.

use baregpu_hal::Generation;
use baregpu_isa::IsaGen;

use super::{Media, MediaError, Selected};
use crate::eu::shared::GfxMemory;
use crate::render3d::front::{Stop, Unit};
use crate::render3d::types::DrawError;

impl From<DrawError> for MediaError {
    fn from(e: DrawError) -> MediaError {
        match e {
            DrawError::Fault(f) => MediaError::Fault(f),
            DrawError::Invalid(why) => MediaError::Invalid(why),
            DrawError::Unmodelled(what) => MediaError::Unmodelled(what),
        }
    }
}

/// The generation whose 3D commands a media unit of `platform` runs:
/// Sandy Bridge and Ivy Bridge. Haswell (Gen7.5) shares most of Ivy
/// Bridge's layouts but has no device tables here (no hal generation):
/// it would need its own 3DSTATE_VF (the programmable cut index),
/// 3DSTATE_VS/PS thread-count fields (Mesa gen75.xml), its URB and push
/// constant sizes, and the command names looked up in its tables.
pub(crate) fn three_d_generation(platform: IsaGen) -> Option<Generation> {
    match platform {
        IsaGen::Gen6 => Some(Generation::Gen6),
        IsaGen::Gen7 => Some(Generation::Gen7),
        _ => None,
    }
}

impl Media {
    /// 3D commands need the 3D pipeline selected: sending them to another
    /// is UNDEFINED (003 lines 823-826). The command names come from the
    /// tables of the platform's generation (`cs::table`), so the kept
    /// state is in its layouts.
    fn check_3d(&self) -> Result<Generation, MediaError> {
        if self.selected != Selected::ThreeD {
            return Err(MediaError::Command);
        }
        three_d_generation(self.platform).ok_or(MediaError::Command)
    }

    /// A 3DSTATE_* command.
    pub(super) fn keep_3d(
        &mut self,
        mem: &mut dyn GfxMemory,
        name: &'static str,
        dw: &[u32],
    ) -> Result<(), MediaError> {
        let generation = self.check_3d()?;
        Ok(self.front.keep(
            generation,
            name,
            dw,
            mem,
            &self.bases,
            self.constants_absolute,
        )?)
    }

    /// 3DPRIMITIVE: the draw runs here until its threads have ended.
    pub(super) fn draw_gate(
        &mut self,
        threads: &mut dyn GfxMemory,
        dw: &[u32],
    ) -> Result<bool, MediaError> {
        let generation = self.check_3d()?;
        if !self.front.busy() {
            // Threads of an earlier dispatch finish first.
            if !self.drain(threads)? {
                return Ok(false);
            }
        }
        // The 3D units have their own thread limits: the whole array, not
        // the media VFE's limit (restored after).
        let vfe_limit = self.array.limit();
        self.array.set_limit(self.array.config().threads());
        let unit = Unit {
            platform: self.platform,
            generation,
            array: &mut self.array,
            cache: &mut self.cache,
            bases: &self.bases,
            allowance: &mut self.allowance,
        };
        let r = self.front.draw(unit, threads, dw);
        self.array.set_limit(vfe_limit);
        if let Some(report) = self.array.report() {
            self.last_report = Some(report.clone());
        }
        match r {
            Ok(done) => Ok(done),
            Err(Stop::Draw(e)) => Err(e.into()),
            Err(Stop::ThreadFault(f)) => Err(MediaError::Fault(f)),
            Err(Stop::Thread) => Err(MediaError::Thread),
            Err(Stop::Dispatch) => Err(MediaError::Command),
        }
    }
}
