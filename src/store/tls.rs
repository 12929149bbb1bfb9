//! TLS for both kinds of server: the crypto provider, the certificate files,
//! and telling a TLS failure apart from a server that is simply down.

use crate::config::TlsFiles;
use crate::error::{Error, Result};
use std::path::Path;

/// Installs ring as rustls's process-wide crypto provider, once. A program
/// that embeds idgen and chose a provider itself keeps its own. Called where a
/// client is built, not in `main`: the library is used by Rust services too.
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Losing a race with another installer leaves a provider in place: fine.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}

/// The contents of a [`TlsFiles`], read and checked.
pub struct Pem {
    /// The CA certificates to verify the server against; `None`: the system's roots.
    pub ca: Option<Vec<u8>>,
    /// Client certificate chain and key, for mutual TLS.
    pub identity: Option<(Vec<u8>, Vec<u8>)>,
}

/// How one kind of server's TLS settings are named, for messages.
#[derive(Debug, Clone, Copy)]
pub struct Names {
    /// `Redis` or `MySQL`.
    pub backend: &'static str,
    /// The flag prefix: `redis` gives `--redis-ca`, `IDGEN_REDIS_CA`, `[tls.redis] ca`.
    pub prefix: &'static str,
    /// How that server's URL asks for TLS.
    pub url_form: &'static str,
}

pub const REDIS: Names = Names {
    backend: "Redis",
    prefix: "redis",
    url_form: "a rediss:// (or valkeys://) URL",
};

pub const MYSQL: Names = Names {
    backend: "MySQL",
    prefix: "mysql",
    url_form: "require_ssl=true in the MySQL URL",
};

impl Names {
    /// `--redis-ca (IDGEN_REDIS_CA, [tls.redis] ca)`.
    pub fn setting(&self, role: &str) -> String {
        format!(
            "--{}-{role} (IDGEN_{}_{}, [tls.{}] {role})",
            self.prefix,
            self.prefix.to_uppercase(),
            role.to_uppercase(),
            self.prefix
        )
    }
}

/// Refuses TLS files that no URL of that server asks to use: the connection
/// would be plain text while the operator believes it is encrypted.
pub fn refuse_unused(names: Names, files: &TlsFiles) -> Result<()> {
    let set: Vec<&str> = [
        ("ca", &files.ca),
        ("cert", &files.cert),
        ("key", &files.key),
    ]
    .into_iter()
    .filter(|(_, p)| p.is_some())
    .map(|(role, _)| role)
    .collect();
    let Some(first) = set.first() else {
        return Ok(());
    };
    Err(Error::invalid(
        "TLS settings",
        format!(
            "{} TLS files are set ({}) but no {} URL asks for TLS",
            names.backend,
            set.join(", "),
            names.backend
        ),
        format!(
            "use {} to connect with TLS, or unset {}",
            names.url_form,
            names.setting(first)
        ),
    ))
}

/// Reads the files; `None` when none is set. A certificate without its key (or
/// the reverse), and a file that cannot be read or holds no PEM, are refused.
pub fn read(names: Names, files: &TlsFiles) -> Result<Option<Pem>> {
    if !files.is_set() {
        return Ok(None);
    }
    let identity = match (&files.cert, &files.key) {
        (Some(cert), Some(key)) => {
            Some((read_pem(names, "cert", cert)?, read_pem(names, "key", key)?))
        }
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            let (have, missing) = if files.cert.is_some() {
                ("cert", "key")
            } else {
                ("key", "cert")
            };
            return Err(Error::invalid(
                "TLS settings",
                format!(
                    "a {} client {have} is set without its {missing}",
                    names.backend
                ),
                format!("set {} too", names.setting(missing)),
            ));
        }
    };
    let ca = files
        .ca
        .as_deref()
        .map(|ca| read_pem(names, "ca", ca))
        .transpose()?;
    Ok(Some(Pem { ca, identity }))
}

fn read_pem(names: Names, role: &str, path: &Path) -> Result<Vec<u8>> {
    let what = match role {
        "ca" => "CA file",
        "cert" => "client certificate",
        _ => "client key",
    };
    let bytes = std::fs::read(path).map_err(|e| {
        Error::invalid(
            "TLS file",
            format!(
                "cannot read the {} {what} {}: {e}",
                names.backend,
                path.display()
            ),
            format!("name a readable PEM file with {}", names.setting(role)),
        )
    })?;
    // A key where a certificate belongs (or the reverse) is a common slip.
    let marker: &[u8] = if role == "key" {
        b"PRIVATE KEY-----"
    } else {
        b"-----BEGIN CERTIFICATE-----"
    };
    if !bytes.windows(marker.len()).any(|w| w == marker) {
        return Err(Error::invalid(
            "TLS file",
            format!(
                "the {} {what} {} holds no PEM {}",
                names.backend,
                path.display(),
                if role == "key" {
                    "private key"
                } else {
                    "certificate"
                }
            ),
            format!(
                "name a PEM file (-----BEGIN ...) with {}",
                names.setting(role)
            ),
        ));
    }
    Ok(bytes)
}

/// The TLS failure inside a driver's error, if that is what it is: the
/// server's certificate could not be verified, or the handshake failed.
pub fn failure(
    names: Names,
    url: &crate::redact::SecretUrl,
    error: &(dyn std::error::Error + 'static),
) -> Option<Error> {
    let cause = rustls_cause(error)?;
    let hint = match cause {
        rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer)
        | rustls::Error::InvalidCertificate(rustls::CertificateError::BadSignature) => format!(
            "give the CA that signed the server's certificate with {}",
            names.setting("ca")
        ),
        rustls::Error::InvalidCertificate(
            rustls::CertificateError::NotValidForName
            | rustls::CertificateError::NotValidForNameContext { .. },
        ) => "connect by a host name (or IP) that the server's certificate names".into(),
        rustls::Error::InvalidCertificate(_) => {
            "renew the server's certificate, or check this host's clock".into()
        }
        rustls::Error::AlertReceived(_) => format!(
            "the server refused this client: it may require a client certificate ({} and {}), signed by a CA it trusts",
            names.setting("cert"),
            names.setting("key")
        ),
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => format!(
            "the server does not speak TLS on this port: use its TLS port, or drop TLS from the URL ({})",
            names.url_form
        ),
        _ => "check the server's TLS settings and its log".into(),
    };
    Some(Error::Tls {
        backend: names.backend,
        url: url.to_string(),
        detail: url.scrub(&cause.to_string()),
        hint,
    })
}

/// The rustls error somewhere in `error`'s chain. An `io::Error` and an
/// `Arc<dyn Error>` (redis-rs keeps its I/O errors in one) hide what they wrap
/// from `source()`, so they are opened by hand.
fn rustls_cause<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    type Shared = std::sync::Arc<dyn std::error::Error + Send + Sync>;
    let mut next = Some(error);
    while let Some(e) = next {
        if let Some(found) = e.downcast_ref::<rustls::Error>() {
            return Some(found);
        }
        let inner: Option<&(dyn std::error::Error + 'static)> =
            match e.downcast_ref::<std::io::Error>() {
                Some(io) => io.get_ref().map(|inner| inner as _),
                None => e
                    .downcast_ref::<Shared>()
                    .map(|shared| shared.as_ref() as _),
            };
        if let Some(found) = inner.and_then(rustls_cause) {
            return Some(found);
        }
        next = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::SecretUrl;

    #[test]
    fn a_rustls_error_inside_an_io_error_is_found() {
        let io = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        let url = SecretUrl::new("rediss://:pw@h:1");
        let error = failure(REDIS, &url, &io).expect("a TLS failure");
        assert!(error.to_string().contains("UnknownIssuer"), "{error}");
        assert!(error.hint().unwrap().contains("--redis-ca"));
        let plain = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        assert!(failure(REDIS, &url, &plain).is_none());
    }

    #[test]
    fn files_for_a_plain_url_and_half_an_identity_are_refused() {
        let files = TlsFiles {
            ca: Some("/nonexistent/ca.pem".into()),
            ..TlsFiles::default()
        };
        let error = refuse_unused(REDIS, &files).err().unwrap();
        assert!(error.hint().unwrap().contains("rediss://"), "{error:?}");
        assert!(error.hint().unwrap().contains("--redis-ca"), "{error:?}");
        let error = read(REDIS, &files).err().unwrap();
        assert!(error.to_string().contains("cannot read the Redis CA file"));
        let files = TlsFiles {
            cert: Some("/x/cert.pem".into()),
            ..TlsFiles::default()
        };
        let error = read(MYSQL, &files).err().unwrap();
        assert!(error.hint().unwrap().contains("--mysql-key"), "{error:?}");
        assert!(read(REDIS, &TlsFiles::default()).unwrap().is_none());
        refuse_unused(MYSQL, &TlsFiles::default()).unwrap();
    }
}
