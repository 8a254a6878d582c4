//! From a parsed document to edits: the document's base, then every link in
//! the link table, `<style>` elements, and `iframe srcdoc` documents.

use std::borrow::Cow;
use std::ops::Range;

use html5ever::local_name;
use html5ever::tokenizer::TagKind;

use super::charref::{self, Decoded};
use super::links::{self, LinkAttribute, Syntax};
use super::saved;
use super::tokenizer::{AttrSpan, Attributes};
use super::tree::{self, Document, DocumentKind, Namespace, Quote, Tag};
use crate::base::BaseChain;
use crate::base::{Base, BaseSource};
use crate::encoding::MetaSeen;
use crate::links::{HtmlHead, LinkDetails, Place, WarningKind, anchor_text, title_text};
use crate::options::{AttrSyntax, Details, Options};
use crate::refresh;
use crate::splice::{self, Edit};
use crate::srcset;
use crate::text::{self, Resolver, SameDocument, TextRewrite};
use crate::url::BaseUrl;

/// How deep `iframe srcdoc` documents inside `srcdoc` documents are followed.
pub const MAX_SRCDOC_DEPTH: usize = 8;

/// Rewrites an HTML document given as text.
pub fn rewrite_text(src: &str, options: &Options<'_>) -> TextRewrite {
    rewrite_nested(src, options, 0, None)
}

/// [`rewrite_text`] of a document whose encoding a late `<meta>` may still
/// change: what the tokenizer saw of `<meta` as it read the document's
/// script goes to `watch` ([`tree::parse_in_chunks`]).
pub fn rewrite_text_watching(
    src: &str,
    options: &Options<'_>,
    watch: &mut MetaSeen,
) -> TextRewrite {
    rewrite_nested(src, options, 0, Some(watch))
}

/// [`rewrite_text`] with the whole document parsed first, never in pieces:
/// what the tests hold the pieces to.
#[cfg(feature = "_internal")]
pub fn rewrite_text_whole(src: &str, options: &Options<'_>) -> TextRewrite {
    let kind = DocumentKind::Document;
    let doc = tree::parse_lean(src, kind, logged(options));
    let (base, r) = rewrite_whole(src, options, 0, doc);
    finish(base, r)
}

fn rewrite_nested(
    src: &str,
    options: &Options<'_>,
    depth: usize,
    watch: Option<&mut MetaSeen>,
) -> TextRewrite {
    let kind = if depth > 0 {
        DocumentKind::IframeSrcdoc
    } else {
        DocumentKind::Document
    };
    let (base, r) = rewrite_in_chunks(src, options, (depth, kind), watch).unwrap_or_else(|bail| {
        // Nothing of the pieces counts: the whole document, from its start.
        let doc = tree::parse_after_chunks(src, (kind, logged(options)), bail);
        rewrite_whole(src, options, depth, doc)
    });
    finish(base, r)
}

/// Which tags the parse keeps: those with an attribute that may hold a URL
/// by the link table; when the user added names to it, any attribute; for a
/// WAT file's details also `title` and what its reader reads (`meta`s...).
fn logged(options: &Options<'_>) -> Attributes {
    match (options.details, options.extra_attributes.is_empty()) {
        (Details::Attributes, true) => Attributes::TreeBuilderHead,
        (Details::Attributes, false) => Attributes::TreeBuilderHeadAnyAttribute,
        (_, true) => Attributes::TreeBuilder,
        (_, false) => Attributes::TreeBuilderAnyAttribute,
    }
}

/// Rewrites the document a piece at a time, as the tracker settles its
/// tags ([`tree::parse_in_chunks`]), so that a document of millions of
/// tags never keeps all their records. The base is decided with the first
/// piece (a page is one piece): a later piece holding the first `base`
/// stops it, and so does anything the tracker bails on; then the caller
/// starts again with the whole document.
fn rewrite_in_chunks<'s, 'o>(
    src: &'s str,
    options: &'o Options<'o>,
    (depth, kind): (usize, DocumentKind),
    watch: Option<&mut MetaSeen>,
) -> Result<(Option<Base>, Resolver<'s, 'o>), tree::Bail> {
    let mut work = Work {
        r: Resolver {
            browser: true,
            ..Resolver::new(src, options)
        },
        depth,
        found: Found::default(),
        written_part: None,
    };
    let mut base: Option<Option<Base>> = None;
    let stand_in = text::stand_in(options);
    tree::parse_in_chunks(src, (kind, logged(options)), watch, &mut |piece| {
        if base.is_some() && piece.base.is_some() {
            return false;
        }
        let base = base.get_or_insert_with(|| work.document_base(&piece));
        if let Some(base) = base.as_ref().or(stand_in.as_ref()) {
            work.rewrite_links(&piece, base);
        }
        true
    })?;
    Ok((base.flatten(), work.r))
}

/// The links of `doc`, the whole of `src`.
fn rewrite_whole<'s, 'o>(
    src: &'s str,
    options: &'o Options<'o>,
    depth: usize,
    doc: Document,
) -> (Option<Base>, Resolver<'s, 'o>) {
    let mut work = Work {
        r: Resolver {
            browser: true,
            ..Resolver::new(src, options)
        },
        depth,
        found: Found::default(),
        written_part: None,
    };
    let base = work.document_base(&doc);
    if let Some(base) = base.as_ref().or(text::stand_in(options).as_ref()) {
        work.rewrite_links(&doc, base);
    }
    (base, work.r)
}

/// What rewriting found, with the base, and the edits in order.
fn finish(base: Option<Base>, mut r: Resolver<'_, '_>) -> TextRewrite {
    if base.is_none() {
        r.warn_no_base();
        // Walked for its links only: a base found below the stand-in (an
        // absolute `codebase`) writes nothing either.
        r.out.edits = crate::splice::Edits::new();
        r.out.rewritten = 0;
    }
    r.finish(base)
}

/// Strips ASCII white space as the HTML standard does for URLs (std's
/// `trim_ascii` is that set); returns the length stripped at the start.
fn trim_ascii_space(s: &str) -> (usize, &str) {
    let trimmed = s.trim_ascii_start();
    (s.len() - trimmed.len(), trimmed.trim_ascii_end())
}

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The new URLs of the attribute being rewritten: where each goes (in the
/// decoded value) and where its text is in one string. Kept for the next
/// attribute: a buffer, not an allocation, a link.
#[derive(Default)]
struct Found {
    ranges: Vec<(Range<usize>, Range<usize>)>,
    text: String,
}

impl Found {
    /// Adds `new`, the URL to go at `range`.
    fn push(&mut self, range: Range<usize>, new: &str) {
        let at = self.text.len();
        self.text.push_str(new);
        self.ranges.push((range, at..self.text.len()));
    }

    /// Each range of the value and its new URL.
    fn iter(&self) -> impl Iterator<Item = (Range<usize>, &str)> {
        let text = &self.text;
        self.ranges
            .iter()
            .map(|(range, new)| (range.clone(), &text[new.clone()]))
    }

    /// Empties it for the next attribute; the text of a large value (a
    /// `srcdoc`) is let go, not held for the rest of the page.
    fn clear(&mut self) {
        self.ranges.clear();
        self.text.clear();
        if self.text.capacity() > FOUND_KEPT {
            self.text = String::new();
        }
    }
}

/// The most bytes of new URLs [`Found`] keeps for the next attribute.
const FOUND_KEPT: usize = 16 * 1024;

struct Work<'s, 'o> {
    r: Resolver<'s, 'o>,
    depth: usize,
    /// The new URLs of the attribute being rewritten.
    found: Found,
    /// The last part of a base [`Work::quick_url`] wrote (one with no `&`,
    /// whose escaping the text after does not change), its quote, and how
    /// the edits keep it: the next link of the page most often takes it.
    written_part: Option<(String, Option<u8>, (u32, usize))>,
}

impl<'s, 'o> Work<'s, 'o> {
    /// The document's base: `--base` if forced, else the first BASE
    /// element's href resolved against the enclosing layer, else that
    /// layer (RFC 1808 section 3).
    fn document_base(&mut self, doc: &Document) -> Option<Base> {
        let options = self.r.options;
        // With no retrieval URL given, a browser's saved-from mark is it.
        let mark = options
            .outer
            .is_none()
            .then(|| saved::saved_from(self.r.text))
            .flatten();
        let saved = mark
            .and_then(|url| BaseUrl::parse(url, options.rules).ok())
            .map(|url| Base::new(url, BaseSource::SavedFrom));
        let mut chain = BaseChain::new(
            options.rules,
            options.forced,
            options.outer.or(saved.as_ref()),
        );
        if let Some(tag) = doc.base.and_then(|index| doc.tag(index)) {
            let href = tag.attr_value(self.r.text, "href").unwrap_or_default();
            let href = text::without_tabs_and_newlines(text::browser_trim(&href).1);
            let href = &*href;
            let at = tag.span.start;
            let line = self.r.lines.line_of(self.r.text, at);
            let source = BaseSource::BaseElement { line };
            if href.is_empty() {
                chain.ignore(source, href, "empty href");
            } else if starts_with_ignore_case(href, "data:")
                || starts_with_ignore_case(href, "javascript:")
            {
                chain.ignore(source, href, "a data: or javascript: URL");
            } else if let Err(err) = chain.offer(source, href) {
                self.r.warn(
                    at,
                    WarningKind::LayerIgnored,
                    format_args!("BASE element ignored: {err}"),
                );
            }
        }
        if let (Some(url), None) = (mark, &saved) {
            chain.ignore(BaseSource::SavedFrom, url, "not an absolute URL");
        }
        let (base, layers) = chain.finish();
        self.r.out.layers = layers;
        base
    }

    fn rewrite_links(&mut self, doc: &Document, base: &Base) {
        let options = self.r.options;
        let resource = self.resource(base);
        let quick = self.reads_quickly();
        // Taken once for the document's attributes, not once an attribute.
        let mut found = std::mem::take(&mut self.found);
        for tag in doc.tags() {
            let index = tag.index;
            if tag.kind != TagKind::StartTag {
                continue;
            }
            let Some(element) = tag.element else { continue };
            if options.details == Details::Attributes && element.namespace == Namespace::Html {
                self.head_details(&tag);
                self.wat_only_links(&tag, base);
            }
            if element.namespace == Namespace::Html && *tag.name == local_name!("style") {
                self.rewrite_style_element(doc, index, tag.span.end, resource);
            }
            // A `base` element's own href resolves against the layer below
            // (the document's fallback base URL), as browsers resolve every
            // `base`: a second one is not resolved against the first.
            let is_base = element.namespace == Namespace::Html
                && *tag.name == local_name!("base")
                && self.r.options.forced.is_none();
            let codebase = self.codebase(&tag, element.namespace, base);
            let extras = !self.r.options.extra_attributes.is_empty();
            for attr in tag.attrs() {
                let raw_name = &self.r.text.as_bytes()[attr.name()];
                // A row of the table names the attribute as the tokenizer
                // does; a name the user added is lowered here.
                let user;
                let (row, name) = match links::lookup_raw(element.namespace, tag.name, raw_name) {
                    Some(row) => (row, row.attribute),
                    None if extras => match self.user_row(element.namespace, attr) {
                        Some(found) => {
                            user = found;
                            (&user.0, &*user.1)
                        }
                        None => continue,
                    },
                    None => continue,
                };
                if let Some((name, wanted)) = row.only_if {
                    let value = tag.attr_value(self.r.text, name).unwrap_or_default();
                    if !trim_ascii_space(&value).1.eq_ignore_ascii_case(wanted) {
                        continue;
                    }
                }
                let bases = (base, codebase.as_ref(), resource);
                let Some(against) = self.against(row, is_base, bases) else {
                    continue;
                };
                // In SVG, `href="#id"` outside `<a>` names an element of the
                // document itself.
                let same_document =
                    if element.namespace == Namespace::Svg && *tag.name != local_name!("a") {
                        SameDocument::Keep
                    } else {
                        SameDocument::Resolve
                    };
                if quick
                    && row.syntax == Syntax::Url
                    && self.quick_url(attr, against, same_document)
                {
                    continue;
                }
                // The user's rows name no attribute.
                let place = match row.attribute {
                    "" => Place::Given(tag.name, name),
                    _ => Place::Attribute(tag.name, name),
                };
                if options.details == Details::Attributes {
                    self.r.details = element_details(&tag, self.r.text);
                    // An attribute of one URL records one link at most.
                    self.r.details_once = matches!(row.syntax, Syntax::Url | Syntax::Refresh);
                }
                let link = (place, same_document);
                self.rewrite_attribute(attr, row, against, link, &mut found);
                self.r.details = None;
            }
        }
        self.found = found;
    }

    /// Keeps what an HTML `title` or `meta` start tag says of the
    /// document (its first title, each meta), as a WAT file's head has it.
    fn head_details(&mut self, tag: &Tag<'_>) {
        let text = self.r.text;
        if *tag.name == local_name!("title") {
            let head = self.r.out.head.get_or_insert_default();
            if head.title.is_none() {
                head.title = Some(title_text(&text[tag.span.end..], decoded_text));
            }
        } else if *tag.name == local_name!("html") {
            // The document's language, as Common Crawl's WAT records give
            // it: a meta named `HTML@/lang` (and `HTML@/xml:lang`).
            for (attribute, name) in [("lang", "HTML@/lang"), ("xml:lang", "HTML@/xml:lang")] {
                if let Some(value) = tag.attr_value(text, attribute) {
                    let meta = vec![("name", name.to_owned()), ("content", value.into_owned())];
                    self.r.out.head.get_or_insert_default().metas.push(meta);
                }
            }
        } else if *tag.name == local_name!("meta") {
            let meta: Vec<(&'static str, String)> = HtmlHead::META_NAMES
                .iter()
                .filter_map(|&name| Some((name, tag.attr_value(text, name)?.into_owned())))
                .collect();
            if !meta.is_empty() {
                self.r.out.head.get_or_insert_default().metas.push(meta);
            }
        }
    }

    /// Keeps the URLs of a tag's attributes that a WAT file lists but the
    /// link table does not rewrite (`data-href`, `onclick`...: see
    /// [`crate::wat_links`]), resolved against `base`, for the WAT file
    /// only: the document does not change there.
    fn wat_only_links(&mut self, tag: &Tag<'_>, base: &Base) {
        use crate::links::{Link, LinkPlace};
        use crate::wat_links::{Listed, listed, may_be_listed, onclick_urls};
        let text = self.r.text;
        for attr in tag.attrs() {
            if attr.quote(text) == Quote::Valueless || !may_be_listed(&text.as_bytes()[attr.name()])
            {
                continue;
            }
            let name = tree::attr_name(text, attr);
            let Some(how) = listed(tag.name, &name) else {
                continue;
            };
            // One the table or the user's names rewrite is a row already.
            let extras = &self.r.options.extra_attributes;
            if links::lookup(Namespace::Html, tag.name, &name).is_some()
                || extras.iter().any(|e| e.name == *name)
            {
                continue;
            }
            let raw = &text[attr.value()];
            let decoded;
            let urls: Vec<&str> = match how {
                Listed::Value => {
                    decoded = charref::decode_attribute(raw).text;
                    vec![&decoded]
                }
                Listed::OnClick => onclick_urls(raw).collect(),
            };
            let (line, column) = self.r.lines.locate(text, attr.value().start);
            for url in urls {
                let resolved = (!base.is_stand_in())
                    .then(|| base.url.resolve(trim_ascii_space(url).1).ok())
                    .flatten();
                let link = Link {
                    line,
                    column,
                    place: LinkPlace::Attribute(tag.name.to_string(), name.to_string()),
                    original: url.to_owned(),
                    resolved: resolved.as_deref().unwrap_or(url).to_owned(),
                    base: resolved.is_some().then(|| base.clone()),
                    changed: false,
                    unresolved: resolved.is_none(),
                    details: None,
                };
                self.r.out.head.get_or_insert_default().listed.push(link);
            }
        }
    }

    /// Whether a URL is read the short way: nothing but a record, a
    /// mirror's map, the saved files' test or a container reads how a link
    /// resolves when it does not change.
    fn reads_quickly(&self) -> bool {
        let options = self.r.options;
        !options.details.records()
            && options.saved.is_none()
            && options.local.is_none()
            && options.container.is_none()
    }

    /// A URL attribute's value read the short way, where nothing records
    /// links: one its base leaves as written (a scheme, under RFC 1808) is
    /// passed over before it is decoded, trimmed or resolved; a plain
    /// relative one (no white space, control or `&` to read past or
    /// decode) that resolves to a part of its base followed by itself gets
    /// that part written before it. `false` when it is read the long way.
    fn quick_url(&mut self, attr: &AttrSpan, base: &Base, same_document: SameDocument) -> bool {
        let src = self.r.text;
        let value = attr.value();
        let raw = &src[value.clone()];
        if base.url.keeps_as_written(browser_start(src, attr)) {
            return true;
        }
        if !is_plain(raw.as_bytes()) {
            return false;
        }
        // A fragment alone naming something of the document stays.
        let keeps_fragments =
            same_document == SameDocument::Keep || self.r.options.keep_fragment_links;
        if keeps_fragments && raw.starts_with('#') {
            return true;
        }
        let quote = match attr.quote(src) {
            Quote::Double => Some(b'"'),
            Quote::Single => Some(b'\''),
            Quote::Unquoted | Quote::Valueless => None,
        };
        match base.url.lent_part(raw) {
            Some(part)
                if !(part.is_empty()
                    || base.is_stand_in()
                    || quote.is_none() && needs_quotes(part, raw)) =>
            {
                // What the new URL shares with the value is the value whole.
                let at = value.start..value.start;
                let edits = &mut self.r.out.edits;
                match &self.written_part {
                    Some((last, q, kept)) if *q == quote && last == part => {
                        edits.push_kept(at, *kept);
                    }
                    _ => {
                        let escaped = escape_attribute(part, quote, false, raw);
                        let kept = edits.push_str_kept(at, &escaped);
                        self.written_part = kept
                            .filter(|_| !part.contains('&'))
                            .map(|kept| (part.to_owned(), quote, kept));
                    }
                }
                self.r.out.rewritten += 1;
                true
            }
            _ => false,
        }
    }

    /// The base of the URLs that load resources into the page: the
    /// resource base, which stands in for the retrieval URL only, or `base`.
    fn resource<'b>(&self, base: &'b Base) -> &'b Base
    where
        'o: 'b,
    {
        match self.r.options.resource_base {
            Some(resource)
                if matches!(
                    base.source,
                    BaseSource::RetrievedFrom | BaseSource::SavedFrom
                ) =>
            {
                resource
            }
            _ => base,
        }
    }

    /// The base an attribute's URLs resolve against, of `(base, codebase,
    /// resource)`: none for a `base` element's `href` with no layer below.
    fn against<'b>(
        &self,
        row: &LinkAttribute,
        is_base: bool,
        (base, codebase, resource): (&'b Base, Option<&'b Base>, &'b Base),
    ) -> Option<&'b Base>
    where
        'o: 'b,
    {
        let options = self.r.options;
        Some(if is_base && row.attribute == "href" {
            options.outer?
        } else if row.codebase {
            codebase.unwrap_or(base)
        } else if options.resource_base.is_some() && links::is_resource(row) {
            resource
        } else {
            base
        })
    }

    /// The row of an attribute the user named as holding URLs, on any HTML
    /// element, with its name lowered.
    fn user_row(
        &self,
        namespace: Namespace,
        attr: &AttrSpan,
    ) -> Option<(LinkAttribute, Cow<'s, str>)> {
        if namespace != Namespace::Html {
            return None;
        }
        let attribute = tree::attr_name(self.r.text, attr);
        let extra = self
            .r
            .options
            .extra_attributes
            .iter()
            .find(|e| e.name == attribute)?;
        let row = LinkAttribute {
            namespace,
            element: "*",
            attribute: "",
            syntax: match extra.syntax {
                AttrSyntax::Url => Syntax::Url,
                AttrSyntax::Srcset => Syntax::Srcset,
                AttrSyntax::List => Syntax::SpaceList,
            },
            codebase: false,
            only_if: None,
        };
        Some((row, attribute))
    }

    /// The base of an object's or applet's classid, data, archive and code:
    /// its codebase, resolved against the document's base.
    fn codebase(&mut self, tag: &Tag<'_>, namespace: Namespace, base: &Base) -> Option<Base> {
        // A document with no base takes none from a codebase either.
        // The name first: most tags are neither.
        if namespace != Namespace::Html
            || (*tag.name != local_name!("object") && *tag.name != local_name!("applet"))
            || base.is_stand_in()
        {
            return None;
        }
        let at = tag.span.start;
        let value = tag.attr_value(self.r.text, "codebase")?;
        let value = text::without_tabs_and_newlines(text::browser_trim(&value).1);
        if value.is_empty() {
            return None;
        }
        let resolved = base.url.resolve(&value).map(Cow::into_owned);
        match resolved.and_then(|url| BaseUrl::parse(&url, self.r.options.rules)) {
            Ok(url) => Some(Base::new(url, base.source.clone())),
            Err(err) => {
                self.r.warn(
                    at,
                    WarningKind::LayerIgnored,
                    format_args!("codebase ignored: {err}"),
                );
                None
            }
        }
    }

    /// Rewrites the URLs of one attribute value.
    fn rewrite_attribute(
        &mut self,
        attr: &AttrSpan,
        row: &LinkAttribute,
        base: &Base,
        (place, same_document): (Place<'_>, SameDocument),
        found: &mut Found,
    ) {
        // A value-less attribute (`<a href>`) is an empty reference: its
        // new value goes right after the name, with an `=`.
        let raw_range = attr.value();
        let quote = match attr.quote(self.r.text) {
            Quote::Double => Some(b'"'),
            Quote::Single => Some(b'\''),
            Quote::Unquoted | Quote::Valueless => None,
        };
        let src = self.r.text;
        let decoded = charref::decode_attribute(&src[raw_range.clone()]);
        let at = raw_range.start;
        let text: &str = &decoded.text;
        let quick = self.reads_quickly();
        let one = |work: &mut Self, range: Range<usize>, found: &mut Found| {
            // The URL a browser reads: the rest keeps its bytes.
            let (lead, url) = text::browser_trim(&text[range.clone()]);
            // One its base leaves as written changes nothing, if nothing reads it.
            if quick && base.url.keeps_as_written(url.as_bytes()) {
                return;
            }
            let range = range.start + lead..range.start + lead + url.len();
            // A URL written into a list must not split it: a separator the
            // base brought in is percent-encoded.
            let protect = |new: &mut String, start: usize| {
                let protected = match protect_separators(&new[start..], row.syntax) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(protected) => Some(protected),
                };
                if let Some(protected) = protected {
                    new.truncate(start);
                    new.push_str(&protected);
                }
            };
            let link = (at, url, place, same_document);
            if let Some(start) = work.r.resolve_into(link, base, &mut found.text, protect) {
                found.ranges.push((range, start..found.text.len()));
            }
        };
        match row.syntax {
            Syntax::Url => one(self, 0..text.len(), found),
            Syntax::SpaceList | Syntax::CommaList => {
                let comma = row.syntax == Syntax::CommaList;
                let is_separator = |c: char| {
                    if comma {
                        c == ','
                    } else {
                        matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
                    }
                };
                let mut start = 0;
                for (i, c) in text.char_indices() {
                    if is_separator(c) {
                        if i > start {
                            one(self, start..i, found);
                        }
                        start = i + c.len_utf8();
                    }
                }
                if start < text.len() {
                    one(self, start..text.len(), found);
                }
            }
            Syntax::Srcset => {
                for range in srcset::urls(text) {
                    one(self, range, found);
                }
            }
            Syntax::Refresh => {
                if let Some(range) = refresh::url(text) {
                    one(self, range, found);
                }
            }
            Syntax::Css => {
                let urls = self.r.css_urls(text, at, base, place);
                for (range, new) in urls {
                    found.push(range, &new);
                }
            }
            Syntax::Srcdoc => self.rewrite_srcdoc(text, at, base, found),
        }
        if !found.ranges.is_empty() {
            let equals = attr.quote(self.r.text) == Quote::Valueless;
            self.write_value(raw_range, quote, equals, &decoded, found);
        }
        found.clear();
    }

    /// An `iframe srcdoc` document, whose base is its parent's.
    fn rewrite_srcdoc(&mut self, text: &str, at: usize, base: &Base, found: &mut Found) {
        if self.depth >= MAX_SRCDOC_DEPTH {
            self.r.warn(
                at,
                WarningKind::TooDeep,
                "srcdoc nested too deep; left as it is",
            );
            return;
        }
        let outer = if base.is_stand_in() {
            base.clone()
        } else {
            Base::new(
                base.url.clone(),
                BaseSource::Enclosing(Box::new(base.source.clone())),
            )
        };
        // In a document with no base, a nested one's links are listed as
        // left too, whatever base it names.
        let options = Options {
            outer: Some(&outer),
            forced: base.is_stand_in().then_some(base),
            ..*self.r.options
        };
        let inner = rewrite_nested(text, &options, self.depth + 1, None);
        self.r.out.links.extend(inner.links);
        self.r.out.rewritten += inner.rewritten;
        // The inner document has its parent's base, or none as its parent
        // (which says so). The line is found only for a warning to place:
        // indexing the lines of a long page costs more than its links.
        let mut warnings = inner
            .warnings
            .into_iter()
            .filter(|w| w.kind != WarningKind::NoBase)
            .peekable();
        if warnings.peek().is_some() {
            let (line, _) = self.r.lines.locate(self.r.text, at);
            let within = |w: crate::links::Warning| w.within(format!("srcdoc at line {line}"));
            self.r.out.warnings.extend(warnings.map(within));
        }
        for e in inner.edits.iter() {
            found.push(e.range, e.text);
        }
    }

    /// Writes new URLs into an attribute value, escaped as its quoting
    /// needs; an unquoted value is quoted only when the new text needs it,
    /// or when it was empty. `equals` says the attribute had no value at
    /// all, so the new one needs its `=`.
    fn write_value(
        &mut self,
        raw_range: Range<usize>,
        quote: Option<u8>,
        equals: bool,
        decoded: &Decoded<'_>,
        found: &Found,
    ) {
        let src = self.r.text;
        let raw = &src[raw_range.clone()];
        let amp_style = !decoded.holds_no_reference() && escapes_ampersands(raw);
        if quote.is_none()
            && (raw.is_empty() || found.iter().any(|(_, new)| needs_quotes(new, raw)))
        {
            let edits: Vec<Edit> = found
                .iter()
                .map(|(range, new)| Edit::new(range, new.to_owned()))
                .collect();
            let value = splice::apply_str(&decoded.text, &edits);
            let mut text = String::with_capacity(value.len() + 3);
            if equals {
                text.push('=');
            }
            text.push('"');
            text.push_str(&escape_attribute(&value, Some(b'"'), amp_style, ""));
            text.push('"');
            self.r.out.edits.push(Edit::new(raw_range, text));
            return;
        }
        for (range, new) in found.iter() {
            // Only what changed is written: what the new URL shares with
            // the old at either end keeps its bytes, references and all.
            let (prefix, suffix) = splice::common_affixes(&decoded.text[range.clone()], new);
            let range = range.start + prefix..range.end - suffix;
            let new = &new[prefix..new.len() - suffix];
            let (wide, raw_wide) = decoded.widen(range.clone());
            // The new text, with the references it cuts into (if any).
            let text = if wide == range {
                Cow::Borrowed(new)
            } else {
                let mut text = String::with_capacity(new.len() + wide.len() - range.len());
                text.push_str(&decoded.text[wide.start..range.start]);
                text.push_str(new);
                text.push_str(&decoded.text[range.end..wide.end]);
                Cow::Owned(text)
            };
            let following = &raw[raw_wide.end..];
            let escaped = escape_attribute(&text, quote, amp_style, following);
            self.r.out.edits.push_str(
                raw_range.start + raw_wide.start..raw_range.start + raw_wide.end,
                &escaped,
            );
        }
    }

    /// The text of a `<style>` element: up to its end tag (RAWTEXT holds no
    /// character references, so positions are the source's).
    fn rewrite_style_element(
        &mut self,
        doc: &Document,
        index: usize,
        text_start: usize,
        base: &Base,
    ) {
        let text_end = match doc.tag(index + 1) {
            None => self.r.text.len(),
            Some(next) if next.kind == TagKind::EndTag && *next.name == local_name!("style") => {
                next.span.start
            }
            Some(_) => return,
        };
        let place = Place::Text("style");
        let src = self.r.text;
        let css_text = &src[text_start..text_end];
        for (range, new) in self.r.css_urls(css_text, text_start, base, place) {
            let range = text_start + range.start..text_start + range.end;
            self.r.out.edits.push_narrowed(Edit::new(range, new), src);
        }
    }
}

/// Whether a value is not empty and holds nothing a browser reads past or
/// decodes in a URL: no white space or control (bytes up to U+0020, which
/// take in tab, newline, CR and NUL) and no `&`. Eight bytes a test.
fn is_plain(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    // The high bit of a byte below 0x21 or equal to `&` (exact as a whole:
    // a borrow flags bytes above a flagged one only).
    let flagged = |word: &[u8; 8]| {
        let word = u64::from_le_bytes(*word);
        let amp = word ^ (ONES * u64::from(b'&'));
        (word.wrapping_sub(ONES * 0x21) & !word | amp.wrapping_sub(ONES) & !amp) & HIGH != 0
    };
    let (words, rest) = bytes.as_chunks::<8>();
    match bytes.last_chunk::<8>() {
        Some(last) => !words.iter().any(flagged) && !flagged(last),
        None => !rest.is_empty() && rest.iter().all(|&b| b > b' ' && b != b'&'),
    }
}

/// The value of `attr` as written from its first byte a browser reads as
/// part of the URL: past the white space and controls it trims (ASCII
/// bytes up to U+0020, as [`text::browser_trim`]).
fn browser_start<'s>(src: &'s str, attr: &AttrSpan) -> &'s [u8] {
    let raw = &src.as_bytes()[attr.value()];
    let lead = raw.iter().position(|&b| b > b' ').unwrap_or(raw.len());
    &raw[lead..]
}

/// The attributes of `tag` a WAT file keeps with its links
/// ([`LinkDetails::NAMES`]), an anchor's text and the landmark the element
/// lies in, or none.
fn element_details(tag: &Tag<'_>, text: &str) -> Option<Box<LinkDetails>> {
    // One pass over the element's attributes, each name read once (not
    // one search of them a name kept), then in the order of the names.
    let mut found: [Option<Cow<'_, str>>; LinkDetails::NAMES.len()] = Default::default();
    for attr in tag.attrs() {
        // The name as written is one of them as the tokenizer lowers it
        // (none holds what a NUL becomes) when it is one in any case.
        let raw = &text.as_bytes()[attr.name()];
        let kept = |n: &&str| n.len() == raw.len() && n.as_bytes().eq_ignore_ascii_case(raw);
        if let Some(i) = LinkDetails::NAMES.iter().position(kept) {
            found[i].get_or_insert_with(|| super::document::decoded_value(text, attr));
        }
    }
    let attributes: Vec<(&'static str, String)> = LinkDetails::NAMES
        .iter()
        .zip(found)
        .filter_map(|(&name, value)| Some((name, value?.into_owned())))
        .collect();
    let text =
        (*tag.name == local_name!("a")).then(|| anchor_text(&text[tag.span.end..], decoded_text));
    let context = tag.landmark.map(tree::Landmark::name);
    (!attributes.is_empty() || text.is_some() || context.is_some()).then(|| {
        Box::new(LinkDetails {
            attributes,
            text,
            context,
        })
    })
}

/// Text as the HTML reader decodes it: character references, for a
/// title's or an anchor's text ([`crate::links::title_text`]).
fn decoded_text(text: &str) -> Cow<'_, str> {
    charref::decode_attribute(text).text
}

/// Whether an unquoted attribute value holding `text` must be quoted: it
/// would not read back the same (white space or `>` ends it, a leading
/// quote starts a quoted value), or it brings a character the tokenizer
/// flags in unquoted values (`"'<=` and backtick) that `raw`, the value as
/// written, did not already have.
fn needs_quotes(text: &str, raw: &str) -> bool {
    const FLAGGED: &[u8] = b"\"'<=`";
    text.is_empty()
        || text.starts_with(['"', '\''])
        || text.bytes().any(|b| {
            matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'>')
                || (FLAGGED.contains(&b) && !raw.as_bytes().contains(&b))
        })
}

/// A resolved URL to be written into a value of `syntax`, with what would
/// separate its items percent-encoded as the URL Standard encodes them:
/// ASCII white space in a space-separated list or a `srcset`, commas in a
/// comma-separated list.
fn protect_separators(url: &str, syntax: Syntax) -> Cow<'_, str> {
    let separates = |b: u8| match syntax {
        Syntax::SpaceList | Syntax::Srcset => b.is_ascii_whitespace(),
        Syntax::CommaList => b == b',',
        _ => false,
    };
    if matches!(
        syntax,
        Syntax::Url | Syntax::Refresh | Syntax::Css | Syntax::Srcdoc
    ) || !url.bytes().any(separates)
    {
        return Cow::Borrowed(url);
    }
    let mut out = String::with_capacity(url.len() + 8);
    for c in url.chars() {
        match u8::try_from(c) {
            Ok(b) if separates(b) => out.push_str(&format!("%{b:02X}")),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether a raw value writes its ampersands as references.
fn escapes_ampersands(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    memchr::memchr_iter(b'&', bytes).any(|at| {
        let rest = &bytes[at + 1..];
        ["amp;", "#38;", "#x26;"].iter().any(|reference| {
            rest.get(..reference.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(reference.as_bytes()))
        })
    })
}

/// Whether a character ends an unquoted attribute value (ASCII white
/// space, `>`).
fn ends_unquoted(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ' | '>')
}

/// Escapes text for an attribute value quoted by `quote`: the quote itself,
/// and each `&` when the value's style escapes them or a bare one would be
/// read as a character reference. `following` is the raw text after. In an
/// unquoted value, what would end it (white space or `>` that the text
/// cut out of references) is written as a reference again.
fn escape_attribute<'t>(
    text: &'t str,
    quote: Option<u8>,
    escape_all_amps: bool,
    following: &str,
) -> Cow<'t, str> {
    // Most URLs hold nothing to escape.
    let nothing = match quote {
        Some(quote) => memchr::memchr2(b'&', quote, text.as_bytes()).is_none(),
        None => !text.contains(|c| c == '&' || ends_unquoted(c)),
    };
    if nothing {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        match c {
            '&' => {
                let rest = &text[i + 1..];
                let needs = escape_all_amps || {
                    let tail: String = rest.chars().chain(following.chars()).take(40).collect();
                    charref::ampersand_needs_escape(&tail)
                };
                out.push_str(if needs { "&amp;" } else { "&" });
            }
            '"' if quote == Some(b'"') => out.push_str("&quot;"),
            '\'' if quote == Some(b'\'') => out.push_str("&#39;"),
            c if quote.is_none() && ends_unquoted(c) => {
                out.push_str(&format!("&#{};", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page with `edits` made.
    fn edited(page: &str, edits: &splice::Edits) -> Vec<u8> {
        splice::apply_each(page.as_bytes(), 0, edits.iter())
    }

    #[test]
    fn a_part_of_the_base_is_escaped_again_for_another_quote() {
        let base = "http://h/b'c\"d/q";
        let page = "<a href='g'>x</a><img src=\"g\"><img src='g'>";
        let base = Base::new(
            BaseUrl::parse(base, crate::url::Rules::Rfc1808).unwrap(),
            BaseSource::RetrievedFrom,
        );
        let options = Options {
            outer: Some(&base),
            details: Details::Counts,
            ..Options::default()
        };
        let out = edited(page, &rewrite_text(page, &options).edits);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "<a href='http://h/b&#39;c\"d/g'>x</a><img src=\"http://h/b'c&quot;d/g\">\
             <img src='http://h/b&#39;c\"d/g'>"
        );
    }

    proptest::proptest! {
        /// A URL read the short way, as nothing records it, is written as
        /// the long way writes it: a page comes out as when every link is
        /// recorded (and none read the short way), whatever white space,
        /// tabs, references, quotes and parts of the base the value holds
        /// or takes, under every rule set; one with a scheme is left.
        #[test]
        fn a_url_read_the_short_way_is_written_as_the_long_way_writes_it(
            lead in proptest::sample::select(vec!["", " ", "\t", "\x01", "&#32;", "\r\n", "//", "/", "#", "?", "../"]),
            scheme in proptest::sample::select(vec!["http", "HTTP", "a+b.c-d", "9x", "ht\ttp", "ht&#116;p", ""]),
            colon in proptest::sample::select(vec![":", "&#58;", "&colon;", "\n:", ""]),
            rest in "[/.a-zA-Z?#&;='\"<>\t ]{0,10}",
            quote in proptest::sample::select(vec!["\"", "'", ""]),
            base in proptest::sample::select(vec!["http://h/p/q", "http://h/a&copy=1/b'c\"d/q?x#y", "http://h/b'c\"d/q", "http://h", "http://h/a b/q"]),
            svg in proptest::bool::ANY,
        ) {
            use crate::url::Rules;
            let value = format!("{lead}{scheme}{colon}{rest}");
            let page = match svg {
                false => format!("<a href={quote}{value}{quote}>x</a><img src={quote}{value}{quote}><img src=\"{value}\" srcset=\"{value} 1x, {value}\">"),
                true => format!("<svg><use href={quote}{value}{quote}/></svg>"),
            };
            for rules in Rules::ALL {
                let base = Base::new(BaseUrl::parse(base, rules).unwrap(), BaseSource::RetrievedFrom);
                let counted = Options { outer: Some(&base), rules, details: Details::Counts, ..Options::default() };
                let listed = Options { details: Details::Links, ..counted };
                let (quick, read) = (rewrite_text(&page, &counted), rewrite_text(&page, &listed));
                let (quick_page, read_page) = (edited(&page, &quick.edits), edited(&page, &read.edits));
                proptest::prop_assert_eq!(String::from_utf8_lossy(&quick_page), String::from_utf8_lossy(&read_page), "{:?} {:?}", page, rules);
                proptest::prop_assert_eq!(quick.rewritten, read.rewritten);
                proptest::prop_assert_eq!(quick.warnings.len(), read.warnings.len());
            }
        }

        /// A value is plain exactly when it is not empty and every byte is
        /// above U+0020 and no `&`, read a byte at a time.
        #[test]
        fn a_plain_value_is_found_as_bytes_read_one_at_a_time(
            bytes in proptest::collection::vec(proptest::sample::select(vec![b'a', b'&', b' ', b'\t', 0, b'!', 0x7f, 0x80, 0xa6, 0x21, 0x20, b'%']), 0..40),
        ) {
            let one_at_a_time = !bytes.is_empty() && bytes.iter().all(|&b| b > b' ' && b != b'&');
            proptest::prop_assert_eq!(is_plain(&bytes), one_at_a_time);
        }
    }

    #[test]
    fn the_new_urls_of_a_large_value_are_not_kept_for_the_next() {
        let mut found = Found::default();
        found.push(0..1, "http://a/b");
        found.clear();
        assert!(found.ranges.is_empty() && found.text.is_empty());
        let kept = found.text.capacity();
        assert!(kept >= "http://a/b".len());
        found.push(0..1, &"x".repeat(FOUND_KEPT + 1));
        assert_eq!(found.iter().count(), 1);
        found.clear();
        assert!(found.text.capacity() <= FOUND_KEPT);
    }

    #[test]
    fn the_tokenizer_hands_over_the_metas_of_script_it_reads_sparsely() {
        // Forty `<` make the rest of the script searched sparsely.
        let script = format!("<script>{}", "if(a<b)x;".repeat(40));
        let doc = format!("{script}<meta charset=koi8-r><main></script><p>");
        let mut seen = MetaSeen::default();
        rewrite_text_watching(&doc, &Options::default(), &mut seen);
        let meta = doc.find("<meta").unwrap();
        assert_eq!(seen.starts(), [meta]);
        assert_eq!(seen.covered().len(), 1);
        assert_eq!(seen.covered()[0], 8..doc.find("</script>").unwrap());
        // Read densely, the same.
        let doc = "<script>a<b<meta charset=koi8-r></script><p>";
        let mut seen = MetaSeen::default();
        rewrite_text_watching(doc, &Options::default(), &mut seen);
        assert_eq!(seen.starts(), [doc.find("<meta").unwrap()]);
    }

    #[test]
    fn escapes_only_what_the_value_needs() {
        assert_eq!(
            escape_attribute("a?b=1&c=2", Some(b'"'), false, ""),
            "a?b=1&c=2"
        );
        assert_eq!(
            escape_attribute("a?b=1&copy=2", Some(b'"'), false, ""),
            "a?b=1&copy=2"
        );
        assert_eq!(
            escape_attribute("a?b&copy", Some(b'"'), false, ""),
            "a?b&amp;copy"
        );
        assert_eq!(
            escape_attribute("a?b=1&c=2", Some(b'"'), true, ""),
            "a?b=1&amp;c=2"
        );
        assert_eq!(
            escape_attribute("say \"hi\"", Some(b'"'), false, ""),
            "say &quot;hi&quot;"
        );
        assert_eq!(escape_attribute("it's", Some(b'\''), false, ""), "it&#39;s");
        assert_eq!(escape_attribute("it's", Some(b'"'), false, ""), "it's");
        assert_eq!(escape_attribute("a&b", None, true, ""), "a&amp;b");
        assert_eq!(escape_attribute("a\"b", None, false, ""), "a\"b");
    }

    #[test]
    fn a_value_escapes_ampersands_when_it_writes_one_as_a_reference() {
        assert!(escapes_ampersands("a?b=1&amp;c=2"));
        assert!(escapes_ampersands("a?b=1&AMP;c=2"));
        assert!(escapes_ampersands("x&#38;y"));
        assert!(escapes_ampersands("x&#X26;y"));
        assert!(!escapes_ampersands("a?b=1&c=2&am"));
        assert!(!escapes_ampersands("plain"));
    }

    #[test]
    fn titles_and_anchors_have_their_references_decoded() {
        assert_eq!(
            title_text(" A &amp;\n <b>B</b> </TITLE ><p>x", decoded_text),
            "A & <b>B</b>"
        );
        assert_eq!(
            anchor_text("caf&eacute; &amp; co<a href=y>other</a>", decoded_text),
            "café & co"
        );
        assert_eq!(
            anchor_text("a&nbsp;b\u{a0}\u{a0}c</a>", decoded_text),
            "a b c"
        );
        // What else the decoder changes, past a tag.
        assert_eq!(
            anchor_text("<i>a</i>\0b&am<b>p;</b>\r\nc</a>", decoded_text),
            "a\u{fffd}b& c"
        );
    }

    #[test]
    fn separators_in_a_list_are_percent_encoded() {
        let p = |url, syntax| protect_separators(url, syntax).into_owned();
        assert_eq!(p("http://a/b c/x", Syntax::SpaceList), "http://a/b%20c/x");
        assert_eq!(p("http://a/b\tc/x", Syntax::Srcset), "http://a/b%09c/x");
        assert_eq!(p("http://a/b,c/x", Syntax::CommaList), "http://a/b%2Cc/x");
        assert_eq!(p("http://a/b,c/x", Syntax::Srcset), "http://a/b,c/x");
        assert_eq!(p("http://a/b c/x", Syntax::Url), "http://a/b c/x");
    }

    #[test]
    fn every_link_of_an_attribute_carries_its_elements_details() {
        use crate::url::Rules;
        let page = "<img alt=A src=s srcset='a 1x, b 2x' style='background:url(c) url(d)'>";
        let base = Base {
            url: BaseUrl::parse("http://h/", Rules::Rfc1808).unwrap(),
            source: BaseSource::RetrievedFrom,
        };
        let options = Options {
            outer: Some(&base),
            details: Details::Attributes,
            ..Options::default()
        };
        let links = rewrite_text(page, &options).links;
        let originals: Vec<&str> = links.iter().map(|l| l.original.as_str()).collect();
        assert_eq!(originals, ["s", "a", "b", "c", "d"]);
        for link in &links {
            let details = link.details.as_deref();
            let alt = details.map(|d| d.attributes.clone());
            assert_eq!(
                alt,
                Some(vec![("alt", "A".to_owned())]),
                "{}",
                link.original
            );
        }
    }
}
