//! The element sets of tree construction (WHATWG HTML §13.2.4.2, §13.2.6),
//! declared once as bits ([`classify`]), predicates, or patterns.

use html5ever::{LocalName, local_name};

/// Declares a set of local names as a pattern macro for `match` arms and `matches!`.
macro_rules! tag_set {
    ($(#[$doc:meta])* $name:ident = $first:tt $(| $rest:tt)*) => {
        $(#[$doc])*
        macro_rules! $name {
            () => {
                ::html5ever::local_name!($first) $(| ::html5ever::local_name!($rest))*
            };
        }
        pub(crate) use $name;
    };
}

tag_set!(
    /// `h1` to `h6`.
    heading = "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
);
tag_set!(
    /// The table sections: `tbody`, `tfoot`, `thead`.
    table_section = "tbody" | "tfoot" | "thead"
);
tag_set!(
    /// The table parts whose start tag closes a caption or a cell.
    table_part = "caption" | "col" | "colgroup" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr"
);
tag_set!(
    /// Elements whose start tag inserts a marker in the list of formatting elements.
    marker_inserting = "applet" | "marquee" | "object"
);
tag_set!(
    /// The list items whose start tags close each other: `li`, `dd`, `dt`.
    list_item = "li" | "dd" | "dt"
);
tag_set!(
    /// The formatting elements but `a` and `nobr`, whose start tags have rules of their own.
    formatting = "b" | "big" | "code" | "em" | "font" | "i" | "s" | "small" | "strike" | "strong" | "tt" | "u"
);
tag_set!(
    /// Start tags "in body", "after head" and "in template" process as "in head".
    in_head_start = "base"
        | "basefont"
        | "bgsound"
        | "link"
        | "meta"
        | "noframes"
        | "script"
        | "style"
        | "template"
        | "title"
);
tag_set!(
    /// End tags "in head" and "after head" treat as anything else.
    body_html_br = "body" | "html" | "br"
);
tag_set!(
    /// The SVG HTML integration points, lower case as the tokenizer gives them.
    svg_html_integration_point = "foreignobject" | "desc" | "title"
);
tag_set!(
    /// The MathML text integration points.
    mathml_text_integration_point = "mi" | "mo" | "mn" | "ms" | "mtext"
);

// What an element is to the tracker's rules, as bits: html5ever's tag sets
// (HTML elements), and what foreign elements are.
/// html5ever's `special_tag`.
pub(super) const SPECIAL: u32 = 1;
/// A boundary of the default scope (`html_default_scope`, and integration points).
pub(super) const SCOPE: u32 = 1 << 1;
/// Added to the default scope in list item scope: `ol`, `ul`.
pub(super) const LIST_SCOPE: u32 = 1 << 2;
/// Added to the default scope in button scope: `button`.
pub(super) const BUTTON_SCOPE: u32 = 1 << 3;
/// Table scope: `html`, `table`, `template`.
pub(super) const TABLE_SCOPE: u32 = 1 << 4;
/// `cursory_implied_end`.
pub(super) const IMPLIED: u32 = 1 << 5;
/// What `thorough_implied_end` adds.
pub(super) const THOROUGH: u32 = 1 << 6;
/// `h1` to `h6`.
pub(super) const HEADING: u32 = 1 << 7;
/// Where table text goes to table text mode: `table`, sections, `tr`.
pub(super) const TABLE_OUTER: u32 = 1 << 8;
/// `table_body_context`: `tbody`, `tfoot`, `thead`, `template`, `html`.
pub(super) const BODY_CONTEXT: u32 = 1 << 9;
/// `table_row_context`: `tr`, `template`, `html`.
pub(super) const ROW_CONTEXT: u32 = 1 << 10;
/// `td`, `th`.
pub(super) const CELL: u32 = 1 << 11;
/// An HTML `template`.
pub(super) const TEMPLATE: u32 = 1 << 12;
/// A MathML text integration point (`mi`, `mo`, `mn`, `ms`, `mtext`).
pub(super) const TEXT_IP: u32 = 1 << 13;
/// An SVG HTML integration point (`foreignObject`, `desc`, `title`).
pub(super) const SVG_IP: u32 = 1 << 14;
/// A MathML `annotation-xml`.
pub(super) const ANNOTATION: u32 = 1 << 15;
/// An `annotation-xml` whose `encoding` makes it an HTML integration point.
pub(super) const ANNOTATION_IP: u32 = 1 << 16;
/// An element on the list of active formatting elements.
pub(super) const FORMATTING: u32 = 1 << 17;
/// An element whose end tag as the current node in body does more than
/// pop it: `body`, `html`, `template`, `form`, `br`, the marker-inserting
/// and formatting elements.
pub(super) const END_OWN: u32 = 1 << 18;

/// Which in body rule takes a start tag first (WHATWG HTML §13.2.6.4.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BodyStart {
    /// The rest: the less common rules, and "any other start tag".
    Other,
    /// An element no in body rule names (`span`, custom ones): "any other start tag".
    Ordinary,
    /// The start tags in body processed by the rules of "in head".
    InHead,
    /// `address`, `div`, `p`, ...: close a `p` in button scope, insert.
    Block,
    /// `h1` to `h6`.
    Heading,
    /// `li`, `dd`, `dt`.
    ListItem,
    A,
    /// The formatting elements but `a` and `nobr`.
    Formatting,
    Nobr,
    /// `area`, `br`, `embed`, `img`, `image`, `keygen`, `wbr`, `input`.
    Void,
    /// `param`, `source`, `track`.
    ParamSourceTrack,
    Hr,
    Textarea,
    Xmp,
    /// `iframe`, `noembed`.
    IframeNoembed,
    Plaintext,
    Table,
    Form,
    Math,
    Svg,
}

/// What the tracker's rules read of an HTML element's name ([`facts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Facts {
    /// The tag sets it is in ([`classify`]), with [`END_OWN`].
    pub(super) sets: u32,
    /// The in body rule its start tag goes to.
    pub(super) start: BodyStart,
}

/// A name no rule names: no set, "any other start tag" and "any other end tag".
const NAMELESS: Facts = Facts {
    sets: 0,
    start: BodyStart::Ordinary,
};

/// The tag sets an HTML element of this name is in.
#[inline]
pub(super) fn classify(name: &LocalName) -> u32 {
    facts(name).sets
}

/// Every name [`LOOKUP`] holds: all that the `match`es know but the ordinary ones.
const NAMED: &[&str] = &[
    "applet",
    "marquee",
    "object",
    "select",
    "button",
    "ol",
    "ul",
    "caption",
    "colgroup",
    "li",
    "dd",
    "dt",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "html",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "tr",
    "td",
    "th",
    "template",
    "option",
    "optgroup",
    "rb",
    "rp",
    "rt",
    "rtc",
    "address",
    "area",
    "article",
    "aside",
    "base",
    "basefont",
    "bgsound",
    "blockquote",
    "body",
    "br",
    "center",
    "col",
    "details",
    "dir",
    "div",
    "dl",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "head",
    "header",
    "hgroup",
    "hr",
    "iframe",
    "img",
    "input",
    "isindex",
    "link",
    "listing",
    "main",
    "menu",
    "meta",
    "nav",
    "noembed",
    "noframes",
    "noscript",
    "param",
    "plaintext",
    "pre",
    "script",
    "section",
    "source",
    "style",
    "summary",
    "textarea",
    "title",
    "track",
    "wbr",
    "xmp",
    "dialog",
    "search",
    "a",
    "nobr",
    "b",
    "big",
    "code",
    "em",
    "font",
    "i",
    "s",
    "small",
    "strike",
    "strong",
    "tt",
    "u",
    "image",
    "keygen",
    "math",
    "svg",
];

/// The slots of [`LOOKUP`]: over four times its names, so most are in their first slot.
const SLOTS: usize = 1024;

// A look-up ends at an empty slot: the table must never fill.
const _: () = assert!(NAMED.len() * 4 <= SLOTS && SLOTS.is_power_of_two());

/// The [`Facts`] of each name of [`NAMED`] in an open-addressed hash table
/// on the atom's hash: a multiplication and mostly one comparison a tag,
/// where the `match`es it is built from branch unpredictably.
static LOOKUP: std::sync::LazyLock<[Option<(LocalName, Facts)>; SLOTS]> =
    std::sync::LazyLock::new(|| {
        let mut slots: [Option<(LocalName, Facts)>; SLOTS] = std::array::from_fn(|_| None);
        for name in NAMED {
            let name = LocalName::from(*name);
            let facts = Facts {
                sets: classify_names(&name),
                start: body_start_names(&name),
            };
            let mut at = slot(&name);
            while slots[at % SLOTS].is_some() {
                at += 1;
            }
            slots[at % SLOTS] = Some((name, facts));
        }
        slots
    });

/// The first slot of `name` in [`LOOKUP`], by Fibonacci hashing of its atom's hash.
#[inline]
fn slot(name: &LocalName) -> usize {
    // The top ten bits of the product: SLOTS is 2^10.
    (name.get_hash().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize
}

/// What the rules read of an HTML element's name.
#[inline]
pub(super) fn facts(name: &LocalName) -> Facts {
    let slots = &*LOOKUP;
    let mut at = slot(name);
    loop {
        match &slots[at % SLOTS] {
            Some((held, facts)) if held == name => return *facts,
            Some(_) => at += 1,
            None => return NAMELESS,
        }
    }
}

/// The in body rule of a start tag, as a `match` ([`LOOKUP`] is built from it).
fn body_start_names(name: &LocalName) -> BodyStart {
    match *name {
        local_name!("address")
        | local_name!("article")
        | local_name!("aside")
        | local_name!("blockquote")
        | local_name!("center")
        | local_name!("details")
        | local_name!("dialog")
        | local_name!("dir")
        | local_name!("div")
        | local_name!("dl")
        | local_name!("fieldset")
        | local_name!("figcaption")
        | local_name!("figure")
        | local_name!("footer")
        | local_name!("header")
        | local_name!("hgroup")
        | local_name!("main")
        | local_name!("nav")
        | local_name!("ol")
        | local_name!("p")
        | local_name!("search")
        | local_name!("section")
        | local_name!("summary")
        | local_name!("ul")
        | local_name!("menu")
        | local_name!("pre")
        | local_name!("listing") => BodyStart::Block,
        heading!() => BodyStart::Heading,
        list_item!() => BodyStart::ListItem,
        local_name!("a") => BodyStart::A,
        formatting!() => BodyStart::Formatting,
        local_name!("nobr") => BodyStart::Nobr,
        local_name!("area")
        | local_name!("br")
        | local_name!("embed")
        | local_name!("img")
        | local_name!("image")
        | local_name!("keygen")
        | local_name!("wbr")
        | local_name!("input") => BodyStart::Void,
        local_name!("param") | local_name!("source") | local_name!("track") => {
            BodyStart::ParamSourceTrack
        }
        local_name!("hr") => BodyStart::Hr,
        local_name!("textarea") => BodyStart::Textarea,
        local_name!("xmp") => BodyStart::Xmp,
        local_name!("iframe") | local_name!("noembed") => BodyStart::IframeNoembed,
        local_name!("plaintext") => BodyStart::Plaintext,
        local_name!("table") => BodyStart::Table,
        local_name!("form") => BodyStart::Form,
        local_name!("math") => BodyStart::Math,
        local_name!("svg") => BodyStart::Svg,
        in_head_start!() => BodyStart::InHead,
        local_name!("html")
        | local_name!("body")
        | local_name!("frameset")
        | local_name!("select")
        | local_name!("button")
        | marker_inserting!()
        | local_name!("option")
        | local_name!("optgroup")
        | local_name!("rb")
        | local_name!("rtc")
        | local_name!("rp")
        | local_name!("rt")
        | table_part!()
        | local_name!("frame")
        | local_name!("head") => BodyStart::Other,
        _ => BodyStart::Ordinary,
    }
}

/// The tag sets of an HTML element, as a `match` ([`LOOKUP`] is built from it).
fn classify_names(name: &LocalName) -> u32 {
    let sets = match *name {
        marker_inserting!() => SPECIAL | SCOPE,
        local_name!("select") => SPECIAL | SCOPE,
        local_name!("button") => SPECIAL | BUTTON_SCOPE,
        local_name!("ol") | local_name!("ul") => SPECIAL | LIST_SCOPE,
        local_name!("caption") => SPECIAL | SCOPE | THOROUGH,
        local_name!("colgroup") => SPECIAL | THOROUGH,
        list_item!() | local_name!("p") => SPECIAL | IMPLIED,
        heading!() => SPECIAL | HEADING,
        local_name!("html") => SPECIAL | SCOPE | TABLE_SCOPE | BODY_CONTEXT | ROW_CONTEXT,
        local_name!("table") => SPECIAL | SCOPE | TABLE_SCOPE | TABLE_OUTER,
        table_section!() => SPECIAL | THOROUGH | TABLE_OUTER | BODY_CONTEXT,
        local_name!("tr") => SPECIAL | THOROUGH | TABLE_OUTER | ROW_CONTEXT,
        local_name!("td") | local_name!("th") => SPECIAL | SCOPE | THOROUGH | CELL,
        local_name!("template") => {
            SPECIAL | SCOPE | TABLE_SCOPE | BODY_CONTEXT | ROW_CONTEXT | TEMPLATE
        }
        local_name!("option")
        | local_name!("optgroup")
        | local_name!("rb")
        | local_name!("rp")
        | local_name!("rt")
        | local_name!("rtc") => IMPLIED,
        _ if special_only(name) => SPECIAL,
        _ => 0,
    };
    let end_own = matches!(
        *name,
        local_name!("body")
            | local_name!("html")
            | local_name!("template")
            | local_name!("form")
            | local_name!("br")
            | marker_inserting!()
            | local_name!("a")
            | local_name!("nobr")
            | formatting!()
    );
    sets | if end_own { END_OWN } else { 0 }
}

/// The rest of html5ever's `special_tag`.
pub(super) fn special_only(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("address")
            | local_name!("area")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("blockquote")
            | local_name!("body")
            | local_name!("br")
            | local_name!("center")
            | local_name!("col")
            | local_name!("details")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("embed")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("form")
            | local_name!("frame")
            | local_name!("frameset")
            | local_name!("head")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("hr")
            | local_name!("iframe")
            | local_name!("img")
            | local_name!("input")
            | local_name!("isindex")
            | local_name!("link")
            | local_name!("listing")
            | local_name!("main")
            | local_name!("menu")
            | local_name!("meta")
            | local_name!("nav")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript")
            | local_name!("param")
            | local_name!("plaintext")
            | local_name!("pre")
            | local_name!("script")
            | local_name!("section")
            | local_name!("source")
            | local_name!("style")
            | local_name!("summary")
            | local_name!("textarea")
            | local_name!("title")
            | local_name!("track")
            | local_name!("wbr")
            | local_name!("xmp")
    )
}

/// Start tags that leave foreign content (and `font` with `color`, `face` or `size`).
pub(super) fn breaks_out(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("b")
            | local_name!("big")
            | local_name!("blockquote")
            | local_name!("body")
            | local_name!("br")
            | local_name!("center")
            | local_name!("code")
            | local_name!("dd")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("dt")
            | local_name!("em")
            | local_name!("embed")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("head")
            | local_name!("hr")
            | local_name!("i")
            | local_name!("img")
            | local_name!("li")
            | local_name!("listing")
            | local_name!("menu")
            | local_name!("meta")
            | local_name!("nobr")
            | local_name!("ol")
            | local_name!("p")
            | local_name!("pre")
            | local_name!("ruby")
            | local_name!("s")
            | local_name!("small")
            | local_name!("span")
            | local_name!("strong")
            | local_name!("strike")
            | local_name!("sub")
            | local_name!("sup")
            | local_name!("table")
            | local_name!("tt")
            | local_name!("u")
            | local_name!("ul")
            | local_name!("var")
    )
}

/// Whether a start tag in foreign content may be flattened (see
/// [`MAX_TREE_DEPTH`](super::arena::MAX_TREE_DEPTH)): not `svg`, `math`,
/// `script`, a text integration point or a tag that breaks out into HTML.
pub(super) fn flattenable_foreign(name: &LocalName) -> bool {
    !(breaks_out(name)
        || matches!(
            *name,
            svg_html_integration_point!()
                | mathml_text_integration_point!()
                | local_name!("svg")
                | local_name!("math")
                | local_name!("annotation-xml")
                | local_name!("script")
                | local_name!("font")
        ))
}

/// Whether a start tag may be flattened ([`MAX_TREE_DEPTH`](super::arena::MAX_TREE_DEPTH)).
pub(super) fn flattenable(name: &LocalName) -> bool {
    !matches!(
        &**name,
        "script"
            | "style"
            | "textarea"
            | "title"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "noscript"
            | "plaintext"
            | "template"
            | "svg"
            | "math"
            | "select"
            | "table"
            | "html"
            | "head"
            | "body"
            | "frameset"
            | "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "image"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "keygen"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_elements_have_no_flags_and_no_rule_of_their_own() {
        for name in [
            "span", "abbr", "bdi", "bdo", "cite", "data", "del", "dfn", "ins", "kbd", "label",
            "mark", "q", "samp", "sub", "sup", "time", "var", "x-y", "video", "picture",
        ] {
            let name = LocalName::from(name);
            assert_eq!(facts(&name).start, BodyStart::Ordinary, "{name}");
            assert_eq!(classify(&name), 0, "{name}");
            assert!(!special_only(&name), "{name}");
        }
        // Special ones no rule names are ordinary, with their sets.
        for name in ["noscript", "isindex"] {
            assert_eq!(
                facts(&LocalName::from(name)).start,
                BodyStart::Ordinary,
                "{name}"
            );
        }
        assert_eq!(classify(&LocalName::from("noscript")), SPECIAL);
        for name in [
            "a", "b", "code", "p", "li", "div", "table", "template", "svg", "select", "option",
            "rt", "script", "frameset", "td", "object", "head", "frame", "body",
        ] {
            assert_ne!(
                facts(&LocalName::from(name)).start,
                BodyStart::Ordinary,
                "{name}"
            );
        }
    }

    /// The table answers as the `match`es it is built from, for any name.
    #[test]
    fn the_lookup_table_answers_as_the_matches() {
        let others = "svg math ruby desc foreignobject mi mo mn ms mtext annotation-xml g path \
            rect circle use defs symbol text tspan mglyph malignmark video audio canvas \
            picture slot menuitem x-y my-element a-very-long-custom-element-name DIV Span \
            span abbr var";
        for name in NAMED.iter().copied().chain(others.split_whitespace()) {
            let name = LocalName::from(name);
            let expected = Facts {
                sets: classify_names(&name),
                start: body_start_names(&name),
            };
            assert_eq!(facts(&name), expected, "{name}");
        }
        for name in NAMED {
            let name = LocalName::from(*name);
            assert_ne!(facts(&name), NAMELESS, "{name} need not be held");
        }
    }

    #[test]
    fn foreign_content_keeps_integration_points_and_breakouts_unflattened() {
        let kept = "svg math foreignobject desc title annotation-xml mi mo mn ms mtext script b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var font";
        for name in kept.split(' ') {
            assert!(!flattenable_foreign(&LocalName::from(name)), "{name}");
        }
        for name in [
            "a",
            "g",
            "path",
            "rect",
            "mglyph",
            "malignmark",
            "annotation",
            "x-y",
        ] {
            assert!(flattenable_foreign(&LocalName::from(name)), "{name}");
        }
    }
}
