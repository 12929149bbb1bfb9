//! `idgen config`: the effective settings, each with where it came from, redacted.

use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::output::TextRows;
use idgen::backend::Backend;
use serde_json::json;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen config
  idgen --mysql mysql://u@db/idgen --redis redis://cache config   # what a command with these flags would use
  idgen config --json | jq '.settings[] | select(.source != \"default\")'

Sources: a flag (--mysql), a variable (IDGEN_MYSQL_URL), a config file's line
(PATH:LINE), or the default. Passwords are never shown.")]
pub struct ConfigArgs {
    /// Print the settings as JSON
    #[arg(long)]
    pub json: bool,
}

/// One row: the config-file key, its value as shown, and where it came from.
struct Row {
    key: String,
    value: String,
    source: String,
}

pub fn run(args: ConfigArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let settings = &ctx.settings;
    let source = |key: &str| {
        settings
            .sources
            .get(key)
            .cloned()
            .unwrap_or_else(|| "default".into())
    };
    // Subcommand options read from the environment by the commands that use them.
    let from_env = |key: &str, var: &str, value: String| match std::env::var(var) {
        Ok(set) => Row {
            key: key.into(),
            value: set,
            source: var.into(),
        },
        Err(_) => Row {
            key: key.into(),
            value,
            source: source(key),
        },
    };
    let mut rows = Vec::new();
    for (name, url) in &settings.redis_nodes {
        let key = format!("redis.nodes.{name}");
        rows.push(Row {
            value: url.to_string(),
            source: source(&key),
            key,
        });
    }
    let plain = |key: &str, value: String| Row {
        key: key.into(),
        value,
        source: source(key),
    };
    rows.push(plain(
        "mysql",
        settings
            .mysql
            .as_ref()
            .map_or("-".into(), ToString::to_string),
    ));
    // Certificate files only when set: most deployments have none.
    for (server, files) in [
        ("redis", &settings.redis_tls),
        ("mysql", &settings.mysql_tls),
    ] {
        for (role, path) in [
            ("ca", &files.ca),
            ("cert", &files.cert),
            ("key", &files.key),
        ] {
            if let Some(path) = path {
                rows.push(plain(
                    &format!("tls.{server}.{role}"),
                    path.display().to_string(),
                ));
            }
        }
    }
    // The file the embedded store would open: the setting, else the XDG rule's
    // path, so a newcomer sees where their IDs live (the backend line says
    // whether the store is the one in use).
    let store = match &settings.store {
        Some(path) => path.display().to_string(),
        None => idgen::config::paths::default_store_file().map_or_else(
            || "- (neither XDG_DATA_HOME nor HOME is set)".into(),
            |p| p.display().to_string(),
        ),
    };
    rows.push(plain("store", store));
    rows.push(plain(
        "timeout",
        idgen::error::fmt_duration(settings.timeout),
    ));
    rows.push(from_env(
        "segments.idle",
        "IDGEN_IDLE",
        settings.idle.to_string(),
    ));
    rows.push(plain(
        "segments.dispenser",
        settings.dispenser.as_str().into(),
    ));
    rows.push(plain(
        "snowflake.layout",
        settings
            .layout
            .clone()
            .unwrap_or_else(|| "snowflake".into()),
    ));
    rows.push(from_env(
        "snowflake.epoch",
        "IDGEN_EPOCH",
        settings
            .epoch
            .clone()
            .unwrap_or_else(|| "the layout's own".into()),
    ));
    rows.push(plain(
        "snowflake.lease_ttl",
        format!("{}s", settings.lease_ttl.as_secs()),
    ));
    let backend = match Backend::open_existing(settings) {
        Ok(backend) => backend.describe(),
        Err(e) => format!("none usable: {e}"),
    };
    let file = settings
        .config_file
        .as_ref()
        .map_or("none found".to_string(), |p| p.display().to_string());
    if args.json {
        let rows: Vec<_> = rows
            .iter()
            .map(|r| json!({"key": r.key, "value": r.value, "source": r.source}))
            .collect();
        ctx.out.print_json(&json!({
            "backend": backend,
            "config_file": file,
            "settings": rows,
        }))?;
        return Ok(Outcome::Success);
    }
    ctx.out.print_line(&format!("backend: {backend}"))?;
    ctx.out.print_line(&format!("config file: {file}"))?;
    let mut table = ctx.out.table();
    table.set_header(vec!["key", "value", "source"]);
    for row in rows {
        table.add_text_row(vec![row.key, row.value, row.source]);
    }
    ctx.out.print_table(&table)?;
    Ok(Outcome::Success)
}
