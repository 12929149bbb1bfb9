//! The distributed backend's pairing of Redis and MySQL for worker IDs: a
//! lease store in which MySQL decides and Redis offers and witnesses
//! ([`FencedLeaseStore`]), and the `worker-node` assigner
//! ([`DistributedWorkerNodes`]). Each store room (`store/redis`,
//! `store/mysql`) knows only its own server; what needs both lives here.

mod lease;
mod worker_nodes;

pub use lease::FencedLeaseStore;
pub use worker_nodes::DistributedWorkerNodes;

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every `.rs` file under `dir`, with its text.
    fn sources(dir: &Path) -> Vec<(String, String)> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                found.extend(sources(&path));
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                found.push((path.display().to_string(), text));
            }
        }
        found
    }

    /// The pairing stays here: neither store room reaches into the other.
    #[test]
    fn the_redis_and_mysql_rooms_do_not_import_each_other() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
        for (room, other) in [("redis", "mysql"), ("mysql", "redis")] {
            let files = sources(&root.join(room));
            assert!(!files.is_empty(), "no sources under src/store/{room}");
            for (path, text) in files {
                for needle in [format!("store::{other}"), format!("super::{other}")] {
                    assert!(!text.contains(&needle), "{path} mentions {needle}");
                }
            }
        }
    }
}
