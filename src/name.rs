//! The one rule for the names operators choose: Redis nodes (`hot`, `eu-1`)
//! and lease namespaces (`orders.v2`). A name accepted in one place is
//! accepted everywhere, so a config file and a flag never disagree.

/// The rule in words, for hints.
pub const NAME_RULE: &str = "1 to 64 letters, digits, '-', '_' or '.'";

/// Whether `name` follows [`NAME_RULE`].
pub fn is_well_formed(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_1_to_64_letters_digits_dashes_underscores_and_dots() {
        for good in ["a", "main", "eu-1", "a.b", "orders_v2", &"x".repeat(64)] {
            assert!(is_well_formed(good), "{good:?}");
        }
        for bad in ["", "a b", "a/b", "a=b", "ü", "a:b", &"x".repeat(65)] {
            assert!(!is_well_formed(bad), "{bad:?}");
        }
    }
}
