//! A password planted in a fuzz input, and the check that it shows nowhere.
//!
//! The password is `PREFIX` + [`CORE`] + `SUFFIX`, the two ends chosen by the
//! fuzzer (any characters: `@`, `:`, `/`, `%`, `#`, spaces…), the core fixed.
//! Every form of the password (as written, percent-encoded, percent-decoded)
//! holds the core, and a target skips an input that holds it anywhere else, so
//! a core in any output is the password, or the part of it around the core,
//! shown. (A piece of the password without the core, cut off at a delimiter,
//! goes unnoticed: the check errs on the side of no false alarms.)

/// Letters and digits only, so that encoding and decoding keep it whole;
/// found in no message or hint of idgen's. Matched in any case, since URL
/// parsers lowercase schemes and hosts.
pub const CORE: &str = "Pw7qZ";

/// The password made of the fuzzer's two ends around the core.
pub fn password(prefix: &str, suffix: &str) -> String {
    format!("{prefix}{CORE}{suffix}")
}

/// Does `text` hold the core, in any case?
pub fn shows(text: &str) -> bool {
    text.to_lowercase().contains(&CORE.to_lowercase())
}

/// Fails (panics, which the fuzzer reports) if `text` shows the password.
/// `what` says which output it was.
#[track_caller]
pub fn assert_hidden(what: &str, text: &str) {
    assert!(!shows(text), "{what} shows the password: {text:?}");
}
