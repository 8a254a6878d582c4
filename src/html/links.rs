//! Which attributes hold URLs: a table of (namespace, element, attribute,
//! syntax), not a long `match`.

use super::arena::Namespace;

/// How an attribute's value holds its URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// One URL.
    Url,
    /// URLs separated by ASCII white space.
    SpaceList,
    /// URLs separated by commas.
    CommaList,
    /// A `srcset`: candidates of a URL and descriptors.
    Srcset,
    /// A meta refresh `content`: a time, then maybe a URL.
    Refresh,
    /// CSS declarations (a `style` attribute).
    Css,
    /// A whole HTML document (`iframe srcdoc`).
    Srcdoc,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct LinkAttribute {
    /// The element's namespace.
    pub namespace: Namespace,
    /// The element's local name, or `*` for any element.
    pub element: &'static str,
    /// The attribute, as the tokenizer names it (`xlink:href` included).
    pub attribute: &'static str,
    /// How the value holds URLs.
    pub syntax: Syntax,
    /// Resolved against the element's own `codebase` (object, applet).
    pub codebase: bool,
    /// Only when another attribute has this value (ASCII case-insensitive).
    pub only_if: Option<(&'static str, &'static str)>,
}

const fn row(element: &'static str, attribute: &'static str, syntax: Syntax) -> LinkAttribute {
    LinkAttribute {
        namespace: Namespace::Html,
        element,
        attribute,
        syntax,
        codebase: false,
        only_if: None,
    }
}

const fn with_codebase(mut r: LinkAttribute) -> LinkAttribute {
    r.codebase = true;
    r
}

const fn only_if(
    mut r: LinkAttribute,
    attribute: &'static str,
    value: &'static str,
) -> LinkAttribute {
    r.only_if = Some((attribute, value));
    r
}

const fn svg(attribute: &'static str, syntax: Syntax) -> LinkAttribute {
    LinkAttribute {
        namespace: Namespace::Svg,
        element: "*",
        attribute,
        syntax,
        codebase: false,
        only_if: None,
    }
}

use Syntax::*;

/// Every URL-bearing attribute relink knows.
pub const LINK_ATTRIBUTES: &[LinkAttribute] = &[
    row("a", "href", Url),
    row("area", "href", Url),
    row("link", "href", Url),
    row("base", "href", Url),
    row("img", "src", Url),
    // The tree builder makes `<image>` an `img` (HTML "in body" insertion
    // mode), which browsers load; in SVG it stays `image`, with `href`.
    row("image", "src", Url),
    row("script", "src", Url),
    row("iframe", "src", Url),
    row("frame", "src", Url),
    row("embed", "src", Url),
    row("audio", "src", Url),
    row("video", "src", Url),
    row("source", "src", Url),
    row("track", "src", Url),
    row("input", "src", Url),
    row("form", "action", Url),
    row("button", "formaction", Url),
    row("input", "formaction", Url),
    row("blockquote", "cite", Url),
    row("q", "cite", Url),
    row("del", "cite", Url),
    row("ins", "cite", Url),
    with_codebase(row("object", "data", Url)),
    row("video", "poster", Url),
    row("html", "manifest", Url),
    row("body", "background", Url),
    row("table", "background", Url),
    row("td", "background", Url),
    row("th", "background", Url),
    row("img", "longdesc", Url),
    row("frame", "longdesc", Url),
    row("iframe", "longdesc", Url),
    row("img", "lowsrc", Url),
    row("img", "dynsrc", Url),
    row("*", "itemid", Url),
    with_codebase(row("object", "classid", Url)),
    row("object", "codebase", Url),
    with_codebase(row("applet", "code", Url)),
    row("applet", "codebase", Url),
    only_if(row("param", "value", Url), "valuetype", "ref"),
    row("a", "ping", SpaceList),
    row("area", "ping", SpaceList),
    with_codebase(row("object", "archive", SpaceList)),
    with_codebase(row("applet", "archive", CommaList)),
    row("head", "profile", SpaceList),
    row("img", "srcset", Srcset),
    row("source", "srcset", Srcset),
    row("link", "imagesrcset", Srcset),
    only_if(row("meta", "content", Refresh), "http-equiv", "refresh"),
    row("*", "style", Css),
    row("iframe", "srcdoc", Srcdoc),
    svg("href", Url),
    svg("xlink:href", Url),
    svg("style", Css),
];

/// The (element, attribute) pairs that load a resource into the page
/// (images, media, frames' content is not one), which take the resource
/// base (`--resource-base`) when one stands in for the retrieval URL.
/// Style attributes, whose `url()`s load resources, are found by their
/// syntax.
pub const RESOURCES: &[(&str, &str)] = &[
    ("img", "src"),
    ("image", "src"),
    ("img", "srcset"),
    ("img", "lowsrc"),
    ("img", "dynsrc"),
    ("source", "src"),
    ("source", "srcset"),
    ("link", "imagesrcset"),
    ("video", "src"),
    ("video", "poster"),
    ("audio", "src"),
    ("track", "src"),
    ("embed", "src"),
    ("input", "src"),
    ("body", "background"),
    ("table", "background"),
    ("td", "background"),
    ("th", "background"),
];

/// Whether a row's URLs load resources (see [`RESOURCES`]).
pub fn is_resource(row: &LinkAttribute) -> bool {
    row.syntax == Syntax::Css
        || RESOURCES
            .iter()
            .any(|&(e, a)| e == row.element && a == row.attribute)
}

/// The rows of each attribute name, built once: most attributes of a
/// document hold no URL, and are turned away by one hash lookup.
static BY_ATTRIBUTE: std::sync::LazyLock<
    std::collections::HashMap<&'static str, Vec<&'static LinkAttribute>, ShortNames>,
> = std::sync::LazyLock::new(|| {
    let mut map: std::collections::HashMap<_, Vec<_>, ShortNames> =
        std::collections::HashMap::default();
    for row in LINK_ATTRIBUTES {
        map.entry(row.attribute).or_default().push(row);
    }
    map
});

/// The hash of [`BY_ATTRIBUTE`]: FNV-1a, as the keys are a few dozen short
/// names known in advance, not input an attacker chooses (the default
/// SipHash costs more than the rest of a lookup).
type ShortNames = std::hash::BuildHasherDefault<Fnv>;

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// For each first letter of an attribute name in the table, a bit for
/// each length (up to 31) a name of the table has.
static LENGTHS_BY_FIRST: std::sync::LazyLock<[u32; 128]> = std::sync::LazyLock::new(|| {
    let mut lengths = [0u32; 128];
    for row in LINK_ATTRIBUTES {
        let first = row.attribute.as_bytes().first().copied().unwrap_or(0);
        lengths[usize::from(first & 0x7f)] |= 1 << row.attribute.len().min(31);
    }
    lengths
});

/// Whether an attribute named `raw` (as written, any case) may be in the
/// table: a test of its first letter and length that turns away most
/// names (`class`, `id`, `alt`, `data-*`) before any lowering or hashing.
pub fn may_hold_url(raw: &[u8]) -> bool {
    let Some(&first) = raw.first() else {
        return false;
    };
    if !first.is_ascii() || raw.len() > 31 {
        return false;
    }
    LENGTHS_BY_FIRST[usize::from(first.to_ascii_lowercase())] & (1 << raw.len()) != 0
}

/// The row for an attribute of an element, if it holds URLs.
pub fn lookup(
    namespace: Namespace,
    element: &str,
    attribute: &str,
) -> Option<&'static LinkAttribute> {
    BY_ATTRIBUTE
        .get(attribute)?
        .iter()
        .copied()
        .find(|r| r.namespace == namespace && (r.element == "*" || r.element == element))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_of_the_table_may_hold_a_url() {
        for row in LINK_ATTRIBUTES {
            assert!(may_hold_url(row.attribute.as_bytes()), "{}", row.attribute);
            assert!(may_hold_url(row.attribute.to_ascii_uppercase().as_bytes()));
        }
        for name in ["class", "id", "alt", "", "\u{e9}"] {
            assert!(!may_hold_url(name.as_bytes()), "{name}");
        }
    }

    #[test]
    fn looks_up_by_namespace_element_and_attribute() {
        assert_eq!(
            lookup(Namespace::Html, "a", "href").map(|r| r.syntax),
            Some(Url)
        );
        assert!(lookup(Namespace::Html, "div", "href").is_none());
        assert_eq!(
            lookup(Namespace::Html, "div", "style").map(|r| r.syntax),
            Some(Css)
        );
        assert!(lookup(Namespace::Svg, "use", "xlink:href").is_some());
        assert!(lookup(Namespace::Svg, "use", "src").is_none());
        assert!(lookup(Namespace::Html, "object", "data").is_some_and(|r| r.codebase));
        assert!(lookup(Namespace::Html, "image", "src").is_some());
        assert!(lookup(Namespace::Svg, "image", "src").is_none());
    }
}
