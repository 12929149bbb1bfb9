//! Field kinds and roles, and the time unit a time field counts in.

use super::LayoutError;
use std::fmt;
use std::str::FromStr;

/// What a field is for; decides how a generator fills it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Time units since the epoch.
    Time,
    /// Counts up within one time unit.
    Sequence,
    /// Names the issuer; the lease hands out one worker ID spread over these fields.
    Worker,
    /// Part of a segment ID (app, shard, index); never generated here.
    Segment,
    /// A field with a name of the user's choosing: decoded, never generated.
    Other,
}

/// A field's name. The known kinds have fixed roles; any other name is [`FieldKind::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldKind {
    Time,
    Sequence,
    Increment,
    Counter,
    Worker,
    Datacenter,
    Process,
    Machine,
    Node,
    App,
    Shard,
    Index,
    /// A name from a custom `--bits` layout, such as `rest` in `time:48,rest:16`.
    Other(&'static str),
}

/// The longest name a custom field may have.
pub const MAX_FIELD_NAME: usize = 32;

/// Names decode's output uses for itself, so no field may take them.
const RESERVED_NAMES: [&str; 4] = ["id", "layout", "timestamp", "unix_ms"];

impl FieldKind {
    /// All known kinds, in the order help texts list them.
    pub const ALL: [FieldKind; 12] = [
        FieldKind::Time,
        FieldKind::Sequence,
        FieldKind::Increment,
        FieldKind::Counter,
        FieldKind::Worker,
        FieldKind::Datacenter,
        FieldKind::Process,
        FieldKind::Machine,
        FieldKind::Node,
        FieldKind::App,
        FieldKind::Shard,
        FieldKind::Index,
    ];

    /// The name used in `--bits`, signatures, decoded text and JSON keys.
    pub fn name(self) -> &'static str {
        match self {
            FieldKind::Time => "time",
            FieldKind::Sequence => "sequence",
            FieldKind::Increment => "increment",
            FieldKind::Counter => "counter",
            FieldKind::Worker => "worker",
            FieldKind::Datacenter => "datacenter",
            FieldKind::Process => "process",
            FieldKind::Machine => "machine",
            FieldKind::Node => "node",
            FieldKind::App => "app",
            FieldKind::Shard => "shard",
            FieldKind::Index => "index",
            FieldKind::Other(name) => name,
        }
    }

    /// The role a field of this kind has unless its layout says otherwise.
    pub fn role(self) -> Role {
        match self {
            FieldKind::Time => Role::Time,
            FieldKind::Sequence | FieldKind::Increment | FieldKind::Counter => Role::Sequence,
            FieldKind::Worker
            | FieldKind::Datacenter
            | FieldKind::Process
            | FieldKind::Machine
            | FieldKind::Node => Role::Worker,
            FieldKind::App | FieldKind::Shard | FieldKind::Index => Role::Segment,
            FieldKind::Other(_) => Role::Other,
        }
    }

    /// Looks a known kind up by name; `seq` is accepted for `sequence`.
    pub fn from_name(name: &str) -> Option<FieldKind> {
        let name = name.trim().to_ascii_lowercase();
        if name == "seq" {
            return Some(FieldKind::Sequence);
        }
        FieldKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// Any field name: a known kind, or else [`FieldKind::Other`]. Names are lowercase
    /// letters, digits, `_` and `-`, start with a letter and are at most 32 long.
    pub fn parse(name: &str) -> Result<FieldKind, LayoutError> {
        if let Some(kind) = FieldKind::from_name(name) {
            return Ok(kind);
        }
        let lower = name.trim().to_ascii_lowercase();
        let well_formed = lower.len() <= MAX_FIELD_NAME
            && lower.starts_with(|c: char| c.is_ascii_lowercase())
            && lower
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        if !well_formed {
            return Err(LayoutError::BadFieldName {
                name: name.trim().to_string(),
            });
        }
        if RESERVED_NAMES.contains(&lower.as_str()) {
            return Err(LayoutError::ReservedFieldName { name: lower });
        }
        Ok(FieldKind::Other(intern(&lower)))
    }
}

/// One `&'static str` per distinct custom field name, so [`FieldKind`] stays `Copy`.
/// A process sees a handful of layouts, so the few leaked names stay bounded.
fn intern(name: &str) -> &'static str {
    use std::collections::BTreeSet;
    use std::sync::{Mutex, PoisonError};
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

impl fmt::Display for FieldKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How long one step of the time field lasts: `ms`, `10ms`, `s`, any `Nms` or `Ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeUnit {
    pub(super) ms: u32,
}

impl TimeUnit {
    /// Longest unit accepted: a day. Longer ones would not be IDs "roughly ordered by time".
    pub const MAX_MS: u32 = 86_400_000;
    pub const MILLISECOND: TimeUnit = TimeUnit { ms: 1 };
    pub const TEN_MILLISECONDS: TimeUnit = TimeUnit { ms: 10 };
    pub const SECOND: TimeUnit = TimeUnit { ms: 1000 };

    pub fn from_ms(ms: u32) -> Option<TimeUnit> {
        (1..=Self::MAX_MS).contains(&ms).then_some(TimeUnit { ms })
    }

    pub fn ms(self) -> u32 {
        self.ms
    }

    pub fn parse(text: &str) -> Result<TimeUnit, LayoutError> {
        let bad = || LayoutError::BadUnit {
            text: text.to_string(),
        };
        let lower = text.trim().to_ascii_lowercase();
        let (number, scale) = if let Some(number) = lower.strip_suffix("ms") {
            (number, 1)
        } else if let Some(number) = lower.strip_suffix('s') {
            (number, 1000)
        } else {
            return Err(bad());
        };
        let count: u64 = if number.is_empty() {
            1
        } else if number.bytes().all(|b| b.is_ascii_digit()) {
            number.parse().map_err(|_| bad())?
        } else {
            return Err(bad());
        };
        count
            .checked_mul(scale)
            .and_then(|ms| u32::try_from(ms).ok())
            .and_then(TimeUnit::from_ms)
            .ok_or_else(bad)
    }
}

impl fmt::Display for TimeUnit {
    /// The canonical spelling: `ms`, `10ms`, `s`, `60s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ms {
            1 => f.write_str("ms"),
            1000 => f.write_str("s"),
            ms if ms % 1000 == 0 => write!(f, "{}s", ms / 1000),
            ms => write!(f, "{ms}ms"),
        }
    }
}

impl FromStr for TimeUnit {
    type Err = LayoutError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        TimeUnit::parse(text)
    }
}
