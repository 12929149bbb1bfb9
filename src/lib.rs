//! idgen: 64-bit IDs that are unique forever, roughly time-ordered and cheap to get.
//!
//! This crate is the core shared by the `idgen` binary and by Rust services that
//! link it. It never prints, never exits and never touches the terminal; every
//! failure is an [`Error`] whose [`ErrorKind`] decides the binary's exit code.
//!
//! * [`layout`]: bit layouts (snowflake, discord, sonyflake, uid-generator, segment, custom).
//! * [`snowflake`]: the in-process generator, with an injectable [`clock::Clock`].
//! * [`segment`]: segment IDs composed from MySQL-allocated indexes.
//! * [`config`]: resolved settings and the config file.
//! * [`status`]: the health report behind `idgen status`.
//! * [`redact`]: URLs whose passwords are never shown.

pub mod activity;
pub mod backend;
pub mod clock;
pub mod config;
pub mod error;
pub mod exit_code;
pub mod failpoint;
pub mod layout;
pub mod lease;
pub mod name;
pub mod redact;
pub mod retry;
pub mod segment;
pub mod shard;
pub mod snowflake;
pub mod status;
pub mod store;

pub use error::{Error, ErrorKind, Result};
