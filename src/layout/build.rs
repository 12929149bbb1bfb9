//! Making a [`Layout`]: from a name, a `--bits` field list or a stored
//! signature, and changing its epoch or pinning a worker-ID field. Every
//! check a layout must pass (widths, duplicates, its time range) is made here,
//! once, so every other part of the crate may take a layout as valid.

use super::named::{NAMED, NamedLayout, lookup};
use super::text::{parse_digits, parse_digits_signed};
use super::{CUSTOM, Field, FieldKind, Layout, LayoutError, Role, TimeBase, TimeUnit};

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
}
