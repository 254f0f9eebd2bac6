//! The shared functions besides the data-port buffer messages: URB,
//! Gen4/G45 extended-math message, sampler, render-target and streamed
//! vertex buffer writes, and whole kernels run on the interpreter.
//!
//! Manual references: 000 = Gen4/G45 PRM Vol 4, 003 = Sandy Bridge PRM.

#[path = "eu_shared/kernels.rs"]
mod kernels;
#[path = "eu_shared/math_msg.rs"]
mod math_msg;
#[path = "eu_shared/render.rs"]
mod render;
#[path = "eu_dataport/rig.rs"]
mod rig;
#[path = "eu_shared/sampler.rs"]
mod sampler;
#[path = "eu_shared/urb.rs"]
mod urb;
