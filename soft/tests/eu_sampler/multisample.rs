//! Multisampled surfaces are refused by the sampler, whatever the
//! message: read as one sample they would answer wrongly.

use super::rig::*;
use baregpu_isa::IsaGen;

#[test]
fn multisampled_surfaces_are_refused() {
    let u = [0.5f32; 16];
    let v = [0.5f32; 16];
    let tex = Tex::new(R8G8B8A8_UNORM, 4, 4, 1);
    // Number of Multisamples 4X: SNB SURFACE_STATE DW4 6:4, IVB
    // RENDER_SURFACE_STATE DW4 5:3 (Mesa gen7.xml).
    for (p, shift) in [(IsaGen::Gen6, 4), (IsaGen::Gen7, 3)] {
        let mut state = tex.state(p);
        state[4] |= 2 << shift;
        let mut gpu = new_gpu_state(p, &state);
        refused(
            &mut gpu,
            &Msg::new(Op::SampleL, u, v).lod(0.0),
            "multisampled",
        );
        // The same surface single-sampled samples.
        let mut gpu = new_gpu(p, &tex);
        ok(&mut gpu, &Msg::new(Op::SampleL, u, v).lod(0.0));
    }
}
