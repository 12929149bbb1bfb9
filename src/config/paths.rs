//! Where idgen keeps its files when no setting names them, by the XDG base
//! directory rules: the one place both default paths are found.

use std::path::PathBuf;

/// `$VAR` when it is an absolute path (XDG says to ignore a relative one),
/// else `$HOME` joined with `fallback`.
fn base_dir(var: &str, fallback: &[&str]) -> Option<PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    absolute(var)
        .or_else(|| absolute("HOME").map(|home| fallback.iter().fold(home, |p, part| p.join(part))))
}

/// `$XDG_CONFIG_HOME/idgen/config.toml`, else `~/.config/idgen/config.toml`.
pub fn default_config_file() -> Option<PathBuf> {
    Some(
        base_dir("XDG_CONFIG_HOME", &[".config"])?
            .join("idgen")
            .join("config.toml"),
    )
}

/// `$XDG_DATA_HOME/idgen/idgen.db`, else `~/.local/share/idgen/idgen.db`.
pub fn default_store_file() -> Option<PathBuf> {
    Some(
        base_dir("XDG_DATA_HOME", &[".local", "share"])?
            .join("idgen")
            .join("idgen.db"),
    )
}
