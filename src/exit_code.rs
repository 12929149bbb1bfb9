//! idgen's documented exit codes, by name: the one table the binary exits by,
//! prints in `--help` and the README, and the tests check against.
//!
//! The library never exits; it only names the codes, so that a test says
//! `.status(exit_code::BAD_DATA)` rather than a bare 13 that drifts from the table.

pub const OK: u8 = 0;
pub const INTERNAL: u8 = 1;
pub const USAGE: u8 = 2;
pub const NOT_FOUND: u8 = 3;
pub const EXHAUSTED: u8 = 4;
pub const UNAVAILABLE: u8 = 5;
pub const PARTIAL: u8 = 6;
pub const CONFLICT: u8 = 7;
pub const ATTENTION: u8 = 8;
pub const CLOCK: u8 = 9;
pub const STORE: u8 = 10;
pub const DECLINED: u8 = 11;
pub const ACCESS: u8 = 12;
pub const BAD_DATA: u8 = 13;
pub const OUTPUT: u8 = 14;
pub const TLS: u8 = 15;
pub const INTERRUPTED: u8 = 130;

/// The Nagios/Icinga plugin convention `status --check` exits by, apart from
/// idgen's own codes.
pub mod nagios {
    pub const OK: u8 = 0;
    pub const WARNING: u8 = 1;
    pub const CRITICAL: u8 = 2;
    pub const UNKNOWN: u8 = 3;
}

/// One documented exit code.
pub struct ExitDoc {
    pub code: u8,
    pub name: &'static str,
    pub meaning: &'static str,
}

/// Every exit code idgen uses, in the order the README and `--help` list them.
pub const EXIT_CODES: &[ExitDoc] = &[
    ExitDoc {
        code: OK,
        name: "ok",
        meaning: "success",
    },
    ExitDoc {
        code: INTERNAL,
        name: "internal",
        meaning: "a bug or an unexpected answer from a backend",
    },
    ExitDoc {
        code: USAGE,
        name: "usage",
        meaning: "bad flag, argument, config value or input (decode: some IDs were rejected)",
    },
    ExitDoc {
        code: NOT_FOUND,
        name: "not-found",
        meaning: "unknown app, shard, node or namespace",
    },
    ExitDoc {
        code: EXHAUSTED,
        name: "exhausted",
        meaning: "max_limit_id reached, every worker ID held, or the layout's time bits used up",
    },
    ExitDoc {
        code: UNAVAILABLE,
        name: "unavailable",
        meaning: "a backend is unreachable, timed out or not the master (a Redis replica), a lease could not reach the replicas it must (Redis alone), or stock stayed empty; safe to retry",
    },
    ExitDoc {
        code: PARTIAL,
        name: "partial",
        meaning: "a batch job finished but some items failed (reload-segments; app set --dispenser with shards left to switch); 13 instead when a failure's cause is bad data",
    },
    ExitDoc {
        code: CONFLICT,
        name: "conflict",
        meaning: "stored state disagrees: app name, namespace layout, route, sealed or moving app",
    },
    ExitDoc {
        code: ATTENTION,
        name: "attention",
        meaning: "status or inspect-freelist found problems that were not repaired",
    },
    ExitDoc {
        code: CLOCK,
        name: "clock",
        meaning: "the clock moved back further than the generator waits out",
    },
    ExitDoc {
        code: STORE,
        name: "store",
        meaning: "stored data is corrupt, or the store file cannot be used",
    },
    ExitDoc {
        code: DECLINED,
        name: "declined",
        meaning: "the operator answered no at a confirmation prompt; nothing changed",
    },
    ExitDoc {
        code: ACCESS,
        name: "access",
        meaning: "a backend refused the credentials, or the user lacks a permission",
    },
    ExitDoc {
        code: BAD_DATA,
        name: "bad-data",
        meaning: "a backend holds data idgen did not write (wrong type, malformed entry) under an idgen key; outranks 6 when a batch job's failure has that cause",
    },
    ExitDoc {
        code: OUTPUT,
        name: "output",
        meaning: "stdout could not be written (a full disk; a closed pipe only where IDs were issued: next, lease, serve); IDs issued meanwhile are a gap, never repeated",
    },
    ExitDoc {
        code: TLS,
        name: "tls",
        meaning: "a TLS connection failed: the server's certificate was not verified (wrong CA or name), or the handshake was refused",
    },
    ExitDoc {
        code: INTERRUPTED,
        name: "interrupted",
        meaning: "stopped by SIGINT or SIGTERM before finishing; safe to rerun",
    },
];

pub fn code_named(name: &str) -> u8 {
    EXIT_CODES
        .iter()
        .find(|doc| doc.name == name)
        .map(|doc| doc.code)
        .expect("every exit code name used in exit.rs is in EXIT_CODES")
}
