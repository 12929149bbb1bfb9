//! Keeping passwords out of everything idgen prints.
//!
//! A server URL enters the core as a [`SecretUrl`]. Its `Display` and `Debug`
//! replace the password with `***`, so a URL can be put into an error, a log
//! line, a table or JSON without a second thought. Only the store backends ask
//! for the raw form, to connect.

use std::fmt;

/// A server URL whose password never appears when it is shown.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretUrl {
    raw: String,
}

impl SecretUrl {
    pub fn new(raw: impl Into<String>) -> Self {
        SecretUrl { raw: raw.into() }
    }

    /// The URL with its password, for handing to a driver. Never print this.
    pub fn expose(&self) -> &str {
        &self.raw
    }

    /// The password, if the URL carries one (for scrubbing driver messages).
    pub fn password(&self) -> Option<String> {
        let parsed = url::Url::parse(&self.raw).ok()?;
        let pass = parsed.password()?;
        let decoded = percent_decode(pass);
        (!decoded.is_empty()).then_some(decoded)
    }

    /// Removes this URL's password from a message produced by a driver.
    pub fn scrub(&self, message: &str) -> String {
        scrub(message, self.password().as_deref())
    }
}

impl fmt::Display for SecretUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact_url(&self.raw))
    }
}

impl fmt::Debug for SecretUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretUrl({})", redact_url(&self.raw))
    }
}

/// Replaces the password of a URL with `***`. Input that does not parse as a
/// URL is cut at the last `@` of its authority, so a malformed URL with a
/// password still shows none of it.
pub fn redact_url(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut parsed) => {
            if parsed.password().is_some() && parsed.set_password(Some("***")).is_ok() {
                return parsed.to_string();
            }
            parsed.to_string()
        }
        Err(_) => redact_unparsed(raw),
    }
}

fn redact_unparsed(raw: &str) -> String {
    let (scheme, rest) = match raw.find("://") {
        Some(i) => (&raw[..i + 3], &raw[i + 3..]),
        None => ("", raw),
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.rfind('@') {
        Some(at) => {
            let user = authority[..at].split(':').next().unwrap_or("");
            format!("{scheme}{user}:***@{}", &rest[at + 1..])
        }
        None => raw.to_string(),
    }
}

/// Replaces every occurrence of `secret` (and its percent-encoded form) with `***`.
pub fn scrub(message: &str, secret: Option<&str>) -> String {
    let Some(secret) = secret.filter(|s| !s.is_empty()) else {
        return message.to_string();
    };
    let mut out = message.replace(secret, "***");
    let encoded: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    if encoded != secret {
        out = out.replace(&encoded, "***");
    }
    out
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_is_replaced_in_redis_and_mysql_urls() {
        assert_eq!(
            redact_url("redis://:s3cret@10.0.0.1:6379/2"),
            "redis://:***@10.0.0.1:6379/2"
        );
        assert_eq!(
            redact_url("mysql://root:p%40ss@db:3306/idgen"),
            "mysql://root:***@db:3306/idgen"
        );
    }

    #[test]
    fn url_without_password_is_unchanged() {
        assert_eq!(
            redact_url("redis://127.0.0.1:6379"),
            "redis://127.0.0.1:6379"
        );
    }

    #[test]
    fn unparseable_url_still_hides_the_password() {
        let shown = redact_url("mysql://u:hunter2@bad host/db");
        assert!(!shown.contains("hunter2"), "{shown}");
    }

    #[test]
    fn scrub_removes_plain_and_encoded_password() {
        let url = SecretUrl::new("mysql://root:p%40ss@db/idgen");
        assert_eq!(url.password().as_deref(), Some("p@ss"));
        assert_eq!(
            url.scrub("login p@ss failed, url p%40ss"),
            "login *** failed, url ***"
        );
    }
}
