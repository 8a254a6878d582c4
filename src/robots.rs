//! robots.txt (RFC 9309): its `Sitemap:` lines, the one place it holds a
//! URL. A line is `field: value`, the field's name in any case, white
//! space allowed around the colon and the value, a `#` starting a comment
//! to the end of the line (RFC 9309 section 2.2). The value of a
//! `Sitemap:` line should be absolute; a relative one is resolved against
//! the robots.txt's URL (the retrieval URL, as a crawler reads it). Every
//! other byte (line ends, comments, white space, a byte order mark) is
//! kept as it was.

use crate::base::BaseChain;
use crate::encoding;
use crate::error::Error;
use crate::links::{Outcome, Place};
use crate::options::Options;
use crate::splice::{Edit, Make};
use crate::text::{self, Resolver, SameDocument, TextRewrite};

/// Rewrites a robots.txt: decoded as UTF-8 (RFC 9309 section 2.3, after a
/// byte order mark or the transport's charset), each `Sitemap:` line's
/// URL resolved.
pub fn rewrite(bytes: &[u8], options: &Options<'_>, make: Make) -> Result<Outcome, Error> {
    let decode =
        |bytes| encoding::sniff_decode_with(bytes, options.transport, |_| None, encoding_rs::UTF_8);
    text::rewrite_bytes_made(bytes, decode, |text| rewrite_text(text, options), make)
}

/// The edits of a robots.txt given as text.
fn rewrite_text(text: &str, options: &Options<'_>) -> TextRewrite {
    let (base, layers) = BaseChain::new(options.rules, options.forced, options.outer).finish();
    let mut resolver = Resolver::new(text, options);
    resolver.out.layers = layers;
    let lines = sitemap_lines(text);
    let Some(base) = base.or_else(|| {
        if !lines.is_empty() {
            resolver.warn_no_base();
        }
        text::stand_in(options)
    }) else {
        return resolver.out;
    };
    for (name, range) in lines {
        let place = Place::MimeHeader(name);
        let value = &text[range.clone()];
        if let Some(new) = resolver.resolve(range.start, value, &base, place, SameDocument::Resolve)
        {
            resolver
                .out
                .edits
                .push(Edit::new(range, new).narrowed(text));
        }
    }
    let base = Some(base).filter(|base| !base.is_stand_in());
    resolver.finish(base)
}

/// Each `Sitemap:` line of a robots.txt: the field's name as written and
/// where its value lies (white space and a comment left out), for a value
/// that is not empty.
pub fn sitemap_lines(text: &str) -> Vec<(&str, std::ops::Range<usize>)> {
    let mut found = Vec::new();
    let mut start = 0;
    // A line ends at CR, LF or CRLF (RFC 9309 section 2.2).
    for line in text.split_inclusive(['\n', '\r']) {
        let at = start;
        start += line.len();
        // The line without its end and its comment.
        let line = line.split('#').next().unwrap_or_default();
        let line = line.trim_end_matches(['\n', '\r']);
        let Some((field, value)) = line.split_once(':') else {
            continue;
        };
        let name = field.trim_matches([' ', '\t']);
        if !name.eq_ignore_ascii_case("sitemap") {
            continue;
        }
        let lead = value.len() - value.trim_start_matches([' ', '\t']).len();
        let url = value.trim_matches([' ', '\t']);
        if url.is_empty() {
            continue;
        }
        let from = at + field.len() + 1 + lead;
        found.push((name, from..from + url.len()));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_lines_are_found_in_any_case_without_their_comments() {
        let text = "\u{feff}User-agent: *\r\nSITEMAP :  s.xml  # ours\r\nsitemap:\r\n\
                    Disallow: /sitemap: x\nSitemap:/a#b\rsitemap:\thttp://h/x.xml";
        let found: Vec<(&str, &str)> = sitemap_lines(text)
            .into_iter()
            .map(|(name, range)| (name, &text[range]))
            .collect();
        assert_eq!(
            found,
            [
                ("SITEMAP", "s.xml"),
                ("Sitemap", "/a"),
                ("sitemap", "http://h/x.xml")
            ]
        );
    }
}
