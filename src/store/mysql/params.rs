//! The parameters a MySQL URL may carry: mysql_async's own, and the JDBC
//! (Connector/J) spellings a Java service's config holds, translated where
//! their meaning is clear and refused with the right name where it is not.
//!
//! idgen verifies a TLS server's certificate whatever the Java name says:
//! Connector/J's `sslMode=REQUIRED` encrypts without checking the certificate,
//! idgen's checks it against the CA (as `VERIFY_CA` does). Nothing falls back
//! to plain text, so `sslMode=PREFERRED` is refused.

use crate::error::{Error, Result};
use crate::redact::SecretUrl;

/// mysql_async's own URL parameters, passed through as written.
const DRIVER_PARAMS: &[&str] = &[
    "require_ssl",
    "verify_ca",
    "verify_identity",
    "built_in_roots",
    "prefer_socket",
    "socket",
    "compression",
    "pool_min",
    "pool_max",
    "inactive_connection_ttl",
    "ttl_check_interval",
    "conn_ttl",
    "abs_conn_ttl",
    "abs_conn_ttl_jitter",
    "tcp_keepalive",
    "tcp_nodelay",
    "max_allowed_packet",
    "wait_timeout",
    "stmt_cache_size",
    "secure_auth",
    "client_found_rows",
    "enable_cleartext_plugin",
    "reset_connection",
];

/// Connector/J parameters that only change how Java converts values: idgen
/// reads integers and ASCII names, so they are accepted and have no effect.
const JDBC_NO_EFFECT: &[&str] = &["useUnicode", "characterEncoding", "serverTimezone"];

/// What a URL's TLS parameters ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TlsAsk {
    on: bool,
    /// Check that the certificate names the host (off for `VERIFY_CA`).
    identity: bool,
}

/// The URL to hand to mysql_async: JDBC aliases translated, the no-effect ones
/// dropped. Anything else is refused with a one-line hint naming what to write.
pub fn driver_url(url: &SecretUrl) -> Result<String> {
    let Ok(mut parsed) = url::Url::parse(url.expose()) else {
        // mysql_async reports what is wrong with it.
        return Ok(url.expose().to_string());
    };
    if !parsed.scheme().eq_ignore_ascii_case("mysql") {
        // No MySQL URL, so none of its parameters is named: text that is not
        // a URL idgen reads may be a password, `?` and all (found by
        // fuzzing); mysql_async refuses the scheme.
        return Ok(url.expose().to_string());
    }
    let Some(query) = parsed.query() else {
        return Ok(url.expose().to_string());
    };
    if query.contains('@') {
        // A `?` in a password makes the rest of it, and the host, read as
        // parameters: naming one would show the password (found by fuzzing).
        return Err(refused(
            url,
            "its parameters hold an '@', so a '?' in its password may have ended the host part"
                .into(),
            "percent-encode '?' in the password as %3F and '@' in a parameter as %40".into(),
        ));
    }
    let mut kept: Vec<(String, String)> = Vec::new();
    let mut tls: Option<(String, TlsAsk)> = None;
    for (key, value) in parsed.query_pairs() {
        let (key, value) = (key.into_owned(), value.into_owned());
        if DRIVER_PARAMS.contains(&key.as_str()) {
            kept.push((key, value));
            continue;
        }
        if JDBC_NO_EFFECT.iter().any(|k| k.eq_ignore_ascii_case(&key)) {
            continue;
        }
        let ask = jdbc_tls(url, &key, &value)?;
        if let Some((earlier, before)) = &tls
            && *before != ask
        {
            return Err(refused(
                url,
                format!("{earlier} and {key}={value} disagree about TLS"),
                "keep one of them: require_ssl=true for TLS, or neither for plain".into(),
            ));
        }
        tls = Some((format!("{key}={value}"), ask));
    }
    if let Some((_, ask)) = tls {
        kept.push(("require_ssl".into(), ask.on.to_string()));
        if ask.on && !ask.identity {
            kept.push(("verify_identity".into(), "false".into()));
        }
    }
    if kept.is_empty() {
        parsed.set_query(None);
    } else {
        parsed.query_pairs_mut().clear().extend_pairs(kept);
    }
    Ok(parsed.to_string())
}

/// The TLS a JDBC parameter asks for, or the refusal of a parameter idgen
/// does not read.
fn jdbc_tls(url: &SecretUrl, key: &str, value: &str) -> Result<TlsAsk> {
    let flag = |value: &str| match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" => Some(true),
        "false" | "no" | "0" => Some(false),
        _ => None,
    };
    let required = TlsAsk {
        on: true,
        identity: false,
    };
    let plain = TlsAsk {
        on: false,
        identity: false,
    };
    let lower = key.to_ascii_lowercase();
    match lower.as_str() {
        "usessl" | "requiressl" => match flag(value) {
            Some(true) => Ok(required),
            Some(false) => Ok(plain),
            None => Err(refused(
                url,
                format!("{key}={value} is not true or false"),
                "write require_ssl=true for TLS, or drop the parameter".into(),
            )),
        },
        "sslmode" | "ssl-mode" | "ssl_mode" => match value.to_ascii_uppercase().as_str() {
            "DISABLED" => Ok(plain),
            "REQUIRED" | "VERIFY_CA" => Ok(required),
            "VERIFY_IDENTITY" => Ok(TlsAsk {
                on: true,
                identity: true,
            }),
            "PREFERRED" => Err(refused(
                url,
                format!("{key}=PREFERRED may fall back to plain text, which idgen never does"),
                "write sslMode=REQUIRED (or require_ssl=true) for TLS, or drop it for plain".into(),
            )),
            _ => Err(refused(
                url,
                format!("{key}={value} is not a TLS mode"),
                "use DISABLED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY, or require_ssl=true".into(),
            )),
        },
        "verifyservercertificate" => Err(refused(
            url,
            format!("{key} is a JDBC parameter; idgen always verifies the server's certificate"),
            "drop it, and give the server's CA with --mysql-ca (IDGEN_MYSQL_CA, [tls.mysql] ca)"
                .into(),
        )),
        "trustcertificatekeystoreurl"
        | "clientcertificatekeystoreurl"
        | "sslca"
        | "sslcert"
        | "sslkey" => Err(refused(
            url,
            format!("{key} is a JDBC parameter; idgen reads PEM files, not key stores"),
            "drop it, and set --mysql-ca, --mysql-cert and --mysql-key (PEM files)".into(),
        )),
        _ if key.chars().any(|c| c.is_ascii_uppercase()) => Err(refused(
            url,
            format!("{key} is a JDBC parameter that has no meaning for idgen"),
            format!(
                "remove {key}; idgen reads useSSL, sslMode, requireSSL and mysql_async's parameters (require_ssl, verify_ca, verify_identity, ...)"
            ),
        )),
        _ => Err(refused(
            url,
            format!("unknown parameter {key:?}"),
            format!(
                "remove it; idgen reads {}, and the JDBC aliases useSSL, sslMode, requireSSL",
                DRIVER_PARAMS.join(", ")
            ),
        )),
    }
}

/// A parameter refused: its key and value come from the URL, which may have
/// its password in them (a `?` inside the userinfo starts the query), so
/// both texts are scrubbed (found by fuzzing).
fn refused(url: &SecretUrl, problem: String, hint: String) -> Error {
    Error::invalid(
        "MySQL URL",
        url.scrub(&format!("{url}: {problem}")),
        url.scrub(&hint),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translated(raw: &str) -> String {
        driver_url(&SecretUrl::new(raw)).unwrap()
    }

    #[test]
    fn jdbc_tls_parameters_become_require_ssl() {
        let base = "mysql://u:p@h:3306/idgen";
        assert_eq!(
            translated(&format!("{base}?useSSL=true")),
            format!("{base}?require_ssl=true&verify_identity=false")
        );
        assert_eq!(
            translated(&format!("{base}?sslMode=VERIFY_IDENTITY")),
            format!("{base}?require_ssl=true")
        );
        assert_eq!(
            translated(&format!(
                "{base}?useUnicode=true&characterEncoding=utf8&useSSL=false&serverTimezone=Asia/Shanghai"
            )),
            format!("{base}?require_ssl=false")
        );
        assert_eq!(
            translated(&format!("{base}?require_ssl=true&pool_max=4")),
            format!("{base}?require_ssl=true&pool_max=4")
        );
        assert_eq!(translated(base), base);
        assert_eq!(translated(&format!("{base}?useUnicode=true")), base);
    }

    #[test]
    fn unclear_parameters_are_refused_with_the_right_name() {
        for (raw, hint) in [
            ("mysql://h/db?sslMode=PREFERRED", "sslMode=REQUIRED"),
            ("mysql://h/db?useSSL=true&sslMode=DISABLED", "keep one"),
            ("mysql://h/db?autoReconnect=true", "remove autoReconnect"),
            ("mysql://h/db?verifyServerCertificate=false", "--mysql-ca"),
            ("mysql://h/db?foo=1", "require_ssl"),
        ] {
            let error = driver_url(&SecretUrl::new(raw)).unwrap_err();
            assert!(error.hint().unwrap().contains(hint), "{raw}: {error:?}");
            assert!(!error.to_string().contains('\n'));
        }
    }

    /// Text of another scheme is no MySQL URL: its "parameters" may be a
    /// password pasted whole, and none is named (found by fuzzing).
    #[test]
    fn a_value_of_another_scheme_has_no_parameter_named() {
        let raw = "veedI://!=r://*?Secret7Xy";
        assert_eq!(translated(raw), raw);
        let error = crate::store::mysql::MysqlLedger::open(
            &SecretUrl::new(raw),
            &crate::config::TlsFiles::default(),
            std::time::Duration::from_secs(1),
        )
        .err()
        .expect("no MySQL URL");
        let shown = format!("{error} {:?}", error.hint());
        assert!(!shown.to_ascii_lowercase().contains("secret7xy"), "{shown}");
    }

    #[test]
    fn a_password_cut_at_a_question_mark_is_never_named_as_a_parameter() {
        let raw = "mysql://h/db?u:Secret7Xy@db:3306";
        let error = driver_url(&SecretUrl::new(raw)).unwrap_err();
        let shown = format!("{error} {:?}", error.hint());
        assert!(!shown.contains("Secret7Xy"), "{shown}");
        assert!(shown.contains("%3F"), "{shown}");
    }

    #[test]
    fn a_refusal_never_shows_the_password() {
        let error = driver_url(&SecretUrl::new("mysql://u:s3cret@h/db?bogus=1")).unwrap_err();
        assert!(!format!("{error} {:?}", error.hint()).contains("s3cret"));
    }
}
