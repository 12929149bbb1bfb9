//! Keeping passwords out of everything idgen prints.
//!
//! A server URL enters the core as a [`SecretUrl`]. Its `Display` and `Debug`
//! show [`redact_url`] of the raw setting, so a URL can be put into an error, a
//! log line, a table or JSON without a second thought. Only the store backends
//! ask for the raw form, to connect.
//!
//! Redaction works on the raw text, before and whether or not it parses: a
//! setting pasted wrong (`redis//:PW@host`, `root:PW@host/db`, a bare password)
//! is exactly the one that ends up in an error message. Text that does not
//! even start like a URL is never shown: it may be a password, `@` and all.

use std::fmt;

/// What is shown instead of a setting that is not a URL at all: it may be a
/// password pasted into the wrong variable.
pub const HIDDEN: &str = "(value hidden: not a URL idgen reads)";

/// Query parameters that carry a password (redis-rs reads both).
const SECRET_PARAMS: &[&str] = &["pass", "password"];

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

    /// Does the URL carry a password (in its userinfo or a `pass` parameter)?
    pub fn has_password(&self) -> bool {
        match url::Url::parse(&self.raw) {
            Ok(parsed) => {
                parsed.password().is_some_and(|p| !p.is_empty())
                    || parsed.query_pairs().any(|(key, _)| is_secret_param(&key))
            }
            // A sentinel or cluster URL: `user@` alone names no password.
            Err(_) => match split_scheme(self.raw.trim()) {
                Some((scheme, rest)) if is_multi_host(scheme) => rest
                    .rfind('@')
                    .and_then(|at| rest[..at].split_once(':'))
                    .is_some_and(|(_, password)| !password.is_empty()),
                _ => !secrets_in(&self.raw).is_empty(),
            },
        }
    }

    /// The same URL with `password` set, for a password kept outside the URL.
    /// `None` when the URL does not parse or cannot carry one (the caller then
    /// reports the URL itself).
    pub fn with_password(&self, password: &str) -> Option<SecretUrl> {
        // Escaped whole, '%' included: drivers unescape the userinfo, so a
        // `%41` left as it is would log in as `A`, a password nobody set and
        // no scrub knows (found by fuzzing). The URL parser's own escaping
        // leaves '%' alone.
        let encoded =
            percent_encoding::utf8_percent_encode(password, percent_encoding::NON_ALPHANUMERIC)
                .to_string();
        // Sentinel and cluster URLs list several hosts, which no URL parser takes.
        if let Some((scheme, rest)) = split_scheme(self.raw.trim())
            && is_multi_host(scheme)
        {
            // A `pass=` value may hold the last '@', and what follows it
            // would become the hosts of the new URL, shown (found by
            // fuzzing); these URLs take no parameters anyway.
            if secret_params(rest).next().is_some() {
                return None;
            }
            return Some(SecretUrl::new(match rest.rfind('@') {
                Some(at) => {
                    let user = rest[..at].split(':').next().unwrap_or_default();
                    format!("{scheme}://{user}:{encoded}@{}", &rest[at + 1..])
                }
                None => format!("{scheme}://:{encoded}@{rest}"),
            }));
        }
        let mut parsed = url::Url::parse(&self.raw).ok()?;
        // What may be a password but the parser reads as something else (a
        // path: `redis://host:/pw@x`) would be carried into the new URL,
        // where nothing hides it (found by fuzzing): such a URL takes none.
        let mut bare = parsed.clone();
        let _ = (bare.set_username(""), bare.set_password(None));
        if secrets_in(&self.raw)
            .iter()
            .any(|secret| holds_any_case(bare.as_str(), secret))
        {
            return None;
        }
        parsed.set_password(Some(&encoded)).ok()?;
        Some(SecretUrl::new(parsed.to_string()))
    }

    /// Removes this URL's secrets from a message produced by a driver.
    pub fn scrub(&self, message: &str) -> String {
        scrub_all(message, &secrets_in(&self.raw))
    }

    /// A driver's error as one scrubbed message, told by its root cause: drivers
    /// wrap an I/O error in layers that each repeat "Input/output error".
    pub fn describe_error(&self, error: &(dyn std::error::Error + 'static)) -> String {
        let root = std::iter::successors(Some(error), |e| e.source())
            .last()
            .unwrap_or(error);
        self.scrub(&root.to_string())
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

/// The one way to show a raw URL setting: the whole userinfo becomes `***`, and
/// so does the value of every `pass` / `password` parameter. A setting that is
/// not `scheme://…` is not shown at all ([`HIDDEN`]): `p@ssw0rd` pasted into
/// a URL variable must not show as `***@ssw0rd`. A control character (a
/// newline in a TOML string, say) shows escaped, so that the message that
/// names the URL stays one line (found by fuzzing).
pub fn redact_url(raw: &str) -> String {
    let raw = raw.trim();
    let shown = match split_scheme(raw) {
        Some((scheme, rest)) => match url::Url::parse(raw) {
            Ok(_) if secret_read_elsewhere(rest) => format!("{scheme}://***"),
            Ok(parsed)
                if parsed
                    .host_str()
                    .is_some_and(|host| !looks_like_hosts(host)) =>
            {
                format!("{scheme}://***")
            }
            Ok(parsed) if parsed.has_host() || parsed.path().starts_with('/') => {
                redact_parsed(scheme, &parsed)
            }
            _ => format!("{scheme}://{}", redact_authority_text(rest)),
        },
        None => HIDDEN.to_string(),
    };
    // The rule above in reverse: if any piece that may be a secret still shows,
    // show nothing but the scheme.
    let leaked = secrets_in(raw).iter().any(|s| holds_any_case(&shown, s));
    if leaked {
        return match split_scheme(raw) {
            Some((scheme, _)) => format!("{scheme}://***"),
            None => HIDDEN.to_string(),
        };
    }
    one_line(&shown)
}

/// `text` with every control character escaped (`\n`, `\u{1}`), so that a
/// message quoting it stays one line.
pub fn one_line(text: &str) -> String {
    if !text.contains(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Every piece of a raw setting that may be a secret, as written and
/// percent-decoded: a userinfo with a password (whole, and what follows each
/// `:`; a user name alone is not secret), the value of
/// every `pass` / `password` parameter, and a value that is no URL at all
/// (whole: `p@ssw0rd` is no user at a host).
pub fn secrets_in(raw: &str) -> Vec<String> {
    let raw = raw.trim();
    let mut found = Vec::new();
    let rest = split_scheme(raw).map_or(raw, |(_, rest)| rest);
    // A user name alone (`idgen@host`, `default@host`) is no secret, and
    // searching output for it would rewrite ordinary words.
    // The userinfo as a broken URL may hold it (up to the last '@'), and as
    // a URL parser reads it (up to the last '@' before the first '/', '?'
    // or '#'; found by fuzzing: an '@' in the fragment hid the password).
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    for part in [rest, authority] {
        if let Some(at) = part.rfind('@')
            && part[..at].contains(':')
        {
            let userinfo = &part[..at];
            found.push(userinfo.to_string());
            if let Some((_, password)) = userinfo.split_once(':') {
                found.push(password.to_string());
            }
            if let Some((_, last)) = userinfo.rsplit_once(':') {
                found.push(last.to_string());
            }
        }
    }
    // With no '@', a `user:password` whose `@host` was left off (or cut off
    // at a space in a list of nodes; found by fuzzing) reads as a host and a
    // port that is no number: that "port" may be the password.
    if !rest.contains('@') {
        for entry in authority.split(',') {
            if let Some((_, port)) = entry.rsplit_once(':')
                && !port.is_empty()
                && !port.ends_with(']')
                && !port.bytes().all(|b| b.is_ascii_digit())
            {
                found.push(entry.to_string());
                found.push(port.to_string());
                found.extend(entry.split_once(':').map(|(_, after)| after.to_string()));
            }
        }
    }
    // A bare value: a password pasted into the wrong variable looks like this.
    if split_scheme(raw).is_none() {
        found.push(raw.to_string());
        // A driver refusing it may name what it took for a scheme.
        found.extend(raw.split_once("://").map(|(scheme, _)| scheme.to_string()));
    }
    for (value, rest) in secret_params(raw) {
        found.push(value.split('#').next().unwrap_or(value).to_string());
        // With a raw `&` in it, the rest of the query may be the rest of it.
        found.push(rest.split('#').next().unwrap_or(rest).to_string());
    }
    // As the URL parser the drivers use reads them: the password, and each
    // `pass` / `password` value form-decoded (`+` is a space there).
    if let Ok(parsed) = url::Url::parse(raw) {
        found.extend(parsed.password().map(str::to_string));
        found.extend(
            parsed
                .query_pairs()
                .filter(|(key, _)| is_secret_param(key))
                .map(|(_, value)| value.into_owned()),
        );
    }
    // As a URL parser (and so a driver) reads each piece: the WHATWG rules
    // drop ASCII tabs and newlines anywhere, and C0 controls and spaces at
    // the ends of the URL (found by fuzzing: a password ending in NULs was
    // quoted without them).
    let parsed_forms: Vec<String> = found
        .iter()
        .flat_map(|s| {
            let kept = s.replace(['\t', '\n', '\r'], "");
            let control = |c: char| c <= ' ';
            [
                kept.trim_end_matches(control).to_string(),
                kept.trim_matches(control).to_string(),
                kept,
            ]
        })
        .collect();
    found.extend(parsed_forms);
    let decoded: Vec<String> = found.iter().map(|s| percent_decode(s)).collect();
    found.extend(decoded);
    // And as a URL parser writes it back: control characters, spaces and
    // quotes percent-encoded (found by fuzzing: `Pw7qZr%0Bs=` showed for a
    // password written with a raw vertical tab).
    const WRITTEN_BACK: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'<')
        .add(b'>')
        .add(b'`');
    let encoded: Vec<String> = found
        .iter()
        .map(|s| percent_encoding::utf8_percent_encode(s, WRITTEN_BACK).to_string())
        .collect();
    found.extend(encoded);
    found.retain(|s| !s.is_empty());
    found.sort();
    found.dedup();
    found
}

/// Each `pass` / `password` parameter in `text`: its value (to the next `&`)
/// and the text from its value on. A parameter starts after any `?` or `&`
/// (a `?` in a bad userinfo may come first) and runs to the next `&`: a `?`
/// inside a value is part of it, as URL parsers and so the drivers read it.
pub fn secret_params(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.match_indices(['?', '&']).filter_map(|(at, _)| {
        let param = text[at + 1..].split('&').next().unwrap_or_default();
        let (key, value) = param.split_once('=')?;
        is_secret_param(key).then(|| (value, &text[at + 1 + key.len() + 1..]))
    })
}

/// The schemes of a single Redis node's URL (a config file's `[redis.nodes]`).
pub const NODE_SCHEMES: &[&str] = &[
    "redis",
    "rediss",
    "redis+unix",
    "unix",
    "valkey",
    "valkeys",
    "valkey+unix",
];

/// The other URL schemes idgen reads: Sentinel, Cluster and MySQL.
const OTHER_SCHEMES: &[&str] = &[
    "redis-sentinel",
    "rediss-sentinel",
    "redis-cluster",
    "rediss-cluster",
    "mysql",
];

/// `scheme` and what follows `scheme://`, when the text starts like a URL of
/// a scheme idgen reads. Any other text is no URL to idgen, and may be a
/// password pasted in the wrong place, scheme and all (found by fuzzing: a
/// password that read `Pw7qZ://…` showed as a URL of scheme `Pw7qZ`).
fn split_scheme(raw: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = raw.split_once("://")?;
    NODE_SCHEMES
        .iter()
        .chain(OTHER_SCHEMES)
        .any(|known| scheme.eq_ignore_ascii_case(known))
        .then_some((scheme, rest))
}

/// Whether a URL parser reads a piece of `rest` (what follows `scheme://`)
/// that may be a password as a part that is shown: a password's end is
/// unknown, since it may hold any separator, so the text up to the last '@'
/// (with a ':') and from a `pass` / `password` value on may all be it. The
/// parser reads a userinfo only up to the first '/', '?' or '#', and a
/// parameter only inside the query; anything else it reads as a path, a
/// query or a fragment, and rewrites (`a/../b` becomes `b`), so that no
/// search for the written text finds it (found by fuzzing). Such a URL is
/// shown as its scheme alone.
fn secret_read_elsewhere(rest: &str) -> bool {
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if let Some(at) = rest.rfind('@')
        && at > authority_end
        && rest[..at].contains(':')
    {
        return true;
    }
    let fragment = rest.find('#').unwrap_or(rest.len());
    let query = rest[..fragment].find('?');
    secret_params(rest).any(|(_, from_value)| {
        let at = rest.len() - from_value.len();
        !query.is_some_and(|query| query < at && at <= fragment)
    })
}

/// Whether `text` starts like a URL of a scheme idgen reads.
pub fn reads_scheme(text: &str) -> bool {
    split_scheme(text).is_some()
}

/// Schemes whose URLs list several hosts (Sentinel, Cluster).
fn is_multi_host(scheme: &str) -> bool {
    let scheme = scheme.to_ascii_lowercase();
    scheme.ends_with("-sentinel") || scheme.ends_with("-cluster")
}

fn is_secret_param(key: &str) -> bool {
    let key = percent_decode(key);
    SECRET_PARAMS.iter().any(|p| key.eq_ignore_ascii_case(p))
}

/// A URL the parser accepted, rebuilt without its secrets.
fn redact_parsed(scheme: &str, parsed: &url::Url) -> String {
    let mut shown = format!("{scheme}://");
    if !parsed.username().is_empty() || parsed.password().is_some() {
        shown.push_str("***@");
    }
    if let Some(host) = parsed.host_str() {
        shown.push_str(host);
    }
    if let Some(port) = parsed.port() {
        shown.push_str(&format!(":{port}"));
    }
    shown.push_str(parsed.path());
    let mut secret_before = false;
    if let Some(query) = parsed.query() {
        let hidden = redact_query(query);
        secret_before = hidden.is_some();
        shown.push('?');
        shown.push_str(hidden.as_deref().unwrap_or(query));
    }
    // A sentinel URL names its master here, unless a password parameter came
    // before it: a raw '#' in the password makes the rest of it read as the
    // fragment (found by fuzzing).
    if let Some(fragment) = parsed.fragment() {
        shown.push('#');
        shown.push_str(if secret_before { "***" } else { fragment });
    }
    shown
}

/// Text after a scheme that did not parse: everything up to the last `@` is
/// userinfo. When a `?` or `&` comes before that `@`, the `@` may sit inside a
/// parameter, so nothing after the scheme is shown.
fn redact_authority_text(rest: &str) -> String {
    let after_userinfo = rest.rfind('@').map_or(rest, |at| &rest[at + 1..]);
    let hosts = &after_userinfo[..after_userinfo
        .find(['/', '?', '#'])
        .unwrap_or(after_userinfo.len())];
    match rest.rfind('@') {
        _ if !looks_like_hosts(hosts) => "***".to_string(),
        Some(at) if rest[..at].contains(['?', '&']) => "***".to_string(),
        Some(_) => format!("***@{}", redact_tail(after_userinfo)),
        None => redact_tail(rest),
    }
}

/// Whether `text` could be a host, or a comma-separated list of hosts with
/// ports: a password pasted where a host goes (`redis://=Pw…%0B`) mostly
/// holds a character no host name or address has, and is then hidden whole
/// (found by fuzzing). Hosts that can be connected to keep showing.
fn looks_like_hosts(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._:[],".contains(&b))
}

fn redact_tail(tail: &str) -> String {
    match tail.split_once('?') {
        Some((before, query)) => format!(
            "{before}?{}",
            redact_query(query).as_deref().unwrap_or(query)
        ),
        None => tail.to_string(),
    }
}

/// A query with the value of its first `pass` / `password` parameter hidden,
/// and everything after it: a password written with a raw `&` reads as that
/// parameter and more after it (`password=a&b=c`), so what follows may be the
/// rest of it (found by fuzzing). Put a password parameter last to keep the
/// others in view. The parameter is found as [`secret_params`] finds it,
/// after a `?` as well as an `&` (found by fuzzing: `?a?password=…` showed
/// its value as part of the parameter `a?password`).
/// `None` when the query holds no such parameter, so a caller learns that
/// from the search itself rather than by comparing texts.
fn redact_query(query: &str) -> Option<String> {
    let text = format!("?{query}");
    let (_, from_value) = secret_params(&text).next()?;
    let value_at = text.len() - from_value.len();
    let more = if from_value.contains('&') { "&***" } else { "" };
    Some(format!("{}***{more}", &text[1..value_at]))
}

/// Replaces every occurrence of `secret` with `***`, in any ASCII case (URL
/// parsers lowercase a scheme or a host, and a driver's error quotes it so;
/// found by fuzzing): as it is, percent-encoded, and escaped as Rust's `{:?}`
/// writes it (a driver's error that debug-prints its URL shows a password
/// with a control character as `\u{8}…`; found by fuzzing).
pub fn scrub(message: &str, secret: Option<&str>) -> String {
    let Some(secret) = secret.filter(|s| !s.is_empty()) else {
        return message.to_string();
    };
    let mut out = hide_any_case(message, secret);
    let encoded: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    let escaped = secret.escape_debug().to_string();
    // `{:?}` escapes `"` but not `'`, which `escape_debug` escapes too
    // (found by fuzzing: a password holding `'` and a NUL showed).
    let debugged = format!("{secret:?}");
    let debugged = debugged[1..debugged.len() - 1].to_string();
    for form in [encoded, escaped, debugged] {
        if form != secret {
            out = hide_any_case(&out, &form);
        }
    }
    out
}

/// `text` with every occurrence of `secret`, in any ASCII case, replaced by
/// `***`. ASCII case changes keep every byte where it is, so a match found in
/// the lowercased text is cut from the text itself.
fn hide_any_case(text: &str, secret: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut shown = String::with_capacity(text.len());
    let mut from = 0;
    for (at, _) in lower.match_indices(&secret.to_ascii_lowercase()) {
        shown.push_str(&text[from..at]);
        shown.push_str("***");
        from = at + secret.len();
    }
    shown.push_str(&text[from..]);
    shown
}

/// Whether `text` holds `secret` in any ASCII case.
fn holds_any_case(text: &str, secret: &str) -> bool {
    text.to_ascii_lowercase()
        .contains(&secret.to_ascii_lowercase())
}

/// [`scrub`] for many secrets, longest first so that a secret containing
/// another is removed whole.
pub fn scrub_all(message: &str, secrets: &[String]) -> String {
    let mut sorted: Vec<&String> = secrets.iter().collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.len()));
    sorted
        .into_iter()
        .fold(message.to_string(), |text, secret| {
            scrub(&text, Some(secret))
        })
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
    fn userinfo_is_replaced_in_redis_and_mysql_urls() {
        assert_eq!(
            redact_url("redis://:s3cret@10.0.0.1:6379/2"),
            "redis://***@10.0.0.1:6379/2"
        );
        assert_eq!(
            redact_url("mysql://root:p%40ss@db:3306/idgen"),
            "mysql://***@db:3306/idgen"
        );
    }

    #[test]
    fn url_without_password_is_unchanged() {
        assert_eq!(
            redact_url("redis://127.0.0.1:6379"),
            "redis://127.0.0.1:6379"
        );
        assert_eq!(
            redact_url("redis+unix:///run/redis.sock?db=2"),
            "redis+unix:///run/redis.sock?db=2"
        );
    }

    /// Every form the operator report found leaking, and then some.
    #[test]
    fn no_form_of_a_url_shows_its_password() {
        for raw in [
            "redis//:PW9x@host",
            "mysql:/root:PW9x@host/db",
            "root:PW9x@host:3306/db",
            "PW9x",
            "redis://:S3cret/PW9x@host:6379/0",
            "mysql://root:S3cret/PW9x@db:3306/idgen",
            "redis+unix:///path.sock?pass=PW9x",
            "redis://host/0?password=PW9x",
            "redis://host/0?PASSWORD=PW9x&db=1",
            "redis://:a,PW9x@host",
            "redis://host/0?password=PW9x@b",
            "redis://:PW9x?x@host",
            "mysql://u:hunter2PW9x@bad host/db",
            "  redis://:PW9x@h  ",
            "redis-sentinel://:PW9x@s1:26379,s2:26380/0#main",
            "redis-sentinel://:PW9x@s1/0#main",
            "rediss-sentinel://user:PW9x@s1,s2#main",
            "redis-sentinel://:p#PW9x@s1,s2/0#main",
            "redis-cluster://:PW9x@c1:7000,c2:7001",
            "rediss-cluster://u:PW9x@c1:7000",
        ] {
            let shown = redact_url(raw);
            assert!(!shown.contains("PW9x"), "{raw:?} shown as {shown:?}");
            assert!(
                secrets_in(raw).iter().any(|s| s.contains("PW9x")),
                "{raw:?}: {:?}",
                secrets_in(raw)
            );
        }
    }

    /// A password's end is unknown, so everything a parser reads after a
    /// `pass=` value, the fragment too, is hidden with it: a raw '#' in the
    /// password made the rest of it read as a Sentinel master's name (found
    /// by fuzzing). A piece that may be a password but is read as a path is
    /// rewritten by the parser (`x/../PW9x`), so no search finds it there:
    /// such a URL shows its scheme alone.
    #[test]
    fn what_a_parser_reads_after_or_around_a_password_never_shows() {
        assert_eq!(
            redact_url("rediss-sentinel://:S3cret@lll?db=0&pass%77ord=x#PW9x#ll"),
            "rediss-sentinel://***@lll?db=0&pass%77ord=***#***"
        );
        assert_eq!(
            redact_url("redis-sentinel://h1/0#mymaster"),
            "redis-sentinel://h1/0#mymaster"
        );
        for raw in [
            "redis://u:1/a/../PW9x@host",
            "redis://host/a&pass=x/../PW9x",
            "redis://host/0#x&pass=PW9x",
        ] {
            assert_eq!(redact_url(raw), "redis://***", "{raw:?}");
        }
    }

    /// A password parameter's value may hold the '@' a Sentinel or Cluster
    /// URL's userinfo is cut at: such a URL takes no password from a
    /// variable, and is reported as it is, redacted (found by fuzzing).
    #[test]
    fn a_multi_host_url_with_a_password_parameter_takes_no_other_password() {
        let url = SecretUrl::new("rediss-cluster://h:1@?pass=@PW9x");
        assert_eq!(url.with_password("other"), None);
        assert!(!url.to_string().contains("PW9x"), "{url}");
    }

    /// A password pasted where the host goes shows as no host: one with a
    /// character no host has (found by fuzzing: `redis://=PW9x%0B%00%40`,
    /// from `--redis-node 'n=redis://=PASSWORD'`). Hosts stay in view.
    #[test]
    fn a_host_no_server_could_have_is_hidden() {
        assert_eq!(redact_url("redis://=PW9x%0B%00%40"), "redis://***");
        assert_eq!(
            redact_url("redis-sentinel://=PW9x%0B#m"),
            "redis-sentinel://***"
        );
        assert_eq!(
            redact_url("redis-cluster://:S3cret@c-1.example:7000,10.0.0.2:7001,[::1]:7002"),
            "redis-cluster://***@c-1.example:7000,10.0.0.2:7001,[::1]:7002"
        );
        assert_eq!(
            redact_url("redis://my_host.local:6379/0"),
            "redis://my_host.local:6379/0"
        );
    }

    /// A password parameter after a `?` inside the query is hidden as one
    /// after an `&` (found by fuzzing).
    #[test]
    fn a_password_parameter_after_a_question_mark_in_the_query_is_hidden() {
        assert_eq!(
            redact_url("valkeys://s?a@{?n?b@?PASSWORD=PW9x%22%00&"),
            "valkeys://s?a@{?n?b@?PASSWORD=***&***"
        );
        assert_eq!(
            redact_url("redis://h/0?db=1&password=PW9x"),
            "redis://h/0?db=1&password=***"
        );
    }

    /// A driver quotes a scheme or a host lowercased, as URL parsers keep
    /// them: what may be a password is scrubbed in any case (found by
    /// fuzzing: mysql_async named the scheme `pw9xveedi` of a password
    /// pasted whole as `PW9xveedi://…`).
    #[test]
    fn a_secret_is_scrubbed_in_any_case() {
        let url = SecretUrl::new("PW9xveedi://!\"**");
        assert_eq!(
            url.scrub("Unsupported connection URL scheme `pw9xveedi`"),
            "Unsupported connection URL scheme `***`"
        );
        assert_eq!(scrub("a Straße PW9x b", Some("pw9X")), "a Straße *** b");
    }

    /// A user name alone sits where a careless URL puts a password: the URL
    /// shows neither, but output is never searched for it (it is an ordinary
    /// word such as `idgen`, `default` or `status`).
    #[test]
    fn a_user_name_alone_is_hidden_in_its_url_but_is_no_secret() {
        for (raw, user) in [
            ("redis://PW9x@host", "PW9x"),
            ("redis://default@host:6379/0", "default"),
            ("mysql://idgen@db/orders", "idgen"),
        ] {
            assert!(!redact_url(raw).contains(user), "{raw:?}");
            assert!(
                !secrets_in(raw).iter().any(|s| s.contains(user)),
                "{raw:?}: {:?}",
                secrets_in(raw)
            );
        }
    }

    #[test]
    fn the_host_still_shows_where_it_can() {
        assert_eq!(
            redact_url("redis://:S3cret/PW@host:6379/0"),
            "redis://***@host:6379/0"
        );

        assert_eq!(
            redact_url("redis+unix:///path.sock?pass=PW"),
            "redis+unix:///path.sock?pass=***"
        );
        assert_eq!(redact_url("hunter2"), HIDDEN);
    }

    /// Found by fuzzing (fuzz/fuzz_targets/settings.rs): text that is no URL
    /// was shown from its last `@` on, and with no `:` before that `@` it held
    /// no secret at all, so `p@ssw0rd` pasted into a URL variable showed as
    /// `***@ssw0rd`, and a message quoting it was not scrubbed.
    #[test]
    fn text_that_is_no_url_is_hidden_whole_whatever_it_holds() {
        for raw in ["p@ssw0rd", "@PW9x", "P@ss:w@rd", "root:PW9x@host:3306/db"] {
            assert_eq!(redact_url(raw), HIDDEN, "{raw:?}");
            assert!(secrets_in(raw).contains(&raw.to_string()), "{raw:?}");
            assert_eq!(
                SecretUrl::new(raw).scrub(&format!("AUTH {raw} failed")),
                "AUTH *** failed"
            );
        }
    }

    /// Found by fuzzing (fuzz/fuzz_targets/settings.rs): a `?` inside a
    /// parameter's value cut the secret short, so a driver message quoting
    /// the password as the driver read it (`ab?cd`) kept it.
    #[test]
    fn a_question_mark_inside_a_password_parameter_is_part_of_the_secret() {
        for raw in [
            "redis://h/0?password=ab?cd",
            "redis://h/0?db=1&pass=?ab?cd#frag",
            "rediss-sentinel://?pass=ab?cd",
        ] {
            let url = SecretUrl::new(raw);
            let read = url::Url::parse(raw)
                .unwrap()
                .query_pairs()
                .find(|(key, _)| is_secret_param(key))
                .map(|(_, value)| value.into_owned())
                .unwrap();
            assert!(read.contains("ab?cd"), "{raw}: {read}");
            let message = format!("AUTH failed for {read}");
            assert_eq!(url.scrub(&message), "AUTH failed for ***", "{raw}");
        }
    }

    #[test]
    fn scrub_removes_plain_and_encoded_password() {
        let url = SecretUrl::new("mysql://root:p%40ss@db/idgen");
        assert!(url.has_password());
        assert_eq!(
            url.scrub("login p@ss failed, url p%40ss"),
            "login *** failed, url ***"
        );
    }

    #[test]
    fn scrub_removes_a_password_a_driver_debug_printed() {
        let url = SecretUrl::new("redis://:%08Pw7qZ\"x@cache:6379");
        let shown = format!("WRONGPASS invalid password {:?}", "\u{8}Pw7qZ\"x");
        assert_eq!(url.scrub(&shown), "WRONGPASS invalid password \"***\"");
    }

    #[test]
    fn scrub_removes_a_password_with_a_quote_as_debug_prints_it() {
        let url = SecretUrl::new("redis://:Pw7qZ'r%00@cache:6379");
        let shown = format!("WRONGPASS invalid password {:?}", "Pw7qZ'r\0");
        assert_eq!(url.scrub(&shown), "WRONGPASS invalid password \"***\"");
    }

    #[test]
    fn scrub_removes_a_password_as_a_url_parser_reads_it() {
        let url = SecretUrl::new("redis://cache?PASSWORD=\u{b}Pw7qZ\0\0");
        assert_eq!(
            url.scrub("WRONGPASS invalid password (\u{b}Pw7qZ)"),
            "WRONGPASS invalid password (***)"
        );
    }

    #[test]
    fn a_password_with_a_raw_control_character_is_hidden_as_the_parser_writes_it() {
        let shown = redact_url("valkeys://e\u{5}ll#ll:Pw7qZr\u{b}s=@lh");
        assert!(!shown.contains("Pw7qZ"), "{shown}");
    }

    #[test]
    fn an_at_sign_in_the_fragment_does_not_hide_the_password_from_scrub() {
        let url = SecretUrl::new("rediss://:Pw7qZ@/al?s!#@");
        assert_eq!(url.scrub("invalid password Pw7qZ"), "invalid password ***");
    }

    #[test]
    fn a_password_parameter_is_hidden_as_a_driver_reads_it_form_decoded() {
        let raw = "redis://host:6379/?password=two+words%21";
        let secrets = secrets_in(raw);
        assert!(secrets.contains(&"two words!".to_string()), "{secrets:?}");
        let url = SecretUrl::new(raw);
        assert_eq!(url.scrub("WRONGPASS two words!"), "WRONGPASS ***");
    }

    #[test]
    fn the_parameters_after_a_password_parameter_are_hidden_with_it() {
        for raw in [
            "redis://cache:6379/?password=two&words&db=1",
            "redis+unix://:x@?pass=one&Pw7qZ",
        ] {
            let shown = redact_url(raw);
            assert!(
                !shown.contains("words") && !shown.contains("Pw7qZ"),
                "{shown}"
            );
        }
        assert_eq!(
            redact_url("redis://cache:6379/?db=1&password=two&words"),
            "redis://cache:6379/?db=1&password=***&***"
        );
        assert_eq!(
            redact_url("redis://cache:6379/?db=1&password=last"),
            "redis://cache:6379/?db=1&password=***"
        );
    }

    #[test]
    fn a_url_whose_path_may_hold_a_password_takes_none_from_outside() {
        let url = SecretUrl::new("redis+unix://redis-:/+Pw7qZ@sons?x");
        assert!(url.with_password("other").is_none());
        let empty = SecretUrl::new("redis://idgen:@cache:6379/0");
        let with = empty
            .with_password("other")
            .expect("an empty password is replaced");
        assert_eq!(with.expose(), "redis://idgen:other@cache:6379/0");
    }

    #[test]
    fn a_value_of_a_scheme_idgen_does_not_read_is_hidden_whole() {
        for raw in ["Pw7qZveedi://! **", "rdis://cache:6379"] {
            assert_eq!(redact_url(raw), HIDDEN);
            let scheme = raw.split_once("://").unwrap().0;
            let url = SecretUrl::new(raw);
            assert!(
                !url.scrub(&format!("unknown scheme {scheme}"))
                    .contains(scheme)
            );
        }
        assert_eq!(redact_url("REDIS://cache:6379"), "REDIS://cache:6379");
    }

    #[test]
    fn a_port_that_is_no_number_is_hidden_as_a_password_without_its_host() {
        for raw in [
            "rediss://lh:Pw7qZr",
            "redis://idgen:Pw7qZ",
            "redis-cluster://a:1,b:Pw7qZ",
        ] {
            let shown = redact_url(raw);
            assert!(!shown.contains("Pw7qZ"), "{raw} shown as {shown}");
        }
        assert_eq!(redact_url("redis://[::1]:6379/0"), "redis://[::1]:6379/0");
        assert_eq!(redact_url("redis://[::1]/0"), "redis://[::1]/0");
    }

    #[test]
    fn a_control_character_in_a_url_shows_escaped() {
        assert_eq!(
            redact_url("mysql://u:p@dbhost:33x/id\ngen"),
            "mysql://***@dbhost:33x/id\\ngen"
        );
        // A host no server could have is hidden whole, control character and all.
        assert_eq!(redact_url("mysql://u:p@db\nhost:33x/idgen"), "mysql://***");
        assert!(!redact_url("redis://cache:6379/\u{1}").contains('\u{1}'));
    }

    #[test]
    fn sentinel_and_cluster_urls_keep_hosts_and_master() {
        assert_eq!(
            redact_url("redis-sentinel://:pw@s1:26379,s2/0#main"),
            "redis-sentinel://***@s1:26379,s2/0#main"
        );
        assert_eq!(
            redact_url("redis-sentinel://:pw@s1:26379/0#main"),
            "redis-sentinel://***@s1:26379/0#main"
        );
        assert_eq!(
            redact_url("redis-cluster://c1:7000,c2:7001"),
            "redis-cluster://c1:7000,c2:7001"
        );
        let url = SecretUrl::new("redis-sentinel://s1,s2/0#main");
        assert!(!url.has_password());
        let with = url.with_password("a,b@c").unwrap();
        assert!(with.has_password());
        assert_eq!(with.expose(), "redis-sentinel://:a%2Cb%40c@s1,s2/0#main");
        assert_eq!(with.to_string(), "redis-sentinel://***@s1,s2/0#main");
        let user_only = SecretUrl::new("redis-cluster://ops@c1:1,c2:2");
        assert!(!user_only.has_password());
        let with = user_only.with_password("x").unwrap();
        assert_eq!(with.expose(), "redis-cluster://ops:x@c1:1,c2:2");
    }

    #[test]
    fn a_password_kept_outside_is_put_into_the_url() {
        let url = SecretUrl::new("redis://h:6379/0");
        assert!(!url.has_password());
        let with = url.with_password("a/b@c").unwrap();
        assert!(with.has_password());
        assert_eq!(with.to_string(), "redis://***@h:6379/0");
        assert_eq!(
            url::Url::parse(with.expose()).unwrap().password(),
            Some("a%2Fb%40c")
        );
    }

    /// Drivers unescape the userinfo: a password whose `%` signs look like
    /// escapes reaches them as written, and a message quoting it is scrubbed.
    #[test]
    fn a_password_kept_outside_reaches_the_driver_as_written() {
        for raw in [
            "mysql://root@db:3306/idgen",
            "redis-sentinel://s1,s2/0#main",
        ] {
            let with = SecretUrl::new(raw).with_password("p%41ss%00%").unwrap();
            let userinfo = with.expose().split_once("://").unwrap().1;
            let password = userinfo
                .split_once('@')
                .unwrap()
                .0
                .rsplit(':')
                .next()
                .unwrap();
            let read = percent_encoding::percent_decode_str(password).decode_utf8_lossy();
            assert_eq!(read, "p%41ss%00%", "{raw}");
            assert!(!with.scrub(&format!("denied {read}")).contains("p%41ss"));
        }
    }
}
