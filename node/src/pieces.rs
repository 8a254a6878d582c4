//! A rewritten document as the pieces relink writes it: stretches of the
//! input, where nothing changed, and the new text of each edit. Node's
//! output is made from them in one copy (a Buffer filled in place, or a
//! string's UTF-16 taken from the input string's own units), where
//! relink's own output would be a first copy and Node's a second (and
//! for a string, UTF-8 converted back).

use std::io::{self, IoSlice, Write};
use std::ops::Range;

use napi::bindgen_prelude::{BufferSlice, FromNapiValue};
use napi::{Env, Error, JsString, Result, sys};

use crate::text;

/// Where a piece's bytes are.
#[derive(Debug, Clone)]
pub enum Piece {
    /// A stretch of the input, by its byte offsets.
    Input(Range<usize>),
    /// New text, by its offsets in [`Pieces::texts`].
    Text(Range<usize>),
}

/// The writer relink writes a document's new bytes to: each piece
/// written that lies within the input's memory is that stretch of it
/// (the same bytes, being the same memory), any other is copied.
#[derive(Debug)]
pub struct Pieces<'a> {
    input: &'a [u8],
    pub list: Vec<Piece>,
    pub texts: Vec<u8>,
    /// The bytes of all the pieces.
    pub len: usize,
}

impl<'a> Pieces<'a> {
    pub fn new(input: &'a [u8]) -> Self {
        Pieces {
            input,
            list: Vec::new(),
            texts: Vec::new(),
            len: 0,
        }
    }

    fn add(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.len += bytes.len();
        let input = self.input.as_ptr() as usize;
        let start = bytes.as_ptr() as usize;
        if start >= input && start + bytes.len() <= input + self.input.len() {
            let from = start - input;
            self.list.push(Piece::Input(from..from + bytes.len()));
        } else {
            let from = self.texts.len();
            self.texts.extend_from_slice(bytes);
            self.list.push(Piece::Text(from..self.texts.len()));
        }
    }

    /// The bytes of `piece`.
    pub fn bytes(&self, piece: &Piece) -> &[u8] {
        match piece {
            Piece::Input(range) => &self.input[range.clone()],
            Piece::Text(range) => &self.texts[range.clone()],
        }
    }
}

impl Write for Pieces<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.add(bytes);
        Ok(bytes.len())
    }

    fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> io::Result<usize> {
        let mut written = 0;
        for slice in slices {
            self.add(slice);
            written += slice.len();
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How many UTF-16 units the UTF-8 `bytes` make: one a character, two
/// for one beyond U+FFFF (its lead byte 0xF0 or above).
pub fn utf16_units(bytes: &[u8]) -> usize {
    // Counted in chunks of byte-wide sums (at most 2 a byte), which the
    // compiler vectorizes.
    bytes
        .chunks(127)
        .map(|chunk| {
            let count = chunk.iter().fold(0u8, |count, &b| {
                count + u8::from((b as i8) >= -0x40) + u8::from(b >= 0xf0)
            });
            usize::from(count)
        })
        .sum()
}

impl Pieces<'_> {
    /// The new document as a string, `units` the input's UTF-16: Latin-1
    /// when all is ASCII, else UTF-16 from the input's units and the new
    /// texts'. None if it is not UTF-8.
    pub fn string<'env>(&self, env: &'env Env, units: &[u16]) -> Result<Option<JsString<'env>>> {
        if units.len() == self.input.len() && self.texts.is_ascii() {
            // Every character of the input one byte, and of the texts.
            let mut out = Vec::with_capacity(self.len);
            for piece in &self.list {
                out.extend_from_slice(self.bytes(piece));
            }
            return env.create_string_latin1(&out).map(Some);
        }
        let mut out = Vec::with_capacity(self.len);
        let (mut bytes, mut unit) = (0, 0);
        for piece in &self.list {
            let piece_bytes = self.bytes(piece);
            match piece {
                Piece::Input(range)
                    if boundary(self.input, range.start) && boundary(self.input, range.end) =>
                {
                    unit += utf16_units(&self.input[bytes..range.start]);
                    let count = utf16_units(piece_bytes);
                    let Some(taken) = units.get(unit..unit + count) else {
                        return Ok(None);
                    };
                    out.extend_from_slice(taken);
                    unit += count;
                    bytes = range.end;
                }
                _ => match std::str::from_utf8(piece_bytes) {
                    Ok(text) => out.extend(text::utf8_to_utf16(text)),
                    // A piece that splits a character: the whole made UTF-8
                    // first.
                    Err(_) => return self.whole_string(env),
                },
            }
        }
        env.create_string_utf16(&out).map(Some)
    }

    /// The new document made whole, then a string; None if it is not UTF-8.
    fn whole_string<'env>(&self, env: &'env Env) -> Result<Option<JsString<'env>>> {
        let mut out = Vec::with_capacity(self.len);
        for piece in &self.list {
            out.extend_from_slice(self.bytes(piece));
        }
        match String::from_utf8(out) {
            Ok(text) => env
                .create_string_utf16(text::utf8_to_utf16(&text))
                .map(Some),
            Err(_) => Ok(None),
        }
    }

    /// The new document as a Buffer, its pieces copied into Node's memory.
    #[allow(unsafe_code)]
    pub fn buffer<'env>(&self, env: &'env Env) -> Result<BufferSlice<'env>> {
        let mut data = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        // SAFETY: napi gives a Buffer of `self.len` bytes and their address.
        let status = unsafe { sys::napi_create_buffer(env.raw(), self.len, &mut data, &mut value) };
        if status != sys::Status::napi_ok || (data.is_null() && self.len > 0) {
            return Err(Error::from_reason("no Buffer could be made"));
        }
        let mut at = data.cast::<u8>();
        for piece in &self.list {
            let bytes = self.bytes(piece);
            // SAFETY: the pieces' lengths add up to `self.len`, so each is
            // copied within the Buffer, which no other code holds yet.
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), at, bytes.len());
                at = at.add(bytes.len());
            }
        }
        // SAFETY: `value` is the Buffer just made.
        unsafe { BufferSlice::from_napi_value(env.raw(), value) }
    }
}

/// Whether `at` is where a character of the UTF-8 `bytes` starts (or
/// their end).
fn boundary(bytes: &[u8], at: usize) -> bool {
    bytes.get(at).is_none_or(|&b| (b as i8) >= -0x40)
}
