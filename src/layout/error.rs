//! Everything that can be wrong with a layout or an ID.

use super::text::{format_timestamp, known_layouts};
use super::{MAX_FIELD_NAME, TimeUnit};

/// A layout could not be built, or a value does not fit it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    #[error("unknown layout {name:?}")]
    UnknownLayout { name: String },

    #[error("{name:?} is not a field name")]
    BadFieldName { name: String },

    #[error("{name:?} cannot name a field: decode's output uses it")]
    ReservedFieldName { name: String },

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

    #[error("{field} is not a worker-ID field, so it cannot be fixed")]
    NotAWorkerField { field: &'static str },

    #[error("{field} is already fixed to {value}")]
    AlreadyFixed { field: &'static str, value: u64 },

    #[error("{field}={value} does not fit the field (max {max})")]
    ValueTooLarge {
        field: &'static str,
        value: u64,
        max: u64,
    },

    #[error("worker ID {worker} does not fit the {bits} worker bits of layout {layout}")]
    WorkerTooLarge {
        worker: u64,
        bits: u32,
        layout: String,
    },

    #[error("compose needs a value for field {field}")]
    MissingValue { field: &'static str },

    #[error("{text:?} is not FIELD=VALUE")]
    BadFixed { text: String },

    #[error("{text:?} is not a layout signature: {problem}")]
    BadSignature { text: String, problem: String },

    #[error("ID {text:?} is not a number")]
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
            BadFieldName { .. } => format!(
                "name a field with up to {MAX_FIELD_NAME} lowercase letters, digits, _ or -, starting with a letter"
            ),
            ReservedFieldName { .. } => "choose another name; id, layout, timestamp and unix_ms are taken".into(),
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
            NotGeneratable { .. } => "a generator needs one time field, one sequence field and only worker-ID fields besides; segment IDs come from `idgen next`, and layouts with other fields can only be decoded".into(),
            NoSuchField { .. } => "check the field names of the layout (`idgen decode --help` lists them)".into(),
            NotAWorkerField { .. } => "only worker, datacenter, process, machine and node fields can be fixed".into(),
            AlreadyFixed { .. } => "fix each field once".into(),
            ValueTooLarge { max, .. } => format!("use a value between 0 and {max}"),
            WorkerTooLarge { bits, .. } => format!(
                "use a worker ID below 2^{bits}, or a layout with more worker bits"
            ),
            MissingValue { .. } => "give a value for every field that is not fixed".into(),
            BadFixed { .. } => "write it as FIELD=VALUE, e.g. datacenter=3".into(),
            BadSignature { .. } => "the stored layout signature is damaged; compare it with `Layout::signature` of the intended layout".into(),
            NotANumber { .. } => "write an ID in decimal (175928847299117063) or hexadecimal (0x271065ac1020007), a TSID as its 13 characters, or give a URL or path that contains the ID".into(),
            NegativeId { .. } | IdTooLarge { .. } => {
                "IDs are unsigned 64-bit integers, from 0 to 18446744073709551615".into()
            }
            SignBitSet { .. } => {
                "this ID was not made with this layout; try an unsigned layout such as discord, or --bits with 64 bits".into()
            }
            FixedMismatch { .. } => "the ID was made under another fixed value; decode it without --fix".into(),
            BeforeEpoch { .. } => "choose an epoch in the past, or fix the host clock".into(),
        }
    }
}
