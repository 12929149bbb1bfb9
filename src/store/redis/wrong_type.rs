//! Naming the key behind a WRONGTYPE: Redis says only that some key a command
//! or script touched holds the wrong kind of value, so the shard's keys are
//! asked for their types and the one idgen did not write is named, with its
//! type, for the operator to check and delete. Only a read: nothing of the
//! shard's stock or witness changes.

use super::RedisNode;
use super::keys::{
    BUFFER_PREFIX, LOCK_PREFIX, QUEUE_PREFIX, RANGE_PREFIX, STAMP_PREFIX, WITNESS_PREFIX,
};
use crate::error::Error;

/// The type idgen stores under a shard key, by the key's name.
fn stored_type(key: &str) -> Option<&'static str> {
    [
        (QUEUE_PREFIX, "list"),
        (RANGE_PREFIX, "hash"),
        (LOCK_PREFIX, "string"),
        (STAMP_PREFIX, "hash"),
        (WITNESS_PREFIX, "hash"),
        (BUFFER_PREFIX, "list"),
    ]
    .into_iter()
    .find(|(prefix, _)| key.starts_with(prefix))
    .map(|(_, stored)| stored)
}

/// Whether `error` is a WRONGTYPE that may not name the right key yet.
fn is_wrong_type(error: &Error) -> bool {
    matches!(error, Error::BadData { detail, .. } if detail.contains("WRONGTYPE"))
}

/// The error for `key` holding a `found` where idgen stores a `stored`.
fn holds(key: &str, found: &str, stored: &str) -> Error {
    Error::BadData {
        backend: "Redis",
        key: key.to_string(),
        detail: format!("a {found}, not a {stored} (WRONGTYPE)"),
    }
}

impl RedisNode {
    /// `error`, naming the one of `keys` that holds another type than idgen
    /// stores there when `error` is a WRONGTYPE; else `error` as it was (also
    /// when the types cannot be read).
    pub(super) async fn name_wrong_type(&self, keys: &[String], error: Error) -> Error {
        if !is_wrong_type(&error) {
            return error;
        }
        let Ok(mut conn) = self.conn().await else {
            return error;
        };
        // A shard's keys share a hash slot, so one pipeline reaches them on a cluster too.
        let mut pipe = redis::pipe();
        for key in keys {
            pipe.cmd("TYPE").arg(key);
        }
        let Ok(found) = self
            .bounded::<Vec<String>>(pipe.query_async(&mut conn))
            .await
        else {
            return error;
        };
        keys.iter()
            .zip(found)
            .find_map(|(key, found)| {
                let stored = stored_type(key)?;
                (found != "none" && found != stored).then(|| holds(key, &found, stored))
            })
            .unwrap_or(error)
    }
}

#[cfg(test)]
mod tests {
    use super::{holds, is_wrong_type, stored_type};

    #[test]
    fn every_shard_key_has_the_type_idgen_stores() {
        assert_eq!(stored_type("id.gen.idList_1_5"), Some("list"));
        assert_eq!(stored_type("id.gen.lock_1_5{1432}"), Some("string"));
        assert_eq!(stored_type("id.gen.witness_1_5"), Some("hash"));
        assert_eq!(stored_type("idgen:{ns}:meta"), None);
    }

    #[test]
    fn the_error_names_the_key_its_type_and_the_fix() {
        let e = holds("id.gen.idList_1_5", "string", "list");
        assert!(is_wrong_type(&e));
        assert_eq!(
            e.to_string(),
            "Redis key id.gen.idList_1_5 holds unexpected data: a string, not a list (WRONGTYPE)"
        );
        assert!(
            e.hint()
                .unwrap()
                .contains("redis-cli DEL id.gen.idList_1_5")
        );
    }
}
