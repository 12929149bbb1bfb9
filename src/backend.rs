//! Choosing and opening the storage a command runs on.
//!
//! Redis and MySQL together make the distributed backend; neither makes the
//! embedded one; one without the other is a configuration mistake.

use crate::config::{DEFAULT_NODE, Settings};
use crate::error::{Error, Result};
use crate::lease::worker_node::DistributedWorkerNodes;
use crate::lease::{LeaseStore, WorkerNodeAssigner};
use crate::redact::SecretUrl;
use crate::segment::{AllocatorOptions, SegmentAllocator};
use crate::store::mysql::MysqlLedger;
use crate::store::redis::RedisNode;
use crate::store::{Ledger, NodeSet};
use std::sync::Arc;
use std::time::Duration;

/// The opened storage of one deployment.
pub struct Backend {
    pub ledger: Arc<dyn Ledger>,
    pub nodes: Arc<NodeSet>,
    /// `redis+mysql` or `embedded`, for `--verbose` and `status`.
    pub kind: &'static str,
    parts: Parts,
}

/// The concrete stores behind the traits, for what only one backend can do.
enum Parts {
    Distributed {
        mysql: Arc<MysqlLedger>,
        main: SecretUrl,
        timeout: Duration,
    },
}

impl Backend {
    /// Opens the backend the settings describe. Nothing connects yet: the first
    /// use of the ledger or of a node does.
    pub fn open(settings: &Settings) -> Result<Self> {
        let has_redis = !settings.redis_nodes.is_empty();
        match (has_redis, &settings.mysql) {
            (true, Some(mysql)) => {
                if !settings.redis_nodes.contains_key(DEFAULT_NODE) {
                    return Err(Error::Config {
                        location: "redis nodes".into(),
                        problem: format!("no node is named {DEFAULT_NODE:?}"),
                        hint: format!(
                            "name the node that serves apps without a route {DEFAULT_NODE:?}, or pass --redis URL"
                        ),
                    });
                }
                let ledger = Arc::new(MysqlLedger::open(mysql, settings.timeout)?);
                Ok(Backend {
                    ledger: ledger.clone(),
                    nodes: Arc::new(NodeSet::redis(
                        DEFAULT_NODE,
                        settings.redis_nodes.clone(),
                        settings.timeout,
                    )),
                    kind: "redis+mysql",
                    parts: Parts::Distributed {
                        mysql: ledger,
                        main: settings.redis_nodes[DEFAULT_NODE].clone(),
                        timeout: settings.timeout,
                    },
                })
            }
            (true, None) => Err(Error::Config {
                location: "backend".into(),
                problem: "a Redis URL is configured but no MySQL URL".into(),
                hint: "the distributed backend needs both: add --mysql URL (or IDGEN_MYSQL_URL), or drop Redis to use the embedded store".into(),
            }),
            (false, Some(_)) => Err(Error::Config {
                location: "backend".into(),
                problem: "a MySQL URL is configured but no Redis URL".into(),
                hint: "the distributed backend needs both: add --redis URL (or IDGEN_REDIS_URL), or drop MySQL to use the embedded store".into(),
            }),
            (false, None) => Err(Error::Config {
                location: "backend".into(),
                problem: "no Redis and no MySQL URL is configured".into(),
                hint: "pass --redis URL and --mysql URL (or IDGEN_REDIS_URL and IDGEN_MYSQL_URL)".into(),
            }),
        }
    }

    /// Where worker-ID leases live: the default Redis node.
    pub async fn lease_store(&self) -> Result<Arc<dyn LeaseStore>> {
        match &self.parts {
            Parts::Distributed { main, timeout, .. } => Ok(Arc::new(
                RedisNode::connect(DEFAULT_NODE, main, *timeout).await?,
            )),
        }
    }

    /// The never-reuse assigner: MySQL's `WORKER_NODE`.
    pub async fn worker_nodes(&self) -> Result<Arc<dyn WorkerNodeAssigner>> {
        match &self.parts {
            Parts::Distributed {
                mysql,
                main,
                timeout,
            } => Ok(Arc::new(DistributedWorkerNodes {
                ledger: mysql.clone(),
                redis: Arc::new(RedisNode::connect(DEFAULT_NODE, main, *timeout).await?),
            })),
        }
    }

    /// The segment allocator over this backend.
    pub fn allocator(&self, settings: &Settings) -> SegmentAllocator {
        let options = AllocatorOptions {
            dispenser: settings.dispenser,
            idle: settings.idle,
            app_dispensers: settings.app_dispensers.clone(),
            ..AllocatorOptions::default()
        };
        SegmentAllocator::new(self.ledger.clone(), self.nodes.clone(), options)
    }
}
