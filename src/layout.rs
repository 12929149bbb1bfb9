//! Placeholder: being written (bit layouts).

/// A layout could not be parsed or a value does not fit it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct LayoutError(pub String);

impl LayoutError {
    pub fn hint(&self) -> String {
        "see `idgen decode --help` for the layouts".into()
    }
}
