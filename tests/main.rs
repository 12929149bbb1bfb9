//! idgen's one integration test crate: every module shares the harness.

mod completions;
mod config;
mod decode;
mod ergonomics;
mod harness;
mod layouts;
mod lease;
mod segments;
mod snowflake;
mod status;
