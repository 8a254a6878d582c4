//! An HTML page read in the encoding it settles on: sniffed before it is
//! read, or, for UTF-8 with no early declaration, checked for a late
//! `<meta>` after it is read.

use std::borrow::Cow;

use encoding_rs::UTF_8;

use super::rewrite::{rewrite_text, rewrite_text_watching};
use crate::encoding::{self, Sniffed};
use crate::error::Error;
use crate::links::{HeldRows, Outcome};
use crate::options::{Options, ROWS_BATCH_BYTES, Rows};
use crate::splice::Make;
use crate::text;

/// Rewrites an HTML document, its new bytes given as `make` says.
///
/// A document of UTF-8 whose first 1024 bytes state no encoding is read
/// as UTF-8 at once, the tokenizer testing its script for `<meta` as it
/// goes; when that rewrite is over, the rest is searched for a late
/// `<meta>` that declares an encoding, and only if one does (and it is
/// not UTF-8) is the document read again in it
/// ([`encoding::HtmlSniff::Unsettled`]). The answer is the one
/// [`encoding::sniff_decode_html`] gives before reading. Links for a
/// sink ([`Options::rows`]) are held until the encoding is settled, and
/// handed over then (once, read in it); a page larger than
/// [`ROWS_BATCH_BYTES`] hands them over as they are found, so it is
/// searched before it is read, as before.
pub fn rewrite_html(bytes: &[u8], options: &Options<'_>, make: Make) -> Result<Outcome, Error> {
    let early = match options.rows {
        Some(_) if bytes.len() > ROWS_BATCH_BYTES => {
            let (sniffed, text) = encoding::sniff_decode_html(bytes, options.transport);
            encoding::HtmlSniff::Settled(sniffed, text)
        }
        _ => encoding::sniff_decode_html_early(bytes, options.transport),
    };
    let (text, late_from) = match early {
        encoding::HtmlSniff::Settled(sniffed, text) => {
            let decoded = |_| (sniffed, text);
            return text::rewrite_bytes_made(bytes, decoded, |t| rewrite_text(t, options), make);
        }
        encoding::HtmlSniff::Unsettled { text, late_from } => (text, late_from),
    };
    let held = HeldRows::default();
    let holding = Options {
        rows: options.rows.map(|_| Rows(&held)),
        ..*options
    };
    let mut seen = encoding::MetaSeen::default();
    let utf8 = |_| (Sniffed::utf8_default(), Cow::Borrowed(text));
    let watching = |t: &str| rewrite_text_watching(t, &holding, &mut seen);
    let outcome = text::rewrite_bytes_made(bytes, utf8, watching, make)?;
    let declared = match encoding::late_meta_may_declare(bytes, late_from, &seen) {
        true => encoding::declared_after(bytes, late_from).filter(|&d| d != UTF_8),
        false => None,
    };
    let Some(declared) = declared else {
        if let Some(Rows(sink)) = options.rows {
            held.take().into_iter().for_each(|row| sink.row(row));
        }
        return Ok(outcome);
    };
    drop((outcome, held));
    let sniffed = Sniffed::declared(declared);
    let decode = |bytes| (sniffed, encoding::decode(bytes, &sniffed));
    text::rewrite_bytes_made(bytes, decode, |t| rewrite_text(t, options), make)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::{Base, BaseSource};
    use crate::links::LinkRow;
    use crate::url::{BaseUrl, Rules};

    #[test]
    fn links_handed_to_a_sink_are_handed_once_in_the_encoding_settled() {
        use std::sync::Mutex;
        let found = Mutex::new(Vec::new());
        let sink = |row: LinkRow| found.lock().unwrap().push(row.link.resolved);
        let url = BaseUrl::parse("http://a/", Rules::Rfc1808).unwrap();
        let base = Base::new(url, BaseSource::RetrievedFrom);
        // `\xc3\xa9` is `é` in UTF-8, two other letters in KOI8-R.
        let doc = [
            b" ".repeat(1030),
            b"<a href=\xc3\xa9>x</a><meta charset=koi8-r>".to_vec(),
        ]
        .concat();
        let koi8 = format!("http://a/{}", encoding_rs::KOI8_R.decode(b"\xc3\xa9").0);
        assert_ne!(koi8, "http://a/\u{e9}");
        let options = Options::default().outer(Some(&base)).rows(Some(&sink));
        let outcome = rewrite_html(&doc, &options, Make::Bytes).unwrap();
        assert_eq!(outcome.encoding, encoding_rs::KOI8_R);
        assert_eq!(
            found.lock().unwrap().as_slice(),
            std::slice::from_ref(&koi8)
        );
        // Read as UTF-8 after all (the late `<meta>` declares nothing),
        // the rows held are handed over once, in order.
        found.lock().unwrap().clear();
        let utf8 = [
            b" ".repeat(1030),
            b"<a href=\xc3\xa9>x</a><meta name=x><a href=b>".to_vec(),
        ]
        .concat();
        let outcome = rewrite_html(&utf8, &options, Make::Bytes).unwrap();
        assert_eq!(outcome.encoding, encoding_rs::UTF_8);
        assert_eq!(*found.lock().unwrap(), ["http://a/\u{e9}", "http://a/b"]);
        // A page too large to hold its rows is searched first.
        found.lock().unwrap().clear();
        let large = [b" ".repeat(ROWS_BATCH_BYTES), doc.clone()].concat();
        let outcome = rewrite_html(&large, &options, Make::Bytes).unwrap();
        assert_eq!(outcome.encoding, encoding_rs::KOI8_R);
        assert_eq!(
            found.lock().unwrap().as_slice(),
            std::slice::from_ref(&koi8)
        );
        let quiet = Options::default().outer(Some(&base));
        let outcome = rewrite_html(&doc, &quiet, Make::Bytes).unwrap();
        assert_eq!(outcome.encoding, encoding_rs::KOI8_R);
        assert_eq!(outcome.links.len(), 1);
        assert_eq!(outcome.links[0].resolved, koi8);
    }

    /// Pieces of documents for the late `<meta>` the rewrite settles: a
    /// script dense enough in `<` to be searched sparsely, the places a
    /// `<meta` may stand (script, style sheet, comment, attribute value,
    /// text), and text that is not UTF-8.
    fn late_pieces() -> Vec<Vec<u8>> {
        let dense = format!("<script>{}", "if(a<b)x;".repeat(40));
        [
            dense.as_str(),
            "<meta charset=koi8-r>",
            "<META http-equiv=Content-Type content='text/html; charset=shift_jis'>",
            "<meta charset=utf-8>",
            "<meta name=x>",
            "<meta",
            "<main>",
            "</script>",
            "<style>",
            "</style>",
            "<!--",
            "-->",
            "<p title='",
            "'",
            "a<b;",
            "<",
            " ",
            "<a href=\u{e9}>",
            "<textarea>",
            "</textarea>",
        ]
        .iter()
        .map(|p| p.as_bytes().to_vec())
        .chain([b"\xe9".to_vec()])
        .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The rewrite of a document whose late `<meta>` is settled after
        /// it ([`encoding::HtmlSniff::Unsettled`]) gives the encoding and the bytes
        /// the rewrite in the encoding sniffed first gives.
        #[test]
        fn a_late_meta_settled_after_the_rewrite_answers_as_sniffed_before(
            pieces in proptest::collection::vec(proptest::sample::select(late_pieces()), 0..24),
            pad in proptest::sample::select(vec![0usize, 1030]),
        ) {
            let doc = [b" ".repeat(pad), pieces.concat()].concat();
            let url = BaseUrl::parse("http://a/b/c", Rules::Rfc1808).unwrap();
            let base = Base::new(url, BaseSource::RetrievedFrom);
            let options = Options::default().outer(Some(&base));
            let sniffed = encoding::sniff_html(&doc, None);
            let got = rewrite_html(&doc, &options, Make::Bytes).unwrap();
            let want = rewrite_html(&doc, &options.transport(Some(sniffed.encoding)), Make::Bytes).unwrap();
            proptest::prop_assert_eq!(got.encoding, sniffed.encoding);
            proptest::prop_assert_eq!(got.output, want.output);
        }
    }
}
