//! `links`' rows made in JavaScript from columns: Rust writes each field
//! of each row as one number (a line, a column, or a code for null, a
//! boolean or a text) and the texts into one string, and one JavaScript
//! function, compiled once per Node.js environment, makes the rows with
//! an object literal of [`Row::KEYS`] in a loop. V8 gives every row the
//! same hidden class and copies no text (a row's strings are slices of
//! the one string), where `JSON.parse` of the rows' text would scan and
//! copy every byte; a text every row shares (an element, a base) is one
//! string.

use std::collections::HashMap;

use napi::bindgen_prelude::{Float64ArraySlice, FnArgs, Function, FunctionRef, Unknown};
use napi::{Env, JsString, Result};

use crate::engine::{Row, RowValue};

/// The codes of the values that are not numbers: a text is
/// `TEXT - index`, its index into the texts.
const NULL: f64 = -1.0;
const FALSE: f64 = -2.0;
const TRUE: f64 = -3.0;
const TEXT: f64 = -4.0;

/// Texts no longer than this are looked up among all the texts so far;
/// longer ones only against the field's text in the row before.
const SHORT: usize = 24;

/// The rows of an input, as columns.
#[derive(Debug, Default)]
pub struct RowColumns {
    /// [`Row::KEYS`]`.len()` numbers a row, each a field's value or code.
    cells: Vec<f64>,
    /// Every distinct text, one after the other.
    texts: String,
    /// Where each text ends in `texts`, in UTF-16 units (JavaScript's
    /// string offsets).
    ends: Vec<f64>,
    /// The UTF-16 length of `texts`.
    units: usize,
    /// Where each text is in `texts`, in bytes.
    spans: Vec<(usize, usize)>,
    /// The short texts' indices.
    short: HashMap<Box<str>, usize>,
    /// Each field's text in the row before, by index.
    last: [Option<usize>; Row::KEYS.len()],
}

type Builder<'env> = Function<
    'env,
    FnArgs<(
        Float64ArraySlice<'env>,
        JsString<'env>,
        Float64ArraySlice<'env>,
    )>,
    Unknown<'env>,
>;
type BuilderRef = FunctionRef<
    FnArgs<(
        Float64ArraySlice<'static>,
        JsString<'static>,
        Float64ArraySlice<'static>,
    )>,
    Unknown<'static>,
>;

impl RowColumns {
    /// Adds `rows`, `file` the path the input was read from.
    pub fn push(&mut self, rows: &[Row], file: Option<&str>) {
        for row in rows {
            for (field, (_, value)) in row.fields(file).into_iter().enumerate() {
                let cell = match value {
                    RowValue::Null => NULL,
                    RowValue::Bool(b) => {
                        if b {
                            TRUE
                        } else {
                            FALSE
                        }
                    }
                    // Exact up to 2^53: beyond any line, column or count.
                    RowValue::Number(n) => n as f64,
                    RowValue::Text(text) => TEXT - self.text(field, &text) as f64,
                };
                self.cells.push(cell);
            }
        }
    }

    /// The index of `text`, the value of `field`: the same as the row
    /// before's, a short text seen before, or a new one.
    fn text(&mut self, field: usize, text: &str) -> usize {
        if let Some(index) = self.last[field]
            && let Some(&(from, to)) = self.spans.get(index)
            && self.texts.get(from..to) == Some(text)
        {
            return index;
        }
        if text.len() <= SHORT
            && let Some(&index) = self.short.get(text)
        {
            self.last[field] = Some(index);
            return index;
        }
        let index = self.spans.len();
        let from = self.texts.len();
        self.texts.push_str(text);
        self.spans.push((from, self.texts.len()));
        self.units += if text.is_ascii() {
            text.len()
        } else {
            text.encode_utf16().count()
        };
        self.ends.push(self.units as f64);
        if text.len() <= SHORT {
            self.short.insert(text.into(), index);
        }
        self.last[field] = Some(index);
        index
    }

    /// The rows as JavaScript objects, `LinkRow[]`.
    pub fn into_js(self, env: &Env) -> Result<Unknown<'_>> {
        // ASCII is Latin-1 as it is: copied, where UTF-8 is decoded.
        let texts = if self.texts.is_ascii() {
            env.create_string_latin1(self.texts.as_bytes())?
        } else {
            env.create_string(&self.texts)?
        };
        let cells = Float64ArraySlice::copy_from(env, &self.cells)?;
        let ends = Float64ArraySlice::copy_from(env, &self.ends)?;
        builder(env)?.call((cells, texts, ends).into())
    }
}

/// The function that makes the rows, compiled at its first use in an
/// environment and kept as the environment's data.
fn builder(env: &Env) -> Result<Builder<'_>> {
    if let Some(kept) = env.get_instance_data::<BuilderRef>()? {
        return kept.borrow_back(env);
    }
    let made: Builder = env.run_script(source())?;
    let kept: BuilderRef = made.create_ref()?;
    let function = kept.borrow_back(env)?;
    env.set_instance_data(kept, (), |_| {})?;
    Ok(function)
}

/// The function's source: a loop making each row with an object literal
/// of the keys in their order, each value decoded from its cell.
fn source() -> String {
    let width = Row::KEYS.len();
    let fields: Vec<String> = Row::KEYS
        .iter()
        .enumerate()
        .map(|(i, key)| format!("{key:?}: value(cells[at + {i}])"))
        .collect();
    format!(
        "(function (cells, texts, ends) {{
  'use strict';
  const strings = new Array(ends.length);
  for (let k = 0, from = 0; k < ends.length; k++) {{
    strings[k] = texts.slice(from, ends[k]);
    from = ends[k];
  }}
  const value = (cell) => cell >= 0 ? cell : cell === {NULL:?} ? null : cell === {FALSE:?} ? false : cell === {TRUE:?} ? true : strings[{TEXT:?} - cell];
  const rows = [];
  for (let at = 0; at < cells.length; at += {width}) {{
    rows.push({{ {} }});
  }}
  return rows;
}})",
        fields.join(", ")
    )
}
