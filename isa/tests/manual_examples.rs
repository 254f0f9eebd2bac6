//! The manuals' worked examples as decode tests: each example is written
//! in our syntax (translations from the manuals' older syntax are noted on
//! each test), assembled, encoded, decoded, and the decoded fields are
//! checked against what the manual says the example does, citing the
//! lines. The examples live in `examples/`, one file per manual:
//! `gen4` (000, Gen4/G45 volume 4), `gen6` (003, Sandy Bridge EU ISA),
//! `gen7` (001, Ivy Bridge EU ISA).

mod examples;
