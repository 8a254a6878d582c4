//! The element sets of tree construction (WHATWG HTML §13.2.4.2, §13.2.6),
//! declared once as bits ([`classify`]), predicates, or patterns, over
//! [`TagId`]s.

use super::tokenizer::{TagId, tag};

/// Declares a set of local names as a pattern macro for `match` arms and `matches!`.
macro_rules! tag_set {
    ($(#[$doc:meta])* $name:ident = $first:tt $(| $rest:tt)*) => {
        $(#[$doc])*
        macro_rules! $name {
            () => {
                $crate::html::tokenizer::tag!($first) $(| $crate::html::tokenizer::tag!($rest))*
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
pub(super) fn classify(name: TagId) -> u32 {
    facts(name).sets
}

/// The [`Facts`] of each [`TagId`], by its number: an index a tag, where
/// the `match`es it is built from branch unpredictably.
static FACTS: [Facts; TagId::ALL.len()] = {
    let mut table = [NAMELESS; TagId::ALL.len()];
    let mut i = 0;
    while i < table.len() {
        let name = TagId::ALL[i];
        table[i] = Facts {
            sets: classify_names(name),
            start: body_start_names(name),
        };
        i += 1;
    }
    table
};

/// What the rules read of an HTML element's name.
#[inline]
pub(super) fn facts(name: TagId) -> Facts {
    FACTS[name as usize]
}

/// The in body rule of a start tag, as a `match` ([`LOOKUP`] is built from it).
const fn body_start_names(name: TagId) -> BodyStart {
    match name {
        tag!("address")
        | tag!("article")
        | tag!("aside")
        | tag!("blockquote")
        | tag!("center")
        | tag!("details")
        | tag!("dialog")
        | tag!("dir")
        | tag!("div")
        | tag!("dl")
        | tag!("fieldset")
        | tag!("figcaption")
        | tag!("figure")
        | tag!("footer")
        | tag!("header")
        | tag!("hgroup")
        | tag!("main")
        | tag!("nav")
        | tag!("ol")
        | tag!("p")
        | tag!("search")
        | tag!("section")
        | tag!("summary")
        | tag!("ul")
        | tag!("menu")
        | tag!("pre")
        | tag!("listing") => BodyStart::Block,
        heading!() => BodyStart::Heading,
        list_item!() => BodyStart::ListItem,
        tag!("a") => BodyStart::A,
        formatting!() => BodyStart::Formatting,
        tag!("nobr") => BodyStart::Nobr,
        tag!("area")
        | tag!("br")
        | tag!("embed")
        | tag!("img")
        | tag!("image")
        | tag!("keygen")
        | tag!("wbr")
        | tag!("input") => BodyStart::Void,
        tag!("param") | tag!("source") | tag!("track") => BodyStart::ParamSourceTrack,
        tag!("hr") => BodyStart::Hr,
        tag!("textarea") => BodyStart::Textarea,
        tag!("xmp") => BodyStart::Xmp,
        tag!("iframe") | tag!("noembed") => BodyStart::IframeNoembed,
        tag!("plaintext") => BodyStart::Plaintext,
        tag!("table") => BodyStart::Table,
        tag!("form") => BodyStart::Form,
        tag!("math") => BodyStart::Math,
        tag!("svg") => BodyStart::Svg,
        in_head_start!() => BodyStart::InHead,
        tag!("html")
        | tag!("body")
        | tag!("frameset")
        | tag!("select")
        | tag!("button")
        | marker_inserting!()
        | tag!("option")
        | tag!("optgroup")
        | tag!("rb")
        | tag!("rtc")
        | tag!("rp")
        | tag!("rt")
        | table_part!()
        | tag!("frame")
        | tag!("head") => BodyStart::Other,
        _ => BodyStart::Ordinary,
    }
}

/// The tag sets of an HTML element, as a `match` ([`LOOKUP`] is built from it).
const fn classify_names(name: TagId) -> u32 {
    let sets = match name {
        marker_inserting!() => SPECIAL | SCOPE,
        tag!("select") => SPECIAL | SCOPE,
        tag!("button") => SPECIAL | BUTTON_SCOPE,
        tag!("ol") | tag!("ul") => SPECIAL | LIST_SCOPE,
        tag!("caption") => SPECIAL | SCOPE | THOROUGH,
        tag!("colgroup") => SPECIAL | THOROUGH,
        list_item!() | tag!("p") => SPECIAL | IMPLIED,
        heading!() => SPECIAL | HEADING,
        tag!("html") => SPECIAL | SCOPE | TABLE_SCOPE | BODY_CONTEXT | ROW_CONTEXT,
        tag!("table") => SPECIAL | SCOPE | TABLE_SCOPE | TABLE_OUTER,
        table_section!() => SPECIAL | THOROUGH | TABLE_OUTER | BODY_CONTEXT,
        tag!("tr") => SPECIAL | THOROUGH | TABLE_OUTER | ROW_CONTEXT,
        tag!("td") | tag!("th") => SPECIAL | SCOPE | THOROUGH | CELL,
        tag!("template") => SPECIAL | SCOPE | TABLE_SCOPE | BODY_CONTEXT | ROW_CONTEXT | TEMPLATE,
        tag!("option") | tag!("optgroup") | tag!("rb") | tag!("rp") | tag!("rt") | tag!("rtc") => {
            IMPLIED
        }
        _ if special_only(name) => SPECIAL,
        _ => 0,
    };
    let end_own = matches!(
        name,
        tag!("body")
            | tag!("html")
            | tag!("template")
            | tag!("form")
            | tag!("br")
            | marker_inserting!()
            | tag!("a")
            | tag!("nobr")
            | formatting!()
    );
    sets | if end_own { END_OWN } else { 0 }
}

/// The rest of html5ever's `special_tag`.
pub(super) const fn special_only(name: TagId) -> bool {
    matches!(
        name,
        tag!("address")
            | tag!("area")
            | tag!("article")
            | tag!("aside")
            | tag!("base")
            | tag!("basefont")
            | tag!("bgsound")
            | tag!("blockquote")
            | tag!("body")
            | tag!("br")
            | tag!("center")
            | tag!("col")
            | tag!("details")
            | tag!("dir")
            | tag!("div")
            | tag!("dl")
            | tag!("embed")
            | tag!("fieldset")
            | tag!("figcaption")
            | tag!("figure")
            | tag!("footer")
            | tag!("form")
            | tag!("frame")
            | tag!("frameset")
            | tag!("head")
            | tag!("header")
            | tag!("hgroup")
            | tag!("hr")
            | tag!("iframe")
            | tag!("img")
            | tag!("input")
            | tag!("isindex")
            | tag!("link")
            | tag!("listing")
            | tag!("main")
            | tag!("menu")
            | tag!("meta")
            | tag!("nav")
            | tag!("noembed")
            | tag!("noframes")
            | tag!("noscript")
            | tag!("param")
            | tag!("plaintext")
            | tag!("pre")
            | tag!("script")
            | tag!("section")
            | tag!("source")
            | tag!("style")
            | tag!("summary")
            | tag!("textarea")
            | tag!("title")
            | tag!("track")
            | tag!("wbr")
            | tag!("xmp")
    )
}

/// Start tags that leave foreign content (and `font` with `color`, `face` or `size`).
pub(super) fn breaks_out(name: TagId) -> bool {
    matches!(
        name,
        tag!("b")
            | tag!("big")
            | tag!("blockquote")
            | tag!("body")
            | tag!("br")
            | tag!("center")
            | tag!("code")
            | tag!("dd")
            | tag!("div")
            | tag!("dl")
            | tag!("dt")
            | tag!("em")
            | tag!("embed")
            | tag!("h1")
            | tag!("h2")
            | tag!("h3")
            | tag!("h4")
            | tag!("h5")
            | tag!("h6")
            | tag!("head")
            | tag!("hr")
            | tag!("i")
            | tag!("img")
            | tag!("li")
            | tag!("listing")
            | tag!("menu")
            | tag!("meta")
            | tag!("nobr")
            | tag!("ol")
            | tag!("p")
            | tag!("pre")
            | tag!("ruby")
            | tag!("s")
            | tag!("small")
            | tag!("span")
            | tag!("strong")
            | tag!("strike")
            | tag!("sub")
            | tag!("sup")
            | tag!("table")
            | tag!("tt")
            | tag!("u")
            | tag!("ul")
            | tag!("var")
    )
}

/// Whether a start tag in foreign content may be flattened (see
/// [`MAX_TREE_DEPTH`](super::arena::MAX_TREE_DEPTH)): not `svg`, `math`,
/// `script`, a text integration point or a tag that breaks out into HTML.
pub(super) fn flattenable_foreign(name: TagId) -> bool {
    !(breaks_out(name)
        || matches!(
            name,
            svg_html_integration_point!()
                | mathml_text_integration_point!()
                | tag!("svg")
                | tag!("math")
                | tag!("annotation-xml")
                | tag!("script")
                | tag!("font")
        ))
}

/// Whether a start tag may be flattened ([`MAX_TREE_DEPTH`](super::arena::MAX_TREE_DEPTH)).
pub(super) fn flattenable(name: TagId) -> bool {
    !matches!(
        name,
        tag!("script")
            | tag!("style")
            | tag!("textarea")
            | tag!("title")
            | tag!("xmp")
            | tag!("iframe")
            | tag!("noembed")
            | tag!("noframes")
            | tag!("noscript")
            | tag!("plaintext")
            | tag!("template")
            | tag!("svg")
            | tag!("math")
            | tag!("select")
            | tag!("table")
            | tag!("html")
            | tag!("head")
            | tag!("body")
            | tag!("frameset")
            | tag!("area")
            | tag!("base")
            | tag!("br")
            | tag!("col")
            | tag!("embed")
            | tag!("hr")
            | tag!("img")
            | tag!("image")
            | tag!("input")
            | tag!("link")
            | tag!("meta")
            | tag!("param")
            | tag!("source")
            | tag!("track")
            | tag!("wbr")
            | tag!("keygen")
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
            let name = TagId::of(name);
            assert_eq!(facts(name).start, BodyStart::Ordinary, "{name:?}");
            assert_eq!(classify(name), 0, "{name:?}");
            assert!(!special_only(name), "{name:?}");
        }
        // Special ones no rule names are ordinary, with their sets.
        for name in ["noscript", "isindex"] {
            assert_eq!(facts(TagId::of(name)).start, BodyStart::Ordinary, "{name}");
        }
        assert_eq!(classify(tag!("noscript")), SPECIAL);
        for name in [
            "a", "b", "code", "p", "li", "div", "table", "template", "svg", "select", "option",
            "rt", "script", "frameset", "td", "object", "head", "frame", "body",
        ] {
            assert_ne!(facts(TagId::of(name)).start, BodyStart::Ordinary, "{name}");
        }
    }

    /// The table answers as the `match`es it is built from, for every id,
    /// and a name not listed has no facts.
    #[test]
    fn the_table_answers_as_the_matches() {
        for &id in TagId::ALL {
            let expected = Facts {
                sets: classify_names(id),
                start: body_start_names(id),
            };
            assert_eq!(facts(id), expected, "{id:?}");
        }
        for name in [
            "x-y",
            "my-element",
            "a-very-long-custom-element-name",
            "DIV",
            "menuitem",
        ] {
            assert_eq!(facts(TagId::of(name)), NAMELESS, "{name}");
        }
        assert_eq!(facts(tag!("table")).start, BodyStart::Table);
        assert_eq!(classify(tag!("td")), SPECIAL | SCOPE | THOROUGH | CELL);
    }

    #[test]
    fn foreign_content_keeps_integration_points_and_breakouts_unflattened() {
        let kept = "svg math foreignobject desc title annotation-xml mi mo mn ms mtext script b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var font";
        for name in kept.split(' ') {
            assert!(!flattenable_foreign(TagId::of(name)), "{name}");
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
            assert!(flattenable_foreign(TagId::of(name)), "{name}");
        }
    }
}
