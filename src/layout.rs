//! Bit layouts of 64-bit IDs: which field sits in which bits, and what the time field counts.
//!
//! A [`Layout`] is either one of the named layouts ([`named_layouts`]) or a custom one
//! described as `time:41,worker:10,seq:12`. Fields are listed from the high bits to the
//! low bits. Their widths add up to 63 (a signed layout: the sign bit stays 0) or to 64
//! (an unsigned layout such as `discord`).
//!
//! The time field counts whole [`TimeUnit`]s since the layout's epoch. Every time is a
//! Unix timestamp in milliseconds (`i64`), always UTC.

use std::fmt;
use std::str::FromStr;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

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

/// One field of a layout: its place in the ID and, for a node field, an optional fixed value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    kind: FieldKind,
    width: u32,
    shift: u32,
    fixed: Option<u64>,
}

impl Field {
    pub fn kind(&self) -> FieldKind {
        self.kind
    }

    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// Number of bits.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Position of the field's lowest bit.
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// The largest value the field holds.
    pub fn max(&self) -> u64 {
        u64::MAX >> (64 - self.width)
    }

    /// The value this layout pins the field to, so the lease does not hand it out.
    pub fn fixed(&self) -> Option<u64> {
        self.fixed
    }

    fn extract(&self, id: u64) -> u64 {
        (id >> self.shift) & self.max()
    }

    fn place(&self, value: u64) -> u64 {
        value << self.shift
    }
}

/// How long one step of the time field lasts: `ms`, `10ms`, `s`, any `Nms` or `Ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeUnit {
    ms: u32,
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

struct NamedLayout {
    name: &'static str,
    fields: &'static [(FieldKind, u32)],
    unit: Option<TimeUnit>,
    epoch_ms: i64,
}

const TWITTER_EPOCH_MS: i64 = 1_288_834_974_657;
/// 2016-05-20T00:00:00Z; the original reads the date in the server's local time zone.
const UID_GENERATOR_EPOCH_MS: i64 = 1_463_702_400_000;

const NAMED: &[NamedLayout] = &[
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

/// The time base of a layout that has a time field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct TimeBase {
    unit: TimeUnit,
    epoch_ms: i64,
}

/// A bit layout: fields from high to low, and for time-based layouts a unit and an epoch.
///
/// Two layouts are the same layout iff their [`Layout::signature`]s are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    name: &'static str,
    fields: Vec<Field>,
    width: u32,
    time: Option<TimeBase>,
}

/// The parts a generator puts into an ID: time units since the epoch, the leased node
/// value (spread over the layout's free node fields) and the sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parts {
    pub time: u64,
    pub node: u64,
    pub sequence: u64,
}

/// An ID taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub id: u64,
    /// Every field's value, in layout order (high to low).
    pub values: Vec<(FieldKind, u64)>,
    /// Start of the ID's time unit, for layouts with a time field.
    pub unix_ms: Option<i64>,
}

impl Decoded {
    pub fn get(&self, kind: FieldKind) -> Option<u64> {
        self.values
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, value)| *value)
    }
}

/// One field as written in `--bits`: `worker:10`, or `datacenter:5=3` to fix its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FieldSpec {
    kind: FieldKind,
    width: u32,
    fixed: Option<u64>,
}

fn parse_field_specs(spec: &str) -> Result<Vec<FieldSpec>, LayoutError> {
    let mut specs = Vec::new();
    for part in spec.split(',').map(str::trim) {
        let bad = || LayoutError::BadField {
            part: part.to_string(),
        };
        let (name, rest) = part.split_once(':').ok_or_else(bad)?;
        let kind = FieldKind::from_name(name).ok_or_else(|| LayoutError::UnknownField {
            name: name.trim().to_string(),
        })?;
        let (width, fixed) = match rest.split_once('=') {
            Some((width, value)) => (width, Some(value)),
            None => (rest, None),
        };
        let width: u32 = parse_digits(width).ok_or_else(bad)?;
        let fixed = match fixed {
            Some(value) => Some(parse_digits(value).ok_or_else(bad)?),
            None => None,
        };
        specs.push(FieldSpec { kind, width, fixed });
    }
    Ok(specs)
}

fn parse_digits<T: FromStr>(text: &str) -> Option<T> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl Layout {
    /// A named layout with its default epoch.
    pub fn named(name: &str) -> Result<Layout, LayoutError> {
        let wanted = name.trim().to_ascii_lowercase();
        let named = NAMED
            .iter()
            .find(|named| named.name == wanted)
            .ok_or_else(|| LayoutError::UnknownLayout {
                name: name.to_string(),
            })?;
        let specs = named
            .fields
            .iter()
            .map(|&(kind, width)| FieldSpec {
                kind,
                width,
                fixed: None,
            })
            .collect();
        let time = named.unit.map(|unit| TimeBase {
            unit,
            epoch_ms: named.epoch_ms,
        });
        Layout::build(specs, time)
    }

    /// A layout from a field list such as `time:41,worker:10,seq:12`.
    ///
    /// A layout with a time field needs an epoch (no default: a wrong one silently
    /// misdates every ID); its unit defaults to milliseconds. A layout without a time
    /// field takes neither. Matching a named layout's fields and unit gives that name.
    pub fn custom(
        bits: &str,
        unit: Option<TimeUnit>,
        epoch_ms: Option<i64>,
    ) -> Result<Layout, LayoutError> {
        let specs = parse_field_specs(bits)?;
        let has_time = specs.iter().any(|spec| spec.kind == FieldKind::Time);
        let time = if has_time {
            let epoch_ms = epoch_ms.ok_or(LayoutError::EpochNeeded)?;
            Some(TimeBase {
                unit: unit.unwrap_or(TimeUnit::MILLISECOND),
                epoch_ms,
            })
        } else {
            let what = if epoch_ms.is_some() {
                Some("an epoch")
            } else if unit.is_some() {
                Some("a time unit")
            } else {
                None
            };
            if let Some(what) = what {
                return Err(LayoutError::NoTimeField {
                    layout: CUSTOM.to_string(),
                    what,
                });
            }
            None
        };
        Layout::build(specs, time)
    }

    /// Parses a [`Layout::signature`] back into the layout it describes.
    pub fn from_signature(text: &str) -> Result<Layout, LayoutError> {
        let bad = |problem: &str| LayoutError::BadSignature {
            text: text.to_string(),
            problem: problem.to_string(),
        };
        let mut tokens = text.split_whitespace();
        let name = tokens.next().ok_or_else(|| bad("it is empty"))?;
        let bits = tokens.next().ok_or_else(|| bad("it has no field list"))?;
        let (mut unit, mut epoch) = (None, None);
        for token in tokens {
            match token.split_once('=') {
                Some(("unit", value)) if unit.is_none() => unit = Some(TimeUnit::parse(value)?),
                Some(("epoch", value)) if epoch.is_none() => {
                    epoch = Some(
                        parse_digits_signed(value)
                            .ok_or_else(|| bad("its epoch is not Unix milliseconds"))?,
                    )
                }
                _ => return Err(bad(&format!("{token:?} is neither unit=U nor epoch=MS"))),
            }
        }
        let layout = Layout::custom(bits, unit, epoch)?;
        if layout.name != name {
            return Err(bad(&format!(
                "those fields make layout {}, not {name}",
                layout.name
            )));
        }
        Ok(layout)
    }

    fn build(specs: Vec<FieldSpec>, time: Option<TimeBase>) -> Result<Layout, LayoutError> {
        if specs.is_empty() {
            return Err(LayoutError::TotalWidth { total: 0 });
        }
        for (i, spec) in specs.iter().enumerate() {
            if specs[..i].iter().any(|earlier| earlier.kind == spec.kind) {
                return Err(LayoutError::DuplicateField {
                    field: spec.kind.name(),
                });
            }
            if spec.width == 0 {
                return Err(LayoutError::ZeroWidth {
                    field: spec.kind.name(),
                });
            }
        }
        let mut sequences = specs.iter().filter(|s| s.kind.role() == Role::Sequence);
        if let (Some(first), Some(second)) = (sequences.next(), sequences.next()) {
            return Err(LayoutError::TwoSequenceFields {
                first: first.kind.name(),
                second: second.kind.name(),
            });
        }
        let total: u32 = specs
            .iter()
            .map(|spec| spec.width)
            .fold(0u32, u32::saturating_add);
        if total != 63 && total != 64 {
            return Err(LayoutError::TotalWidth { total });
        }
        let mut shift = total;
        let mut fields = Vec::with_capacity(specs.len());
        for spec in &specs {
            shift -= spec.width;
            fields.push(Field {
                kind: spec.kind,
                width: spec.width,
                shift,
                fixed: None,
            });
        }
        let mut layout = Layout {
            name: CUSTOM,
            fields,
            width: total,
            time,
        };
        layout.name = layout.matching_name();
        if let Some(time_field) = layout.field(FieldKind::Time) {
            let base = layout.time.ok_or(LayoutError::EpochNeeded)?;
            let span = (1i128 << time_field.width) * i128::from(base.unit.ms);
            if i128::from(base.epoch_ms) + span > i128::from(i64::MAX) {
                return Err(LayoutError::TimeRangeTooLarge {
                    width: time_field.width,
                    unit: base.unit,
                });
            }
        }
        for spec in specs {
            if let Some(value) = spec.fixed {
                layout = layout.with_fixed(spec.kind, value)?;
            }
        }
        Ok(layout)
    }

    fn matching_name(&self) -> &'static str {
        NAMED
            .iter()
            .find(|named| {
                named.unit == self.time.map(|t| t.unit)
                    && named.fields.len() == self.fields.len()
                    && named
                        .fields
                        .iter()
                        .zip(&self.fields)
                        .all(|(&(kind, width), field)| field.kind == kind && field.width == width)
            })
            .map_or(CUSTOM, |named| named.name)
    }

    /// The same layout counted from another epoch.
    pub fn with_epoch_ms(mut self, epoch_ms: i64) -> Result<Layout, LayoutError> {
        let time_width = match self.field(FieldKind::Time) {
            Some(field) => field.width,
            None => {
                return Err(LayoutError::NoTimeField {
                    layout: self.name.to_string(),
                    what: "an epoch",
                });
            }
        };
        let base = self.time.as_mut().ok_or(LayoutError::EpochNeeded)?;
        let span = (1i128 << time_width) * i128::from(base.unit.ms);
        if i128::from(epoch_ms) + span > i128::from(i64::MAX) {
            return Err(LayoutError::TimeRangeTooLarge {
                width: time_width,
                unit: base.unit,
            });
        }
        base.epoch_ms = epoch_ms;
        Ok(self)
    }

    /// Pins a node field to `value`, so only the remaining node bits are leased.
    ///
    /// Part of the signature: holders that fix different values are different layouts.
    pub fn with_fixed(mut self, kind: FieldKind, value: u64) -> Result<Layout, LayoutError> {
        let layout_name = self.name.to_string();
        let field = self
            .fields
            .iter_mut()
            .find(|field| field.kind == kind)
            .ok_or_else(|| LayoutError::NoSuchField {
                layout: layout_name.clone(),
                field: kind.name(),
            })?;
        if kind.role() != Role::Node {
            return Err(LayoutError::NotANodeField { field: kind.name() });
        }
        if let Some(fixed) = field.fixed {
            return Err(LayoutError::AlreadyFixed {
                field: kind.name(),
                value: fixed,
            });
        }
        if value > field.max() {
            return Err(LayoutError::ValueTooLarge {
                field: kind.name(),
                value,
                max: field.max(),
            });
        }
        field.fixed = Some(value);
        Ok(self)
    }

    /// `snowflake`, `discord`, ... or [`CUSTOM`].
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Fields from the high bits to the low bits.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    pub fn field(&self, kind: FieldKind) -> Option<&Field> {
        self.fields.iter().find(|field| field.kind == kind)
    }

    /// 63 for a signed layout (sign bit always 0), 64 for an unsigned one.
    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn is_signed(&self) -> bool {
        self.width == 63
    }

    /// The largest ID the layout can hold.
    pub fn max_id(&self) -> u64 {
        u64::MAX >> (64 - self.width)
    }

    pub fn unit(&self) -> Option<TimeUnit> {
        self.time.map(|t| t.unit)
    }

    /// The epoch in Unix milliseconds, for layouts with a time field.
    pub fn epoch_ms(&self) -> Option<i64> {
        self.time.map(|t| t.epoch_ms)
    }

    /// The largest value of the time field.
    pub fn max_time(&self) -> Option<u64> {
        self.field(FieldKind::Time).map(Field::max)
    }

    /// The first instant the time field cannot hold: the layout issues nothing from then on.
    pub fn exhausted_at_ms(&self) -> Option<i64> {
        let max = self.max_time()?;
        self.unit_start_ms(max as i64 + 1)
    }

    /// The time unit containing `unix_ms`, counted from the epoch (negative before it).
    pub fn time_units_at(&self, unix_ms: i64) -> Option<i64> {
        let base = self.time?;
        let offset = i128::from(unix_ms) - i128::from(base.epoch_ms);
        let units = offset.div_euclid(i128::from(base.unit.ms));
        Some(units.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
    }

    /// The first Unix millisecond of time unit `units`.
    pub fn unit_start_ms(&self, units: i64) -> Option<i64> {
        let base = self.time?;
        let ms = i128::from(base.epoch_ms) + i128::from(units) * i128::from(base.unit.ms);
        i64::try_from(ms).ok()
    }

    /// The stable text that identifies this layout, stored per lease namespace:
    /// `NAME FIELD:WIDTH[=FIXED],... [unit=UNIT epoch=UNIX_MS]`, e.g.
    /// `snowflake time:41,worker:10,sequence:12 unit=ms epoch=1288834974657`.
    pub fn signature(&self) -> String {
        let fields: Vec<String> = self
            .fields
            .iter()
            .map(|field| match field.fixed {
                Some(value) => format!("{}:{}={value}", field.name(), field.width),
                None => format!("{}:{}", field.name(), field.width),
            })
            .collect();
        let mut text = format!("{} {}", self.name, fields.join(","));
        if let Some(base) = self.time {
            text.push_str(&format!(" unit={} epoch={}", base.unit, base.epoch_ms));
        }
        text
    }

    /// Node fields whose value the lease decides (not fixed), high to low.
    pub fn node_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields
            .iter()
            .filter(|field| field.kind.role() == Role::Node && field.fixed.is_none())
    }

    /// Bits of the one `node` value a holder leases.
    pub fn node_bits(&self) -> u32 {
        self.node_fields().map(Field::width).sum()
    }

    /// How many distinct node values there are (saturating at `u64::MAX`).
    pub fn node_capacity(&self) -> u64 {
        1u64.checked_shl(self.node_bits()).unwrap_or(u64::MAX)
    }

    /// Whether a generator can issue IDs in this layout; says what is missing if not.
    pub fn check_generatable(&self) -> Result<(), LayoutError> {
        let problem = if self.field(FieldKind::Time).is_none() {
            Some("it has no time field".to_string())
        } else if !self.fields.iter().any(|f| f.kind.role() == Role::Sequence) {
            Some("it has no sequence field".to_string())
        } else {
            self.fields
                .iter()
                .find(|f| f.kind.role() == Role::Segment)
                .map(|f| format!("{} is a segment field", f.name()))
        };
        match problem {
            Some(problem) => Err(LayoutError::NotGeneratable {
                layout: self.name.to_string(),
                problem,
            }),
            None => Ok(()),
        }
    }

    /// Builds an ID from every field's value. Fixed node fields may be left out.
    pub fn compose(&self, values: &[(FieldKind, u64)]) -> Result<u64, LayoutError> {
        for (i, (kind, _)) in values.iter().enumerate() {
            if values[..i].iter().any(|(earlier, _)| earlier == kind) {
                return Err(LayoutError::DuplicateField { field: kind.name() });
            }
            if self.field(*kind).is_none() {
                return Err(LayoutError::NoSuchField {
                    layout: self.name.to_string(),
                    field: kind.name(),
                });
            }
        }
        let mut id = 0;
        for field in &self.fields {
            let given = values.iter().find(|(kind, _)| *kind == field.kind);
            let value = match (given, field.fixed) {
                (Some(&(_, value)), _) | (None, Some(value)) => value,
                (None, None) => {
                    return Err(LayoutError::MissingValue {
                        field: field.name(),
                    });
                }
            };
            if value > field.max() {
                return Err(LayoutError::ValueTooLarge {
                    field: field.name(),
                    value,
                    max: field.max(),
                });
            }
            id |= field.place(value);
        }
        Ok(id)
    }

    /// Takes an ID apart. Refuses an ID with the sign bit set in a signed layout.
    pub fn decompose(&self, id: u64) -> Result<Decoded, LayoutError> {
        if id > self.max_id() {
            return Err(LayoutError::SignBitSet {
                id,
                layout: self.name.to_string(),
            });
        }
        let values: Vec<(FieldKind, u64)> = self
            .fields
            .iter()
            .map(|field| (field.kind, field.extract(id)))
            .collect();
        let unix_ms = self
            .field(FieldKind::Time)
            .and_then(|field| self.unit_start_ms(field.extract(id) as i64));
        Ok(Decoded {
            id,
            values,
            unix_ms,
        })
    }

    /// Builds an ID the way a generator does: `node` is spread over the free node fields
    /// from high to low (for `snowflake-dc`, node 37 is datacenter 1, worker 5).
    pub fn compose_parts(&self, parts: Parts) -> Result<u64, LayoutError> {
        self.check_generatable()?;
        if parts.node >= self.node_capacity() && self.node_bits() < 64 {
            return Err(LayoutError::NodeTooLarge {
                node: parts.node,
                bits: self.node_bits(),
                layout: self.name.to_string(),
            });
        }
        let mut values = Vec::with_capacity(self.fields.len());
        let mut node = parts.node;
        for field in self.fields.iter().rev() {
            let value = match field.kind.role() {
                Role::Time => parts.time,
                Role::Sequence => parts.sequence,
                Role::Node => match field.fixed {
                    Some(value) => value,
                    None => {
                        let value = node & field.max();
                        node = node.checked_shr(field.width).unwrap_or(0);
                        value
                    }
                },
                Role::Segment => unreachable!("check_generatable refuses segment fields"),
            };
            values.push((field.kind, value));
        }
        self.compose(&values)
    }

    /// The inverse of [`Layout::compose_parts`]. Refuses an ID whose fixed node fields
    /// differ from this layout's.
    pub fn parts(&self, id: u64) -> Result<Parts, LayoutError> {
        self.check_generatable()?;
        let decoded = self.decompose(id)?;
        let mut parts = Parts {
            time: 0,
            node: 0,
            sequence: 0,
        };
        for (field, &(_, value)) in self.fields.iter().zip(&decoded.values) {
            match (field.kind.role(), field.fixed) {
                (Role::Time, _) => parts.time = value,
                (Role::Sequence, _) => parts.sequence = value,
                (Role::Node, None) => {
                    parts.node = parts.node.checked_shl(field.width).unwrap_or(0) | value
                }
                (Role::Node, Some(fixed)) if fixed != value => {
                    return Err(LayoutError::FixedMismatch {
                        id,
                        field: field.name(),
                        found: value,
                        fixed,
                    });
                }
                _ => {}
            }
        }
        Ok(parts)
    }
}

impl fmt::Display for Layout {
    /// The signature.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.signature())
    }
}

fn parse_digits_signed(text: &str) -> Option<i64> {
    match text.strip_prefix('-') {
        Some(rest) => parse_digits::<i64>(rest).map(|v| -v),
        None => parse_digits(text),
    }
}

/// Parses an ID as users write it: an unsigned decimal integer.
pub fn parse_id(text: &str) -> Result<u64, LayoutError> {
    let trimmed = text.trim();
    let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
    if let Some(rest) = digits.strip_prefix('-')
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(LayoutError::NegativeId {
            text: trimmed.to_string(),
        });
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LayoutError::NotANumber {
            text: text.to_string(),
        });
    }
    digits.parse().map_err(|_| LayoutError::IdTooLarge {
        text: trimmed.to_string(),
    })
}

/// Parses an epoch: Unix milliseconds (`1288834974657`), an RFC 3339 date-time with or
/// without an offset (none means UTC), or a date `YYYY-MM-DD` (UTC midnight).
pub fn parse_epoch(text: &str) -> Result<i64, LayoutError> {
    let trimmed = text.trim();
    let bad = |problem: &str| LayoutError::BadEpoch {
        text: text.to_string(),
        problem: problem.to_string(),
    };
    if let Some(ms) = parse_digits_signed(trimmed) {
        return Ok(ms);
    }
    let candidates = [
        trimmed.to_string(),
        format!("{trimmed}Z"),
        format!("{trimmed}T00:00:00Z"),
    ];
    let parsed = candidates
        .iter()
        .find_map(|candidate| OffsetDateTime::parse(candidate, &Rfc3339).ok())
        .ok_or_else(|| bad("it is neither Unix milliseconds nor an RFC 3339 date-time"))?;
    let nanos = parsed.unix_timestamp_nanos();
    if nanos % 1_000_000 != 0 {
        return Err(bad("it is not a whole millisecond"));
    }
    i64::try_from(nanos / 1_000_000).map_err(|_| bad("it is out of range"))
}

/// Formats Unix milliseconds as RFC 3339 in UTC with milliseconds:
/// `2016-04-30T11:18:25.796Z`. Instants outside years 0..=9999 become `@MSms`.
pub fn format_timestamp(unix_ms: i64) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(unix_ms) * 1_000_000)
        .ok()
        .filter(|at| (0..=9999).contains(&at.year()))
        .and_then(|at| at.format(&format).ok())
        .unwrap_or_else(|| format!("@{unix_ms}ms"))
}

/// Parses `FIELD=VALUE`, the way node fields are fixed on the command line (`datacenter=3`).
pub fn parse_fixed(text: &str) -> Result<(FieldKind, u64), LayoutError> {
    let bad = || LayoutError::BadFixed {
        text: text.to_string(),
    };
    let (name, value) = text.split_once('=').ok_or_else(bad)?;
    let kind = FieldKind::from_name(name).ok_or_else(|| LayoutError::UnknownField {
        name: name.trim().to_string(),
    })?;
    let value = parse_digits(value).ok_or_else(bad)?;
    Ok((kind, value))
}

fn field_names() -> String {
    let mut names: Vec<&str> = FieldKind::ALL.iter().map(|kind| kind.name()).collect();
    names.insert(2, "seq");
    names.join(", ")
}

fn known_layouts() -> String {
    layout_names().collect::<Vec<_>>().join(", ")
}

/// A layout could not be built, or a value does not fit it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    #[error("unknown layout {name:?}")]
    UnknownLayout { name: String },

    #[error("unknown field {name:?}")]
    UnknownField { name: String },

    #[error("{part:?} is not a field: expected NAME:WIDTH")]
    BadField { part: String },

    #[error("field {field} appears twice")]
    DuplicateField { field: &'static str },

    #[error("{first} and {second} are both sequence fields; a layout has at most one")]
    TwoSequenceFields {
        first: &'static str,
        second: &'static str,
    },

    #[error("field {field} has width 0")]
    ZeroWidth { field: &'static str },

    #[error("the fields add up to {total} bits, not 63 (signed) or 64 (unsigned)")]
    TotalWidth { total: u32 },

    #[error("{text:?} is not a time unit")]
    BadUnit { text: String },

    #[error("{text:?} is not an epoch: {problem}")]
    BadEpoch { text: String, problem: String },

    #[error("a custom layout with a time field needs an epoch")]
    EpochNeeded,

    #[error("layout {layout} has no time field, so {what} does not apply")]
    NoTimeField { layout: String, what: &'static str },

    #[error("a {width}-bit time field counting {unit} reaches beyond the year 292 million")]
    TimeRangeTooLarge { width: u32, unit: TimeUnit },

    #[error("layout {layout} cannot generate IDs: {problem}")]
    NotGeneratable { layout: String, problem: String },

    #[error("layout {layout} has no field {field}")]
    NoSuchField { layout: String, field: &'static str },

    #[error("{field} is not a node field, so it cannot be fixed")]
    NotANodeField { field: &'static str },

    #[error("{field} is already fixed to {value}")]
    AlreadyFixed { field: &'static str, value: u64 },

    #[error("{field}={value} does not fit the field (max {max})")]
    ValueTooLarge {
        field: &'static str,
        value: u64,
        max: u64,
    },

    #[error("node {node} does not fit the {bits} node bits of layout {layout}")]
    NodeTooLarge {
        node: u64,
        bits: u32,
        layout: String,
    },

    #[error("compose needs a value for field {field}")]
    MissingValue { field: &'static str },

    #[error("{text:?} is not FIELD=VALUE")]
    BadFixed { text: String },

    #[error("{text:?} is not a layout signature: {problem}")]
    BadSignature { text: String, problem: String },

    #[error("ID {text:?} is not a decimal number")]
    NotANumber { text: String },

    #[error("ID {text} is negative")]
    NegativeId { text: String },

    #[error("ID {text} is larger than any 64-bit ID (max 18446744073709551615)")]
    IdTooLarge { text: String },

    #[error("ID {id} has the sign bit set, which layout {layout} never does")]
    SignBitSet { id: u64, layout: String },

    #[error("ID {id} has {field}={found}, but this layout fixes {field}={fixed}")]
    FixedMismatch {
        id: u64,
        field: &'static str,
        found: u64,
        fixed: u64,
    },

    #[error(
        "the clock reads {}, before the epoch {} of layout {layout}",
        format_timestamp(*.now_ms),
        format_timestamp(*.epoch_ms)
    )]
    BeforeEpoch {
        now_ms: i64,
        epoch_ms: i64,
        layout: String,
    },
}

impl LayoutError {
    /// What to change so it works.
    pub fn hint(&self) -> String {
        use LayoutError::*;
        match self {
            UnknownLayout { .. } => format!(
                "use one of {}, or describe the fields with --bits",
                known_layouts()
            ),
            UnknownField { .. } => format!("field names are {}", field_names()),
            BadField { .. } => "write fields as NAME:WIDTH, comma-separated, high bits first: time:41,worker:10,seq:12".into(),
            DuplicateField { .. } => "list each field once".into(),
            TwoSequenceFields { .. } => "keep one of them".into(),
            ZeroWidth { .. } => "give the field at least 1 bit, or leave it out".into(),
            TotalWidth { total } => {
                let total = i64::from(*total);
                if total > 64 {
                    format!(
                        "remove {} bits for a signed 63-bit layout, or {} for an unsigned 64-bit one",
                        total - 63,
                        total - 64
                    )
                } else {
                    format!(
                        "add {} bits for a signed 63-bit layout, or {} for an unsigned 64-bit one",
                        63 - total,
                        64 - total
                    )
                }
            }
            BadUnit { .. } => "write a unit as ms, s, or a count of them: 10ms, 2s".into(),
            BadEpoch { .. } => "give Unix milliseconds (1288834974657), an RFC 3339 date-time (2016-05-20T00:00:00+08:00; no offset means UTC) or a date (2016-05-20)".into(),
            EpochNeeded => "add --epoch with the instant the layout counts from, e.g. --epoch 2024-01-01".into(),
            NoTimeField { .. } => "leave out --epoch and --unit for this layout".into(),
            TimeRangeTooLarge { .. } => "use fewer time bits or a shorter unit".into(),
            NotGeneratable { .. } => "a generator needs one time field, one sequence field and only node fields besides; segment IDs come from `idgen next`".into(),
            NoSuchField { .. } => "check the field names of the layout (`idgen decode --help` lists them)".into(),
            NotANodeField { .. } => "only worker, datacenter, process and machine fields can be fixed".into(),
            AlreadyFixed { .. } => "fix each field once".into(),
            ValueTooLarge { max, .. } => format!("use a value between 0 and {max}"),
            NodeTooLarge { bits, .. } => format!(
                "use a node below 2^{bits}, or a layout with more node bits"
            ),
            MissingValue { .. } => "give a value for every field that is not fixed".into(),
            BadFixed { .. } => "write it as FIELD=VALUE, e.g. datacenter=3".into(),
            BadSignature { .. } => "the stored layout signature is damaged; compare it with `Layout::signature` of the intended layout".into(),
            NotANumber { .. } | NegativeId { .. } | IdTooLarge { .. } => {
                "IDs are unsigned decimal integers such as 175928847299117063".into()
            }
            SignBitSet { .. } => {
                "this ID was not made with this layout; try an unsigned layout such as discord, or --bits with 64 bits".into()
            }
            FixedMismatch { .. } => "the ID was made under another fixed value; decode it without --fix".into(),
            BeforeEpoch { .. } => "choose an epoch in the past, or fix the host clock".into(),
        }
    }
}
