//! The settings of a rewrite ([`Rewriter`], whose [`Rewriter::run`] is the
//! front door), and one call for the common cases.

use std::path::PathBuf;

use encoding_rs::Encoding;

use crate::base::Layer;
use crate::error::Error;
use crate::kind::Kind;
use crate::links::UnitReport;
use crate::links::{Link, LinkRow, Warning};
use crate::local::{MirrorFiles, SavedDirs};
use crate::mime::mbox::MboxFormat;
use crate::options::{Details, ExtraAttribute};
use crate::url::{BaseUrl, Rules};

/// Makes the relative links of an HTML document absolute, taking
/// `retrieved_from` as the URL it was retrieved from (RFC 1808 section
/// 3.3): its own BASE element still wins. Every other byte stays.
///
/// ```
/// let page = br#"<p><a href="../guide/">Guide</a> <img src=logo.png></p>"#;
/// let out = relink::absolutize_html(page, "https://example.com/docs/index.html")?;
/// assert_eq!(
///     out,
///     br#"<p><a href="https://example.com/guide/">Guide</a> <img src=https://example.com/docs/logo.png></p>"#
/// );
/// assert!(relink::absolutize_html(page, "example.com/docs/").is_err());
/// # Ok::<(), relink::Error>(())
/// ```
pub fn absolutize_html(input: &[u8], retrieved_from: &str) -> Result<Vec<u8>, Error> {
    // Only the bytes are given back: no record of each link is made.
    let rewritten = Rewriter::new()
        .retrieved_from(retrieved_from)
        .kind(Kind::Html)
        .details(Details::Counts)
        .rewrite(input)?;
    Ok(rewritten.into_bytes())
}

/// Resolves `reference` against `base` under `rules` (RFC 1808 section 4
/// by default).
///
/// ```
/// use relink::Rules;
/// assert_eq!(relink::resolve("http://a/b/c/d;p?q#f", "../g", Rules::Rfc1808)?, "http://a/b/g");
/// assert_eq!(relink::resolve("http://a/b/c/d;p?q#f", "g?", Rules::Rfc1808)?, "http://a/b/c/g?");
/// assert_eq!(relink::resolve("http://a/b/c/d;p?q", "../../../g", Rules::Rfc3986)?, "http://a/g");
/// # Ok::<(), relink::Error>(())
/// ```
pub fn resolve(base: &str, reference: &str, rules: Rules) -> Result<String, Error> {
    Ok(BaseUrl::parse(base, rules)?
        .resolve(reference)?
        .into_owned())
}

/// A rewrite set up once, for any number of documents: rules, bases,
/// encoding, extra link attributes and the kind of input.
///
/// ```
/// use relink::{Kind, Rewriter, Rules};
/// let rewriter = Rewriter::new()
///     .rules(Rules::Rfc1808)
///     .retrieved_from("https://example.com/news/story.html")
///     .attribute("data-src".parse()?)
///     .kind(Kind::Html);
/// let page = br#"<img data-src="img/a.jpg" src="data:,"><a href="">top</a>"#;
/// let out = rewriter.rewrite(page)?;
/// assert!(out.changed());
/// assert_eq!(out.links().len(), 3);
/// assert_eq!(
///     out.bytes(),
///     br#"<img data-src="https://example.com/news/img/a.jpg" src="data:,"><a href="https://example.com/news/story.html">top</a>"#
/// );
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Rewriter {
    pub(crate) rules: Rules,
    pub(crate) base: Option<String>,
    pub(crate) retrieved_from: Option<String>,
    pub(crate) resource_base: Option<String>,
    pub(crate) encoding: Option<&'static Encoding>,
    pub(crate) attributes: Vec<ExtraAttribute>,
    pub(crate) kind: Option<Kind>,
    pub(crate) keep_fragment_links: bool,
    pub(crate) absolute_saved_assets: bool,
    pub(crate) local_mirror: Option<(PathBuf, String, MirrorFiles)>,
    /// The directories of pages listed in its runs, each once.
    pub(crate) saved_dirs: SavedDirs,
    pub(crate) details: Details,
    pub(crate) mbox_format: Option<MboxFormat>,
    pub(crate) keep_new_bytes: bool,
    pub(crate) verify_digests: bool,
    pub(crate) max_payload_bytes: Option<usize>,
}

impl Rewriter {
    /// A rewrite under RFC 1808 with no base but what documents give.
    pub fn new() -> Self {
        Rewriter::default()
    }

    /// The rule set for every resolution.
    pub fn rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
    }

    /// A base forced above every layer, for documents whose BASE is wrong.
    pub fn base(mut self, url: &str) -> Self {
        self.base = Some(url.to_owned());
        self
    }

    /// The URL the documents were retrieved from: the lowest layer.
    pub fn retrieved_from(mut self, url: &str) -> Self {
        self.retrieved_from = Some(url.to_owned());
        self
    }

    /// The base of embedded resources (images, media, `srcset`, CSS
    /// `url()`), standing in for [`Rewriter::retrieved_from`] for them: a
    /// README's images served from a raw-content host while its links go
    /// to the repository's pages.
    pub fn resource_base(mut self, url: &str) -> Self {
        self.resource_base = Some(url.to_owned());
        self
    }

    /// The documents' encoding, overriding what they say (a WHATWG label).
    pub fn encoding(mut self, label: &str) -> Result<Self, Error> {
        let encoding = Encoding::for_label(label.as_bytes())
            .ok_or_else(|| Error::UnknownEncoding(label.to_owned()))?;
        self.encoding = Some(encoding);
        Ok(self)
    }

    /// A further attribute holding URLs on every HTML element.
    pub fn attribute(mut self, attribute: ExtraAttribute) -> Self {
        self.attributes.push(attribute);
        self
    }

    /// The lazy-loading attributes as further attributes holding URLs
    /// ([`ExtraAttribute::lazy_loading`]: `data-src`, `data-srcset`,
    /// `data-original`, `data-lazy-src`, `data-background`); one already
    /// given by [`Rewriter::attribute`] keeps its syntax.
    ///
    /// ```
    /// use relink::Rewriter;
    /// let page = br#"<img data-src=a.jpg data-srcset="b.jpg 2x"><div data-background=c.jpg>"#;
    /// let out = Rewriter::new().retrieved_from("http://a/d/").lazy_attributes().rewrite(page)?;
    /// assert_eq!(
    ///     out.bytes(),
    ///     br#"<img data-src=http://a/d/a.jpg data-srcset="http://a/d/b.jpg 2x"><div data-background=http://a/d/c.jpg>"#
    /// );
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub fn lazy_attributes(mut self) -> Self {
        for lazy in ExtraAttribute::lazy_loading() {
            if !self.attributes.iter().any(|a| a.name == lazy.name) {
                self.attributes.push(lazy);
            }
        }
        self
    }

    /// What the input is, instead of telling it by its content.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = Some(kind);
        self
    }

    /// Leaves `#name` links as they are.
    pub fn keep_fragment_links(mut self) -> Self {
        self.keep_fragment_links = true;
        self
    }

    /// Verifies the digests of every web archive record in a run that
    /// writes nothing too, warning of each that does not match (a
    /// rewrite always verifies them; else they are only read).
    pub fn verify_digests(mut self) -> Self {
        self.verify_digests = true;
        self
    }

    /// The largest web archive payload decoded and rewritten, and so the
    /// most memory a record takes (256 MiB by default); a larger one is
    /// copied as it is, with a warning.
    pub fn max_payload_bytes(mut self, bytes: usize) -> Self {
        self.max_payload_bytes = Some(bytes);
        self
    }

    /// Makes absolute the links of a page saved by a browser to the files
    /// it saved beside the page (the folder named after the page's file,
    /// `post_files/`), which are otherwise left as they are: absolute,
    /// they name URLs that never held those files.
    pub fn absolute_saved_assets(mut self) -> Self {
        self.absolute_saved_assets = true;
        self
    }

    /// Makes a site mirror local, as wget's `--convert-links` does: the
    /// mirror's root folder `root` was retrieved from `prefix`, and a link
    /// of one of its documents (an input named by its path in `root`)
    /// whose resolved URL names a file of the mirror becomes the shortest
    /// relative path to that file, its fragment kept; every other link is
    /// made absolute. A file is found as relink's own mapping names it
    /// (`prefix` plus its path), or as wget saves it: `index.html` for a
    /// folder's URL, the query in the name (`?`, or `@`), `.html` or
    /// `.css` added. See docs/files.md.
    pub fn local_mirror(mut self, root: impl Into<PathBuf>, prefix: &str) -> Self {
        self.local_mirror = Some((root.into(), prefix.to_owned(), MirrorFiles::default()));
        self
    }

    /// Whether links are recorded ([`Details::Links`], the default) or only
    /// counted.
    pub fn details(mut self, details: Details) -> Self {
        self.details = details;
        self
    }

    /// The variant of every mbox, instead of telling it from the first
    /// message.
    pub fn mbox_format(mut self, format: MboxFormat) -> Self {
        self.mbox_format = Some(format);
        self
    }

    /// Whether a document's new bytes are made whole and handed to the
    /// events ([`Done::output`](crate::front::Done), for a diff). Else, the
    /// default, they are written straight from its edits, between the
    /// bytes read (a document then never takes a second copy of itself in
    /// memory), and not made at all when there is no output.
    pub fn keep_new_bytes(mut self, keep: bool) -> Self {
        self.keep_new_bytes = keep;
        self
    }
}

/// A rewritten document: its bytes, whether they changed, its links (when
/// recorded) and what could not be done.
///
/// ```
/// let out = relink::Rewriter::new().retrieved_from("http://a/d/").rewrite(b"<a href=x>x</a>")?;
/// assert!(out.changed());
/// assert_eq!(out.bytes(), b"<a href=http://a/d/x>x</a>");
/// assert_eq!((out.rewritten(), out.without_base(), out.warnings().len()), (1, 0, 0));
/// assert_eq!(out.into_bytes(), b"<a href=http://a/d/x>x</a>");
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug)]
pub struct Rewritten<'i> {
    pub(crate) input: &'i [u8],
    pub(crate) report: UnitReport,
}

impl Rewritten<'_> {
    /// Whether any byte changed.
    pub fn changed(&self) -> bool {
        self.report.output.is_some()
    }

    /// The document's bytes: the input with its links made absolute.
    pub fn bytes(&self) -> &[u8] {
        self.report.output.as_deref().unwrap_or(self.input)
    }

    /// The document's bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.report.output.unwrap_or_else(|| self.input.to_vec())
    }

    /// Every link found, changed or not, in input order.
    pub fn links(&self) -> Vec<&Link> {
        self.report.rows.iter().map(|row| &row.link).collect()
    }

    /// Every link with where it is (the message, part or record): the rows
    /// the command line lists.
    pub fn rows(&self) -> &[LinkRow] {
        &self.report.rows
    }

    /// How many links were rewritten.
    pub fn rewritten(&self) -> usize {
        self.report.rewritten
    }

    /// An HTML document's title and metas, with
    /// [`Details::Attributes`](crate::options::Details::Attributes) only.
    pub fn head(&self) -> Option<&crate::links::HtmlHead> {
        self.report.head.as_deref()
    }

    /// What could not be done, each naming where.
    pub fn warnings(&self) -> &[Warning] {
        &self.report.warnings
    }

    /// The layers of the base (RFC 1808 section 3), innermost first, with
    /// what became of each; of every document, for an archive.
    pub fn layers(&self) -> impl Iterator<Item = &Layer> {
        self.report.layers.iter().flat_map(|(_, layers)| layers)
    }

    /// The layers of each document's base, under a label that names the
    /// document (`part 1.2 (text/html)`, `record 4 URI (text/html)`; a
    /// record whose HTTP head has links but which holds no document,
    /// `record 4 URI`).
    pub fn documents(&self) -> &[(String, Vec<Layer>)] {
        &self.report.layers
    }

    /// How many documents had no base, so that their links were left.
    pub fn without_base(&self) -> usize {
        self.report.without_base
    }
}
