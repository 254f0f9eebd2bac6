//! Field reads of the compute commands by their names in the gen12.5
//! tables (hal/tables/gen12.5/compute.toml). The compute commands are read
//! a few times per dispatch, not per thread, so a lookup by name is cheap
//! here; [`check`] makes sure at model build time that every name exists.

use baregpu_hal::reflect::CommandInfo;

/// A command's dwords with its table entry.
pub struct Fields<'a> {
    pub info: &'static CommandInfo,
    pub dw: &'a [u32],
}

impl Fields<'_> {
    /// The field's value (addresses and offsets shifted back into place);
    /// 0 for a name the command lacks (`check` rules that out).
    pub fn get(&self, name: &str) -> u64 {
        self.info
            .fields
            .iter()
            .find(|f| f.name == name)
            .map_or(0, |f| f.extract(self.dw) << f.shift)
    }

    pub fn set(&self, name: &str) -> bool {
        self.get(name) != 0
    }
}

/// The first name of `names` that `info` lacks.
pub fn check(info: &CommandInfo, names: &[&'static str]) -> Option<&'static str> {
    names
        .iter()
        .copied()
        .find(|n| !info.fields.iter().any(|f| f.name == *n))
}
