//! Connections to a Redis node: a standalone server, the master Sentinel
//! names, or a cluster; what each connection provably reaches (its server's
//! `run_id` on a direct one); following failovers; and the errors a driver
//! answer means.

use super::errors::connect_error;
use super::keys::KeyNames;
use super::reply::{info_field, text_of, texts_in};
use super::topology::{self, SentinelSpec, Topology};
use super::{MIN_REDIS_VERSION, RedisNode, connect};
use crate::activity::Work;
use crate::config::TlsFiles;
use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use crate::retry::Backoff;
use crate::store::{tls, version_at_least};
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Value};
use std::sync::Arc;
use std::time::Duration;

/// One connection, and what is known about the server process at its end.
#[derive(Clone)]
pub(super) struct Link {
    pub(super) conn: Conn,
    /// The `run_id` of the server process, when the connection provably ends
    /// at it (the server's own address is the one dialled): such a connection
    /// cannot outlive that process, so takes compare a shard's stamp with this
    /// instead of asking the server every time. `None` when something may sit
    /// in between (a proxy or a managed endpoint whose connections survive a
    /// failover, NAT): every take then asks the server inside its script.
    pub(super) direct_run_id: Option<Arc<str>>,
    /// `LPOP key count` works (Redis 6.2 and later).
    pub(super) lpop_count: bool,
    /// `RESTORE` reads a list in [`dump`](super::dump)'s form (Redis 7.0 and later).
    pub(super) restore_list: bool,
}

/// How far a node's connection is made.
pub(super) enum LinkState {
    /// None yet, or the last one broke: the next request makes one.
    None,
    /// Connected to a standalone server, not yet probed: the first take
    /// probes it in its own round trip (see `RedisNode::take_as`).
    Unprobed(MultiplexedConnection),
    Ready(Link),
}

/// A connection to one server, or to a whole Redis Cluster (which routes each
/// command by its first key, and each pipeline to its keys' one slot).
#[derive(Clone)]
pub(super) enum Conn {
    Server(MultiplexedConnection),
    Cluster(redis::cluster_async::ClusterConnection),
}

impl redis::aio::ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a redis::Cmd) -> redis::RedisFuture<'a, Value> {
        crate::activity::did(Work::RedisRoundTrip);
        match self {
            Conn::Server(conn) => conn.req_packed_command(cmd),
            Conn::Cluster(conn) => conn.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> redis::RedisFuture<'a, Vec<Value>> {
        crate::activity::did(Work::RedisRoundTrip);
        match self {
            Conn::Server(conn) => conn.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(conn) => conn.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Server(conn) => conn.get_db(),
            Conn::Cluster(conn) => conn.get_db(),
        }
    }
}

impl RedisNode {
    /// Connects, failing within `timeout` if the server does not answer, and
    /// refuses a server older than [`MIN_REDIS_VERSION`].
    pub async fn connect(
        name: &str,
        url: &SecretUrl,
        tls: &TlsFiles,
        timeout: Duration,
    ) -> Result<Self> {
        let node = Self::undialled(name, url, tls, timeout)?;
        // A standalone server is dialled now, so an unreachable one fails
        // here as ever; the probe waits for the first request, which a take
        // carries in the same round trip.
        let unprobed = match &node.client {
            Some(client) => LinkState::Unprobed(node.dial(client).await?),
            None => LinkState::Ready(node.make_link().await?),
        };
        *node.state() = unprobed;
        Ok(node)
    }

    /// The node, its URL checked but no connection made: the first request
    /// makes one, as after a connection broke. For a server that starts
    /// while Redis is down and serves once it is up.
    pub fn undialled(
        name: &str,
        url: &SecretUrl,
        tls: &TlsFiles,
        timeout: Duration,
    ) -> Result<Self> {
        let topology = Topology::parse(url)?;
        let client = match topology {
            Topology::Standalone => Some(connect::client(url, tls)?),
            _ => None,
        };
        if let Topology::Cluster(spec) = &topology {
            // Checked now; each link builds its client from the seeds that answer.
            cluster_client(url, &spec.seed_urls(), tls, timeout)?;
        }
        let keys = match topology {
            Topology::Cluster(_) => KeyNames::Cluster,
            _ => KeyNames::Java,
        };
        Ok(RedisNode {
            name: name.to_string(),
            url: url.clone(),
            topology,
            client,
            keys,
            tls: tls.clone(),
            link: std::sync::Mutex::new(LinkState::None),
            linking: tokio::sync::Mutex::new(()),
            timeout,
            restore_refused: std::sync::atomic::AtomicBool::new(false),
            sentinel_replicas: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// The link's state, for a moment: the guard must be gone before the
    /// next await.
    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, LinkState> {
        // A panic while it was held cannot leave it half-written: every
        // change is one assignment.
        self.link
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The current connection, made (and its server probed) if there is none.
    pub(super) async fn link(&self) -> Result<Link> {
        if let LinkState::Ready(link) = &*self.state() {
            return Ok(link.clone());
        }
        let _making = self.linking.lock().await;
        // Taken out while it is made: a failure on the way leaves none, and
        // the next request makes it afresh.
        let taken = std::mem::replace(&mut *self.state(), LinkState::None);
        let link = match taken {
            // Made by the request this one waited for.
            LinkState::Ready(link) => link,
            LinkState::Unprobed(conn) => match &self.client {
                Some(client) => self.probe(client, conn, false).await?,
                None => self.make_link().await?,
            },
            LinkState::None => self.make_link().await?,
        };
        *self.state() = LinkState::Ready(link.clone());
        Ok(link)
    }

    /// Makes the connection now, its server probed, so that a caller with
    /// other work under way (a lease meeting MySQL) overlaps the probe's
    /// round trip with it instead of waiting for it on its first request.
    pub async fn ready_link(&self) -> Result<()> {
        self.link().await.map(drop)
    }

    pub(super) async fn conn(&self) -> Result<Conn> {
        Ok(self.link().await?.conn)
    }

    /// The most replicas the Sentinels named for the master so far (0 off
    /// Sentinel, or before a link was made through them).
    pub(super) fn sentinel_replicas(&self) -> u64 {
        self.sentinel_replicas
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Drops a connection that broke, so the next request makes a new one.
    /// Never waits: it runs inside the making of a link too (a probe or a
    /// first take that breaks), which holds `linking` and has already taken
    /// the link out.
    pub(super) fn forget_link(&self) {
        *self.state() = LinkState::None;
    }

    /// Is there no connection (none made yet, or the last one broke)?
    pub(super) fn has_no_link(&self) -> bool {
        matches!(*self.state(), LinkState::None)
    }

    pub(super) async fn make_link(&self) -> Result<Link> {
        match (&self.topology, &self.client) {
            (Topology::Sentinel(spec), _) => self.follow_master(spec).await,
            (Topology::Cluster(spec), _) => self.link_to_cluster(spec).await,
            (_, Some(client)) => self.link_to(client, false).await,
            (_, None) => Err(Error::invalid(
                "Redis URL",
                format!(
                    "{}: this form is not served by a single connection",
                    self.url
                ),
                "write it as redis://host:port, redis-sentinel://…#MASTER or redis-cluster://…",
            )),
        }
    }

    pub(super) fn timed_out(&self) -> Error {
        Error::Timeout {
            backend: "Redis",
            url: self.url.to_string(),
            after: self.timeout,
        }
    }

    /// How every connection to a server is made: connecting and each answer
    /// bounded by the node's timeout.
    fn connection_config(&self) -> AsyncConnectionConfig {
        AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout))
    }

    /// Connects through `client` and probes the server. With `master`, a
    /// server that is not (or no longer) a master is refused.
    pub(super) async fn link_to(&self, client: &redis::Client, master: bool) -> Result<Link> {
        let conn = self.dial(client).await?;
        self.probe(client, conn, master).await
    }

    /// Connects through `client`, within the node's timeout.
    pub(super) async fn dial(&self, client: &redis::Client) -> Result<MultiplexedConnection> {
        let config = self.connection_config();
        let connecting = client.get_multiplexed_async_connection_with_config(&config);
        let conn = match tokio::time::timeout(self.timeout, connecting).await {
            Ok(Ok(conn)) => conn,
            Ok(Err(e)) if e.is_timeout() => return Err(self.timed_out()),
            Ok(Err(e)) => return Err(self.error(&e)),
            Err(_) => return Err(self.timed_out()),
        };
        crate::activity::did(Work::RedisConnection);
        Ok(conn)
    }

    /// One round trip: what the server is, and where this connection ends.
    async fn probe(
        &self,
        client: &redis::Client,
        mut conn: MultiplexedConnection,
        master: bool,
    ) -> Result<Link> {
        crate::activity::did(Work::RedisRoundTrip);
        let mut probe = redis::pipe();
        probe.ignore_errors();
        for command in probe_commands(master) {
            probe.add_command(command);
        }
        let answers: Vec<Value> =
            match tokio::time::timeout(self.timeout, probe.query_async(&mut conn)).await {
                Ok(Ok(answers)) => answers,
                Ok(Err(e)) => return Err(self.error(&e)),
                Err(_) => return Err(self.timed_out()),
            };
        self.link_of(client, conn, &answers, master).await
    }

    /// The connection `conn` made through `client`, as the answers to
    /// [`probe_commands`] describe it.
    pub(super) async fn link_of(
        &self,
        client: &redis::Client,
        conn: MultiplexedConnection,
        answers: &[Value],
        master: bool,
    ) -> Result<Link> {
        let info = text_of(answers.first());
        if let Some(Value::ServerError(e)) = answers.first() {
            return Err(self.error(&redis::RedisError::from(e.clone())));
        }
        let version = self.check_version(&info)?;
        if master {
            let role = match answers.get(2) {
                Some(Value::Array(fields)) => text_of(fields.first()),
                _ => String::new(),
            };
            if role != "master" {
                // A replica's ROLE answer: "slave", its master's host and port, ….
                let master = match answers.get(2) {
                    Some(Value::Array(fields)) if fields.len() > 2 => Some(format!(
                        "{}:{}",
                        text_of(fields.get(1)),
                        text_of(fields.get(2))
                    )),
                    _ => None,
                };
                return Err(self.not_master(&role, master));
            }
        }
        let run_id = info_field(&info, "run_id");
        let local = text_of(answers.get(1));
        let local = local
            .split_whitespace()
            .find_map(|f| f.strip_prefix("laddr="))
            .unwrap_or_default();
        let direct = !run_id.is_empty() && dialled(client, local).await;
        Ok(Link {
            conn: Conn::Server(conn),
            direct_run_id: direct.then(|| Arc::from(run_id.as_str())),
            lpop_count: version_at_least(&version, (6, 2)),
            restore_list: version_at_least(&version, (7, 0)),
        })
    }

    /// Connects to a Redis Cluster and checks every master's version. Takes
    /// check each shard's stamp inside their script: the connection reaches
    /// many servers, and resharding moves a shard to another.
    pub(super) async fn link_to_cluster(&self, spec: &topology::ClusterSpec) -> Result<Link> {
        // A seed that is down (a killed master) would hold up the cluster
        // client's start: only seeds that accept a connection are handed to it.
        let seeds = spec.seed_urls();
        let probes = spec.seeds.iter().map(|(host, port)| {
            tokio::time::timeout(
                self.timeout,
                tokio::net::TcpStream::connect((host.as_str(), *port)),
            )
        });
        let answered = futures::future::join_all(probes).await;
        let live: Vec<SecretUrl> = seeds
            .into_iter()
            .zip(answered)
            .filter(|(_, probe)| matches!(probe, Ok(Ok(_))))
            .map(|(url, _)| url)
            .collect();
        if live.is_empty() {
            return Err(Error::Unreachable {
                backend: "Redis",
                url: self.url.to_string(),
                detail: "no seed node of the cluster accepts connections".into(),
            });
        }
        let cluster = cluster_client(&self.url, &live, &self.tls, self.timeout)?;
        let mut conn =
            match tokio::time::timeout(self.timeout, cluster.get_async_connection()).await {
                Ok(Ok(conn)) => conn,
                Ok(Err(e)) if e.is_timeout() => return Err(self.timed_out()),
                Ok(Err(e)) => {
                    // The cluster client keeps only the text of a seed's
                    // failure: a TLS one is found again, cause intact, on a
                    // seed by itself.
                    if connect::wants_tls(&self.url)
                        && let Some(failure) = self.seed_tls_failure(&live[0]).await
                    {
                        return Err(failure);
                    }
                    return Err(connect_error(&self.url, &e));
                }
                Err(_) => return Err(self.timed_out()),
            };
        crate::activity::did(Work::RedisConnection);
        crate::activity::did(Work::RedisRoundTrip);
        let info = self
            .bounded(conn.route_command(redis::cmd("INFO").arg("server").clone(), all_masters()))
            .await?;
        for text in texts_in(&info) {
            self.check_version(&text)?;
        }
        Ok(Link {
            conn: Conn::Cluster(conn),
            direct_run_id: None,
            lpop_count: true,
            // A cluster's pushes send their indexes to the script (see `batch`).
            restore_list: false,
        })
    }

    /// Why a TLS connection to the cluster node `seed` alone fails, if TLS is why.
    async fn seed_tls_failure(&self, seed: &SecretUrl) -> Option<Error> {
        let client = connect::client(seed, &self.tls).ok()?;
        let config = self.connection_config();
        let attempt = async {
            let mut conn = client
                .get_multiplexed_async_connection_with_config(&config)
                .await?;
            redis::cmd("PING").query_async::<()>(&mut conn).await
        };
        let e = tokio::time::timeout(self.timeout, attempt)
            .await
            .ok()?
            .err()?;
        connect::tls_failure(&self.url, &e)
    }

    /// The masters of the cluster, as `(host, port)`, from `CLUSTER NODES`.
    pub(super) async fn cluster_masters(
        &self,
        conn: &mut redis::cluster_async::ClusterConnection,
    ) -> Result<Vec<(String, u16)>> {
        let nodes = self
            .bounded(conn.route_command(
                redis::cmd("CLUSTER").arg("NODES").clone(),
                redis::cluster_routing::RoutingInfo::SingleNode(
                    redis::cluster_routing::SingleNodeRoutingInfo::RandomPrimary,
                ),
            ))
            .await?;
        Ok(text_of(Some(&nodes))
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let flags = fields.get(2)?;
                if !flags.split(',').any(|f| f == "master") || flags.contains("fail") {
                    return None;
                }
                let addr = fields.get(1)?.split('@').next()?;
                let (host, port) = addr.rsplit_once(':')?;
                Some((host.to_string(), port.parse().ok()?))
            })
            .collect())
    }

    /// Asks the sentinels for the master and connects to it. While a failover
    /// is under way (the named master is down, or is not a master yet) it asks
    /// again, within the node's timeout.
    pub(super) async fn follow_master(&self, spec: &SentinelSpec) -> Result<Link> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut again = Backoff::failover(deadline.into_std());
        let mut last = None;
        loop {
            // Sentinels that cannot be asked are not waited for: that is no failover.
            let (host, port) = tokio::time::timeout_at(deadline, self.ask_sentinels(spec))
                .await
                .map_err(|_| self.timed_out())??;
            let attempt = async {
                let client = connect::client(&spec.master_url(&host, port), &self.tls)?;
                self.link_to(&client, true).await
            };
            let failure = match tokio::time::timeout_at(deadline, attempt).await {
                Ok(Ok(link)) => return Ok(link),
                Ok(Err(e)) if failover_may_fix(&e) => e,
                Ok(Err(e)) => return Err(e),
                Err(_) => return Err(last.unwrap_or_else(|| self.timed_out())),
            };
            if !again.pause().await {
                return Err(failure);
            }
            last = Some(failure);
        }
    }

    /// The master's address, from the first sentinel that knows it (all are asked at once).
    pub(super) async fn ask_sentinels(&self, spec: &SentinelSpec) -> Result<(String, u16)> {
        let clients = spec
            .sentinels
            .iter()
            .map(|sentinel| {
                connect::client(&SecretUrl::new(spec.sentinel_url(sentinel)), &self.tls)
            })
            .collect::<Result<Vec<_>>>()?;
        let asks = clients.into_iter().map(|client| {
            Box::pin(async move {
                let config = self.connection_config();
                let mut conn = client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                    .map_err(|e| (false, e))?;
                crate::activity::did(Work::RedisConnection);
                crate::activity::did(Work::RedisRoundTrip);
                // The master's replicas in the same round trip: every one
                // they know, the ones down included (see `sentinel_replicas`).
                // (An unknown master's REPLICAS is an error: ignored, the
                // address's answer says it.)
                let answers: Vec<redis::Value> = redis::pipe()
                    .ignore_errors()
                    .cmd("SENTINEL")
                    .arg("GET-MASTER-ADDR-BY-NAME")
                    .arg(&spec.master)
                    .cmd("SENTINEL")
                    .arg("REPLICAS")
                    .arg(&spec.master)
                    .query_async(&mut conn)
                    .await
                    .map_err(|e| (false, e))?;
                let mut answers = answers.into_iter();
                let addr: Option<(String, u16)> =
                    redis::from_redis_value(answers.next().unwrap_or(redis::Value::Nil))
                        .map_err(|e| (false, redis::RedisError::from(e)))?;
                if let (Some(_), Some(redis::Value::Array(replicas))) = (&addr, answers.next()) {
                    self.sentinel_replicas
                        .fetch_max(replicas.len() as u64, std::sync::atomic::Ordering::Relaxed);
                }
                addr.ok_or_else(|| {
                    (
                        true,
                        redis::RedisError::from((redis::ErrorKind::Client, "unknown master")),
                    )
                })
            })
        });
        match futures::future::select_ok(asks).await {
            Ok((addr, _)) => Ok(addr),
            Err((true, _)) => Err(Error::Config {
                location: format!("Redis URL {}", self.url),
                problem: format!("the sentinels know no master named {:?}", spec.master),
                hint: "name a master the sentinels monitor after # (SENTINEL MASTERS lists them)"
                    .into(),
            }),
            // A certificate not verified or a refused handshake is a TLS failure, not an absence.
            Err((false, e)) => {
                Err(
                    tls::failure(tls::REDIS, &self.url, &e).unwrap_or_else(|| Error::Unreachable {
                        backend: "Redis",
                        url: self.url.to_string(),
                        detail: format!(
                            "no sentinel named a master ({})",
                            self.url.describe_error(&e)
                        ),
                    }),
                )
            }
        }
    }
}

/// A cluster client for `seeds`, bounded by `timeout`.
pub(super) fn cluster_client(
    url: &SecretUrl,
    seeds: &[SecretUrl],
    tls: &TlsFiles,
    timeout: Duration,
) -> Result<redis::cluster::ClusterClient> {
    let mut builder =
        redis::cluster::ClusterClientBuilder::new(seeds.iter().map(|u| u.expose().to_string()));
    if connect::wants_tls(url)
        && let Some(certificates) = connect::certificates(tls)?
    {
        builder = builder.certs(certificates);
    }
    builder
        .connection_timeout(timeout)
        .response_timeout(timeout)
        // A dead node (a killed master, now replaced) is dropped from the map
        // after this many tries, instead of tried for ever.
        .max_connection_attempts(std::num::NonZeroUsize::MIN.saturating_add(1))
        .build()
        .map_err(|e| {
            Error::invalid(
                "Redis URL",
                format!("{url}: {}", url.scrub(&e.to_string())),
                "write it as redis-cluster://[:password@]host:port[,host:port…]",
            )
        })
}

/// Every master of a cluster, each answer kept apart.
pub(super) fn all_masters() -> redis::cluster_routing::RoutingInfo {
    redis::cluster_routing::RoutingInfo::MultiNode((
        redis::cluster_routing::MultipleNodeRoutingInfo::AllMasters,
        None,
    ))
}

impl RedisNode {
    /// The server's version from its `INFO server`; refuses one older than
    /// [`MIN_REDIS_VERSION`].
    fn check_version(&self, info: &str) -> Result<String> {
        let version = info_field(info, "redis_version");
        if version_at_least(&version, MIN_REDIS_VERSION) {
            return Ok(version);
        }
        Err(Error::ServerTooOld {
            backend: "Redis",
            url: self.url.to_string(),
            version,
            minimum: format!("{}.{}", MIN_REDIS_VERSION.0, MIN_REDIS_VERSION.1),
        })
    }
}

/// Is `local` (the server's own address of this connection, from CLIENT
/// INFO) the address `client` dialled? Then nothing sits in between.
pub(super) async fn dialled(client: &redis::Client, local: &str) -> bool {
    match client.get_connection_info().addr() {
        redis::ConnectionAddr::Tcp(host, port)
        | redis::ConnectionAddr::TcpTls { host, port, .. } => {
            // Redis writes an IPv6 address unbracketed: `laddr=::1:6379`.
            let Some(local) = local.rsplit_once(':').and_then(|(ip, port)| {
                let ip = ip.trim_matches(['[', ']']).parse().ok()?;
                Some(std::net::SocketAddr::new(ip, port.parse().ok()?))
            }) else {
                return false;
            };
            // An address needs no lookup, which would cost a blocking thread.
            if let Ok(ip) = host.trim_matches(['[', ']']).parse::<std::net::IpAddr>() {
                return std::net::SocketAddr::new(ip, *port) == local;
            }
            match tokio::net::lookup_host((host.as_str(), *port)).await {
                Ok(mut dialled) => dialled.any(|a| a == local),
                Err(_) => false,
            }
        }
        redis::ConnectionAddr::Unix(path) => {
            local.rsplit_once(':').map(|(p, _)| p) == path.to_str()
        }
        _ => false,
    }
}

/// What a probe asks: the server's INFO, where the connection ends (CLIENT
/// INFO, Redis 6.2; without it the connection counts as indirect) and, with
/// `master`, its role. The answers are read by [`RedisNode::link_of`].
pub(super) fn probe_commands(master: bool) -> Vec<redis::Cmd> {
    let mut commands = vec![
        redis::cmd("INFO").arg("server").clone(),
        redis::cmd("CLIENT").arg("INFO").clone(),
    ];
    if master {
        commands.push(redis::cmd("ROLE"));
    }
    commands
}

/// Failures a Sentinel failover under way explains: the master named is down
/// or not yet (or no longer) a master.
pub(super) fn failover_may_fix(e: &Error) -> bool {
    matches!(
        e,
        Error::Unreachable { .. }
            | Error::Timeout { .. }
            | Error::Backend { .. }
            | Error::NotMaster { .. }
    )
}
