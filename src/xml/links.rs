//! What holds a URL in an XML document: a table of (element namespace,
//! element, where the URL is), as for HTML. Names are matched by namespace
//! URI and local name, whatever prefix the document chose.

use crate::links::Place;
use crate::text::SameDocument;

/// The Atom namespace (RFC 4287).
pub const ATOM: &str = "http://www.w3.org/2005/Atom";
/// The Atom 0.3 namespace, still found in old feeds.
pub const ATOM_03: &str = "http://purl.org/atom/ns#";
/// RSS 1.0.
pub const RSS_10: &str = "http://purl.org/rss/1.0/";
/// RSS 0.90.
pub const RSS_090: &str = "http://my.netscape.com/rdf/simple/0.9/";
/// RDF (RSS 1.0 is RDF/XML).
pub const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/// The RSS content module (`content:encoded`).
pub const CONTENT: &str = "http://purl.org/rss/1.0/modules/content/";
/// The Well-Formed Web comment API (`wfw:comment`, `wfw:commentRss`).
pub const WFW: &str = "http://wellformedweb.org/CommentAPI/";
/// XHTML.
pub const XHTML: &str = "http://www.w3.org/1999/xhtml";
/// SVG.
pub const SVG: &str = "http://www.w3.org/2000/svg";
/// XLink (`xlink:href`).
pub const XLINK: &str = "http://www.w3.org/1999/xlink";
/// Sitemaps (sitemaps.org): `urlset` and `sitemapindex`.
pub const SITEMAP: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
/// Google's image extension of sitemaps (`image:loc`).
pub const SITEMAP_IMAGE: &str = "http://www.google.com/schemas/sitemap-image/1.1";
/// Google's video extension of sitemaps (`video:content_loc`...).
pub const SITEMAP_VIDEO: &str = "http://www.google.com/schemas/sitemap-video/1.1";

/// An EPUB package document (OPF 2.0 and 3).
pub const OPF: &str = "http://www.idpf.org/2007/opf";
/// An EPUB NCX (the table of contents of EPUB 2).
pub const NCX: &str = "http://www.daisy.org/z3986/2005/ncx/";
/// An EPUB's `META-INF/container.xml` (OCF).
pub const OCF: &str = "urn:oasis:names:tc:opendocument:xmlns:container";

/// The namespace of RSS 0.9x and 2.0 elements: none. Its rows apply only
/// under an RSS root (`rss`, `rdf:RDF`), so another `<link>` is not RSS's.
pub const RSS: &str = "";
/// The namespace of OPML's elements: none, its rows only under `opml`.
pub const OPML: &str = "";

/// What a document is, told by its root element: some rows apply only
/// under one root (RSS's and OPML's elements have no namespace, and a
/// sitemap's extensions are read in sitemaps only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Root {
    /// Any other root.
    #[default]
    Other,
    /// `rss`, or RSS 1.0's `rdf:RDF`.
    Rss,
    /// A sitemap's `urlset` or `sitemapindex`, in the sitemaps.org namespace.
    Sitemap,
    /// `opml`, in no namespace.
    Opml,
}

impl Root {
    /// The root an element of `namespace` named `local` makes, at the top.
    pub fn of(namespace: &str, local: &str) -> Root {
        match (namespace, local) {
            ("", "rss") | (RDF, "RDF") => Root::Rss,
            (SITEMAP, "urlset" | "sitemapindex") => Root::Sitemap,
            ("", "opml") => Root::Opml,
            _ => Root::Other,
        }
    }
}

/// Where in an element a URL is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// An attribute: its namespace (`""` for none) and local name.
    Attribute(&'static str, &'static str),
    /// The element's text (RSS `<link>`, Atom `<icon>`).
    Text,
    /// The element's text is an HTML document, escaped or in CDATA (RSS
    /// `description`, `content:encoded`; Atom `type="html"`).
    Html,
    /// The element's text is a style sheet (XHTML's and SVG's `<style>`).
    Css,
}

/// How the URLs of an attribute are written, as in HTML's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// The value is one URL.
    Url,
    /// A `srcset`: image candidates, each a URL and its descriptors.
    Srcset,
    /// A `style` attribute: CSS declarations.
    Css,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct LinkRow {
    /// The element's namespace (`*` for any).
    pub namespace: &'static str,
    /// The element's local name (`*` for any).
    pub element: &'static str,
    /// Where the URL is.
    pub holder: Holder,
    /// Only when the element's `type` attribute has this value (Atom: `html`).
    pub only_if_type: Option<&'static str>,
    /// How an attribute's URLs are written.
    pub syntax: Syntax,
    /// The only root the row applies under, if any (every row of an
    /// element in no namespace has one).
    pub root: Option<Root>,
}

impl LinkRow {
    /// The row, applying only under `root`.
    const fn under(self, root: Root) -> LinkRow {
        LinkRow {
            root: Some(root),
            ..self
        }
    }
}

const fn attr(namespace: &'static str, element: &'static str, name: &'static str) -> LinkRow {
    LinkRow {
        namespace,
        element,
        holder: Holder::Attribute("", name),
        only_if_type: None,
        syntax: Syntax::Url,
        root: None,
    }
}

const fn ns_attr(
    namespace: &'static str,
    element: &'static str,
    attr_ns: &'static str,
    name: &'static str,
) -> LinkRow {
    LinkRow {
        namespace,
        element,
        holder: Holder::Attribute(attr_ns, name),
        only_if_type: None,
        syntax: Syntax::Url,
        root: None,
    }
}

const fn text(namespace: &'static str, element: &'static str) -> LinkRow {
    LinkRow {
        namespace,
        element,
        holder: Holder::Text,
        only_if_type: None,
        syntax: Syntax::Url,
        root: None,
    }
}

const fn html(namespace: &'static str, element: &'static str) -> LinkRow {
    LinkRow {
        namespace,
        element,
        holder: Holder::Html,
        only_if_type: None,
        syntax: Syntax::Url,
        root: None,
    }
}

const fn atom_html(element: &'static str) -> LinkRow {
    LinkRow {
        namespace: ATOM,
        element,
        holder: Holder::Html,
        only_if_type: Some("html"),
        syntax: Syntax::Url,
        root: None,
    }
}

const fn atom03_html(element: &'static str) -> LinkRow {
    LinkRow {
        namespace: ATOM_03,
        element,
        holder: Holder::Html,
        only_if_type: Some("text/html"),
        syntax: Syntax::Url,
        root: None,
    }
}

const fn srcset(element: &'static str, name: &'static str) -> LinkRow {
    LinkRow {
        syntax: Syntax::Srcset,
        ..attr(XHTML, element, name)
    }
}

/// A `style` attribute, on any element of the namespace.
const fn style_attribute(namespace: &'static str) -> LinkRow {
    LinkRow {
        syntax: Syntax::Css,
        ..attr(namespace, "*", "style")
    }
}

const fn style_element(namespace: &'static str) -> LinkRow {
    LinkRow {
        holder: Holder::Css,
        ..text(namespace, "style")
    }
}

/// Every URL-bearing place relink knows in XML.
pub const LINK_ROWS: &[LinkRow] = &[
    // Atom (RFC 4287).
    attr(ATOM, "link", "href"),
    attr(ATOM, "content", "src"),
    attr(ATOM, "generator", "uri"),
    text(ATOM, "icon"),
    text(ATOM, "logo"),
    text(ATOM, "uri"),
    atom_html("content"),
    atom_html("summary"),
    atom_html("title"),
    atom_html("subtitle"),
    atom_html("rights"),
    // Atom 0.3.
    attr(ATOM_03, "link", "href"),
    attr(ATOM_03, "generator", "url"),
    text(ATOM_03, "url"),
    atom03_html("content"),
    atom03_html("summary"),
    atom03_html("title"),
    atom03_html("tagline"),
    atom03_html("info"),
    atom03_html("copyright"),
    // RSS 0.9x and 2.0 (no namespace), RSS 0.90 and RSS 1.0.
    text(RSS, "link").under(Root::Rss),
    text(RSS, "comments").under(Root::Rss),
    text(RSS, "docs").under(Root::Rss),
    text(RSS, "url").under(Root::Rss),
    attr(RSS, "enclosure", "url").under(Root::Rss),
    attr(RSS, "source", "url").under(Root::Rss),
    html(RSS, "description").under(Root::Rss),
    text(RSS_10, "link"),
    text(RSS_10, "url"),
    html(RSS_10, "description"),
    text(RSS_090, "link"),
    text(RSS_090, "url"),
    html(RSS_090, "description"),
    html(CONTENT, "encoded"),
    text(WFW, "comment"),
    text(WFW, "commentRss"),
    text(WFW, "commentRSS"),
    // RDF: any element.
    ns_attr("*", "*", RDF, "about"),
    ns_attr("*", "*", RDF, "resource"),
    // XHTML.
    attr(XHTML, "a", "href"),
    attr(XHTML, "area", "href"),
    attr(XHTML, "link", "href"),
    attr(XHTML, "img", "src"),
    attr(XHTML, "script", "src"),
    attr(XHTML, "iframe", "src"),
    attr(XHTML, "frame", "src"),
    attr(XHTML, "embed", "src"),
    attr(XHTML, "audio", "src"),
    attr(XHTML, "video", "src"),
    attr(XHTML, "source", "src"),
    attr(XHTML, "track", "src"),
    attr(XHTML, "input", "src"),
    attr(XHTML, "form", "action"),
    attr(XHTML, "button", "formaction"),
    attr(XHTML, "input", "formaction"),
    attr(XHTML, "blockquote", "cite"),
    attr(XHTML, "q", "cite"),
    attr(XHTML, "del", "cite"),
    attr(XHTML, "ins", "cite"),
    attr(XHTML, "object", "data"),
    attr(XHTML, "video", "poster"),
    attr(XHTML, "body", "background"),
    attr(XHTML, "img", "longdesc"),
    // The first `base` with an `href` gives the base, its own resolved below it.
    attr(XHTML, "base", "href"),
    srcset("img", "srcset"),
    srcset("source", "srcset"),
    srcset("link", "imagesrcset"),
    style_attribute(XHTML),
    style_element(XHTML),
    // SVG: `href` (SVG 2) and `xlink:href` on any element.
    attr(SVG, "*", "href"),
    ns_attr("*", "*", XLINK, "href"),
    style_attribute(SVG),
    style_element(SVG),
    // Sitemaps (sitemaps.org), with Google's image and video extensions;
    // `xhtml:link href` is XHTML's row above.
    text(SITEMAP, "loc").under(Root::Sitemap),
    text(SITEMAP_IMAGE, "loc").under(Root::Sitemap),
    text(SITEMAP_VIDEO, "content_loc").under(Root::Sitemap),
    text(SITEMAP_VIDEO, "player_loc").under(Root::Sitemap),
    text(SITEMAP_VIDEO, "thumbnail_loc").under(Root::Sitemap),
    // OPML 2.0: an outline's feed, page and included outline, the head's
    // `docs` and `ownerId`.
    attr(OPML, "outline", "xmlUrl").under(Root::Opml),
    attr(OPML, "outline", "htmlUrl").under(Root::Opml),
    attr(OPML, "outline", "url").under(Root::Opml),
    text(OPML, "docs").under(Root::Opml),
    text(OPML, "ownerId").under(Root::Opml),
    // EPUB: the package document, the NCX, the container document.
    attr(OPF, "item", "href"),
    attr(OPF, "link", "href"),
    attr(OPF, "reference", "href"),
    attr(NCX, "content", "src"),
    attr(OCF, "rootfile", "full-path"),
    attr(OCF, "link", "href"),
];

/// Where a link of `row` is: an attribute of XHTML's or SVG's (and
/// XLink's `href`, on any element) is a page's, the others a feed's or
/// RDF's.
pub fn place<'a>(row: &LinkRow, element: &'a str, attribute: &'a str) -> Place<'a> {
    match (row.namespace, row.holder) {
        (XHTML | SVG | OPF | NCX | OCF, _) | (_, Holder::Attribute(XLINK, _)) => {
            Place::Attribute(element, attribute)
        }
        _ => Place::Feed(element, attribute),
    }
}

/// Whether a row's element namespace matches, in a document of `root`.
fn namespace_matches(row: &LinkRow, namespace: &str, root: Root) -> bool {
    (row.namespace == "*" || row.namespace == namespace) && row.root.is_none_or(|r| r == root)
}

/// The row for an attribute (`attr_ns`, `name`) of an element.
pub fn attribute(
    namespace: &str,
    element: &str,
    attr_ns: &str,
    name: &str,
    root: Root,
) -> Option<&'static LinkRow> {
    LINK_ROWS.iter().find(|r| {
        matches!(r.holder, Holder::Attribute(ns, n) if ns == attr_ns && n == name)
            && (r.element == "*" || r.element == element)
            && namespace_matches(r, namespace, root)
    })
}

/// The row for an element's content (text or HTML document), given its `type`.
pub fn content(
    namespace: &str,
    element: &str,
    type_attribute: Option<&str>,
    root: Root,
) -> Option<&'static LinkRow> {
    LINK_ROWS.iter().find(|r| {
        matches!(r.holder, Holder::Text | Holder::Html | Holder::Css)
            && r.element == element
            && namespace_matches(r, namespace, root)
            && r.only_if_type.is_none_or(|t| type_attribute == Some(t))
    })
}

/// Whether a `#id` reference in this attribute names something in the
/// document and stays: SVG references outside `<a>`, RDF nodes.
pub fn same_document(namespace: &str, element: &str, attr_ns: &str) -> SameDocument {
    if element == "a" && (namespace == SVG || namespace == XHTML) {
        SameDocument::Resolve
    } else if namespace == SVG || attr_ns == XLINK || attr_ns == RDF {
        SameDocument::Keep
    } else {
        SameDocument::Resolve
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_by_namespace_and_local_name() {
        assert!(attribute(ATOM, "link", "", "href", Root::Other).is_some());
        assert!(attribute(ATOM, "link", XLINK, "href", Root::Other).is_some());
        assert!(attribute(ATOM, "entry", "", "href", Root::Other).is_none());
        assert!(attribute("", "enclosure", "", "url", Root::Rss).is_some());
        assert!(attribute("", "enclosure", "", "url", Root::Other).is_none());
        assert!(attribute("urn:x", "item", RDF, "about", Root::Other).is_some());
        assert!(attribute(SVG, "use", "", "href", Root::Other).is_some());
        assert!(attribute(SVG, "use", "", "src", Root::Other).is_none());
        assert_eq!(
            content("", "link", None, Root::Rss).map(|r| r.holder),
            Some(Holder::Text)
        );
        assert!(content("", "link", None, Root::Other).is_none());
        assert!(content(ATOM, "summary", Some("text"), Root::Other).is_none());
        assert_eq!(
            content(ATOM, "summary", Some("html"), Root::Other).map(|r| r.holder),
            Some(Holder::Html)
        );
        assert_eq!(
            content(CONTENT, "encoded", None, Root::Other).map(|r| r.holder),
            Some(Holder::Html)
        );
        assert_eq!(
            attribute(XHTML, "img", "", "srcset", Root::Other).map(|r| r.syntax),
            Some(Syntax::Srcset)
        );
        assert_eq!(
            attribute(SVG, "rect", "", "style", Root::Other).map(|r| r.syntax),
            Some(Syntax::Css)
        );
        assert!(attribute(ATOM, "link", "", "style", Root::Other).is_none());
        assert_eq!(
            content(SVG, "style", None, Root::Other).map(|r| r.holder),
            Some(Holder::Css)
        );
        assert_eq!(same_document(SVG, "use", XLINK), SameDocument::Keep);
        assert_eq!(same_document(SVG, "a", XLINK), SameDocument::Resolve);
        assert_eq!(same_document(ATOM, "link", ""), SameDocument::Resolve);
    }

    #[test]
    fn sitemap_and_opml_rows_apply_under_their_roots_only() {
        let sitemap = Root::of(SITEMAP, "urlset");
        assert_eq!(sitemap, Root::Sitemap);
        assert_eq!(Root::of(SITEMAP, "sitemapindex"), Root::Sitemap);
        assert_eq!(Root::of("", "urlset"), Root::Other);
        assert_eq!(Root::of("", "opml"), Root::Opml);
        assert!(content(SITEMAP, "loc", None, sitemap).is_some());
        assert!(content(SITEMAP_IMAGE, "loc", None, sitemap).is_some());
        assert!(content(SITEMAP_VIDEO, "player_loc", None, sitemap).is_some());
        assert!(content(SITEMAP_IMAGE, "loc", None, Root::Rss).is_none());
        assert!(content(SITEMAP_VIDEO, "title", None, sitemap).is_none());
        assert!(attribute(XHTML, "link", "", "href", sitemap).is_some());
        assert!(attribute("", "outline", "", "xmlUrl", Root::Opml).is_some());
        assert!(attribute("", "outline", "", "xmlUrl", Root::Rss).is_none());
        assert!(content("", "docs", None, Root::Opml).is_some());
        // `docs` in RSS is RSS's row, in another document no one's.
        assert_eq!(
            content("", "docs", None, Root::Rss).and_then(|r| r.root),
            Some(Root::Rss)
        );
        assert!(content("", "docs", None, Root::Other).is_none());
        assert!(content("", "link", None, Root::Opml).is_none());
        // Every row of an element in no namespace names its root.
        assert!(
            LINK_ROWS
                .iter()
                .all(|r| !r.namespace.is_empty() || r.root.is_some())
        );
    }
}
