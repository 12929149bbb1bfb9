//! Confirmation before a command changes stored state.
//!
//! On a terminal the operator is asked (dialoguer, on stderr). Without one,
//! the command refuses unless `--yes` says the answer in advance: a cron job or
//! script never blocks on a prompt nobody can see.

use crate::output::Output;
use std::io::IsTerminal;

/// Did the operator agree to `action`?
pub enum Answer {
    Yes,
    No,
}

/// `hint` says how to answer in advance (`--yes`, and `--dry-run` where there is one).
pub fn ask(out: &Output, action: &str, yes: bool, hint: &str) -> anyhow::Result<Answer> {
    if yes {
        return Ok(Answer::Yes);
    }
    if !(std::io::stdin().is_terminal() && out.stderr_tty) {
        return Err(idgen::Error::invalid(
            "confirmation",
            format!("refusing to {action} without a terminal to ask on"),
            hint,
        )
        .into());
    }
    let term = dialoguer::console::Term::stderr();
    let agreed = dialoguer::Confirm::new()
        .with_prompt(format!("{action}?"))
        .default(false)
        .interact_on(&term)
        .map_err(|e| anyhow::anyhow!("reading the answer: {e}"))?;
    Ok(if agreed { Answer::Yes } else { Answer::No })
}
