//! The JSON form of a decoded ID, shared by `decode --json` and `serve`.

use super::{Decoded, FieldKind, Layout, format_timestamp};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// One decoded ID as JSON; keys in a fixed order: id, layout, timestamp, unix_ms, fields,
/// text form.
pub struct DecodedJson<'a> {
    pub layout: &'a Layout,
    /// False where the layout is said once around the records (`--guess`).
    pub layout_key: bool,
    pub decoded: &'a Decoded,
    pub id_as_string: bool,
}

impl Serialize for DecodedJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.id_as_string {
            map.serialize_entry("id", &self.decoded.id.to_string())?;
        } else {
            map.serialize_entry("id", &self.decoded.id)?;
        }
        if self.layout_key {
            map.serialize_entry("layout", self.layout.name())?;
        }
        if let Some(ms) = self.decoded.unix_ms {
            map.serialize_entry("timestamp", &format_timestamp(ms))?;
            map.serialize_entry("unix_ms", &ms)?;
        }
        for (kind, value) in &self.decoded.values {
            if *kind != FieldKind::Time {
                map.serialize_entry(kind.name(), value)?;
            }
        }
        if let (Some(form), Some(text)) = (self.layout.text_form(), &self.decoded.text) {
            map.serialize_entry(form.name(), text)?;
        }
        map.end()
    }
}
