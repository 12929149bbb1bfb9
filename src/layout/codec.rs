//! Putting IDs together and taking them apart under a [`Layout`]: by field
//! values, or by the parts a generator fills (time, worker ID, sequence).

use super::{Decoded, FieldKind, Layout, LayoutError, Parts, Role};

impl Layout {
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
