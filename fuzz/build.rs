//! The `idgen` binary's build script records these for `idgen --version`
//! (src/bin/idgen/cli.rs reads them); the fuzz build compiles that file too.

fn main() {
    println!("cargo:rustc-env=IDGEN_COMMIT=fuzz");
    println!("cargo:rustc-env=IDGEN_FEATURES=none");
}
