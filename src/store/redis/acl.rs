//! Telling an operator which command a Redis ACL refused. A refused command
//! inside a script is reported by Redis 7.0 as "can't run this command" with
//! only the script's SHA1 and line, so every script idgen runs is made here
//! and remembered, and the line is looked up.

use redis::Script;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

fn sources() -> &'static Mutex<HashMap<String, String>> {
    static SOURCES: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    SOURCES.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A script whose refused commands can be named.
pub fn script(source: &str) -> Script {
    let script = Script::new(source);
    sources()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(script.get_hash().to_string(), source.to_string());
    script
}

/// Is this server message a refusal by the ACL: NOPERM, or a script's
/// "can't run this command" (Redis 7.0)?
pub fn is_refusal(message: &str) -> bool {
    message.contains("NOPERM") || message.contains("can't run this command")
}

/// The command a refusal names, upper-case: from the message itself
/// (`... run the 'lpop' command`), else from the script line it points at.
pub fn refused_command(message: &str) -> Option<String> {
    if let Some(rest) = message.split("the '").nth(1)
        && let Some((command, _)) = rest.split_once('\'')
    {
        return Some(command.to_uppercase());
    }
    let sha = message
        .split("script: ")
        .nth(1)?
        .split(|c: char| !c.is_ascii_hexdigit())
        .next()?;
    let line: usize = message
        .split("@user_script:")
        .nth(1)?
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    let sources = sources()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let text = sources.get(sha)?.lines().nth(line.checked_sub(1)?)?;
    let call = text.split("call(").nth(1)?;
    let command = call.trim_start().trim_start_matches(['\'', '"']);
    let end = command.find(['\'', '"'])?;
    Some(command[..end].to_uppercase())
}

#[cfg(test)]
mod tests {
    use super::{is_refusal, refused_command, script};

    #[test]
    fn the_refused_command_is_found_in_the_message_or_the_script_line() {
        assert_eq!(
            refused_command("NOPERM User u has no permissions to run the 'lpop' command")
                .as_deref(),
            Some("LPOP")
        );
        let made = script("local a = 1\nredis.call('HSET', KEYS[1], 'f', 'v')\n");
        let message = format!(
            "ERR The user executing the script can't run this command or subcommand script: {}, on @user_script:2.",
            made.get_hash()
        );
        assert!(is_refusal(&message));
        assert_eq!(refused_command(&message).as_deref(), Some("HSET"));
        assert_eq!(refused_command("ERR something else"), None);
    }
}
