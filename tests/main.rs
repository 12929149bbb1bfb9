//! idgen's one integration test crate: every module shares the harness.

mod app;
mod cluster;
mod completions;
mod config;
mod config_command;
mod decode;
mod embedded;
mod ergonomics;
mod first_impression;
mod harness;
mod inspect;
mod layouts;
mod lease;
mod migrate;
mod namespace;
mod rollback;
mod secrets;
mod segments;
mod sentinel;
mod serve;
mod snowflake;
mod status;
mod status_monitoring;
mod status_states;
