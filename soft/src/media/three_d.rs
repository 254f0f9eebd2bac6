//! The 3D pipeline's commands on the media unit (which holds the EU array
//! both pipelines share): 3DSTATE_* commands kept by `render3d::front`,
//! and 3DPRIMITIVE run in the gate like the walkers, its failures turned
//! into the media unit's errors.

use baregpu_isa::IsaGen;

use super::{Media, MediaError, Selected};
use crate::eu::shared::GfxMemory;
use crate::render3d::front::{Stop, Unit};
use crate::render3d::types::DrawError;

impl From<DrawError> for MediaError {
    fn from(e: DrawError) -> MediaError {
        match e {
            DrawError::Fault(f) => MediaError::Fault(f),
            DrawError::Invalid(_) => MediaError::Command,
            DrawError::Unmodelled(what) => MediaError::Unmodelled(what),
        }
    }
}

impl Media {
    /// 3D commands need the 3D pipeline selected: sending them to another
    /// is UNDEFINED (003 lines 823-826).
    fn check_3d(&self) -> Result<(), MediaError> {
        if self.selected != Selected::ThreeD || self.platform != IsaGen::Gen6 {
            return Err(MediaError::Command);
        }
        Ok(())
    }

    /// A 3DSTATE_* command.
    pub(super) fn keep_3d(
        &mut self,
        mem: &mut dyn GfxMemory,
        name: &'static str,
        dw: &[u32],
    ) -> Result<(), MediaError> {
        self.check_3d()?;
        Ok(self
            .front
            .keep(name, dw, mem, &self.bases, self.constants_absolute)?)
    }

    /// 3DPRIMITIVE: the draw runs here until its threads have ended.
    pub(super) fn draw_gate(
        &mut self,
        threads: &mut dyn GfxMemory,
        dw: &[u32],
    ) -> Result<bool, MediaError> {
        if !self.front.busy() {
            self.check_3d()?;
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
