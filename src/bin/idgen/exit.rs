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
    /// [`Outcome::Partial`] where a failure's cause is data idgen did not
    /// write under its keys: the cause outranks the partial failure.
    PartialOnBadData,
    /// A check found something that needs an operator (status, inspect-freelist).
    Attention,
    /// The operator answered no at a confirmation prompt; nothing changed.
    Declined,
    /// `status --check`: exits by the Nagios plugin convention, not the table below.
    Check(Severity),
}

pub use idgen::exit_code::{EXIT_CODES, code_named};

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
        Outcome::PartialOnBadData => "bad-data",
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
    use idgen::exit_code::nagios;
    let (code, label) = match severity {
        Severity::Ok => (nagios::OK, "OK"),
        Severity::Warning => (nagios::WARNING, "WARNING"),
        Severity::Critical => (nagios::CRITICAL, "CRITICAL"),
        Severity::Unknown => (nagios::UNKNOWN, "UNKNOWN"),
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
            Outcome::PartialOnBadData,
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
