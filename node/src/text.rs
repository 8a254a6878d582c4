//! A JavaScript string's text to and from the UTF-8 relink reads and
//! writes. V8 keeps a string as Latin-1 or UTF-16, and its own UTF-8
//! conversions go a character at a time on text that is not ASCII: its
//! UTF-16 units are copied out and in whole instead (a `memcpy` for a
//! UTF-16 string), and converted here, runs of ASCII sixteen units at a
//! time.

use napi::{Error, JsString, JsValue, Result};

/// A string's text as its UTF-16 units, copied out in one call, and as
/// UTF-8.
#[allow(unsafe_code)]
pub fn utf8(text: &JsString<'_>) -> Result<(Vec<u16>, Vec<u8>)> {
    let capacity = text
        .utf16_len()?
        .checked_add(1)
        .ok_or_else(|| Error::from_reason("the string is too long"))?;
    let mut units = Vec::<u16>::with_capacity(capacity);
    let mut written = 0;
    let value = text.value();
    // SAFETY: napi writes at most `capacity` units, the last a NUL, into
    // the Vec's allocation of that many, and sets `written` to how many
    // it wrote before the NUL.
    let status = unsafe {
        napi::sys::napi_get_value_string_utf16(
            value.env,
            value.value,
            units.as_mut_ptr(),
            capacity,
            &mut written,
        )
    };
    if status != napi::sys::Status::napi_ok || written >= capacity {
        return Err(Error::from_reason("the string cannot be read"));
    }
    // SAFETY: the first `written` units were written above.
    unsafe { units.set_len(written) };
    let (utf8, lone) = utf16_to_utf8(&units);
    if lone {
        // The units as read, a lone surrogate U+FFFD as in the UTF-8.
        let text = String::from_utf8_lossy(&utf8);
        return Ok((utf8_to_utf16(&text), utf8));
    }
    Ok((units, utf8))
}

/// `units` as UTF-8, a lone surrogate as U+FFFD (as V8 writes it), and
/// whether there was one.
pub fn utf16_to_utf8(units: &[u16]) -> (Vec<u8>, bool) {
    let mut lone = false;
    let mut out = Vec::with_capacity(units.len() + units.len() / 2);
    let mut at = 0;
    while at < units.len() {
        at += ascii_units(&units[at..], &mut out);
        // Then a unit at a time, past the text that is not ASCII (the
        // next sixteen units have some) and up to the ASCII after it.
        let mut seen = false;
        while let Some(&unit) = units.get(at) {
            if unit < 0x80 {
                if seen {
                    break;
                }
                out.push(unit as u8);
                at += 1;
                continue;
            }
            seen = true;
            at += 1;
            let c = match unit {
                0xd800..0xdc00 => match units.get(at) {
                    Some(&low @ 0xdc00..0xe000) => {
                        at += 1;
                        let high = u32::from(unit - 0xd800) << 10;
                        char::from_u32(0x10000 + high + u32::from(low - 0xdc00))
                    }
                    _ => None,
                },
                _ => char::from_u32(u32::from(unit)),
            };
            let mut bytes = [0; 4];
            lone |= c.is_none();
            let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
            out.extend_from_slice(c.encode_utf8(&mut bytes).as_bytes());
        }
    }
    (out, lone)
}

/// Copies the ASCII at the start of `units` into `out`, sixteen units at
/// a time while they are all ASCII; gives how many it copied.
fn ascii_units(units: &[u16], out: &mut Vec<u8>) -> usize {
    let mut done = 0;
    for chunk in units.chunks_exact(16) {
        if chunk.iter().fold(0, |all, &unit| all | unit) >= 0x80 {
            break;
        }
        let mut bytes = [0u8; 16];
        for (byte, &unit) in bytes.iter_mut().zip(chunk) {
            *byte = unit as u8;
        }
        out.extend_from_slice(&bytes);
        done += 16;
    }
    done
}

/// `text` as UTF-16 units.
pub fn utf8_to_utf16(text: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        for chunk in text.as_bytes()[at..].chunks_exact(16) {
            if !chunk.is_ascii() {
                break;
            }
            let mut units = [0u16; 16];
            for (unit, &byte) in units.iter_mut().zip(chunk) {
                *unit = u16::from(byte);
            }
            out.extend_from_slice(&units);
            at += 16;
        }
        // Then a character at a time, as `utf16_to_utf8` goes.
        let mut seen = false;
        for c in text[at..].chars() {
            if c.is_ascii() && seen {
                break;
            }
            seen |= !c.is_ascii();
            let mut units = [0; 2];
            out.extend_from_slice(c.encode_utf16(&mut units));
            at += c.len_utf8();
        }
    }
    out
}
