//! idgen's one integration test crate: every module shares the harness.

mod decode;
mod embedded;
mod harness;
mod layouts;
mod lease;
mod segments;
mod snowflake;
