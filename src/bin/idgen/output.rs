//! Everything the binary writes: data to stdout, messages, prompts and progress to stderr.
//!
//! Colour only on a terminal and never with `NO_COLOR`; progress bars and prompts
//! only when stderr is a terminal. Every message passes through [`Output::scrub`]
//! so a password that slipped into a driver's message is still not printed, and
//! through [`escape_controls`], so stored text (an app name, a lease holder) with
//! an ESC or a newline in it can neither drive the terminal nor break a line or
//! a table ([`TextRows`] does the same for table cells).

use comfy_table::{ContentArrangement, Table, presets};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};

/// Shows control characters (and the bidirectional overrides that reorder what
/// a terminal displays) as escapes: `\n`, `\u{1b}`.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c if unsafe_char(c) => shown.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => shown.push(c),
        }
    }
    Cow::Owned(shown)
}

/// Table rows whose cells are shown with [`escape_controls`].
pub trait TextRows {
    fn add_text_row(&mut self, cells: Vec<String>) -> &mut Self;
}

impl TextRows for Table {
    fn add_text_row(&mut self, cells: Vec<String>) -> &mut Self {
        self.add_row(
            cells
                .iter()
                .map(|cell| escape_controls(cell).into_owned())
                .collect::<Vec<_>>(),
        )
    }
}

#[derive(Clone)]
pub struct Output {
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    pub color: bool,
    pub verbose: bool,
    secrets: Vec<String>,
}

impl Output {
    pub fn detect(verbose: bool, secrets: Vec<String>) -> Self {
        let stdout_tty = io::stdout().is_terminal();
        let stderr_tty = io::stderr().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Output {
            stdout_tty,
            stderr_tty,
            color: stderr_tty && !no_color,
            verbose,
            secrets: secrets.into_iter().filter(|s| !s.is_empty()).collect(),
        }
    }

    /// Removes every configured password from a message.
    pub fn scrub(&self, message: &str) -> String {
        idgen::redact::scrub_all(message, &self.secrets)
    }

    /// A one-line message as it may be shown: scrubbed, controls escaped.
    fn clean(&self, message: &str) -> String {
        escape_controls(&self.scrub(message)).into_owned()
    }

    /// A table styled for where stdout goes: box drawing on a terminal, plain ASCII otherwise.
    pub fn table(&self) -> Table {
        let mut table = Table::new();
        if self.stdout_tty {
            table.load_style(presets::UTF8_FULL_CONDENSED);
            // A terminal that reports no usable width (a bare pty) would squeeze every
            // column to one character: wrap only when the width is known.
            if table.width().is_some_and(|w| w >= 40) {
                table.set_content_arrangement(ContentArrangement::Dynamic);
            }
        } else {
            table.load_style(presets::ASCII_BORDERS_ONLY_CONDENSED);
            table.force_no_tty();
        }
        table
    }

    /// Prints a table to stdout.
    pub fn print_table(&self, table: &Table) -> io::Result<()> {
        let mut out = io::stdout().lock();
        writeln!(out, "{}", self.scrub(&table.to_string()))
    }

    /// Prints one value as pretty JSON to stdout.
    pub fn print_json<T: serde::Serialize>(&self, value: &T) -> io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
        let mut out = io::stdout().lock();
        writeln!(out, "{}", self.scrub(&text))
    }

    /// A line of plain text to stdout.
    pub fn print_line(&self, line: &str) -> io::Result<()> {
        let mut out = io::stdout().lock();
        writeln!(out, "{}", self.clean(line))
    }

    /// A warning on stderr; always shown, since cron mails stderr.
    pub fn warn(&self, message: &str) {
        let label = self.paint("warning:", "33");
        eprintln!("{label} {}", self.clean(message));
    }

    /// A note on stderr, shown with `--verbose` only.
    pub fn info(&self, message: &str) {
        if self.verbose {
            eprintln!("{}", self.clean(message));
        }
    }

    /// A note on stderr that is always shown (lease information, summaries for humans).
    pub fn note(&self, message: &str) {
        eprintln!("{}", self.clean(message));
    }

    /// The one-line error report: the problem, then the fix.
    pub fn error(&self, problem: &str, hint: Option<&str>) {
        let label = self.paint("error:", "31");
        let line = match hint {
            Some(hint) => format!("{problem}; hint: {hint}"),
            None => problem.to_string(),
        };
        eprintln!("{label} {}", self.clean(&line.replace('\n', " ")));
    }

    /// A progress bar on stderr, drawn only when stderr is a terminal.
    pub fn progress(&self, len: u64, what: &str) -> ProgressBar {
        if !self.stderr_tty {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let template = if self.color {
            "{msg} [{bar:30.cyan/blue}] {pos}/{len} ({eta})"
        } else {
            "{msg} [{bar:30}] {pos}/{len} ({eta})"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what.to_string());
        bar
    }

    fn paint(&self, text: &str, ansi: &str) -> String {
        if self.color {
            format!("\x1b[{ansi};1m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// A count for a table, digits grouped by thousands: `1,234,567`. JSON keeps
/// the exact number.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(c);
    }
    text
}

/// A span of time for a table, in its two largest units: `3 d 4 h`, `12 min`, `45 s`.
/// Messages use `idgen::error::fmt_duration` instead, in the flags' syntax.
pub fn span(secs: u64) -> String {
    const UNITS: [(u64, &str); 5] = [
        (365 * 86_400, "y"),
        (86_400, "d"),
        (3_600, "h"),
        (60, "min"),
        (1, "s"),
    ];
    let mut parts = Vec::new();
    let mut rest = secs;
    for (size, unit) in UNITS {
        if rest >= size && parts.len() < 2 {
            parts.push(format!("{} {unit}", rest / size));
            rest %= size;
        } else if !parts.is_empty() {
            break;
        }
    }
    if parts.is_empty() {
        "0 s".into()
    } else {
        parts.join(" ")
    }
}

#[cfg(test)]
mod number_tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn spans_show_their_two_largest_units() {
        assert_eq!(span(0), "0 s");
        assert_eq!(span(45), "45 s");
        assert_eq!(span(12 * 60), "12 min");
        assert_eq!(span(3 * 86_400 + 4 * 3_600 + 5), "3 d 4 h");
        assert_eq!(span(86_400 + 30), "1 d");
    }
}
