//! Clipping, setup, rasterisation and pixel-shader dispatch (see `super`).
