//! Rust code generation (filled in next).
