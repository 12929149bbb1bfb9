//! `idgen completions`: a shell completion script, printed to stdout.
//!
//! The scripts for every shell are also committed under `completions/`; a test
//! fails when they drift from the CLI. Regenerate them with
//! `scripts/update-completions.sh`.

use crate::dispatch::Context;
use crate::exit::Outcome;
use clap_complete::Shell;
use std::io::Write;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  idgen completions bash > ~/.local/share/bash-completion/completions/idgen
  idgen completions zsh > ~/.zfunc/_idgen        # with fpath+=(~/.zfunc) in .zshrc
  idgen completions fish > ~/.config/fish/completions/idgen.fish
  idgen completions powershell >> $PROFILE
  idgen completions elvish > ~/.config/elvish/lib/idgen.elv

Ready-made scripts for each shell are in the repository's completions/ directory.")]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

pub fn run(args: CompletionsArgs, _ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    // clap_complete panics when its writer fails; render first, then write with
    // errors reported (a closed pipe is not a bug).
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut without_hidden_subcommands(),
        "idgen",
        &mut script,
    );
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(Outcome::Success)
}

/// The CLI without its hidden subcommands (`man`): clap_complete offers every
/// subcommand, hidden or not, and clap cannot remove one, so the root is built
/// again from the CLI's own parts with only the visible subcommands. The `help`
/// subcommand clap adds then lists only those too.
fn without_hidden_subcommands() -> clap::Command {
    let cli = crate::cli::command();
    let mut root = clap::Command::new("idgen")
        .version(crate::cli::VERSION)
        .propagate_version(true)
        .args(cli.get_arguments().cloned())
        .subcommands(
            cli.get_subcommands()
                .filter(|sub| !sub.is_hide_set())
                .cloned(),
        );
    if let Some(about) = cli.get_about() {
        root = root.about(about.clone());
    }
    // The long help tells shells that offer `-h` how it differs from `--help`.
    if let Some(long_help) = cli.get_after_long_help() {
        root = root.after_long_help(long_help.clone());
    }
    root
}

/// `idgen man`: the man page, generated from the CLI like the completions.
/// It carries the release, not the commit, so the committed page only changes
/// when the CLI does.
pub fn man(_ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let command = crate::cli::command().version(env!("CARGO_PKG_VERSION"));
    let mut page = Vec::new();
    clap_mangen::Man::new(command).render(&mut page)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&page)?;
    out.flush()?;
    Ok(Outcome::Success)
}
