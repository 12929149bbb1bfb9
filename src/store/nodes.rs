//! The Redis nodes an idgen deployment knows by name, connected on first use so
//! that a warm `next` opens exactly one connection.

use super::Dispenser;
use super::redis::RedisNode;
use crate::config::TlsFiles;
use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

pub struct NodeSet {
    default: String,
    urls: BTreeMap<String, SecretUrl>,
    tls: TlsFiles,
    timeout: Duration,
    connected: Mutex<BTreeMap<String, Connected>>,
}

/// A node connected once and shared by everything that uses it: the stock
/// (as a [`Dispenser`]) and, on Redis, the lease store built on the same
/// connection.
#[derive(Clone)]
struct Connected {
    dispenser: Arc<dyn Dispenser>,
    redis: Option<Arc<RedisNode>>,
}

impl NodeSet {
    /// Redis nodes by name; `default` serves apps without a route. `tls` are
    /// the certificate files for the nodes whose URL asks for TLS.
    pub fn redis(
        default: &str,
        urls: BTreeMap<String, SecretUrl>,
        tls: TlsFiles,
        timeout: Duration,
    ) -> Self {
        NodeSet {
            default: default.to_string(),
            urls,
            tls,
            timeout,
            connected: Mutex::new(BTreeMap::new()),
        }
    }

    /// A set of one ready dispenser (the embedded store).
    pub fn single(dispenser: Arc<dyn Dispenser>) -> Self {
        let name = dispenser.node().to_string();
        NodeSet {
            default: name.clone(),
            urls: BTreeMap::new(),
            tls: TlsFiles::default(),
            timeout: Duration::ZERO,
            connected: Mutex::new(BTreeMap::from([(
                name,
                Connected {
                    dispenser,
                    redis: None,
                },
            )])),
        }
    }

    pub fn default_node(&self) -> &str {
        &self.default
    }

    /// Every configured node name.
    pub async fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.urls.keys().cloned().collect();
        names.extend(self.connected.lock().await.keys().cloned());
        names.sort();
        names.dedup();
        names
    }

    pub async fn contains(&self, name: &str) -> bool {
        self.urls.contains_key(name) || self.connected.lock().await.contains_key(name)
    }

    /// The redacted URL of a node, for plans and reports.
    pub fn describe(&self, name: &str) -> Option<String> {
        self.urls.get(name).map(ToString::to_string)
    }

    /// The node called `name`, connecting on first use.
    pub async fn get(&self, name: &str) -> Result<Arc<dyn Dispenser>> {
        Ok(self.connect(name, true).await?.dispenser)
    }

    /// The Redis server behind node `name` (connected once, shared with
    /// [`Self::get`]), for what is built on Redis besides the stock: leases.
    pub async fn redis_node(&self, name: &str) -> Result<Arc<RedisNode>> {
        Self::redis_of(name, self.connect(name, true).await?)
    }

    /// [`NodeSet::redis_node`], not dialled when it is new: its first request
    /// connects (see [`RedisNode::undialled`]).
    pub async fn redis_node_undialled(&self, name: &str) -> Result<Arc<RedisNode>> {
        Self::redis_of(name, self.connect(name, false).await?)
    }

    fn redis_of(name: &str, node: Connected) -> Result<Arc<RedisNode>> {
        node.redis
            .ok_or_else(|| Error::Internal(format!("node {name:?} is not a Redis server")))
    }

    async fn connect(&self, name: &str, dial: bool) -> Result<Connected> {
        let mut connected = self.connected.lock().await;
        if let Some(node) = connected.get(name) {
            return Ok(node.clone());
        }
        let url = self.urls.get(name).ok_or_else(|| Error::UnknownNode {
            node: name.to_string(),
        })?;
        let redis = Arc::new(if dial {
            RedisNode::connect(name, url, &self.tls, self.timeout).await?
        } else {
            RedisNode::undialled(name, url, &self.tls, self.timeout)?
        });
        let node = Connected {
            dispenser: redis.clone(),
            redis: Some(redis),
        };
        connected.insert(name.to_string(), node.clone());
        Ok(node)
    }
}
