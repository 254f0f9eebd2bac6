//! Per-stage tests of the raster stages against host references written
//! here, independently of the code under test.
