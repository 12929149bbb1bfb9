//! What the fuzz targets share: the `idgen` binary's modules (a fuzz target
//! cannot depend on a binary crate, so they are compiled here from their own
//! files, unchanged), and the checks every target makes.

// The binary's modules, declared as src/bin/idgen/main.rs declares them so
// that their `crate::…` paths resolve. Much of them is not used here.
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/cli.rs"]
pub mod cli;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/confirm.rs"]
pub mod confirm;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/dispatch/mod.rs"]
pub mod dispatch;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/exit.rs"]
pub mod exit;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/exposition.rs"]
pub mod exposition;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/layout_args.rs"]
pub mod layout_args;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/output.rs"]
pub mod output;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/settings.rs"]
pub mod settings;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bin/idgen/signals.rs"]
pub mod signals;

pub mod secret;
