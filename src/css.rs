//! Style sheets: a `.css` file, a `text/css` part of a message or payload
//! of a WARC record. A style sheet has no layer of its own (CSS has no
//! `base`), so its base is the forced one, else the outer one; its URLs
//! are those `style.rs` finds, each resolved by the core's `Resolver`.

use crate::base::BaseChain;
use crate::encoding;
use crate::error::Error;
use crate::links::{Outcome, Place};
use crate::options::Options;
use crate::splice::{Edit, Make};
use crate::text::{self, Resolver, TextRewrite};

#[cfg(feature = "_internal")]
pub use crate::style::{CssQuoting, CssUrl, may_hold_url, urls, urls_parsed};

/// Rewrites a style sheet: decoded by its byte order mark, `@charset` or
/// transport (CSS Syntax 3.2), its URLs resolved, encoded again.
pub fn rewrite(bytes: &[u8], options: &Options<'_>, make: Make) -> Result<Outcome, Error> {
    let decode = |bytes| encoding::sniff_decode_css(bytes, options.transport);
    text::rewrite_bytes_made(bytes, decode, |text| rewrite_text(text, options), make)
}

/// The edits of a style sheet given as text.
fn rewrite_text(text: &str, options: &Options<'_>) -> TextRewrite {
    let (base, layers) = BaseChain::new(options.rules, options.forced, options.outer).finish();
    let mut resolver = Resolver {
        browser: true,
        ..Resolver::new(text, options)
    };
    resolver.out.layers = layers;
    let Some(base) = base.or_else(|| {
        resolver.warn_no_base();
        text::stand_in(options)
    }) else {
        return resolver.out;
    };
    let place = Place::StyleSheet;
    let mut edits = std::mem::take(&mut resolver.out.edits);
    resolver.each_css_url(text, 0, &base, place, &mut |range, new| {
        edits.push(Edit::new(range, new).narrowed(text));
    });
    resolver.out.edits = edits;
    resolver.out.base = Some(base).filter(|base| !base.is_stand_in());
    resolver.out
}
