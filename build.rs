//! Records the commit and the enabled features for `idgen --version`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=IDGEN_COMMIT={commit}");
    // Rebuild when HEAD moves: HEAD itself, the branch it names, packed refs.
    // Only files that exist: cargo takes a missing one (no packed-refs yet, a
    // branch that lives only in packed-refs) as changed on every build, and
    // would rebuild the crate each time. Packing a branch deletes its file,
    // which is a change, so the build script then runs again and watches
    // packed-refs.
    let mut watched = Vec::new();
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        watched.push(format!("{dir}/HEAD"));
    }
    if let (Some(common), Some(branch)) = (
        git(&["rev-parse", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        watched.push(format!("{common}/{branch}"));
        watched.push(format!("{common}/packed-refs"));
    }
    for path in watched {
        if std::path::Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let features: Vec<&str> = [("CARGO_FEATURE_TEST_HOOKS", "test-hooks")]
        .into_iter()
        .filter(|(var, _)| std::env::var_os(var).is_some())
        .map(|(_, name)| name)
        .collect();
    let features = if features.is_empty() {
        "none".to_string()
    } else {
        features.join(", ")
    };
    println!("cargo:rustc-env=IDGEN_FEATURES={features}");
    println!("cargo:rerun-if-changed=build.rs");
}
