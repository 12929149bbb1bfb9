//! idgen's one integration test crate: every module shares the harness.

mod harness;
mod segments;
