//! The one place a `redis::Client` is built from idgen's settings: a URL and
//! the TLS files. Every topology (a node, Sentinel, Cluster) builds its
//! clients here, so TLS and URL checks are the same everywhere.

use crate::config::TlsFiles;
use crate::error::{Error, Result};
use crate::redact::SecretUrl;
use crate::store::tls;

/// The URL forms a Redis node accepts, for hints.
pub const URL_FORM: &str = "redis://[user][:password@]host[:port][/db] (rediss:// with TLS; valkey:// and valkeys:// alike)";

/// Does the URL ask for TLS (`rediss://`, `valkeys://`, `rediss-sentinel://`,
/// `rediss-cluster://`)?
pub fn wants_tls(url: &SecretUrl) -> bool {
    let scheme = url.expose().trim().split("://").next().unwrap_or_default();
    ["rediss", "valkeys", "rediss-sentinel", "rediss-cluster"]
        .iter()
        .any(|tls| scheme.eq_ignore_ascii_case(tls))
}

/// A client for `url`. With TLS it verifies the server against the CA file, or
/// the system's roots without one, and presents the client certificate when
/// one is set; a plain URL ignores the files (see [`tls::refuse_unused`] for
/// files that no URL uses). Nothing connects yet.
pub fn client(url: &SecretUrl, files: &TlsFiles) -> Result<redis::Client> {
    let bad_url = |e: redis::RedisError| {
        Error::invalid(
            "Redis URL",
            format!("{url}: {}", url.scrub(&e.to_string())),
            format!("write it as {URL_FORM}"),
        )
    };
    let info = connection_info(url).map_err(bad_url)?;
    if !wants_tls(url) {
        return redis::Client::open(info).map_err(bad_url);
    }
    let Some(certificates) = certificates(files)? else {
        return redis::Client::open(info).map_err(bad_url);
    };
    redis::Client::build_with_tls(info, certificates).map_err(|e| {
        if e.kind() == redis::ErrorKind::InvalidClientConfig {
            bad_url(e)
        } else {
            // The URL parsed: what failed is a certificate or key in the files.
            Error::invalid(
                "TLS file",
                format!(
                    "the Redis certificate files do not load: {}",
                    url.scrub(&e.to_string())
                ),
                format!(
                    "check the PEM files named by {}, {} and {}",
                    tls::REDIS.setting("ca"),
                    tls::REDIS.setting("cert"),
                    tls::REDIS.setting("key")
                ),
            )
        }
    })
}

/// What a client of `url` connects with. A new connection does not send
/// `CLIENT SETINFO`: the client waits for its answer before the first command,
/// a round trip of every short-lived process (a warm `next` has one other), and
/// Redis before 7.2 refuses it, two error replies in `INFO errorstats` for
/// every connection.
/// (Cluster clients cannot be told so: they still send it, once per node.)
fn connection_info(url: &SecretUrl) -> redis::RedisResult<redis::ConnectionInfo> {
    use redis::IntoConnectionInfo;
    let info = url.expose().into_connection_info()?;
    let settings = info.redis_settings().clone().set_skip_set_lib_name();
    Ok(info.set_redis_settings(settings))
}

/// The CA and client certificate from the TLS files, for a TLS client of any
/// topology (`None`: no file set, the system's roots verify the server).
pub fn certificates(files: &TlsFiles) -> Result<Option<redis::TlsCertificates>> {
    tls::install_crypto_provider();
    Ok(
        tls::read(tls::REDIS, files)?.map(|pem| redis::TlsCertificates {
            client_tls: pem
                .identity
                .map(|(client_cert, client_key)| redis::ClientTlsConfig {
                    client_cert,
                    client_key,
                }),
            root_cert: pem.ca,
        }),
    )
}

/// A connection failure that TLS explains: the certificate was not verified,
/// the handshake was refused (exit code `tls`), or a plain connection was
/// dropped the way a port that speaks only TLS drops it (unreachable, with
/// that hint).
pub fn tls_failure(url: &SecretUrl, e: &redis::RedisError) -> Option<Error> {
    if let Some(failure) = tls::failure(tls::REDIS, url, e) {
        return Some(failure);
    }
    // A refused connection is a server down or a wrong port, never TLS: a
    // TLS-only port accepts the connection, then drops the plain handshake.
    (!wants_tls(url) && e.is_connection_dropped() && !e.is_connection_refusal()).then(|| {
        Error::Unreachable {
            backend: "Redis",
            url: url.to_string(),
            detail: format!(
                "{}; the server may accept only TLS: use rediss:// (valkeys://)",
                url.describe_error(e)
            ),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{SecretUrl, TlsFiles, client, wants_tls};

    #[test]
    fn valkey_urls_are_redis_urls() {
        for (raw, tls) in [
            ("valkey://127.0.0.1:6379/0", false),
            ("valkeys://127.0.0.1:6380", true),
            ("rediss://u:p@127.0.0.1:6380", true),
            ("redis://127.0.0.1", false),
        ] {
            let url = SecretUrl::new(raw);
            assert_eq!(wants_tls(&url), tls, "{raw}");
            client(&url, &TlsFiles::default()).unwrap();
        }
    }
}
