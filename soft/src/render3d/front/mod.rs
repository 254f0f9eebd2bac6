//! The front of the 3D pipeline: the state the 3DSTATE_* commands load
//! (`state`), and the draw 3DPRIMITIVE starts (`draw`): vertex fetch
//! (`fetch`, `format`), primitive assembly (`assemble`), the VS threads
//! (`vs`), then the raster stage and output merger (`stages`) and their
//! pixel threads on the same EU array. Ivy Bridge's layouts and limits
//! are turned into the shared forms in `gen7`.
//!
//! Gen6 and Gen7 (Ivy Bridge); the other generations refuse their 3D
//! commands (`media` decides). GS threads (Sandy Bridge's `gs`, Ivy
//! Bridge's `gs7`) run between the VS threads and the raster stage when
//! the GS is enabled; QUADSTRIP and LINELOOP need them (SF does not take
//! them). On Ivy Bridge the SOL stage (`sol`) writes the VS's or GS's
//! objects to the stream-output buffers before the raster stage. Refused
//! as not modelled (the engine stops with the reason): on Gen7 an enabled
//! HS, TE or DS, the GS's Include Vertex Handles, 3DPRIMITIVE's indirect
//! parameters, predicate and end offset; the GS's Internal Vertex Count, edge flags,
//! VFCOMP_STORE_PID, draws of more than 2^20 vertices. Not modelled, without effect
//! on what is drawn: the vertex cache (every vertex is shaded, so
//! VS_INVOCATION_COUNT counts each), the statistics' Global Snapshot Count
//! Reset, the URB and push-constant start offsets (each draw has its own
//! URB; the sizes are checked).

mod assemble;
mod draw;
mod fetch;
mod format;
mod gen7;
mod gs;
mod gs7;
mod sol;
mod stages;
mod state;
mod thread;
mod vs;

pub(crate) use draw::{Front, Unit};
pub(crate) use thread::Stop;
