//! The character reference states, WHATWG HTML §13.2.5.72 to §13.2.5.80,
//! read by looking ahead over the whole input rather than a state a
//! character; what is consumed, emitted and reported is the states' own
//! (errors before the reference's text, as html5ever). Named references
//! are html5ever's table, matched by [`longest_name`].

use html5ever::data::C1_REPLACEMENTS;

use super::{Sink, Tokenizer};
use crate::html::charref::longest_name;

impl<S: Sink> Tokenizer<'_, S> {
    /// §13.2.5.72 Character reference state, the `&` just consumed; `in_attr` for an attribute value.
    pub(super) fn character_reference(&mut self, in_attr: bool) {
        let amp = self.pos - 1;
        match self.bytes.get(self.pos) {
            Some(b) if b.is_ascii_alphanumeric() => self.named_reference(amp, in_attr),
            Some(b'#') => self.numeric_reference(amp, in_attr),
            _ => self.literal_ampersand(amp, in_attr),
        }
    }

    /// Flushes the `&` at `amp` as itself and returns to the state after it.
    fn literal_ampersand(&mut self, amp: usize, in_attr: bool) {
        self.pos = amp + 1;
        if in_attr {
            self.value_raw(amp, amp + 1);
        } else {
            self.chars(amp, amp + 1);
        }
    }

    /// Flushes what a reference stands for.
    fn reference_text(&mut self, chars: &[char], in_attr: bool) {
        if in_attr && self.is_lean() {
            // The lean path gathers no values (`value_str` drops them).
            return;
        }
        for &c in chars {
            if in_attr {
                let mut buf = [0; 4];
                self.value_str(c.encode_utf8(&mut buf));
            } else {
                let mut buf = [0; 4];
                self.chars_str(c.encode_utf8(&mut buf));
            }
        }
    }

    /// §13.2.5.73 Named and §13.2.5.74 Ambiguous ampersand states: the longest
    /// name the input starts with, else a literal ampersand.
    fn named_reference(&mut self, amp: usize, in_attr: bool) {
        let start = self.pos;
        let rest = &self.bytes[start..];
        let Some((len, c1, c2)) = longest_name(rest) else {
            // §13.2.5.74: alphanumerics then ";" is an unknown named reference, all text.
            let run = rest
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            if rest.get(run) == Some(&b';') {
                self.error("Invalid character reference");
            }
            self.literal_ampersand(amp, in_attr);
            return;
        };
        if rest[len - 1] != b';' {
            let next = rest.get(len);
            if in_attr && next.is_some_and(|&b| b == b'=' || b.is_ascii_alphanumeric()) {
                // For historical reasons, not a reference in an attribute.
                self.literal_ampersand(amp, in_attr);
                return;
            }
            self.error("Character reference does not end with semicolon");
        }
        self.pos = start + len;
        let first = char::from_u32(c1).unwrap_or('\u{fffd}');
        match char::from_u32(c2).filter(|_| c2 != 0) {
            Some(second) => self.reference_text(&[first, second], in_attr),
            None => self.reference_text(&[first], in_attr),
        }
    }

    /// §13.2.5.75 to §13.2.5.80, the numeric character reference states, from the `#`.
    fn numeric_reference(&mut self, amp: usize, in_attr: bool) {
        let mut i = self.pos + 1;
        let hex = matches!(self.bytes.get(i), Some(b'x' | b'X'));
        if hex {
            i += 1;
        }
        let radix = if hex { 16 } else { 10 };
        let digits_start = i;
        let mut value: u32 = 0;
        let mut too_big = false;
        while let Some(d) = self.bytes.get(i).and_then(|&b| (b as char).to_digit(radix)) {
            if !too_big {
                value = value * radix + d;
                too_big = value > 0x10FFFF;
            }
            i += 1;
        }
        if i == digits_start {
            self.error("Numeric character reference without digits");
            self.literal_ampersand(amp, in_attr);
            return;
        }
        if self.bytes.get(i) == Some(&b';') {
            i += 1;
        } else {
            self.error("Semicolon missing after numeric character reference");
        }
        self.pos = i;
        let (c, error) = match value {
            _ if too_big => ('\u{fffd}', true),
            0 | 0xD800..=0xDFFF => ('\u{fffd}', true),
            0x80..=0x9F => match C1_REPLACEMENTS[(value - 0x80) as usize] {
                Some(c) => (c, true),
                None => (char::from_u32(value).unwrap_or('\u{fffd}'), true),
            },
            0x01..=0x08 | 0x0B | 0x0D..=0x1F | 0x7F | 0xFDD0..=0xFDEF => {
                (char::from_u32(value).unwrap_or('\u{fffd}'), true)
            }
            n => (
                char::from_u32(n).unwrap_or('\u{fffd}'),
                n & 0xFFFE == 0xFFFE,
            ),
        };
        if error {
            self.error("Invalid numeric character reference");
        }
        self.reference_text(&[c], in_attr);
    }
}
