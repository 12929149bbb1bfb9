//! The one table of exit codes: every failure and outcome maps to a code here.

use idgen::ErrorKind;
use idgen::status::Severity;
use std::process::ExitCode;

/// How a command that did not fail outright ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything asked for was done.
    Success,
    /// Some inputs were rejected and reported; the rest were handled (decode).
    BadInput,
    /// A batch job finished with some items failed (reload-segments).
    Partial,
    /// A check found something that needs an operator (status, inspect-freelist).
    Attention,
    /// The operator answered no at a confirmation prompt; nothing changed.
    Declined,
    /// `status --check`: exits by the Nagios plugin convention, not the table below.
    Check(Severity),
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
        code: 0,
        name: "ok",
        meaning: "success",
    },
    ExitDoc {
        code: 1,
        name: "internal",
        meaning: "a bug or an unexpected answer from a backend",
    },
    ExitDoc {
        code: 2,
        name: "usage",
        meaning: "bad flag, argument, config value or input (decode: some IDs were rejected)",
    },
    ExitDoc {
        code: 3,
        name: "not-found",
        meaning: "unknown app, shard, node or namespace",
    },
    ExitDoc {
        code: 4,
        name: "exhausted",
        meaning: "max_limit_id reached, every worker ID held, or the layout's time bits used up",
    },
    ExitDoc {
        code: 5,
        name: "unavailable",
        meaning: "a backend is unreachable, timed out or not the master (a Redis replica), or stock stayed empty; safe to retry",
    },
    ExitDoc {
        code: 6,
        name: "partial",
        meaning: "a batch job finished but some items failed (reload-segments; app set --dispenser with shards left to switch)",
    },
    ExitDoc {
        code: 7,
        name: "conflict",
        meaning: "stored state disagrees: app name, namespace layout, route, sealed or moving app",
    },
    ExitDoc {
        code: 8,
        name: "attention",
        meaning: "status or inspect-freelist found problems that were not repaired",
    },
    ExitDoc {
        code: 9,
        name: "clock",
        meaning: "the clock moved back further than the generator waits out",
    },
    ExitDoc {
        code: 10,
        name: "store",
        meaning: "stored data is corrupt, or the store file cannot be used",
    },
    ExitDoc {
        code: 11,
        name: "declined",
        meaning: "the operator answered no at a confirmation prompt; nothing changed",
    },
    ExitDoc {
        code: 12,
        name: "access",
        meaning: "a backend refused the credentials, or the user lacks a permission",
    },
    ExitDoc {
        code: 13,
        name: "bad-data",
        meaning: "a backend holds data idgen did not write (wrong type, malformed entry) under an idgen key",
    },
    ExitDoc {
        code: 14,
        name: "output",
        meaning: "stdout could not be written (a full disk; a closed pipe only where IDs were issued: next, lease, serve); IDs issued meanwhile are a gap, never repeated",
    },
    ExitDoc {
        code: 15,
        name: "tls",
        meaning: "a TLS connection failed: the server's certificate was not verified (wrong CA or name), or the handshake was refused",
    },
    ExitDoc {
        code: 130,
        name: "interrupted",
        meaning: "stopped by SIGINT or SIGTERM before finishing; safe to rerun",
    },
];

fn code_named(name: &str) -> u8 {
    EXIT_CODES
        .iter()
        .find(|doc| doc.name == name)
        .map(|doc| doc.code)
        .expect("every exit code name used in exit.rs is in EXIT_CODES")
}

/// The exit code for a failure of the given kind.
pub fn for_kind(kind: ErrorKind) -> u8 {
    code_named(match kind {
        ErrorKind::Usage => "usage",
        ErrorKind::NotFound => "not-found",
        ErrorKind::Exhausted => "exhausted",
        ErrorKind::Unavailable => "unavailable",
        ErrorKind::Conflict => "conflict",
        ErrorKind::Clock => "clock",
        ErrorKind::Store => "store",
        ErrorKind::Interrupted => "interrupted",
        ErrorKind::Access => "access",
        ErrorKind::Tls => "tls",
        ErrorKind::BadData => "bad-data",
        ErrorKind::Internal => "internal",
    })
}

/// The exit code for a command that ran to its end.
pub fn for_outcome(outcome: Outcome) -> u8 {
    code_named(match outcome {
        Outcome::Success => "ok",
        Outcome::BadInput => "usage",
        Outcome::Partial => "partial",
        Outcome::Attention => "attention",
        Outcome::Declined => "declined",
        Outcome::Check(severity) => return nagios(severity).code,
    })
}

/// One state of the Nagios plugin convention.
pub struct NagiosState {
    pub code: u8,
    /// The word the summary line starts with.
    pub label: &'static str,
}

/// The Nagios/Icinga plugin convention `status --check` exits by, kept apart
/// from idgen's own codes: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
pub fn nagios(severity: Severity) -> NagiosState {
    let (code, label) = match severity {
        Severity::Ok => (0, "OK"),
        Severity::Warning => (1, "WARNING"),
        Severity::Critical => (2, "CRITICAL"),
        Severity::Unknown => (3, "UNKNOWN"),
    };
    NagiosState { code, label }
}

/// The `status --check` section of `idgen status --help`.
pub fn nagios_help() -> String {
    let mut text = String::from("Exit codes with --check (the Nagios plugin convention):\n");
    for severity in [
        Severity::Ok,
        Severity::Warning,
        Severity::Critical,
        Severity::Unknown,
    ] {
        let state = nagios(severity);
        text.push_str(&format!("  {}  {}\n", state.code, state.label));
    }
    text
}

/// The exit code for a failure to write the command's output to stdout.
pub fn for_write_failure() -> u8 {
    code_named("output")
}

/// Exit code for clap's own usage errors.
pub fn usage() -> u8 {
    for_kind(ErrorKind::Usage)
}

pub fn exit(code: u8) -> ExitCode {
    ExitCode::from(code)
}

/// The exit-code section of `idgen --help`.
pub fn help_section() -> String {
    let mut text = String::from("Exit codes:\n");
    for doc in EXIT_CODES {
        text.push_str(&format!(
            "  {:>3}  {:<12} {}\n",
            doc.code, doc.name, doc.meaning
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_and_outcome_has_a_documented_code() {
        for kind in ErrorKind::ALL {
            assert_ne!(for_kind(kind), 0, "{kind:?}");
        }
        for outcome in [
            Outcome::Success,
            Outcome::BadInput,
            Outcome::Partial,
            Outcome::Attention,
            Outcome::Declined,
            Outcome::Check(Severity::Critical),
        ] {
            for_outcome(outcome);
        }
    }

    #[test]
    fn nagios_codes_follow_the_plugin_convention() {
        let codes: Vec<(u8, &str)> = [
            Severity::Ok,
            Severity::Warning,
            Severity::Critical,
            Severity::Unknown,
        ]
        .into_iter()
        .map(|s| (nagios(s).code, nagios(s).label))
        .collect();
        assert_eq!(
            codes,
            [(0, "OK"), (1, "WARNING"), (2, "CRITICAL"), (3, "UNKNOWN")]
        );
    }

    #[test]
    fn codes_are_unique() {
        let mut codes: Vec<u8> = EXIT_CODES.iter().map(|d| d.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), EXIT_CODES.len());
    }
}
