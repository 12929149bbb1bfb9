//! The command line: global options and one subcommand per job.

use crate::dispatch;
use crate::exit;
use clap::{Args, Parser, Subcommand};

const EXAMPLES: &str = "Examples:
  idgen init-app --app 1 --name orders
  idgen next --app 1
  idgen status
  idgen decode 175928847299117063 --layout discord";

/// `idgen --help`: examples, the config file's keys, and the exit codes.
fn long_help() -> String {
    let mut text =
        format!("{EXAMPLES}\n\nConfiguration file (TOML; flags and environment override it):\n");
    for (key, meaning) in idgen::config::file::KEYS {
        text.push_str(&format!("  {key:<32} {meaning}\n"));
    }
    text.push_str(
        "\nPasswords outside the URL (used for every URL that carries none):\n  \
         IDGEN_REDIS_PASSWORD, IDGEN_MYSQL_PASSWORD, or the files named by\n  \
         --redis-password-file / --mysql-password-file. IDGEN_REDIS_NODES separates\n  \
         NAME=URL entries with spaces. Empty IDGEN_* variables count as unset.\n",
    );
    text.push('\n');
    text.push_str(&exit::help_section());
    text
}

/// `idgen --version`: the release, the commit it was built from and the
/// enabled cargo features (build.rs records them).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("IDGEN_COMMIT"),
    "; features: ",
    env!("IDGEN_FEATURES"),
    "; backends: redis + mysql, embedded sqlite)"
);

#[derive(Debug, Parser)]
#[command(
    name = "idgen",
    version = VERSION,
    about = "64-bit IDs that are never issued twice: segment IDs and snowflake IDs under a leased worker ID, from one local store file by default, or from MySQL + Redis (--mysql, --redis)",
    long_about = None,
    after_help = EXAMPLES,
    after_long_help = long_help(),
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub globals: Globals,

    #[command(subcommand)]
    pub command: Command,
}

/// Options every command accepts.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Global options")]
pub struct Globals {
    /// Redis URL of the default node, `main` (with --mysql: the distributed backend): redis://, rediss://, redis-sentinel://HOSTS#MASTER or redis-cluster://HOSTS
    #[arg(
        long,
        global = true,
        env = "IDGEN_REDIS_URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub redis: Option<String>,

    /// Another Redis node by name, NAME=URL (repeatable), e.g. hot=redis://10.0.0.7:6379; IDGEN_REDIS_NODES separates entries with spaces
    #[arg(
        long = "redis-node",
        global = true,
        env = NODES_VARIABLE,
        hide_env_values = true,
        value_name = "NAME=URL"
    )]
    pub redis_nodes: Vec<String>,

    /// File holding the password of every Redis node whose URL has none (or IDGEN_REDIS_PASSWORD holds it)
    #[arg(
        long,
        global = true,
        hide_env_values = true,
        env = "IDGEN_REDIS_PASSWORD_FILE",
        value_name = "PATH"
    )]
    pub redis_password_file: Option<std::path::PathBuf>,

    /// CA certificate (PEM) to verify rediss:// servers by, instead of the system's roots
    #[arg(
        long = "redis-ca",
        global = true,
        hide_env_values = true,
        env = "IDGEN_REDIS_CA",
        value_name = "PATH"
    )]
    pub redis_ca: Option<std::path::PathBuf>,

    /// Client certificate (PEM) for rediss:// servers that require one (mutual TLS; with --redis-key)
    #[arg(
        long = "redis-cert",
        global = true,
        hide_env_values = true,
        env = "IDGEN_REDIS_CERT",
        value_name = "PATH"
    )]
    pub redis_cert: Option<std::path::PathBuf>,

    /// Private key (PEM) of --redis-cert
    #[arg(
        long = "redis-key",
        global = true,
        hide_env_values = true,
        env = "IDGEN_REDIS_KEY",
        value_name = "PATH"
    )]
    pub redis_key: Option<std::path::PathBuf>,

    /// MySQL/MariaDB URL holding id_alloc (with --redis: the distributed backend)
    #[arg(
        long,
        global = true,
        env = "IDGEN_MYSQL_URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub mysql: Option<String>,

    /// File holding the MySQL password when the URL has none (or IDGEN_MYSQL_PASSWORD holds it)
    #[arg(
        long,
        global = true,
        hide_env_values = true,
        env = "IDGEN_MYSQL_PASSWORD_FILE",
        value_name = "PATH"
    )]
    pub mysql_password_file: Option<std::path::PathBuf>,

    /// CA certificate (PEM) to verify a MySQL server by when the URL has require_ssl=true
    #[arg(
        long = "mysql-ca",
        global = true,
        hide_env_values = true,
        env = "IDGEN_MYSQL_CA",
        value_name = "PATH"
    )]
    pub mysql_ca: Option<std::path::PathBuf>,

    /// Client certificate (PEM) for a MySQL server that requires one (with --mysql-key)
    #[arg(
        long = "mysql-cert",
        global = true,
        hide_env_values = true,
        env = "IDGEN_MYSQL_CERT",
        value_name = "PATH"
    )]
    pub mysql_cert: Option<std::path::PathBuf>,

    /// Private key (PEM) of --mysql-cert
    #[arg(
        long = "mysql-key",
        global = true,
        hide_env_values = true,
        env = "IDGEN_MYSQL_KEY",
        value_name = "PATH"
    )]
    pub mysql_key: Option<std::path::PathBuf>,

    /// The embedded store's file, used when no server is configured [default: $XDG_DATA_HOME/idgen/idgen.db or ~/.local/share/idgen/idgen.db]
    #[arg(
        long,
        global = true,
        hide_env_values = true,
        env = "IDGEN_STORE",
        value_name = "PATH"
    )]
    pub store: Option<std::path::PathBuf>,

    /// TOML config file; see `idgen --help` for its keys [default: $XDG_CONFIG_HOME/idgen/config.toml or ~/.config/idgen/config.toml]
    #[arg(
        long,
        global = true,
        hide_env_values = true,
        env = "IDGEN_CONFIG",
        value_name = "PATH"
    )]
    pub config: Option<std::path::PathBuf>,

    /// Dispenser that init-app records for a new app, and that next tries first: queue (the Java service's lists) or range [default: queue]
    #[arg(
        long,
        global = true,
        hide_env_values = true,
        env = "IDGEN_DISPENSER",
        value_name = "KIND",
        value_parser = Suggest(&["queue", "range"]),
        hide_possible_values = true
    )]
    pub dispenser: Option<String>,

    /// How long to wait for a server to connect or answer, e.g. 500ms, 5s [default: 5s]
    #[arg(
        long,
        global = true,
        hide_env_values = true,
        env = "IDGEN_TIMEOUT",
        value_name = "DURATION"
    )]
    pub timeout: Option<String>,

    /// Explain what the command is doing on stderr, ending with the work it did (connections, round trips, segments, retries)
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

impl Globals {
    /// Every secret in the URL settings as given, so output can be scrubbed of
    /// them, whether or not they turn out to parse.
    pub fn secrets(&self) -> Vec<String> {
        // Only a node entry is NAME=URL: a URL's own `?key=value` is no name.
        let urls = [&self.redis, &self.mysql]
            .into_iter()
            .flatten()
            .map(String::as_str);
        let nodes = self
            .redis_nodes
            .iter()
            .flat_map(|raw| node_specs(raw).into_iter().chain([raw.as_str()]))
            .flat_map(|spec| [spec, spec.split_once('=').map_or(spec, |(_, url)| url)]);
        urls.chain(nodes)
            .flat_map(idgen::redact::secrets_in)
            .collect()
    }
}

/// The variable that lists named Redis nodes, separated by whitespace; a
/// `--redis-node` flag gives one.
pub const NODES_VARIABLE: &str = "IDGEN_REDIS_NODES";

/// The entries of `IDGEN_REDIS_NODES`: separated
/// by whitespace, which a URL cannot contain (a comma can, in a password).
/// Only whitespace before the start of another entry (`NAME=` and a URL of a
/// scheme idgen reads) separates: other whitespace is inside an entry, a
/// password written raw, and the text after it stays with that entry, where
/// redaction hides it, rather than becoming a node named by a piece of the
/// password (found by fuzzing).
pub fn node_specs(raw: &str) -> Vec<&str> {
    let starts_entry = |piece: &str| {
        piece.split_once('=').is_some_and(|(name, url)| {
            idgen::name::is_well_formed(name) && idgen::redact::reads_scheme(url)
        })
    };
    let mut specs: Vec<&str> = Vec::new();
    let mut start = None;
    for piece in raw.split_whitespace() {
        // Pieces of `raw`, so their offsets are their places in it.
        let at = piece.as_ptr() as usize - raw.as_ptr() as usize;
        let end = at + piece.len();
        match start {
            Some(begun) if !starts_entry(piece) => {
                specs.pop();
                specs.push(&raw[begun..end]);
            }
            _ => {
                start = Some(at);
                specs.push(piece);
            }
        }
    }
    specs
}

/// `--namespace`, as every command that works on one declares it.
#[derive(Debug, Clone, Args)]
pub struct NamespaceArg {
    /// The namespace: lease holders sharing one layout and epoch
    #[arg(
        long = "namespace",
        hide_env_values = true, env = "IDGEN_NAMESPACE",
        default_value = "default",
        value_name = "NS",
        value_hint = clap::ValueHint::Other
    )]
    pub name: String,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the schema if missing and seed an app's 64 shards (idempotent)
    InitApp(dispatch::init_app::InitAppArgs),
    /// Issue segment IDs for an app
    Next(dispatch::next::NextArgs),
    /// Top up every shard whose stock is at or below the threshold (for cron)
    ReloadSegments(dispatch::reload_segments::ReloadArgs),
    /// Move an app's stock to another Redis node without repeats
    Migrate(dispatch::migrate::MigrateArgs),
    /// Hold a worker ID leased from the namespace and issue snowflake IDs
    Lease(dispatch::lease::LeaseArgs),
    /// Show worker-ID lease state and inconsistencies of a namespace; repair them
    InspectFreelist(dispatch::inspect_freelist::InspectArgs),
    /// Unpack the fields of IDs in any supported layout
    Decode(dispatch::decode::DecodeArgs),
    /// Show the deployment's health; exits 8 when something needs attention
    Status(dispatch::status::StatusArgs),
    /// Serve segment and snowflake IDs over HTTP (Leaf-compatible), with health and metrics
    Serve(dispatch::serve::ServeArgs),
    /// List, show and change apps (max_limit_id, step, name) without SQL
    App(dispatch::app::AppArgs),
    /// List and show worker-ID namespaces: layout, epoch, who holds which worker ID
    Namespace(dispatch::namespace::NamespaceArgs),
    /// Print the effective settings and where each came from (flag, variable, file:line, default), redacted
    Config(dispatch::config::ConfigArgs),
    /// Print the man page (roff) to stdout
    #[command(hide = true)]
    Man,
    /// Print a shell completion script to stdout
    Completions(dispatch::completions::CompletionsArgs),
}

impl Command {
    /// Does the command read the configuration? Completions must work even when
    /// the config file is broken.
    pub fn needs_settings(&self) -> bool {
        !matches!(self, Command::Completions(_) | Command::Man)
    }

    /// Does the command hand out IDs on stdout? Only such a command must report
    /// a reader that closed the pipe early: the IDs it did not read are lost.
    /// Any other ends quietly, as `head` expects (`idgen status | head -1`).
    pub fn issues_ids(&self) -> bool {
        matches!(
            self,
            Command::Next(_) | Command::Lease(_) | Command::Serve(_)
        )
    }

    /// How many worker threads the command's runtime gets; `None`: none, it
    /// runs on the main thread. `serve` answers many connections at once, and
    /// `reload-segments`, `migrate` and `app` work through many shards at
    /// once, formatting and parsing large batches: two. `lease` needs one, to
    /// renew its worker ID while it generates (in `block_in_place`, which
    /// hands the runtime to another thread); a second would only take turns
    /// with it on every round trip of the acquire. Every other command does one
    /// small thing at a time on the main thread: a short `next` then pays no
    /// hand-offs between threads, which on a busy machine cost more than its
    /// round trip.
    pub fn worker_threads(&self) -> Option<usize> {
        match self {
            Command::Serve(_)
            | Command::ReloadSegments(_)
            | Command::Migrate(_)
            | Command::App(_) => Some(2),
            Command::Lease(_) => Some(1),
            _ => None,
        }
    }

    /// Is this `status --check`, which exits by the Nagios convention even on errors?
    pub fn is_nagios_check(&self) -> bool {
        matches!(self, Command::Status(args) if args.check)
    }
}

/// The global options `decode` uses; it reads no backend, so its help hides
/// the rest (they are still accepted, as everywhere).
const DECODE_GLOBALS: &[&str] = &["config", "verbose", "help"];

/// The CLI as parsed, helped and documented: every use goes through here.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let command = Cli::command();
    // A subcommand's own argument of the same name keeps a global one from
    // being propagated into it: decode gets hidden copies of the backend options.
    let backend: Vec<clap::Arg> = command
        .get_arguments()
        .filter(|a| a.is_global_set() && !DECODE_GLOBALS.contains(&a.get_id().as_str()))
        .map(|a| a.clone().global(false).hide(true))
        .collect();
    command.mut_subcommand("decode", |decode| decode.args(backend))
}

/// Is `name` one of idgen's subcommands?
pub fn is_subcommand(name: &str) -> bool {
    command().get_subcommands().any(|c| c.get_name() == name)
}

/// Offers fixed values to shell completion (not file names) while accepting
/// any text: the command checks it, so a bad value gets the same message from
/// the flag as from its variable or the config file.
#[derive(Debug, Clone, Copy)]
pub struct Suggest(pub &'static [&'static str]);

impl clap::builder::TypedValueParser for Suggest {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|v| clap::builder::PossibleValue::new(*v)),
        ))
    }
}

#[cfg(test)]
mod tests {
    /// clap prints `[env: IDGEN_X=]` for an unset variable, which reads as
    /// "set to empty", and `[env: IDGEN_X=VALUE]` for a set one, a password
    /// file's path or a URL among them; `idgen config` shows each value with
    /// its source instead. So every argument read from a variable says
    /// `hide_env_values = true` where it is declared: this walks the whole
    /// command, globals propagated, for one that does not.
    #[test]
    fn every_argument_read_from_a_variable_hides_its_value_in_help() {
        fn visible(command: &clap::Command, path: &str, found: &mut Vec<String>) {
            for arg in command.get_arguments() {
                if arg.get_env().is_some() && !arg.is_hide_env_values_set() {
                    found.push(format!("{path} --{}", arg.get_id()));
                }
            }
            for sub in command.get_subcommands() {
                visible(sub, &format!("{path} {}", sub.get_name()), found);
            }
        }
        let mut command = super::command();
        command.build();
        let mut found = Vec::new();
        visible(&command, "idgen", &mut found);
        assert!(found.is_empty(), "add hide_env_values = true to {found:?}");
    }
}
