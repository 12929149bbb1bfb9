//! The named layouts: one table that parsing, `--help`, completions and `--guess` derive from.
//!
//! Each entry takes its widths, unit and epoch from the generator's own source, named in
//! `source`.

use super::{FieldKind, Layout, Role, TextForm, TimeUnit};

/// One well-known layout.
pub struct NamedLayout {
    pub(super) name: &'static str,
    /// Other names for exactly this layout, epoch included.
    pub(super) aliases: &'static [&'static str],
    pub(super) fields: &'static [(FieldKind, u32)],
    pub(super) unit: Option<TimeUnit>,
    pub(super) epoch_ms: i64,
    /// Fields whose role here differs from their kind's usual one.
    pub(super) roles: &'static [(FieldKind, Role)],
    pub(super) text_form: Option<TextForm>,
    source: &'static str,
    note: Option<&'static str>,
}

impl NamedLayout {
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn aliases(&self) -> &'static [&'static str] {
        self.aliases
    }

    /// Where the widths, unit and epoch come from.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// What an operator should know when reading these IDs, if anything.
    pub fn note(&self) -> Option<&'static str> {
        self.note
    }

    /// The layout with its default epoch.
    pub fn layout(&self) -> Layout {
        Layout::named(self.name).expect("every named layout is valid")
    }

    pub(super) fn role_of(&self, kind: FieldKind) -> Role {
        self.roles
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(kind.role(), |&(_, role)| role)
    }
}

const TWITTER_EPOCH_MS: i64 = 1_288_834_974_657;
/// 2016-05-20T00:00:00Z; the original reads the date in the server's local time zone.
const UID_GENERATOR_EPOCH_MS: i64 = 1_463_702_400_000;
const MS: Option<TimeUnit> = Some(TimeUnit::MILLISECOND);

pub(super) const NAMED: &[NamedLayout] = &[
    NamedLayout {
        name: "snowflake",
        aliases: &["leaf"],
        fields: &[
            (FieldKind::Time, 41),
            (FieldKind::Worker, 10),
            (FieldKind::Sequence, 12),
        ],
        unit: MS,
        epoch_ms: TWITTER_EPOCH_MS,
        roles: &[],
        text_form: None,
        source: "twitter-archive/snowflake; Meituan Leaf's SnowflakeIDGenImpl",
        note: None,
    },
    NamedLayout {
        name: "snowflake-dc",
        aliases: &["twitter", "mybatis-plus"],
        fields: &[
            (FieldKind::Time, 41),
            (FieldKind::Datacenter, 5),
            (FieldKind::Worker, 5),
            (FieldKind::Sequence, 12),
        ],
        unit: MS,
        epoch_ms: TWITTER_EPOCH_MS,
        roles: &[],
        text_form: None,
        source: "twitter-archive/snowflake IdWorker; MyBatis-Plus Sequence",
        note: None,
    },
    NamedLayout {
        name: "discord",
        aliases: &[],
        fields: &[
            (FieldKind::Time, 42),
            (FieldKind::Worker, 5),
            (FieldKind::Process, 5),
            (FieldKind::Increment, 12),
        ],
        unit: MS,
        epoch_ms: 1_420_070_400_000,
        roles: &[],
        text_form: None,
        source: "Discord API reference, Snowflakes",
        note: None,
    },
    NamedLayout {
        name: "instagram",
        aliases: &[],
        fields: &[
            (FieldKind::Time, 41),
            (FieldKind::Shard, 13),
            (FieldKind::Sequence, 10),
        ],
        unit: MS,
        // 2011-08-24T21:07:01.721Z, the epoch in the engineering post's PL/pgSQL.
        epoch_ms: 1_314_220_021_721,
        // Each logical shard issues its own IDs, so the shard names the issuer.
        roles: &[(FieldKind::Shard, Role::Worker)],
        text_form: None,
        source: "Instagram Engineering, \"Sharding & IDs at Instagram\" (2012)",
        note: Some("shard is the logical shard; idgen leases it like a worker"),
    },
    NamedLayout {
        name: "mastodon",
        aliases: &[],
        fields: &[(FieldKind::Time, 48), (FieldKind::Sequence, 16)],
        unit: MS,
        epoch_ms: 0,
        roles: &[],
        text_form: None,
        source: "mastodon/mastodon lib/mastodon/snowflake.rb",
        note: Some(
            "sequence holds a per-table hash plus a counter; idgen generates a plain counter",
        ),
    },
    NamedLayout {
        name: "uid-generator",
        aliases: &[],
        fields: &[
            (FieldKind::Time, 28),
            (FieldKind::Worker, 22),
            (FieldKind::Sequence, 13),
        ],
        unit: Some(TimeUnit::SECOND),
        epoch_ms: UID_GENERATOR_EPOCH_MS,
        roles: &[],
        text_form: None,
        source: "baidu/uid-generator DefaultUidGenerator",
        note: Some(
            "the original reads its epoch in the server's local time; for a +08:00 server pass --epoch 2016-05-20T00:00:00+08:00",
        ),
    },
    NamedLayout {
        name: "uid-generator-dc",
        aliases: &[],
        fields: &[
            (FieldKind::Time, 28),
            (FieldKind::Datacenter, 5),
            (FieldKind::Worker, 17),
            (FieldKind::Sequence, 13),
        ],
        unit: Some(TimeUnit::SECOND),
        epoch_ms: UID_GENERATOR_EPOCH_MS,
        roles: &[],
        text_form: None,
        source: "baidu/uid-generator, worker bits split into datacenter and worker",
        note: None,
    },
    NamedLayout {
        name: "sonyflake",
        aliases: &[],
        fields: &[
            (FieldKind::Time, 39),
            (FieldKind::Sequence, 8),
            (FieldKind::Machine, 16),
        ],
        unit: Some(TimeUnit::TEN_MILLISECONDS),
        epoch_ms: 1_409_529_600_000,
        roles: &[],
        text_form: None,
        source: "sony/sonyflake v1",
        note: None,
    },
    NamedLayout {
        name: "sonyflake-v2",
        aliases: &[],
        fields: &[
            (FieldKind::Time, 39),
            (FieldKind::Sequence, 8),
            (FieldKind::Machine, 16),
        ],
        unit: Some(TimeUnit::TEN_MILLISECONDS),
        // 2025-01-01T00:00:00Z, v2's default StartTime.
        epoch_ms: 1_735_689_600_000,
        roles: &[],
        text_form: None,
        source: "sony/sonyflake v2 defaults (BitsSequence 8, BitsMachineID 16, TimeUnit 10ms)",
        note: None,
    },
    NamedLayout {
        name: "yitter",
        aliases: &[],
        fields: &[
            (FieldKind::Time, 51),
            (FieldKind::Worker, 6),
            (FieldKind::Sequence, 6),
        ],
        unit: MS,
        // 2020-02-20T02:20:02+08:00 (2020-02-19T18:20:02Z), IdGenerator's default BaseTime.
        epoch_ms: 1_582_136_402_000,
        roles: &[],
        text_form: None,
        source: "yitter/IdGenerator defaults (WorkerIdBitLength 6, SeqBitLength 6)",
        note: Some(
            "IdGenerator keeps sequence 0-4 for clock-rollback IDs and may run ahead of the clock under load",
        ),
    },
    NamedLayout {
        name: "tsid",
        aliases: &[],
        fields: &[
            (FieldKind::Time, 42),
            (FieldKind::Node, 10),
            (FieldKind::Counter, 12),
        ],
        unit: MS,
        // 2020-01-01T00:00:00Z, Tsid.TSID_EPOCH.
        epoch_ms: 1_577_836_800_000,
        roles: &[],
        text_form: Some(TextForm::Tsid),
        source: "f4b6a3/tsid-creator TsidFactory defaults (10 node bits)",
        note: Some("the counter starts at a random value each millisecond"),
    },
    NamedLayout {
        name: "seata",
        aliases: &[],
        fields: &[
            (FieldKind::Worker, 10),
            (FieldKind::Time, 41),
            (FieldKind::Sequence, 12),
        ],
        unit: MS,
        // 2020-05-03T00:00:00+08:00.
        epoch_ms: 1_588_435_200_000,
        roles: &[],
        text_form: None,
        source: "apache/incubator-seata IdWorker",
        note: Some(
            "IdWorker takes the time once at start and then counts, so the time runs ahead of the clock",
        ),
    },
    NamedLayout {
        name: "segment",
        aliases: &[],
        fields: &[
            // The bit layout is `SegmentId`'s: one definition.
            (FieldKind::Index, crate::shard::INDEX_BITS),
            (FieldKind::Shard, crate::shard::SHARD_BITS),
            (FieldKind::App, crate::shard::APP_BITS),
        ],
        unit: None,
        epoch_ms: 0,
        roles: &[],
        text_form: None,
        source: "idgen's own segment IDs",
        note: None,
    },
];

/// The name a layout gets when its fields match no named layout.
pub const CUSTOM: &str = "custom";

/// Every named layout, in the order help texts list them.
pub fn catalog() -> &'static [NamedLayout] {
    NAMED
}

/// The names `Layout::named` accepts, without aliases.
pub fn layout_names() -> impl Iterator<Item = &'static str> {
    NAMED.iter().map(|named| named.name)
}

/// Every name `Layout::named` accepts: names, then aliases.
pub fn layout_names_and_aliases() -> impl Iterator<Item = &'static str> {
    layout_names().chain(NAMED.iter().flat_map(|named| named.aliases.iter().copied()))
}

/// Every named layout with its default epoch.
pub fn named_layouts() -> impl Iterator<Item = Layout> {
    NAMED.iter().map(NamedLayout::layout)
}

/// The entry a name or alias refers to.
pub(super) fn lookup(name: &str) -> Option<&'static NamedLayout> {
    let wanted = name.trim().to_ascii_lowercase();
    NAMED
        .iter()
        .find(|named| named.name == wanted || named.aliases.contains(&wanted.as_str()))
}
