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
    /// Names the issuer; the lease hands out one node value spread over these fields.
    Node,
    /// Part of a segment ID (app, shard, index); never generated here.
    Segment,
}

/// Every field name a layout may use. A fixed set keeps decoded output stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldKind {
    Time,
    Sequence,
    Increment,
    Worker,
    Datacenter,
    Process,
    Machine,
    App,
    Shard,
    Index,
}

impl FieldKind {
    /// All kinds, in the order help texts list them.
    pub const ALL: [FieldKind; 10] = [
        FieldKind::Time,
        FieldKind::Sequence,
        FieldKind::Increment,
        FieldKind::Worker,
        FieldKind::Datacenter,
        FieldKind::Process,
        FieldKind::Machine,
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
            FieldKind::Worker => "worker",
            FieldKind::Datacenter => "datacenter",
            FieldKind::Process => "process",
            FieldKind::Machine => "machine",
            FieldKind::App => "app",
            FieldKind::Shard => "shard",
            FieldKind::Index => "index",
        }
    }

    pub fn role(self) -> Role {
        match self {
            FieldKind::Time => Role::Time,
            FieldKind::Sequence | FieldKind::Increment => Role::Sequence,
            FieldKind::Worker | FieldKind::Datacenter | FieldKind::Process | FieldKind::Machine => {
                Role::Node
            }
            FieldKind::App | FieldKind::Shard | FieldKind::Index => Role::Segment,
        }
    }

    /// Looks a kind up by name; `seq` is accepted for `sequence`.
    pub fn from_name(name: &str) -> Option<FieldKind> {
        let name = name.trim().to_ascii_lowercase();
        if name == "seq" {
            return Some(FieldKind::Sequence);
        }
        FieldKind::ALL.into_iter().find(|kind| kind.name() == name)
    }
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
