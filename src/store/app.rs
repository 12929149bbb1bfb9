//! Apps as the ledger records them, and the changes made to them: what
//! `init-app`, `app set` and `app seal` take and report. Apart from the
//! segment traffic, since an app changes rarely and is checked field by field.

use super::DispenserKind;
use crate::error::Result;
use serde::Serialize;
use std::time::Duration;

/// Per-app bounds on the consumption-based step sizing (`segment::sizing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AppPolicy {
    pub min_step: u64,
    pub max_step: u64,
    /// A segment should last about this long at the observed rate.
    #[serde(serialize_with = "serialize_secs")]
    pub target: Duration,
}

impl AppPolicy {
    /// The policy of an app that idgen did not create (the Java service's apps).
    pub fn for_step(step: u64) -> Self {
        AppPolicy {
            min_step: step,
            max_step: step.saturating_mul(10),
            target: Duration::from_secs(300),
        }
    }
}

fn serialize_secs<S: serde::Serializer>(
    d: &Duration,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_secs())
}
/// A new app as `init-app` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppSpec {
    pub app: u8,
    pub name: String,
    pub description: Option<String>,
    pub step: u64,
    pub max_limit_id: u64,
    pub policy: AppPolicy,
    /// Which dispenser serves the app: recorded at creation, changed only by
    /// `idgen app set --dispenser`, so every host serves the same stock.
    pub dispenser: DispenserKind,
}

impl AppSpec {
    /// Checks every field; the error names the field and the fix.
    pub fn validated(
        app: u8,
        name: &str,
        description: Option<&str>,
        step: u64,
        max_limit_id: u64,
        policy: AppPolicy,
    ) -> Result<Self> {
        use crate::error::Error;
        if name.trim().is_empty() {
            return Err(Error::invalid(
                "--name",
                "the app name is empty",
                "give the app a name, e.g. --name orders",
            ));
        }
        if name.chars().any(char::is_control) {
            return Err(Error::invalid(
                "--name",
                "the app name holds a control character (a newline, a tab, an escape)",
                "give a name of printable characters",
            ));
        }
        if description.is_some_and(|d| d.chars().any(char::is_control)) {
            return Err(Error::invalid(
                "--description",
                "the description holds a control character (a newline, a tab, an escape)",
                "give a description of printable characters",
            ));
        }
        if name.chars().count() > 128 {
            return Err(Error::invalid(
                "--name",
                format!(
                    "{} characters is longer than id_alloc.app_name allows (128)",
                    name.chars().count()
                ),
                "use a name of at most 128 characters",
            ));
        }
        if description.is_some_and(|d| d.chars().count() > 255) {
            return Err(Error::invalid(
                "--description",
                "longer than id_alloc.description allows (255 characters)",
                "shorten the description to 255 characters",
            ));
        }
        if step == 0 || step > i32::MAX as u64 {
            return Err(Error::invalid(
                "--step",
                format!("{step} is not between 1 and {}", i32::MAX),
                "use a step of at least 1 (id_alloc.step is an int)",
            ));
        }
        if max_limit_id > i64::MAX as u64 {
            return Err(Error::invalid(
                "--max-limit-id",
                format!("{max_limit_id} does not fit id_alloc.max_limit_id (bigint)"),
                "use 0 for no limit, or a value up to 9223372036854775807",
            ));
        }
        if max_limit_id > 0
            && crate::shard::max_index_within(max_limit_id, app, crate::shard::SHARDS - 1).is_none()
        {
            let minimum = crate::shard::SegmentId {
                index: 1,
                shard: crate::shard::SHARDS - 1,
                app,
            }
            .compose()?;
            return Err(Error::invalid(
                "--max-limit-id",
                format!("{max_limit_id} leaves shard 63 of app {app} no ID at all"),
                format!("use 0 for no limit, or at least {minimum}"),
            ));
        }
        if policy.min_step == 0
            || policy.min_step > policy.max_step
            || policy.max_step > i32::MAX as u64
        {
            return Err(Error::invalid(
                "--min-step/--max-step",
                format!(
                    "bounds {} to {} are not a valid range",
                    policy.min_step, policy.max_step
                ),
                "use 1 <= --min-step <= --max-step <= 2147483647",
            ));
        }
        if policy.target.is_zero() {
            return Err(Error::invalid(
                "--target-interval",
                "the interval is zero",
                "use how long a segment should last, e.g. --target-interval 5m",
            ));
        }
        Ok(AppSpec {
            app,
            name: name.to_string(),
            description: description.map(str::to_string),
            step,
            max_limit_id,
            policy,
            dispenser: DispenserKind::Queue,
        })
    }

    /// The same app, served by `dispenser`.
    pub fn with_dispenser(self, dispenser: DispenserKind) -> Self {
        AppSpec { dispenser, ..self }
    }
}

/// A change to an existing app (`idgen app set`); `None` keeps the stored value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppChange {
    pub name: Option<String>,
    pub step: Option<u64>,
    pub min_step: Option<u64>,
    pub max_step: Option<u64>,
    pub max_limit_id: Option<u64>,
    pub dispenser: Option<DispenserKind>,
    /// The operator agreed to lower `max_limit_id`: stock above the new limit
    /// is retired unserved on every shard (see `SegmentAllocator::update_app`).
    pub lower_limit: bool,
}

impl AppChange {
    pub fn is_empty(&self) -> bool {
        AppChange {
            lower_limit: false,
            ..self.clone()
        } == AppChange::default()
    }

    /// Whether the change lowers the app's `max_limit_id` (0 is no limit: the highest of all).
    pub fn lowers_limit(&self, record: &AppRecord) -> bool {
        let current = record.max_limit_id();
        self.max_limit_id
            .is_some_and(|new| new != 0 && (current == 0 || new < current))
    }

    /// The app as it will be, checked against the app as stored, which the
    /// ledger reads under the app's row locks (the locks a refill takes), so
    /// no index is issued between the check and the change. `max_limit_id` is
    /// lowered only when the operator agreed ([`AppChange::lower_limit`]):
    /// `max_id` never goes back, so neither a lowered limit nor one raised
    /// again can hand out an index twice; what a lowering costs is the stock
    /// above it, retired unserved.
    pub fn apply_to(&self, record: &AppRecord) -> Result<AppSpec> {
        use crate::error::Error;
        let step = self.step.unwrap_or(record.step());
        let policy = AppPolicy {
            min_step: self.min_step.unwrap_or(record.policy.min_step),
            max_step: self.max_step.unwrap_or(record.policy.max_step),
            target: record.policy.target,
        };
        let current = record.max_limit_id();
        let spec = AppSpec::validated(
            record.app,
            self.name.as_deref().unwrap_or(&record.name),
            record.description.as_deref(),
            step,
            self.max_limit_id.unwrap_or(current),
            policy,
        )?
        .with_dispenser(self.dispenser.unwrap_or(record.dispenser));
        if !(policy.min_step..=policy.max_step).contains(&step) {
            return Err(Error::invalid(
                "--step",
                format!(
                    "{step} is not within the app's bounds, {} to {}",
                    policy.min_step, policy.max_step
                ),
                "give --min-step and --max-step that include the step",
            ));
        }
        if self.lowers_limit(record) && !self.lower_limit {
            return Err(Error::invalid(
                "--max-limit-id",
                format!(
                    "{} would lower app {}'s max_limit_id {}",
                    self.max_limit_id.unwrap_or_default(),
                    record.app,
                    if current == 0 {
                        "(no limit)".to_string()
                    } else {
                        current.to_string()
                    }
                ),
                "pass --yes to lower it: stock above the new limit is retired unserved (a gap) on every shard",
            ));
        }
        Ok(spec)
    }
}

/// What `init-app` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InitOutcome {
    /// All 64 shards were created.
    Created,
    /// Some shards existed under the same name; the missing ones were added.
    Completed,
    /// Everything was already there.
    Unchanged,
}

impl InitOutcome {
    /// The outcome of a seeding that added `added` shard rows.
    pub fn of_added(added: u64) -> Self {
        match added {
            0 => InitOutcome::Unchanged,
            n if n == u64::from(crate::shard::SHARDS) => InitOutcome::Created,
            _ => InitOutcome::Completed,
        }
    }
}

/// One shard row of `id_alloc`.
#[derive(Debug, Clone, Serialize)]
pub struct ShardRow {
    pub shard: u8,
    pub max_id: u64,
    pub step: u64,
    pub max_limit_id: u64,
    /// Size of the segment last loaded into a dispenser, if idgen has loaded one.
    pub last_loaded: Option<u64>,
}

/// A row of `id_alloc` idgen cannot serve: its app or shard is out of range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForeignRow {
    pub app: i64,
    pub shard: i64,
    pub name: String,
}

/// An app with its shards.
#[derive(Debug, Clone, Serialize)]
pub struct AppRecord {
    pub app: u8,
    pub name: String,
    pub description: Option<String>,
    pub policy: AppPolicy,
    /// The recorded dispenser ([`DispenserKind::Queue`] for an app idgen did
    /// not create, as the Java service serves it).
    pub dispenser: DispenserKind,
    pub shards: Vec<ShardRow>,
}

impl AppRecord {
    /// The step configured for the app (of its first shard).
    pub fn step(&self) -> u64 {
        self.shards.first().map_or(0, |s| s.step)
    }

    /// The app's `max_limit_id` (0: none), the smallest non-zero of its shards.
    pub fn max_limit_id(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.max_limit_id)
            .filter(|&l| l > 0)
            .min()
            .unwrap_or(0)
    }
}

/// The report of `init-app`.
#[derive(Debug, Clone, Serialize)]
pub struct InitReport {
    pub outcome: InitOutcome,
    pub shards_added: u64,
    pub app: AppRecord,
}

/// Everything needed to recreate a sealed app in another deployment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SealedApp {
    /// The app as the store recorded it, to be created alike in the other one.
    #[serde(flatten)]
    pub spec: AppSpec,
    /// Per shard, the final `max_id`: this store will never take an index above it.
    pub shards: Vec<SealedShard>,
    /// The destination recorded by the first seal.
    pub moved_to: String,
    /// Unix ms of the first seal.
    pub sealed_at_ms: i64,
}

/// Where a sealed app went, and when it was sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealing {
    /// The destination recorded by the first seal.
    pub destination: String,
    /// Unix ms of the first seal.
    pub sealed_at_ms: i64,
}

/// One shard of a sealed app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SealedShard {
    pub shard: u8,
    pub max_id: u64,
}
