//! Choosing and opening the storage a command runs on.
//!
//! Redis and MySQL together make the distributed backend; neither makes the
//! embedded one (one SQLite file). Redis alone runs worker-ID leases only
//! (seed 000), for the commands that open it with [`Backend::open_for_leases`];
//! segment IDs need MySQL's ledger, and MySQL without Redis is a configuration
//! mistake.

mod no_ledger;

pub use no_ledger::segments_need_mysql;

use crate::config::{DEFAULT_NODE, Settings};
use crate::error::{Error, Result};
use crate::lease::WorkerNodeAssigner;
use crate::segment::{AllocatorOptions, SegmentAllocator};
use crate::store::distributed::{DistributedWorkerNodes, FencedLeaseStore};
use crate::store::mysql::MysqlLedger;
use crate::store::redis::connect;
use crate::store::redis::lease::RedisLeaseStore;
use crate::store::redis::topology::Topology;
use crate::store::sqlite::SqliteStore;
use crate::store::tls;
use crate::store::{Dispenser, LeaseAdmin, LeaseStore, Ledger, NodeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// The opened storage of one deployment.
pub struct Backend {
    pub ledger: Arc<dyn Ledger>,
    pub nodes: Arc<NodeSet>,
    /// `redis+mysql`, `redis` (leases only) or `embedded`, for `--verbose` and `status`.
    pub kind: &'static str,
    stores: Stores,
}

/// The concrete stores behind the traits, for what only one backend can do.
enum Stores {
    Distributed {
        mysql: Arc<MysqlLedger>,
    },
    /// Redis alone: worker-ID leases only; the ledger and the nodes refuse
    /// every segment operation ([`segments_need_mysql`]), and `redis` holds
    /// the servers the leases live on.
    RedisAlone {
        redis: Arc<NodeSet>,
    },
    /// Everything in one SQLite file.
    Embedded {
        store: Arc<SqliteStore>,
    },
}

/// Which commands a backend is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// Anything, segments included: Redis alone is refused.
    Everything,
    /// Worker-ID leases and namespaces only: Redis alone will do.
    Leases,
}

impl Backend {
    /// Opens the backend the settings describe, creating the embedded store's
    /// file if it is missing (for `init-app`). Nothing connects yet:
    /// the first use of the ledger or of a node does.
    pub fn open(settings: &Settings) -> Result<Self> {
        Self::open_with(settings, true, Purpose::Everything)
    }

    /// Like [`Self::open`], but a missing store file is an error (at first use)
    /// rather than a new empty store: a mistyped `--store` must not look like a
    /// fresh deployment.
    pub fn open_existing(settings: &Settings) -> Result<Self> {
        Self::open_with(settings, false, Purpose::Everything)
    }

    /// Like [`Self::open`], for commands that only lease worker IDs (`lease`,
    /// `serve --namespace` without segments): Redis alone will do.
    pub fn open_for_leases(settings: &Settings) -> Result<Self> {
        Self::open_with(settings, true, Purpose::Leases)
    }

    /// Like [`Self::open_existing`], for commands that only read or change
    /// worker-ID namespaces (`namespace`, `inspect-freelist`): Redis alone will do.
    pub fn open_existing_for_leases(settings: &Settings) -> Result<Self> {
        Self::open_with(settings, false, Purpose::Leases)
    }

    fn open_with(settings: &Settings, create: bool, purpose: Purpose) -> Result<Self> {
        let has_redis = !settings.redis_nodes.is_empty();
        match (has_redis, &settings.mysql) {
            (true, Some(_)) if settings.store.is_some() => Err(store_and_servers(settings)),
            (true, None) if purpose == Purpose::Everything => Err(segments_need_mysql()),
            (true, None) if settings.store.is_some() => Err(store_and_servers(settings)),
            (true, None) => {
                check_redis_nodes(settings)?;
                let refusing = Arc::new(no_ledger::NoLedger {
                    node: DEFAULT_NODE.to_string(),
                });
                Ok(Backend {
                    ledger: refusing.clone(),
                    nodes: Arc::new(NodeSet::single(refusing)),
                    kind: "redis",
                    stores: Stores::RedisAlone {
                        redis: Arc::new(redis_nodes(settings)),
                    },
                })
            }
            (true, Some(mysql)) => {
                check_redis_nodes(settings)?;
                let ledger = Arc::new(
                    MysqlLedger::open(mysql, &settings.mysql_tls, settings.timeout).map_err(
                        |e| match e {
                            Error::Invalid {
                                what: "MySQL URL", ..
                            } => crate::config::blame(e, &settings.origin("mysql")),
                            other => other,
                        },
                    )?,
                );
                Ok(Backend {
                    ledger: ledger.clone(),
                    nodes: Arc::new(redis_nodes(settings)),
                    kind: "redis+mysql",
                    stores: Stores::Distributed { mysql: ledger },
                })
            }
            (false, Some(_)) => Err(Error::Config {
                location: "backend".into(),
                problem: "a MySQL URL is configured but no Redis URL".into(),
                hint: "the distributed backend needs both: add --redis URL (or IDGEN_REDIS_URL), or drop MySQL to use the embedded store".into(),
            }),
            (false, None) => {
                let path = match &settings.store {
                    Some(path) if create && settings.create_store_dir => {
                        create_store_dir(path)?;
                        path.clone()
                    }
                    Some(path) => path.clone(),
                    None => default_store_path(create)?,
                };
                let store = Arc::new(
                    SqliteStore::open_with(&path, settings.timeout, create)
                        .in_place(settings.sqlite_in_place)
                        // One short command: the next takes are other processes.
                        .lending(settings.sqlite_in_place),
                );
                let dispenser: Arc<dyn Dispenser> = store.clone();
                Ok(Backend {
                    ledger: store.clone(),
                    nodes: Arc::new(NodeSet::single(dispenser)),
                    kind: "embedded",
                    stores: Stores::Embedded { store },
                })
            }
        }
    }

    /// The kind and where the data lives (the store file, or the redacted
    /// server URLs): the line `--verbose` prints.
    pub fn describe(&self) -> String {
        let location = match &self.stores {
            Stores::Distributed { mysql } => format!(
                "redis {}, {}",
                self.nodes.describe(DEFAULT_NODE).unwrap_or_default(),
                mysql.describe()
            ),
            Stores::RedisAlone { redis } => format!(
                "redis {}, leases only",
                redis.describe(DEFAULT_NODE).unwrap_or_default()
            ),
            Stores::Embedded { store } => format!("store {}", store.path().display()),
        };
        format!("{} ({location})", self.kind)
    }

    /// Is there a segment ledger (MySQL or the store file)? Not on Redis alone.
    pub fn has_ledger(&self) -> bool {
        !matches!(self.stores, Stores::RedisAlone { .. })
    }

    /// The Redis servers (or the store file) `status` checks: the nodes,
    /// and on Redis alone, where the nodes refuse segments, the server the
    /// leases live on.
    pub fn servers(&self) -> &NodeSet {
        match &self.stores {
            Stores::RedisAlone { redis } => redis,
            _ => &self.nodes,
        }
    }

    /// Are segments stocked on Redis nodes (not in the store file)?
    pub fn has_redis_nodes(&self) -> bool {
        matches!(self.stores, Stores::Distributed { .. })
    }

    /// Is everything in one store file (the embedded backend)?
    pub fn is_embedded(&self) -> bool {
        matches!(self.stores, Stores::Embedded { .. })
    }

    /// The embedded store's file while it does not exist yet: a command that
    /// creates it (`init-app`, `lease`) asks before its first use, to say so.
    pub fn store_file_to_create(&self) -> Option<PathBuf> {
        match &self.stores {
            Stores::Embedded { store } => Some(store.path().to_path_buf()).filter(|p| !p.exists()),
            Stores::Distributed { .. } | Stores::RedisAlone { .. } => None,
        }
    }

    /// Checks that the embedded store's file exists and can be written, for
    /// `status` (a read-only store issues nothing). Servers have nothing to check.
    pub fn check_store_file(&self) -> Result<()> {
        match &self.stores {
            Stores::Embedded { store } => store.check_writable(),
            Stores::Distributed { .. } | Stores::RedisAlone { .. } => Ok(()),
        }
    }

    /// Moving `app` out of the embedded store at `source` into this (the
    /// distributed) backend; refused when this backend is embedded itself.
    pub fn store_exit<'a>(
        &'a self,
        source: &'a SqliteStore,
        allocator: &'a SegmentAllocator,
    ) -> Result<crate::segment::migrate::StoreExit<'a>> {
        match &self.stores {
            Stores::Distributed { mysql, .. } => Ok(crate::segment::migrate::StoreExit {
                source,
                mysql,
                allocator,
            }),
            Stores::Embedded { .. } => Err(Error::invalid(
                "--from-store",
                "the destination is the embedded store itself",
                "configure the Redis + MySQL deployment to move into (--redis and --mysql, or the config file)",
            )),
            Stores::RedisAlone { .. } => Err(segments_need_mysql()),
        }
    }

    /// Where worker-ID leases live, as their holder uses them (see
    /// `Self::lease_stores`).
    pub async fn lease_store(&self) -> Result<Arc<dyn LeaseStore>> {
        Ok(self.lease_stores(true).await?.0)
    }

    /// [`Backend::lease_store`], its Redis server not dialled yet: its first
    /// call connects, and fails as any call does while Redis is down. For
    /// `serve`, which starts anyway and leases once Redis answers.
    pub async fn lease_store_undialled(&self) -> Result<Arc<dyn LeaseStore>> {
        Ok(self.lease_stores(false).await?.0)
    }

    /// Where worker-ID leases live, as an operator inspects and repairs them.
    pub async fn lease_admin(&self) -> Result<Arc<dyn LeaseAdmin>> {
        Ok(self.lease_stores(true).await?.1)
    }

    /// The one lease store, as both traits: the default Redis node (with
    /// MySQL, or alone), or the store file. `dial`: connect to Redis now.
    async fn lease_stores(&self, dial: bool) -> Result<(Arc<dyn LeaseStore>, Arc<dyn LeaseAdmin>)> {
        match &self.stores {
            Stores::Distributed { mysql } => {
                // A lease needs both servers: meet MySQL while Redis connects
                // and is probed (a round trip the first lease call would
                // otherwise wait for). MySQL's failure is reported where MySQL
                // is needed; reading lease state from Redis (as `status` does)
                // works without it.
                let redis = async {
                    if !dial {
                        return self.nodes.redis_node_undialled(DEFAULT_NODE).await;
                    }
                    let redis = self.nodes.redis_node(DEFAULT_NODE).await?;
                    redis.ready_link().await?;
                    Ok::<_, Error>(redis)
                };
                let (redis, warmed) = tokio::join!(redis, mysql.prepare_leases());
                let store = Arc::new(FencedLeaseStore::new(redis?, mysql.clone(), warmed));
                Ok((store.clone(), store))
            }
            Stores::RedisAlone { redis } => {
                let node = if dial {
                    redis.redis_node(DEFAULT_NODE).await?
                } else {
                    redis.redis_node_undialled(DEFAULT_NODE).await?
                };
                let store = Arc::new(RedisLeaseStore::new(node));
                Ok((store.clone(), store))
            }
            Stores::Embedded { store } => Ok((store.clone(), store.clone())),
        }
    }

    /// The never-reuse assigner: MySQL's `WORKER_NODE`, or the store file's.
    pub async fn worker_nodes(&self) -> Result<Arc<dyn WorkerNodeAssigner>> {
        match &self.stores {
            Stores::Embedded { store } => Ok(store.clone()),
            Stores::Distributed { mysql } => Ok(Arc::new(DistributedWorkerNodes {
                ledger: mysql.clone(),
                redis: self.nodes.redis_node(DEFAULT_NODE).await?,
            })),
            // A Redis counter could go back in time and hand an ID out twice;
            // only MySQL's auto-increment never reuses one.
            Stores::RedisAlone { .. } => Err(Error::Config {
                location: "--assigner worker-node".into(),
                problem: "the worker-node assigner needs MySQL's WORKER_NODE table, and no MySQL URL is configured".into(),
                hint: "add --mysql URL (or IDGEN_MYSQL_URL), or lease worker IDs with --assigner lease".into(),
            }),
        }
    }

    /// The segment allocator over this backend.
    pub fn allocator(&self, settings: &Settings) -> SegmentAllocator {
        let options = AllocatorOptions {
            dispenser: settings.dispenser,
            idle: settings.idle,
            ..AllocatorOptions::default()
        };
        SegmentAllocator::new(self.ledger.clone(), self.nodes.clone(), options)
    }
}

/// The configured Redis nodes, connected on first use.
fn redis_nodes(settings: &Settings) -> NodeSet {
    NodeSet::redis(
        DEFAULT_NODE,
        settings.redis_nodes.clone(),
        settings.redis_tls.clone(),
        settings.timeout,
    )
}

/// Checks the Redis node settings: a node named `main`, and every URL (naming
/// where a bad one came from). Nodes connect only when first used.
fn check_redis_nodes(settings: &Settings) -> Result<()> {
    if !settings.redis_nodes.contains_key(DEFAULT_NODE) {
        return Err(Error::Config {
            location: "redis nodes".into(),
            problem: format!("no node is named {DEFAULT_NODE:?}"),
            hint: format!(
                "name the node that serves apps without a route {DEFAULT_NODE:?}, or pass --redis URL"
            ),
        });
    }
    for (name, url) in &settings.redis_nodes {
        let blame = |e: Error| match e {
            Error::Invalid {
                what,
                problem,
                hint,
            } => {
                let origin = settings.origin(&format!("redis.nodes.{name}"));
                Error::Invalid {
                    what,
                    problem: problem.replacen(
                        &format!("{url}: "),
                        &format!("{url} (node {name}, from {origin}): "),
                        1,
                    ),
                    hint,
                }
            }
            other => other,
        };
        if Topology::parse(url).map_err(blame)? == Topology::Standalone {
            connect::client(url, &settings.redis_tls).map_err(blame)?;
        }
    }
    if !settings.redis_nodes.values().any(connect::wants_tls) {
        tls::refuse_unused(tls::REDIS, &settings.redis_tls)?;
    }
    Ok(())
}

/// The usage error for a store file configured together with servers: idgen
/// would otherwise silently pick one of them.
fn store_and_servers(settings: &Settings) -> Error {
    let mut servers: Vec<String> = settings
        .redis_nodes
        .keys()
        .map(|name| {
            format!(
                "redis node {name} from {}",
                settings.origin(&format!("redis.nodes.{name}"))
            )
        })
        .collect();
    if settings.mysql.is_some() {
        servers.push(format!("MySQL from {}", settings.origin("mysql")));
    }
    Error::Config {
        location: "backend".into(),
        problem: format!(
            "an embedded store (from {}) is configured together with servers ({})",
            settings.origin("store"),
            servers.join(", ")
        ),
        hint: "use either the store file or Redis and MySQL: unset one of them".into(),
    }
}

/// `$XDG_DATA_HOME/idgen/idgen.db`, else `~/.local/share/idgen/idgen.db`;
/// creates the directory when `create`.
pub fn default_store_path(create: bool) -> Result<PathBuf> {
    let path = crate::config::paths::default_store_file().ok_or_else(|| Error::Config {
        location: "embedded store".into(),
        problem: "neither XDG_DATA_HOME nor HOME names a directory for the store".into(),
        hint: "pass --store PATH (or IDGEN_STORE), or configure --redis and --mysql".into(),
    })?;
    if create {
        create_store_dir(&path)?;
    }
    Ok(path)
}

/// Creates the directory the store file `path` goes in, if missing.
fn create_store_dir(path: &std::path::Path) -> Result<()> {
    match path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|e| Error::StoreUnusable {
            path: path.display().to_string(),
            detail: format!("cannot create directory {}: {e}", dir.display()),
        }),
        None => Ok(()),
    }
}
