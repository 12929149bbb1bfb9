//! What a Redis node URL names: one server, a master found through Sentinel,
//! or a Redis Cluster. The one place these URL forms are parsed.
//!
//! - `redis://…`, `rediss://…`, `unix://…`: one server (redis-rs's own forms).
//! - `redis-sentinel://[[user]:password@]host[:port][,host[:port]…][/db]#MASTER`
//!   (Lettuce's form; `rediss-sentinel://` with TLS): the master that the
//!   sentinels name. The password is the data nodes'; sentinels are asked
//!   without one. Port 26379 when none is given.
//! - `redis-cluster://[[user]:password@]host:port[,host:port…]`
//!   (`rediss-cluster://` with TLS): the seed nodes of a Redis Cluster.

use crate::error::{Error, Result};
use crate::redact::SecretUrl;

/// The port sentinels listen on when a sentinel URL names none.
pub const SENTINEL_PORT: u16 = 26379;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Topology {
    /// One server; the URL is handed to redis-rs as written.
    Standalone,
    Sentinel(SentinelSpec),
    Cluster(ClusterSpec),
}

/// A master found through Sentinel.
#[derive(Clone, PartialEq, Eq)]
pub struct SentinelSpec {
    pub tls: bool,
    /// `user:password` or `:password` as written (percent-encoded), for the master.
    userinfo: Option<String>,
    pub sentinels: Vec<(String, u16)>,
    pub db: i64,
    pub master: String,
}

/// The seed nodes of a Redis Cluster.
#[derive(Clone, PartialEq, Eq)]
pub struct ClusterSpec {
    pub tls: bool,
    userinfo: Option<String>,
    pub seeds: Vec<(String, u16)>,
}

// Hand-written so that the userinfo (a password) never shows.
impl std::fmt::Debug for SentinelSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentinelSpec")
            .field("tls", &self.tls)
            .field("sentinels", &self.sentinels)
            .field("db", &self.db)
            .field("master", &self.master)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ClusterSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterSpec")
            .field("tls", &self.tls)
            .field("seeds", &self.seeds)
            .finish_non_exhaustive()
    }
}

const SENTINEL_FORM: &str =
    "write it as redis-sentinel://[:password@]host[:port][,host[:port]…][/db]#MASTER_NAME";
const CLUSTER_FORM: &str = "write it as redis-cluster://[:password@]host:port[,host:port…]";
const STANDALONE_FORM: &str = "write it as redis://[user][:password@]host[:port][/db], \
     redis-sentinel://…#MASTER_NAME or redis-cluster://host:port[,host:port…]";

impl Topology {
    /// Reads a node URL, checking it fully (nothing connects).
    pub fn parse(url: &SecretUrl) -> Result<Topology> {
        let raw = url.expose().trim();
        let (scheme, rest) = raw.split_once("://").unwrap_or(("", raw));
        // A problem may quote a piece of the URL (a host entry), which a
        // malformed URL can have cut out of its password: scrubbed (found by
        // fuzzing).
        let bad = |problem: String, hint: &str| {
            Error::invalid("Redis URL", url.scrub(&format!("{url}: {problem}")), hint)
        };
        match scheme.to_ascii_lowercase().as_str() {
            "redis-sentinel" | "rediss-sentinel" => {
                let tls = scheme.eq_ignore_ascii_case("rediss-sentinel");
                let (rest, master) = rest
                    .split_once('#')
                    .ok_or_else(|| bad("it names no master".into(), SENTINEL_FORM))?;
                if master.contains('@') {
                    // A `#` inside the password: the rest of it would be
                    // taken for the master's name, and shown as one (found
                    // by fuzzing).
                    return Err(bad(
                        "a '#' before its '@' ends the host part".into(),
                        &format!("percent-encode '#' in the password as %23; {SENTINEL_FORM}"),
                    ));
                }
                if crate::redact::secret_params(master).next().is_some() {
                    // A `pass=` after the '#' would be shown as the master's
                    // name (found by fuzzing).
                    return Err(bad(
                        "its master name after # holds a password parameter".into(),
                        &format!(
                            "name the master alone after '#' and put the password before the '@'; {SENTINEL_FORM}"
                        ),
                    ));
                }
                let master = percent_decode(master);
                if master.is_empty() {
                    return Err(bad(
                        "its master name after # is empty".into(),
                        SENTINEL_FORM,
                    ));
                }
                let (userinfo, rest) = split_userinfo(rest);
                if cut_userinfo(userinfo.as_deref()) {
                    return Err(bad(USERINFO_CUT.into(), SENTINEL_FORM));
                }
                // Before the database is read: a `pass=` value holding a '/'
                // would be quoted as the database (found by fuzzing).
                if rest.contains('?') {
                    return Err(bad(
                        "sentinel URLs take no ?parameters".into(),
                        SENTINEL_FORM,
                    ));
                }
                let (hosts, db) = match rest.split_once('/') {
                    Some((hosts, "")) => (hosts, 0),
                    Some((hosts, db)) => {
                        let db = db.parse::<i64>().ok().filter(|d| *d >= 0).ok_or_else(|| {
                            bad(format!("database {db:?} is not a number"), SENTINEL_FORM)
                        })?;
                        (hosts, db)
                    }
                    None => (rest, 0),
                };
                let sentinels = host_list(hosts, Some(SENTINEL_PORT))
                    .map_err(|problem| bad(problem, SENTINEL_FORM))?;
                Ok(Topology::Sentinel(SentinelSpec {
                    tls,
                    userinfo,
                    sentinels,
                    db,
                    master,
                }))
            }
            "redis-cluster" | "rediss-cluster" => {
                let tls = scheme.eq_ignore_ascii_case("rediss-cluster");
                let (userinfo, rest) = split_userinfo(rest);
                if cut_userinfo(userinfo.as_deref()) {
                    return Err(bad(USERINFO_CUT.into(), CLUSTER_FORM));
                }
                let hosts = rest.strip_suffix('/').unwrap_or(rest);
                if hosts.contains(['/', '?', '#']) {
                    return Err(bad(
                        "cluster URLs take no database, ?parameters or #fragment (a cluster has only database 0)"
                            .into(),
                        CLUSTER_FORM,
                    ));
                }
                let seeds = host_list(hosts, None).map_err(|problem| bad(problem, CLUSTER_FORM))?;
                Ok(Topology::Cluster(ClusterSpec {
                    tls,
                    userinfo,
                    seeds,
                }))
            }
            _ => {
                redis::Client::open(raw)
                    .map_err(|e| bad(url.scrub(&e.to_string()), STANDALONE_FORM))?;
                Ok(Topology::Standalone)
            }
        }
    }
}

impl SentinelSpec {
    /// The URL of one sentinel (no password: sentinels are asked without one).
    pub fn sentinel_url(&self, (host, port): &(String, u16)) -> String {
        format!("{}://{}:{port}", self.data_scheme(), url_host(host))
    }

    /// The URL of the master the sentinels named, with the node's password and database.
    pub fn master_url(&self, host: &str, port: u16) -> SecretUrl {
        SecretUrl::new(format!(
            "{}://{}{}:{port}/{}",
            self.data_scheme(),
            self.userinfo
                .as_deref()
                .map(|u| format!("{u}@"))
                .unwrap_or_default(),
            url_host(host),
            self.db
        ))
    }

    fn data_scheme(&self) -> &'static str {
        if self.tls { "rediss" } else { "redis" }
    }
}

impl ClusterSpec {
    /// The URL of each seed node, with the node's password.
    pub fn seed_urls(&self) -> Vec<SecretUrl> {
        let scheme = if self.tls { "rediss" } else { "redis" };
        self.seeds
            .iter()
            .map(|(host, port)| {
                SecretUrl::new(format!(
                    "{scheme}://{}{}:{port}",
                    self.userinfo
                        .as_deref()
                        .map(|u| format!("{u}@"))
                        .unwrap_or_default(),
                    url_host(host)
                ))
            })
            .collect()
    }
}

/// An IPv6 literal goes back into brackets.
fn url_host(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

/// `userinfo@rest`: the userinfo ends at the last `@` (a password may hold one).
/// Whether the text before a URL's last '@' holds a character that ends
/// the host part: the password then spills into what follows (a host entry,
/// a parameter), and no error may quote those (found by fuzzing).
fn cut_userinfo(userinfo: Option<&str>) -> bool {
    userinfo.is_some_and(|u| u.contains(['/', '?', '#']))
}

const USERINFO_CUT: &str = "the text before its '@' holds a '/', '?' or '#' (percent-encode them in a password: %2F, %3F, %23)";

fn split_userinfo(rest: &str) -> (Option<String>, &str) {
    match rest.rfind('@') {
        Some(at) => (
            Some(rest[..at].to_string()).filter(|u| !u.is_empty()),
            &rest[at + 1..],
        ),
        None => (None, rest),
    }
}

/// `host[:port][,host[:port]…]`, with `[v6]:port`; `default_port` when a port
/// may be left out.
fn host_list(
    hosts: &str,
    default_port: Option<u16>,
) -> std::result::Result<Vec<(String, u16)>, String> {
    let mut found = Vec::new();
    for entry in hosts.split(',') {
        let entry = entry.trim();
        if entry.is_empty() {
            return Err("its host list has an empty entry".into());
        }
        let (host, port) = if let Some(v6) = entry.strip_prefix('[') {
            let (host, after) = v6
                .split_once(']')
                .ok_or_else(|| format!("{entry:?} opens [ without closing it"))?;
            (host, after.strip_prefix(':'))
        } else {
            match entry.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (entry, None),
            }
        };
        if host.is_empty() {
            return Err(format!("{entry:?} names no host"));
        }
        let port = match (port, default_port) {
            (Some(port), _) => port
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| format!("{entry:?} has no valid port"))?,
            (None, Some(port)) => port,
            (None, None) => return Err(format!("{entry:?} names no port")),
        };
        found.push((host.to_string(), port));
    }
    Ok(found)
}

fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::{Error, Result, SENTINEL_PORT, SecretUrl, Topology};

    fn parse(raw: &str) -> Result<Topology> {
        Topology::parse(&SecretUrl::new(raw))
    }

    #[test]
    fn a_password_parameter_with_a_slash_is_not_quoted_as_the_database() {
        let Err(e) = parse("redis-sentinel://s1?pass=aa//muaPw7qZ#mymaster") else {
            panic!("a sentinel URL with a parameter was taken");
        };
        let shown = format!("{e} {}", e.hint().unwrap_or_default());
        assert!(shown.contains("take no ?parameters"), "{shown}");
        assert!(!shown.contains("Pw7qZ"), "{shown}");
    }

    #[test]
    fn a_password_parameter_in_the_master_name_is_refused_unshown() {
        let Err(e) = parse("rediss-sentinel://ll#llh#?&PASSWORD=r\u{b}s=Pw7qZ") else {
            panic!("a master name with a password parameter was taken");
        };
        let shown = format!("{e} {}", e.hint().unwrap_or_default());
        assert!(shown.contains("holds a password parameter"), "{shown}");
        assert!(!shown.contains("Pw7qZ"), "{shown}");
    }

    #[test]
    fn sentinel_urls_in_lettuce_form() {
        let Ok(Topology::Sentinel(spec)) =
            parse("redis-sentinel://:p%40ss@s1:26380,s2,[::1]:26381/3#my%20master")
        else {
            panic!("not a sentinel URL");
        };
        assert!(!spec.tls);
        assert_eq!(
            spec.sentinels,
            [
                ("s1".to_string(), 26380),
                ("s2".to_string(), SENTINEL_PORT),
                ("::1".to_string(), 26381)
            ]
        );
        assert_eq!(spec.db, 3);
        assert_eq!(spec.master, "my master");
        assert_eq!(spec.sentinel_url(&spec.sentinels[2]), "redis://[::1]:26381");
        assert_eq!(
            spec.master_url("10.0.0.9", 6380).expose(),
            "redis://:p%40ss@10.0.0.9:6380/3"
        );
        assert!(!format!("{spec:?}").contains("p%40ss"));
        let Ok(Topology::Sentinel(spec)) = parse("rediss-sentinel://h#m") else {
            panic!("not a sentinel URL");
        };
        assert!(spec.tls);
        assert_eq!(spec.master_url("h", 1).expose(), "rediss://h:1/0");
    }

    #[test]
    fn bad_sentinel_urls_say_what_is_wrong() {
        for (raw, says) in [
            ("redis-sentinel://h1,h2", "names no master"),
            ("redis-sentinel://s#q:0Pw7qZ@", "'#' before its '@'"),
            ("redis-sentinel://:a?b@h#m", "holds a '/', '?' or '#'"),
            ("redis-sentinel://h1#", "empty"),
            ("redis-sentinel://h1,,h2#m", "empty entry"),
            ("redis-sentinel://h1:x#m", "no valid port"),
            ("redis-sentinel://h1/x#m", "not a number"),
        ] {
            let Err(Error::Invalid { problem, hint, .. }) = parse(raw) else {
                panic!("{raw} was taken");
            };
            assert!(problem.contains(says), "{raw}: {problem}");
            assert!(
                hint.contains("redis-sentinel://[:password@]"),
                "{raw}: {hint}"
            );
        }
    }

    #[test]
    fn a_password_spilling_into_the_host_list_is_never_quoted() {
        let Err(error) = parse("rediss-cluster://?password=@\0@\0Pw7qZ") else {
            panic!("taken");
        };
        let shown = format!("{error} {:?}", error.hint());
        assert!(!shown.contains("Pw7qZ"), "{shown}");
    }

    #[test]
    fn cluster_urls_list_seeds() {
        let Ok(Topology::Cluster(spec)) = parse("redis-cluster://u:pw@a:7000,b:7001/") else {
            panic!("not a cluster URL");
        };
        assert_eq!(
            spec.seeds,
            [("a".to_string(), 7000), ("b".to_string(), 7001)]
        );
        let urls: Vec<String> = spec
            .seed_urls()
            .iter()
            .map(|u| u.expose().to_string())
            .collect();
        assert_eq!(urls, ["redis://u:pw@a:7000", "redis://u:pw@b:7001"]);
        assert!(parse("redis-cluster://a").is_err());
        assert!(parse("redis-cluster://a:1/2").is_err());
    }

    #[test]
    fn plain_urls_stay_standalone() {
        assert_eq!(parse("redis://h:6379/1").unwrap(), Topology::Standalone);
        assert!(parse("nonsense").is_err());
    }
}
