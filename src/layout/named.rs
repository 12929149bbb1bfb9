//! The named layouts: one table that parsing, `--help`, completions and `--guess` derive from.

use super::{FieldKind, Layout, TimeUnit};

pub(super) struct NamedLayout {
    pub(super) name: &'static str,
    pub(super) fields: &'static [(FieldKind, u32)],
    pub(super) unit: Option<TimeUnit>,
    pub(super) epoch_ms: i64,
}

const TWITTER_EPOCH_MS: i64 = 1_288_834_974_657;
/// 2016-05-20T00:00:00Z; the original reads the date in the server's local time zone.
const UID_GENERATOR_EPOCH_MS: i64 = 1_463_702_400_000;

pub(super) const NAMED: &[NamedLayout] = &[
    NamedLayout {
        name: "snowflake",
        fields: &[
            (FieldKind::Time, 41),
            (FieldKind::Worker, 10),
            (FieldKind::Sequence, 12),
        ],
        unit: Some(TimeUnit::MILLISECOND),
        epoch_ms: TWITTER_EPOCH_MS,
    },
    NamedLayout {
        name: "snowflake-dc",
        fields: &[
            (FieldKind::Time, 41),
            (FieldKind::Datacenter, 5),
            (FieldKind::Worker, 5),
            (FieldKind::Sequence, 12),
        ],
        unit: Some(TimeUnit::MILLISECOND),
        epoch_ms: TWITTER_EPOCH_MS,
    },
    NamedLayout {
        name: "discord",
        fields: &[
            (FieldKind::Time, 42),
            (FieldKind::Worker, 5),
            (FieldKind::Process, 5),
            (FieldKind::Increment, 12),
        ],
        unit: Some(TimeUnit::MILLISECOND),
        epoch_ms: 1_420_070_400_000,
    },
    NamedLayout {
        name: "uid-generator",
        fields: &[
            (FieldKind::Time, 28),
            (FieldKind::Worker, 22),
            (FieldKind::Sequence, 13),
        ],
        unit: Some(TimeUnit::SECOND),
        epoch_ms: UID_GENERATOR_EPOCH_MS,
    },
    NamedLayout {
        name: "uid-generator-dc",
        fields: &[
            (FieldKind::Time, 28),
            (FieldKind::Datacenter, 5),
            (FieldKind::Worker, 17),
            (FieldKind::Sequence, 13),
        ],
        unit: Some(TimeUnit::SECOND),
        epoch_ms: UID_GENERATOR_EPOCH_MS,
    },
    NamedLayout {
        name: "sonyflake",
        fields: &[
            (FieldKind::Time, 39),
            (FieldKind::Sequence, 8),
            (FieldKind::Machine, 16),
        ],
        unit: Some(TimeUnit { ms: 10 }),
        epoch_ms: 1_409_529_600_000,
    },
    NamedLayout {
        name: "segment",
        fields: &[
            (FieldKind::Index, 49),
            (FieldKind::Shard, 6),
            (FieldKind::App, 8),
        ],
        unit: None,
        epoch_ms: 0,
    },
];

/// The name a layout gets when its fields match no named layout.
pub const CUSTOM: &str = "custom";

/// The names `Layout::named` accepts.
pub fn layout_names() -> impl Iterator<Item = &'static str> {
    NAMED.iter().map(|named| named.name)
}

/// Every named layout with its default epoch.
pub fn named_layouts() -> impl Iterator<Item = Layout> {
    NAMED
        .iter()
        .map(|named| Layout::named(named.name).expect("every named layout is valid"))
}
