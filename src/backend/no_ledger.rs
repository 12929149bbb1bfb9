//! The segment side of a backend with Redis alone: there is no ledger, so
//! every segment operation is refused with the one error that names the
//! missing `--mysql`. Only leases run on Redis alone (seed 000); segments need
//! MySQL's `id_alloc`, the one place uniqueness of segment IDs is decided.

use crate::error::{Error, Result};
use crate::shard::DispenserKind;
use crate::store::{
    AppCatalog, AppChange, AppRecord, AppSpec, Dispenser, ForeignRow, InitReport, Ledger,
    LockToken, Locked, Pushed, RefillMark, Restock, Route, SegmentRequest, SegmentSource,
    ShardTake, Slot, Stock, StockPush, Taken,
};
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::time::Duration;

/// The refusal of segment IDs when only Redis is configured.
pub fn segments_need_mysql() -> Error {
    Error::Config {
        location: "backend".into(),
        problem: "a Redis URL is configured but no MySQL URL (--mysql), and segment IDs need MySQL's ledger"
            .into(),
        hint: "the segment backend needs both: add --mysql URL (or IDGEN_MYSQL_URL), or drop Redis to use the embedded store; Redis alone runs only lease, serve --namespace, namespace, inspect-freelist and status".into(),
    }
}

/// A ledger and a dispenser that refuse everything (see the module docs).
pub struct NoLedger {
    /// The node name segment code would ask for.
    pub node: String,
}

fn refuse<T>() -> Result<T> {
    Err(segments_need_mysql())
}

#[async_trait]
impl Ledger for NoLedger {
    fn describe(&self) -> String {
        "no segment ledger (Redis alone)".into()
    }

    async fn server_version(&self) -> Result<String> {
        refuse()
    }

    async fn ensure_schema(&self) -> Result<()> {
        refuse()
    }
}

#[async_trait]
impl AppCatalog for NoLedger {
    async fn init_app(&self, _: &AppSpec) -> Result<InitReport> {
        refuse()
    }

    async fn app(&self, _: u8) -> Result<Option<AppRecord>> {
        refuse()
    }

    async fn apps(&self) -> Result<Vec<AppRecord>> {
        refuse()
    }

    async fn foreign_rows(&self) -> Result<Vec<ForeignRow>> {
        refuse()
    }

    async fn dispenser(&self, _: u8) -> Result<DispenserKind> {
        refuse()
    }

    async fn update_app(&self, _: u8, _: &AppChange) -> Result<AppRecord> {
        refuse()
    }
}

#[async_trait]
impl SegmentSource for NoLedger {
    async fn take_segments(&self, _: &SegmentRequest) -> Result<Vec<ShardTake>> {
        refuse()
    }

    async fn refill_marks(&self) -> Result<Vec<(Slot, RefillMark)>> {
        refuse()
    }

    async fn routes(&self) -> Result<BTreeMap<u8, Route>> {
        refuse()
    }
}

/// Segment stock in Redis, even stock an earlier Redis + MySQL deployment
/// left, is not served either: a take may need the ledger (an unknown
/// `max_limit_id`), and an answer that depends on what happens to be cached
/// would be a trap.
#[async_trait]
impl Dispenser for NoLedger {
    fn node(&self) -> &str {
        &self.node
    }

    fn describe(&self) -> String {
        "no segment stock (Redis alone)".into()
    }

    async fn server_version(&self) -> Result<String> {
        refuse()
    }
}

#[async_trait]
impl Stock for NoLedger {
    async fn take(&self, _: DispenserKind, _: Slot, _: u64) -> Result<Taken> {
        refuse()
    }

    async fn stock(&self, _: DispenserKind, _: &[Slot]) -> Result<Vec<Option<u64>>> {
        refuse()
    }

    async fn stocked_slots(&self, _: DispenserKind) -> Result<Vec<Slot>> {
        refuse()
    }
}

#[async_trait]
impl Restock for NoLedger {
    async fn lock_many(
        &self,
        _: DispenserKind,
        _: &[Slot],
        _: Duration,
    ) -> Result<Vec<Result<Option<Locked>>>> {
        refuse()
    }

    async fn push_many(&self, _: DispenserKind, _: &[StockPush]) -> Result<Vec<Result<Pushed>>> {
        refuse()
    }

    async fn unlock(&self, _: Slot, _: &LockToken) -> Result<bool> {
        refuse()
    }

    async fn retire(&self, _: DispenserKind, _: Slot, _: &LockToken) -> Result<Option<u64>> {
        refuse()
    }

    async fn switch_kind(&self, _: DispenserKind, _: Slot, _: &LockToken) -> Result<Option<u64>> {
        refuse()
    }
}
