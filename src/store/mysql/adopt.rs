//! Taking over an app sealed in an embedded store (`migrate --from-store`).
//!
//! Whether MySQL may take the app is judged by one function, [`judge`], from
//! what MySQL holds for it: the real run calls it under row locks, and
//! `migrate --dry-run` calls it on a plain read. So a dry run refuses exactly
//! what the run would (a name that differs, IDs issued here already, a take-over
//! from another store), and reaches MySQL with the same credentials.

use super::MysqlLedger;
use crate::error::{Error, Result};
use crate::store::{SealedApp, Sealing};
use mysql_async::prelude::Queryable;

/// What MySQL holds for an app about to be taken over.
struct Held {
    /// The take-over marker: the source and the moment it was sealed, or
    /// `("", 0)` for a marker row no take-over has completed under.
    marker: Option<(String, i64)>,
    /// `(app_name, max_id)` of each of the app's `id_alloc` rows.
    rows: Vec<(String, i64)>,
}

/// What the take-over will do.
#[derive(Debug, PartialEq, Eq)]
enum Adoption {
    /// Create the app (or fill in the empty one) above the sealed `max_id`s.
    Fresh,
    /// This very store, sealed at this very moment, was taken over before.
    Rerun,
}

/// The one rule for taking an app over. `sealing` is the source's seal, if it
/// is sealed yet (a dry run before the first run has none: no earlier
/// take-over can be this one's).
fn judge(
    app: u8,
    name: &str,
    source: &str,
    sealing: Option<&Sealing>,
    held: &Held,
) -> Result<Adoption> {
    let refuse = |detail: String, fix: &str| Error::AdoptionRefused {
        app,
        detail,
        fix: fix.to_string(),
    };
    match held.marker.as_ref().map(|(done, at)| (done.as_str(), *at)) {
        // The same store file sealed at the same moment: a rerun. Another
        // store at the same path (a second laptop's default) was sealed at
        // another moment, and its IDs may overlap the first one's.
        Some((done, at)) if done == source && sealing.is_some_and(|s| s.sealed_at_ms == at) => {
            return Ok(Adoption::Rerun);
        }
        Some(("", _)) | None => {}
        Some((other, _)) => {
            return Err(refuse(
                if other == source {
                    format!(
                        "MySQL took it over already from another store file at the same path ({other}), sealed at another time"
                    )
                } else {
                    format!("MySQL took it over already from {other}")
                },
                "this store's copy cannot join it (both may hold the same IDs): keep serving it from this store, or create it here under an unused app ID",
            ));
        }
    }
    if let Some((existing, _)) = held.rows.iter().find(|(existing, _)| existing != name) {
        return Err(refuse(
            format!("MySQL names app {app} {existing:?}, the store names it {name:?}"),
            "give both the same name (`idgen app set APP --name NAME --yes`, against the store or against MySQL), then rerun",
        ));
    }
    if held.rows.iter().any(|(_, max_id)| *max_id > 0) {
        return Err(refuse(
            format!(
                "MySQL has already issued IDs of app {app}; both stores may hold the same ones"
            ),
            "keep serving it from this store, or create it here under an unused app ID",
        ));
    }
    Ok(Adoption::Fresh)
}

impl MysqlLedger {
    /// Checks, changing nothing, that [`MysqlLedger::adopt`] would take the
    /// app over: the judgement the run makes, on what MySQL holds now.
    pub async fn check_adoption(
        &self,
        app: u8,
        name: &str,
        source: &str,
        sealing: Option<&Sealing>,
    ) -> Result<()> {
        let mut conn = self.conn().await?;
        // Before the first run against this database the tables may not exist.
        let tables: Vec<String> = self
            .bounded(conn.query(
                "SELECT table_name FROM information_schema.tables
                 WHERE table_schema = DATABASE() AND table_name IN ('id_alloc', 'idgen_adopted')",
            ))
            .await?;
        let has = |table: &str| tables.iter().any(|t| t.eq_ignore_ascii_case(table));
        let marker = if has("idgen_adopted") {
            self.bounded(conn.exec_first(
                "SELECT source, sealed_at_ms FROM idgen_adopted WHERE app_id = ?",
                (app,),
            ))
            .await?
        } else {
            None
        };
        let rows = if has("id_alloc") {
            self.bounded(conn.exec(
                "SELECT app_name, max_id FROM id_alloc WHERE app_id = ?",
                (app,),
            ))
            .await?
        } else {
            Vec::new()
        };
        judge(app, name, source, sealing, &Held { marker, rows }).map(drop)
    }

    /// Takes over an app sealed in another store: creates it (or finds it
    /// empty) and starts every shard above the sealed `max_id`, in one
    /// transaction. Idempotent for the same source. Refuses an app that already
    /// issued IDs here: two ledgers may have handed out the same indexes.
    /// Returns `false` when this source was adopted before.
    pub async fn adopt(&self, sealed: &SealedApp, source: &str) -> Result<bool> {
        use crate::store::Ledger;
        self.ensure_schema().await?;
        // Each attempt locks the marker row first and checks the shards
        // afresh; an aborted one committed nothing, so the next sees the app
        // as the first did. (One that committed unseen would make the next
        // answer "adopted before": no shard is written twice.)
        self.retrying(|| self.adopt_once(sealed, source)).await
    }

    async fn adopt_once(&self, sealed: &SealedApp, source: &str) -> Result<bool> {
        let app = sealed.spec.app;
        let mut conn = self.conn().await?;
        let mut tx = self
            .bounded(conn.start_transaction(Self::tx_opts()))
            .await?;
        // Lock the marker row (or its absence) before reading the shards.
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_adopted (app_id, source, sealed_at_ms) VALUES (?, '', 0)
             ON DUPLICATE KEY UPDATE app_id = app_id",
            (app,),
        ))
        .await?;
        let marker = self
            .bounded(tx.exec_first(
                "SELECT source, sealed_at_ms FROM idgen_adopted WHERE app_id = ? FOR UPDATE",
                (app,),
            ))
            .await?;
        let rows = self
            .bounded(tx.exec(
                "SELECT app_name, max_id FROM id_alloc WHERE app_id = ? FOR UPDATE",
                (app,),
            ))
            .await?;
        let sealing = Sealing {
            destination: self.recorded_name(),
            sealed_at_ms: sealed.sealed_at_ms,
        };
        let held = Held { marker, rows };
        if judge(app, &sealed.spec.name, source, Some(&sealing), &held)? == Adoption::Rerun {
            self.bounded(tx.rollback()).await?;
            return Ok(false);
        }
        for shard in &sealed.shards {
            self.bounded(tx.exec_drop(
                "INSERT INTO id_alloc (app_id, app_name, max_id, shard_id, step, description, max_limit_id)
                 VALUES (?, ?, ?, ?, ?, ?, ?)
                 ON DUPLICATE KEY UPDATE max_id = GREATEST(max_id, VALUES(max_id))",
                (
                    app,
                    &sealed.spec.name,
                    shard.max_id,
                    shard.shard,
                    sealed.spec.step,
                    sealed.spec.description.as_deref(),
                    sealed.spec.max_limit_id,
                ),
            ))
            .await?;
        }
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_app (app_id, min_step, max_step, target_secs) VALUES (?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE app_id = app_id",
            (
                app,
                sealed.spec.policy.min_step,
                sealed.spec.policy.max_step,
                sealed.spec.policy.target.as_secs(),
            ),
        ))
        .await?;
        self.bounded(tx.exec_drop(
            "INSERT INTO idgen_dispenser (app_id, kind) VALUES (?, ?) ON DUPLICATE KEY UPDATE app_id = app_id",
            (app, sealed.spec.dispenser.as_str()),
        ))
        .await?;
        self.bounded(tx.exec_drop(
            "UPDATE idgen_adopted SET source = ?, sealed_at_ms = ? WHERE app_id = ?",
            (source, sealed.sealed_at_ms, app),
        ))
        .await?;
        crate::failpoint::hit("adopt.before_commit")?;
        self.bounded(tx.commit()).await?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(marker: Option<(&str, i64)>, rows: &[(&str, i64)]) -> Held {
        Held {
            marker: marker.map(|(s, at)| (s.to_string(), at)),
            rows: rows.iter().map(|(n, m)| (n.to_string(), *m)).collect(),
        }
    }

    fn sealing(at: i64) -> Sealing {
        Sealing {
            destination: "mysql://db/idgen".into(),
            sealed_at_ms: at,
        }
    }

    #[test]
    fn a_new_app_or_an_empty_one_of_the_same_name_is_taken_fresh() {
        assert_eq!(
            judge(1, "orders", "s", None, &held(None, &[])).unwrap(),
            Adoption::Fresh
        );
        let empty = held(Some(("", 0)), &[("orders", 0), ("orders", 0)]);
        assert_eq!(
            judge(1, "orders", "s", Some(&sealing(5)), &empty).unwrap(),
            Adoption::Fresh
        );
    }

    #[test]
    fn the_same_store_sealed_at_the_same_moment_is_a_rerun() {
        let done = held(Some(("s", 5)), &[("orders", 900)]);
        assert_eq!(
            judge(1, "orders", "s", Some(&sealing(5)), &done).unwrap(),
            Adoption::Rerun
        );
    }

    #[test]
    fn another_store_or_another_seal_of_the_same_path_is_refused() {
        let done = held(Some(("s", 5)), &[("orders", 900)]);
        for (source, seal) in [
            ("s", Some(sealing(6))),
            ("s", None),
            ("t", Some(sealing(5))),
        ] {
            let refused = judge(1, "orders", source, seal.as_ref(), &done).unwrap_err();
            assert!(
                matches!(refused, Error::AdoptionRefused { .. }),
                "{refused}"
            );
        }
    }

    #[test]
    fn a_different_name_or_ids_issued_here_are_refused() {
        let named = held(None, &[("billing", 0)]);
        let refused = judge(1, "orders", "s", None, &named).unwrap_err();
        assert!(refused.to_string().contains("\"billing\""), "{refused}");
        let issued = held(None, &[("orders", 0), ("orders", 7)]);
        let refused = judge(1, "orders", "s", None, &issued).unwrap_err();
        assert!(refused.to_string().contains("already issued"), "{refused}");
    }
}
