//! Bit layouts of 64-bit IDs: which field sits in which bits, and what the time field counts.
//!
//! A [`Layout`] is either one of the named layouts ([`catalog`]) or a custom one
//! described as `time:41,worker:10,seq:12`. Fields are listed from the high bits to the
//! low bits. Their widths add up to 63 (a signed layout: the sign bit stays 0) or to 64
//! (an unsigned layout such as `discord`).
//!
//! The time field counts whole [`TimeUnit`]s since the layout's epoch. Every time is a
//! Unix timestamp in milliseconds (`i64`), always UTC.
//!
//! This file holds the types and what a layout tells about itself;
//! [`Layout`] is built and checked in `build`, and IDs are composed and
//! decomposed in `codec`.

mod build;
mod codec;
mod error;
mod fields;
mod guess;
mod json;
mod named;
mod text;

pub use error::LayoutError;
pub use fields::{FieldKind, MAX_FIELD_NAME, Role, TimeUnit};
pub use guess::{Candidate, DEFAULT_FUTURE_MS, Window, guess};
pub use json::DecodedJson;
pub use named::{
    CUSTOM, NamedLayout, catalog, layout_names, layout_names_and_aliases, named_layouts,
};
use std::fmt;
pub use text::{
    IdForm, ReadId, TextForm, format_timestamp, parse_epoch, parse_fixed, parse_id, read_id,
};

/// One field of a layout: its place in the ID and, for a worker-ID field, an optional fixed value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    kind: FieldKind,
    role: Role,
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

    /// How a generator fills the field; usually its kind's role, but a named layout may
    /// differ (instagram's shard names the issuer).
    pub fn role(&self) -> Role {
        self.role
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
    text_form: Option<TextForm>,
}

/// The parts a generator puts into an ID: time units since the epoch, the leased worker
/// ID (spread over the layout's free worker-ID fields) and the sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parts {
    pub time: u64,
    pub worker: u64,
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
    /// The ID in the layout's text form (a TSID string), if it has one.
    pub text: Option<String>,
}

impl Decoded {
    pub fn get(&self, kind: FieldKind) -> Option<u64> {
        self.values
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, value)| *value)
    }
}

impl Layout {
    /// The text form IDs of this layout also have (TSID strings), if any.
    pub fn text_form(&self) -> Option<TextForm> {
        self.text_form
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
        let units = offset.div_euclid(i128::from(base.unit.ms()));
        Some(units.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
    }

    /// The first Unix millisecond of time unit `units`.
    pub fn unit_start_ms(&self, units: i64) -> Option<i64> {
        let base = self.time?;
        let ms = i128::from(base.epoch_ms) + i128::from(units) * i128::from(base.unit.ms());
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

    /// Worker-ID fields whose value the lease decides (not fixed), high to low.
    pub fn worker_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields
            .iter()
            .filter(|field| field.role == Role::Worker && field.fixed.is_none())
    }

    /// Bits of the one worker ID a holder leases.
    pub fn worker_bits(&self) -> u32 {
        self.worker_fields().map(Field::width).sum()
    }

    /// How many distinct worker IDs there are (saturating at `u64::MAX`).
    pub fn worker_capacity(&self) -> u64 {
        1u64.checked_shl(self.worker_bits()).unwrap_or(u64::MAX)
    }
}

impl fmt::Display for Layout {
    /// The signature.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.signature())
    }
}
