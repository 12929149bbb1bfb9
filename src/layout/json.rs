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
}

/// Wider values than this are JSON strings: JavaScript and jq 1.6 read
/// numbers as doubles, exact only up to 2^53.
const EXACT_JSON_BITS: u32 = 53;

impl Serialize for DecodedJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", &self.decoded.id.to_string())?;
        if self.layout_key {
            map.serialize_entry("layout", self.layout.name())?;
        }
        if let Some(ms) = self.decoded.unix_ms {
            map.serialize_entry("timestamp", &format_timestamp(ms))?;
            map.serialize_entry("unix_ms", &ms)?;
        }
        for ((kind, value), field) in self.decoded.values.iter().zip(self.layout.fields()) {
            if *kind == FieldKind::Time {
                continue;
            }
            if field.width() > EXACT_JSON_BITS {
                map.serialize_entry(kind.name(), &value.to_string())?;
            } else {
                map.serialize_entry(kind.name(), value)?;
            }
        }
        if let (Some(form), Some(text)) = (self.layout.text_form(), &self.decoded.text) {
            map.serialize_entry(form.name(), text)?;
        }
        map.end()
    }
}
