//! Bit layouts of 64-bit IDs: which field sits in which bits, and what the time field counts.
//!
//! A [`Layout`] is either one of the named layouts ([`catalog`]) or a custom one
//! described as `time:41,worker:10,seq:12`. Fields are listed from the high bits to the
//! low bits. Their widths add up to 63 (a signed layout: the sign bit stays 0) or to 64
//! (an unsigned layout such as `discord`).
//!
//! The time field counts whole [`TimeUnit`]s since the layout's epoch. Every time is a
//! Unix timestamp in milliseconds (`i64`), always UTC.

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
pub use text::{
    IdForm, ReadId, TextForm, format_timestamp, parse_epoch, parse_fixed, parse_id, read_id,
};

use named::{NAMED, lookup};
use std::fmt;
use text::{parse_digits, parse_digits_signed};

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
        let kind = FieldKind::parse(name)?;
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

impl Layout {
    /// A named layout, by name or alias, with its default epoch.
    pub fn named(name: &str) -> Result<Layout, LayoutError> {
        let named = lookup(name).ok_or_else(|| LayoutError::UnknownLayout {
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
        Layout::build(specs, time, Some(named))
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
        Layout::build(specs, time, None)
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
        let mut layout = Layout::custom(bits, unit, epoch)?;
        if layout.name != name {
            // Layouts that differ only in their default epoch (sonyflake, sonyflake-v2)
            // keep the name they were stored under.
            match NAMED
                .iter()
                .find(|named| named.name == name && layout.has_fields_of(named))
            {
                Some(named) => layout.adopt(named),
                None => {
                    return Err(bad(&format!(
                        "those fields make layout {}, not {name}",
                        layout.name
                    )));
                }
            }
        }
        Ok(layout)
    }

    /// Checks and places the fields. `named` is the entry asked for by name; a custom
    /// layout takes the name of the entry it matches, if any.
    fn build(
        specs: Vec<FieldSpec>,
        time: Option<TimeBase>,
        named: Option<&'static NamedLayout>,
    ) -> Result<Layout, LayoutError> {
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
                role: spec.kind.role(),
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
            text_form: None,
        };
        if let Some(named) = named.or_else(|| layout.matching_named()) {
            layout.adopt(named);
        }
        if let Some(time_field) = layout.field(FieldKind::Time) {
            let base = layout.time.ok_or(LayoutError::EpochNeeded)?;
            let span = (1i128 << time_field.width) * i128::from(base.unit.ms());
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

    /// The named layout with these fields and unit; of several, the one with this epoch.
    fn matching_named(&self) -> Option<&'static NamedLayout> {
        let mut matches = NAMED.iter().filter(|named| self.has_fields_of(named));
        let first = matches.next()?;
        let epoch = self.epoch_ms();
        Some(
            std::iter::once(first)
                .chain(matches)
                .find(|named| named.unit.is_some() && Some(named.epoch_ms) == epoch)
                .unwrap_or(first),
        )
    }

    fn has_fields_of(&self, named: &NamedLayout) -> bool {
        named.unit == self.time.map(|t| t.unit)
            && named.fields.len() == self.fields.len()
            && named
                .fields
                .iter()
                .zip(&self.fields)
                .all(|(&(kind, width), field)| field.kind == kind && field.width == width)
    }

    /// Takes the name, field roles and text form of the named layout it matches.
    fn adopt(&mut self, named: &'static NamedLayout) {
        self.name = named.name;
        self.text_form = named.text_form;
        for field in &mut self.fields {
            field.role = named.role_of(field.kind);
        }
    }

    /// The text form IDs of this layout also have (TSID strings), if any.
    pub fn text_form(&self) -> Option<TextForm> {
        self.text_form
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
        let span = (1i128 << time_width) * i128::from(base.unit.ms());
        if i128::from(epoch_ms) + span > i128::from(i64::MAX) {
            return Err(LayoutError::TimeRangeTooLarge {
                width: time_width,
                unit: base.unit,
            });
        }
        base.epoch_ms = epoch_ms;
        Ok(self)
    }

    /// Pins a worker-ID field to `value`, so only the remaining worker bits are leased.
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
        if field.role != Role::Worker {
            return Err(LayoutError::NotAWorkerField { field: kind.name() });
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

    /// Whether a generator can issue IDs in this layout; says what is missing if not.
    pub fn check_generatable(&self) -> Result<(), LayoutError> {
        let problem = if self.field(FieldKind::Time).is_none() {
            Some("it has no time field".to_string())
        } else if !self.fields.iter().any(|f| f.role == Role::Sequence) {
            Some("it has no sequence field".to_string())
        } else {
            self.fields
                .iter()
                .find(|f| matches!(f.role, Role::Segment | Role::Other))
                .map(|f| {
                    format!(
                        "{} is neither a time, sequence nor worker-ID field",
                        f.name()
                    )
                })
        };
        match problem {
            Some(problem) => Err(LayoutError::NotGeneratable {
                layout: self.name.to_string(),
                problem,
            }),
            None => Ok(()),
        }
    }

    /// Builds an ID from every field's value. Fixed worker-ID fields may be left out.
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
            text: self.text_form.map(|form| form.format(id)),
        })
    }

    /// Builds an ID the way a generator does: `worker` is spread over the free worker-ID fields
    /// from high to low (for `snowflake-dc`, worker ID 37 is datacenter 1, worker 5).
    pub fn compose_parts(&self, parts: Parts) -> Result<u64, LayoutError> {
        self.check_generatable()?;
        if parts.worker >= self.worker_capacity() && self.worker_bits() < 64 {
            return Err(LayoutError::WorkerTooLarge {
                worker: parts.worker,
                bits: self.worker_bits(),
                layout: self.name.to_string(),
            });
        }
        let mut values = Vec::with_capacity(self.fields.len());
        let mut worker = parts.worker;
        for field in self.fields.iter().rev() {
            let value = match field.role {
                Role::Time => parts.time,
                Role::Sequence => parts.sequence,
                Role::Worker => match field.fixed {
                    Some(value) => value,
                    None => {
                        let value = worker & field.max();
                        worker = worker.checked_shr(field.width).unwrap_or(0);
                        value
                    }
                },
                Role::Segment | Role::Other => {
                    unreachable!("check_generatable refuses fields it cannot fill")
                }
            };
            values.push((field.kind, value));
        }
        self.compose(&values)
    }

    /// The inverse of [`Layout::compose_parts`]. Refuses an ID whose fixed worker-ID fields
    /// differ from this layout's.
    pub fn parts(&self, id: u64) -> Result<Parts, LayoutError> {
        self.check_generatable()?;
        let decoded = self.decompose(id)?;
        let mut parts = Parts {
            time: 0,
            worker: 0,
            sequence: 0,
        };
        for (field, &(_, value)) in self.fields.iter().zip(&decoded.values) {
            match (field.role, field.fixed) {
                (Role::Time, _) => parts.time = value,
                (Role::Sequence, _) => parts.sequence = value,
                (Role::Worker, None) => {
                    parts.worker = parts.worker.checked_shl(field.width).unwrap_or(0) | value
                }
                (Role::Worker, Some(fixed)) if fixed != value => {
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
