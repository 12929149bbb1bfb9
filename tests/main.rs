//! idgen's one integration test crate: every module shares the harness.

mod decode;
mod layouts;
mod snowflake;
