//! JSON kept as written: the top-level fields of an object with the span
//! of each value, so that a value is replaced and every other byte kept.

use std::collections::HashMap;
use std::ops::Range;

use serde_json::value::RawValue;

use crate::splice::{self, Edit};

/// A value of a JSON object: its text and where it lies.
pub(super) struct RawField<'a> {
    pub(super) text: &'a str,
    pub(super) range: Range<usize>,
}

/// The top-level fields of a JSON object in `text`, each with the span of
/// its value, so that a value can be replaced and every other byte kept.
pub(super) fn object_fields(text: &str) -> Result<HashMap<String, RawField<'_>>, String> {
    let map: HashMap<String, &RawValue> =
        serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))?;
    Ok(map
        .into_iter()
        .filter_map(|(key, raw)| {
            let raw = raw.get();
            let start = (raw.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
            let range = start..start + raw.len();
            (text.get(range.clone()) == Some(raw)).then_some((key, RawField { text: raw, range }))
        })
        .collect())
}

impl RawField<'_> {
    /// The value as a string, whether written as a JSON string or not.
    pub(super) fn string(&self) -> Option<String> {
        match serde_json::from_str::<serde_json::Value>(self.text).ok()? {
            serde_json::Value::String(s) => Some(s),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    pub(super) fn number(&self) -> Option<u64> {
        self.string()?.parse().ok()
    }

    /// A new number, quoted if the old one was.
    pub(super) fn number_edit(&self, value: u64, offset: usize) -> Edit {
        let text = if self.text.starts_with('"') {
            format!("\"{value}\"")
        } else {
            value.to_string()
        };
        Edit::new(self.shifted(offset), text)
    }

    pub(super) fn string_edit(&self, value: &str, offset: usize) -> Edit {
        let text = serde_json::Value::String(value.to_owned()).to_string();
        Edit::new(self.shifted(offset), text)
    }

    fn shifted(&self, offset: usize) -> Range<usize> {
        self.range.start + offset..self.range.end + offset
    }
}

pub(super) fn apply_edits(text: &str, mut edits: Vec<Edit>) -> String {
    edits.retain(|e| text.get(e.range.clone()) != Some(e.text.as_str()));
    splice::normalize(&mut edits, text.len());
    splice::apply_str(text, &edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_are_replaced_in_place() {
        let text =
            r#"{"url": "http://a/", "offset": "363", "length": 12, "x": [1, {"offset": 5}]}"#;
        let fields = object_fields(text).unwrap();
        assert_eq!(fields["offset"].number(), Some(363));
        assert_eq!(fields["length"].number(), Some(12));
        let edits = vec![
            fields["offset"].number_edit(1000, 0),
            fields["length"].number_edit(7, 0),
            fields["url"].string_edit("http://b/\"", 0),
        ];
        assert_eq!(
            apply_edits(text, edits),
            r#"{"url": "http://b/\"", "offset": "1000", "length": 7, "x": [1, {"offset": 5}]}"#
        );
    }
}
