//! Host-side tools of baregpu, shared by the `baregpu` command and tests.

pub mod decode_batch;
pub mod defmt_log;
pub mod eu;
pub mod output;
pub mod picture;
pub mod r700_isa;
pub mod r700_run;
pub mod replay;
pub mod run;
pub mod run_zebin;
