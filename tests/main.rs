//! idgen's one integration test crate: every module shares the harness.

mod decode;
mod harness;
mod inspect;
mod layouts;
mod lease;
mod migrate;
mod segments;
mod snowflake;
