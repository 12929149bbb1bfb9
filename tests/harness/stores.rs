//! Looking into (and tampering with) a test's stores the same way on both
//! backends, so one behavioural test runs against Redis + MySQL and SQLite.
//!
//! Reads go through the core's own traits where they can (stock, lease state);
//! SQL that both `id_alloc`s understand goes to MySQL or SQLite as the backend
//! says; tampering writes each store's raw form, as an outside process would.

use super::{StoreKind, TestEnv};
use idgen::lease::NamespaceSnapshot;
use idgen::segment::DispenserKind;
use idgen::store::Slot;
use redis::Commands;
use std::future::Future;

impl TestEnv {
    /// The settings an `idgen` process of this environment would resolve.
    pub fn settings(&self) -> idgen::config::Settings {
        let mut settings = idgen::config::Settings::default();
        match self.backend {
            StoreKind::Distributed => {
                settings.redis_nodes.insert(
                    idgen::config::DEFAULT_NODE.into(),
                    idgen::redact::SecretUrl::new(self.redis_url.clone()),
                );
                settings.mysql = Some(idgen::redact::SecretUrl::new(self.mysql_url.clone()));
            }
            StoreKind::Embedded => {
                settings.store = Some(self.store_path());
                // As one short command opens it (`next`): takes lend to the
                // reserve and try it first, so every contract is held with it.
                settings.sqlite_in_place = true;
            }
        }
        settings
    }

    /// Runs a future on a runtime of its own (the generator needs a multi-threaded one).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("test runtime")
            .block_on(future)
    }

    /// This environment's storage, opened through the core.
    pub fn backend(&self) -> idgen::backend::Backend {
        idgen::backend::Backend::open(&self.settings()).expect("open the test backend")
    }

    /// Indexes cached for one shard on the default node, both dispensers together.
    pub fn stock(&self, app: u8, shard: u8) -> u64 {
        let backend = self.backend();
        self.block_on(async {
            let node = backend
                .nodes
                .get(backend.nodes.default_node())
                .await
                .expect("default node");
            let mut total = 0;
            for kind in [DispenserKind::Queue, DispenserKind::Range] {
                let stock = node
                    .stock(kind, &[Slot { app, shard }])
                    .await
                    .expect("stock");
                total += stock[0].unwrap_or(0);
            }
            total
        })
    }

    /// How many shards of `app` have stock on the default node.
    pub fn stocked_shards(&self, app: u8) -> usize {
        (0..64).filter(|&shard| self.stock(app, shard) > 0).count()
    }

    /// Runs statements that MySQL and SQLite both understand.
    pub fn sql(&self, statements: &str) {
        match self.backend {
            StoreKind::Distributed => super::servers::mysql_exec(&self.mysql_url, statements),
            StoreKind::Embedded => self
                .sqlite()
                .execute_batch(statements)
                .unwrap_or_else(|e| panic!("{statements}: {e}")),
        }
    }

    /// Runs a query; every value as text (NULL as `None`).
    pub fn query(&self, query: &str) -> Vec<Vec<Option<String>>> {
        match self.backend {
            StoreKind::Distributed => super::servers::mysql_query(&self.mysql_url, query),
            StoreKind::Embedded => {
                let conn = self.sqlite();
                let mut statement = conn
                    .prepare(query)
                    .unwrap_or_else(|e| panic!("{query}: {e}"));
                let columns = statement.column_count();
                statement
                    .query_map([], |row| {
                        (0..columns)
                            .map(|i| {
                                Ok(match row.get_ref(i)? {
                                    rusqlite::types::ValueRef::Null => None,
                                    rusqlite::types::ValueRef::Integer(n) => Some(n.to_string()),
                                    rusqlite::types::ValueRef::Real(f) => Some(f.to_string()),
                                    rusqlite::types::ValueRef::Text(t)
                                    | rusqlite::types::ValueRef::Blob(t) => {
                                        Some(String::from_utf8_lossy(t).into_owned())
                                    }
                                })
                            })
                            .collect()
                    })
                    .and_then(Iterator::collect)
                    .unwrap_or_else(|e| panic!("{query}: {e}"))
            }
        }
    }

    /// A single number from a query.
    pub fn query_u64(&self, query: &str) -> u64 {
        let rows = self.query(query);
        rows.first()
            .and_then(|r| r.first().cloned().flatten())
            .unwrap_or_else(|| panic!("{query} returned no value"))
            .parse()
            .unwrap_or_else(|e| panic!("{query}: {e}"))
    }

    /// `id_alloc.max_id` of one shard.
    pub fn max_id(&self, app: u8, shard: u8) -> u64 {
        self.query_u64(&format!(
            "SELECT max_id FROM id_alloc WHERE app_id = {app} AND shard_id = {shard}"
        ))
    }

    /// Whether the store holds an `id_alloc` table (or, embedded, exists at all).
    pub fn has_schema(&self) -> bool {
        match self.backend {
            StoreKind::Distributed => {
                self.query_u64(
                    "SELECT COUNT(*) FROM information_schema.tables
                     WHERE table_schema = DATABASE() AND table_name = 'id_alloc'",
                ) > 0
            }
            StoreKind::Embedded => self.store_path().exists(),
        }
    }

    /// Takes a shard's refill lock for `secs` as another process would.
    pub fn hold_refill_lock(&self, app: u8, shard: u8, secs: u64) {
        match self.backend {
            StoreKind::Distributed => {
                let _: () = self
                    .redis()
                    .set_ex(
                        crate::harness::keys::lock(app, shard),
                        "another-process",
                        secs,
                    )
                    .unwrap();
            }
            StoreKind::Embedded => self.sql(&format!(
                "INSERT OR REPLACE INTO idgen_lock (app_id, shard_id, token, expires_at_ms)
                 VALUES ({app}, {shard}, 'another-process', {})",
                now_ms() + secs as i64 * 1000
            )),
        }
    }

    /// Refill locks of `app` that are held now.
    pub fn held_refill_locks(&self, app: u8) -> usize {
        match self.backend {
            StoreKind::Distributed => {
                let keys: Vec<String> = self.redis().keys(super::keys::locks_of(app)).unwrap();
                keys.len()
            }
            StoreKind::Embedded => self.query_u64(&format!(
                "SELECT COUNT(*) FROM idgen_lock WHERE app_id = {app} AND expires_at_ms > {}",
                now_ms()
            )) as usize,
        }
    }

    /// A namespace's lease state, as the core reads it.
    pub fn lease_snapshot(&self, namespace: &str) -> NamespaceSnapshot {
        let backend = self.backend();
        self.block_on(async {
            let store = backend.lease_admin().await.expect("lease admin");
            store.snapshot(namespace).await.expect("snapshot")
        })
    }

    /// Every lease namespace that has been used.
    pub fn lease_namespaces(&self) -> Vec<String> {
        let backend = self.backend();
        self.block_on(async {
            let store = backend.lease_admin().await.expect("lease admin");
            store.namespaces().await.expect("namespaces")
        })
    }

    /// Is `worker` of `namespace` held (its lease not expired)?
    pub fn worker_held(&self, namespace: &str, worker: u64) -> bool {
        self.lease_snapshot(namespace)
            .held
            .iter()
            .any(|h| h.worker == worker)
    }

    /// Appends `worker` to the free list, as a buggy client might.
    pub fn tamper_free_push(&self, namespace: &str, worker: u64) {
        match self.backend {
            StoreKind::Distributed => {
                let _: () = self
                    .redis()
                    .rpush(super::keys::free_list(namespace), worker)
                    .unwrap();
            }
            StoreKind::Embedded => self.sql(&format!(
                "INSERT INTO idgen_lease_free (namespace, pos, worker)
                 SELECT '{namespace}', COALESCE(MAX(pos), 0) + 1, {worker}
                 FROM idgen_lease_free WHERE namespace = '{namespace}'"
            )),
        }
    }

    /// Lists the first free worker of `namespace` a second time, as a buggy
    /// client might; returns that worker.
    pub fn tamper_free_repeat_first(&self, namespace: &str) -> u64 {
        let first = *self
            .lease_snapshot(namespace)
            .free
            .first()
            .expect("a free worker to list twice");
        self.tamper_free_push(namespace, first);
        first
    }

    /// Removes `worker` from the free list without holding it: it leaks.
    pub fn tamper_free_remove(&self, namespace: &str, worker: u64) {
        match self.backend {
            StoreKind::Distributed => {
                let _: () = self
                    .redis()
                    .lrem(super::keys::free_list(namespace), 1, worker)
                    .unwrap();
            }
            StoreKind::Embedded => self.sql(&format!(
                "DELETE FROM idgen_lease_free WHERE namespace = '{namespace}' AND worker = {worker}"
            )),
        }
    }

    /// Takes the expiry off a held worker's lease.
    pub fn tamper_no_expiry(&self, namespace: &str, worker: u64) {
        match self.backend {
            StoreKind::Distributed => {
                let _: () = self
                    .redis()
                    .persist(format!("idgen:{{{namespace}}}:w:{worker}"))
                    .unwrap();
            }
            StoreKind::Embedded => self.sql(&format!(
                "UPDATE idgen_lease_held SET expires_at_ms = NULL
                 WHERE namespace = '{namespace}' AND worker = {worker}"
            )),
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Runs each listed test `fn name(env: &TestEnv)` once per backend, as
/// `distributed::name` and `embedded::name`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod distributed {
            $(
                #[test]
                fn $name() {
                    super::$name(&$crate::harness::TestEnv::distributed());
                }
            )*
        }
        mod embedded {
            $(
                #[test]
                fn $name() {
                    super::$name(&$crate::harness::TestEnv::embedded());
                }
            )*
        }
    };
}
