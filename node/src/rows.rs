//! `links`' rows made in JavaScript from columns: Rust writes each field
//! of each row as one number (a line, a column, or a code for null, a
//! boolean or a text) and the texts into one string, and one JavaScript
//! function, compiled once per Node.js environment and set of constant
//! fields, makes the rows with an object literal of [`Row::KEYS`] in a
//! loop. V8 gives every row the same hidden class and copies no text (a
//! row's strings are slices of the one string), where `JSON.parse` of the
//! rows' text would scan and copy every byte; a text every row shares (an
//! element, a base) is one string. A field with the same value in every
//! row of a call (a page's base, a message's number, null) is sent once,
//! not a row at a time. The numbers go through one array the environment
//! keeps, so that a call makes no new one for the collector.

use napi::bindgen_prelude::{
    Float64ArraySlice, FnArgs, FromNapiValue, Function, FunctionRef, ToNapiValue, Unknown,
};
use napi::{Env, Error, JsString, Result, sys};

use crate::engine::{Row, RowValue};

/// The codes of the values that are not numbers: a text is
/// `TEXT - index`, its index into the texts. JavaScript finds a code's
/// value at `-1 - code` in one table: null, false, true, the texts.
const NULL: f64 = -1.0;
const FALSE: f64 = -2.0;
const TRUE: f64 = -3.0;
const TEXT: f64 = -4.0;

/// Texts no longer than this are looked up among all the texts so far;
/// longer ones only against the field's text in the row before.
const SHORT: usize = 24;

/// How many fields a row has.
const WIDTH: usize = Row::KEYS.len();

/// The rows of an input, as columns.
#[derive(Debug, Default)]
pub struct RowColumns {
    /// How many rows.
    rows: usize,
    /// Each field's value or code in the first row.
    first: [f64; WIDTH],
    /// Each field's values or codes, a row each; empty while every row
    /// has the first row's.
    columns: [Vec<f64>; WIDTH],
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
    short: ShortTexts,
    /// Each field's text in the row before, by index.
    last: [Option<usize>; WIDTH],
    /// The text last added or found, by index.
    latest: Option<usize>,
}

type Builder<'env> =
    Function<'env, FnArgs<(Float64ArraySlice<'env>, f64, f64, JsString<'env>)>, Unknown<'env>>;
type BuilderRef = FunctionRef<
    FnArgs<(Float64ArraySlice<'static>, f64, f64, JsString<'static>)>,
    Unknown<'static>,
>;

impl RowColumns {
    /// Adds `rows`, `file` the path the input was read from.
    pub fn push(&mut self, rows: &[Row], file: Option<&str>) {
        for row in rows {
            // One value at a time, each made where it is read: no array
            // of the fields a row.
            let mut field = 0;
            row.each_value(file, |value| {
                let cell = match value {
                    RowValue::Null => NULL,
                    RowValue::Bool(true) => TRUE,
                    RowValue::Bool(false) => FALSE,
                    // Exact up to 2^53: beyond any line, column or count.
                    RowValue::Number(n) => n as f64,
                    RowValue::Text(text) => TEXT - self.text(field, &text) as f64,
                };
                self.cell(field, cell);
                field += 1;
            });
            self.rows += 1;
        }
    }

    /// Adds the value or code of `field` in the row being added: kept
    /// once while it is the first row's, a row at a time from the first
    /// row where it is not.
    fn cell(&mut self, field: usize, cell: f64) {
        let column = &mut self.columns[field];
        if self.rows == 0 {
            self.first[field] = cell;
        } else if !column.is_empty() {
            column.push(cell);
        } else if cell != self.first[field] {
            column.reserve(self.rows + 1);
            column.resize(self.rows, self.first[field]);
            column.push(cell);
        }
    }

    /// The index of `text`, the value of `field`: the same as the row
    /// before's, as the text just before (a resolved URL that is the URL
    /// as written), a short text seen before, or a new one.
    fn text(&mut self, field: usize, text: &str) -> usize {
        for index in [self.last[field], self.latest].into_iter().flatten() {
            if self.is(index, text) {
                self.last[field] = Some(index);
                self.latest = Some(index);
                return index;
            }
        }
        let slot = if text.len() <= SHORT {
            match self.short.find(text, &self.texts, &self.spans) {
                Ok(index) => {
                    self.last[field] = Some(index);
                    self.latest = Some(index);
                    return index;
                }
                Err(slot) => Some(slot),
            }
        } else {
            None
        };
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
        if let Some(slot) = slot {
            self.short.insert(slot, index);
        }
        self.last[field] = Some(index);
        self.latest = Some(index);
        index
    }

    /// Whether the text at `index` is `text`.
    fn is(&self, index: usize, text: &str) -> bool {
        let kept = self
            .spans
            .get(index)
            .and_then(|&(from, to)| self.texts.as_bytes().get(from..to));
        kept == Some(text.as_bytes())
    }

    /// Columns for a call's rows: those of the call before, emptied, if
    /// it left them, so that their memory is used again.
    pub fn new(env: &Env) -> Result<RowColumns> {
        Ok(kept(env)?.spare.take().unwrap_or_default())
    }

    /// Empties the columns, keeping their memory unless it is more than
    /// the kept array's (or its texts more bytes than its).
    fn clear(mut self) -> Option<RowColumns> {
        let numbers: usize =
            self.columns.iter().map(Vec::capacity).sum::<usize>() + self.ends.capacity();
        // The texts' bytes beside the numbers' (eight bytes each).
        if numbers > KEPT || self.texts.capacity() > KEPT * 8 || self.short.slots.len() > SLOTS {
            return None;
        }
        self.rows = 0;
        self.columns.iter_mut().for_each(Vec::clear);
        self.texts.clear();
        self.ends.clear();
        self.units = 0;
        self.spans.clear();
        self.short.slots.fill((0, 0));
        self.short.len = 0;
        self.last = Default::default();
        self.latest = None;
        Some(self)
    }

    /// The fields whose value is not the same in every row, a bit each.
    fn varying(&self) -> u16 {
        (0..WIDTH)
            .filter(|&field| !self.columns[field].is_empty())
            .fold(0, |mask, field| mask | 1 << field)
    }

    /// The numbers for the function of `varying`: the column of each
    /// field it names (the first row's value repeated where every row has
    /// it), the texts' ends, then each field's value in the first row.
    fn fill(&self, varying: u16, all: &mut [f64]) {
        let mut at = 0;
        let mut put = |part: &[f64], all: &mut [f64]| {
            if let Some(place) = all.get_mut(at..at + part.len()) {
                place.copy_from_slice(part);
            }
            at += part.len();
        };
        for field in (0..WIDTH).filter(|&field| varying & 1 << field != 0) {
            let column = &self.columns[field];
            if column.is_empty() {
                put(&vec![self.first[field]; self.rows], all);
            } else {
                put(column, all);
            }
        }
        put(&self.ends, all);
        put(&self.first, all);
    }

    /// The rows as JavaScript objects, `LinkRow[]`.
    pub fn into_js(self, env: &Env) -> Result<Unknown<'_>> {
        // ASCII is Latin-1 as it is: copied, where UTF-8 is decoded. The
        // texts are ASCII when they have as many UTF-16 units as bytes
        // (any other character has fewer), known without a scan.
        let texts = if self.units == self.texts.len() {
            env.create_string_latin1(self.texts.as_bytes())?
        } else {
            env.create_string(&self.texts)?
        };
        let kept = kept(env)?;
        let varying = kept.varying(self.varying());
        let len = varying.count_ones() as usize * self.rows + self.ends.len() + WIDTH;
        let cells = kept.cells(env, len, |all| self.fill(varying, all))?;
        let builder = kept.builder(env, varying)?;
        let (rows, count) = (self.rows, self.ends.len());
        kept.spare = self.clear();
        builder.call((cells, rows as f64, count as f64, texts).into())
    }
}

/// The short texts' indices, by a hash of their bytes: an open table of
/// `(hash, index + 1)` slots, 0 for none, at most half full. Found texts
/// are compared with the texts kept, so the table holds no text of its
/// own and a new text costs no allocation.
#[derive(Debug, Default)]
struct ShortTexts {
    slots: Vec<(u32, u32)>,
    len: usize,
    /// The hash of the text last looked for.
    hash: u32,
}

impl ShortTexts {
    /// The index of `text` among `spans` of `texts`, or the slot to put
    /// it in.
    fn find(
        &mut self,
        text: &str,
        texts: &str,
        spans: &[(usize, usize)],
    ) -> std::result::Result<usize, usize> {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); 256];
        }
        self.hash = hash(text.as_bytes());
        let mask = self.slots.len() - 1;
        let mut at = self.hash as usize & mask;
        loop {
            let (hash, entry) = self.slots[at];
            if entry == 0 {
                return Err(at);
            }
            let index = entry as usize - 1;
            if hash == self.hash
                && let Some(&(from, to)) = spans.get(index)
                && texts.get(from..to) == Some(text)
            {
                return Ok(index);
            }
            at = (at + 1) & mask;
        }
    }

    /// Puts `index` in `slot`, for the text last looked for; the table
    /// doubles when half full.
    fn insert(&mut self, slot: usize, index: usize) {
        // Beyond u32 indices the text is only not shared.
        let Ok(entry) = u32::try_from(index + 1) else {
            return;
        };
        self.slots[slot] = (self.hash, entry);
        self.len += 1;
        if self.len * 2 >= self.slots.len() {
            let doubled = vec![(0, 0); self.slots.len() * 2];
            let old = std::mem::replace(&mut self.slots, doubled);
            let mask = self.slots.len() - 1;
            for (hash, entry) in old.into_iter().filter(|&(_, entry)| entry != 0) {
                let mut at = hash as usize & mask;
                while self.slots[at].1 != 0 {
                    at = (at + 1) & mask;
                }
                self.slots[at] = (hash, entry);
            }
        }
    }
}

/// A hash of a short text: its bytes eight at a time, each word mixed in
/// by a multiply (as rustc's own FxHash does), the high half kept.
fn hash(bytes: &[u8]) -> u32 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut hash = bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    let mut word = [0u8; 8];
    for chunk in &mut words {
        word.copy_from_slice(chunk);
        hash = (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    let rest = words.remainder();
    word = [0u8; 8];
    word[..rest.len()].copy_from_slice(rest);
    hash = (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    (hash >> 32) as u32
}

/// The most numbers the kept array holds (8 MB; some 70,000 rows).
const KEPT: usize = 1 << 20;

/// The most slots of the short texts' table kept from call to call.
const SLOTS: usize = 1 << 14;

/// The most functions an environment keeps, one for each set of fields
/// that vary; a set beyond them goes through the function of all.
const BUILDERS: usize = 32;

/// Every field varies.
const ALL: u16 = (1 << WIDTH) - 1;

/// What an environment keeps from call to call, as its data: the
/// functions that make the rows, each compiled at its first use, and the
/// array the cells are copied into, made anew only when it must grow.
/// Only those functions see the array, while one runs: no call leaves a
/// new array to the collector.
struct Kept {
    /// Each function, by the fields that vary for it.
    builders: Vec<(u16, BuilderRef)>,
    /// The array; null before the first call.
    cells: sys::napi_ref,
    /// The columns of the call before, emptied.
    spare: Option<RowColumns>,
}

fn kept(env: &Env) -> Result<&'static mut Kept> {
    if env.get_instance_data::<Kept>()?.is_none() {
        let kept = Kept {
            builders: Vec::new(),
            cells: std::ptr::null_mut(),
            spare: None,
        };
        env.set_instance_data(kept, (), |_| {})?;
    }
    env.get_instance_data::<Kept>()?
        .ok_or_else(|| Error::from_reason("the rows' builder is lost"))
}

impl Kept {
    /// The fields a call's function takes as columns: those that vary,
    /// or all once the environment keeps as many functions as it may.
    fn varying(&self, varying: u16) -> u16 {
        let known = self.builders.iter().any(|&(fields, _)| fields == varying);
        if known || self.builders.len() < BUILDERS {
            varying
        } else {
            ALL
        }
    }

    /// The function for the fields `varying`, compiled if it is new.
    fn builder<'env>(&mut self, env: &'env Env, varying: u16) -> Result<Builder<'env>> {
        if let Some((_, builder)) = self.builders.iter().find(|&&(fields, _)| fields == varying) {
            return builder.borrow_back(env);
        }
        let made: Builder = env.run_script(source(varying))?;
        self.builders.push((varying, made.create_ref()?));
        Ok(made)
    }

    /// The array, `len` numbers of it filled by `fill`.
    #[allow(unsafe_code)]
    fn cells<'env>(
        &mut self,
        env: &'env Env,
        len: usize,
        fill: impl FnOnce(&mut [f64]),
    ) -> Result<Float64ArraySlice<'env>> {
        if len > KEPT {
            // Too big to keep: an array of its own, for the collector.
            let mut own = vec![0.0; len];
            fill(&mut own);
            return Float64ArraySlice::copy_from(env, own);
        }
        let mut cells = self.array(env)?;
        if cells.as_ref().is_none_or(|cells| cells.len() < len) {
            let size = len.next_power_of_two().max(1024);
            let array = Float64ArraySlice::copy_from(env, vec![0.0; size])?;
            let mut reference = std::ptr::null_mut();
            // SAFETY: `array` is a value of `env`, referred to strongly
            // until the reference is deleted, when it is replaced.
            unsafe {
                let value = Float64ArraySlice::to_napi_value(env.raw(), array)?;
                check(sys::napi_create_reference(
                    env.raw(),
                    value,
                    1,
                    &mut reference,
                ))?;
                if !self.cells.is_null() {
                    check(sys::napi_delete_reference(env.raw(), self.cells))?;
                }
            }
            self.cells = reference;
            cells = self.array(env)?;
        }
        let mut cells = cells.ok_or_else(|| Error::from_reason("no array for the rows"))?;
        // SAFETY: no JavaScript runs while the array is written, and only
        // the builders read it, after.
        let all = unsafe { cells.as_mut() };
        if let Some(place) = all.get_mut(..len) {
            fill(place);
        }
        Ok(cells)
    }

    /// The array, if made.
    #[allow(unsafe_code)]
    fn array<'env>(&self, env: &'env Env) -> Result<Option<Float64ArraySlice<'env>>> {
        if self.cells.is_null() {
            return Ok(None);
        }
        let mut value = std::ptr::null_mut();
        // SAFETY: the reference is live (deleted only when replaced) and
        // refers to a Float64Array.
        unsafe {
            check(sys::napi_get_reference_value(
                env.raw(),
                self.cells,
                &mut value,
            ))?;
            Float64ArraySlice::from_napi_value(env.raw(), value).map(Some)
        }
    }
}

fn check(status: sys::napi_status) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::from_reason("the rows' array cannot be kept"))
    }
}

/// The source of the function for the fields `varying`: a loop making
/// each row with an object literal of the keys in their order, a field
/// that varies decoded from its column, any other from its one value.
fn source(varying: u16) -> String {
    let mut before = Vec::new();
    let mut fields = Vec::new();
    let mut column = 0;
    for (i, key) in Row::KEYS.iter().enumerate() {
        if varying & 1 << i != 0 {
            before.push(format!("const o{i} = {column} * rows;"));
            fields.push(format!("{key:?}: value(cells[o{i} + i])"));
            column += 1;
        } else {
            before.push(format!("const c{i} = value(cells[first + {i}]);"));
            fields.push(format!("{key:?}: c{i}"));
        }
    }
    format!(
        "(function (cells, rows, count, texts) {{
  'use strict';
  const values = [null, false, true];
  const ends = {column} * rows;
  for (let k = 0, from = 0; k < count; k++) {{
    const to = cells[ends + k];
    values.push(texts.slice(from, to));
    from = to;
  }}
  const value = (cell) => cell >= 0 ? cell : values[-1 - cell];
  const first = ends + count;
  {}
  const out = [];
  for (let i = 0; i < rows; i++) {{
    out.push({{ {} }});
  }}
  return out;
}})",
        before.join("\n  "),
        fields.join(", ")
    )
}
