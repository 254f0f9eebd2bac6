//! The output merger behind render-target writes (see `super`).
