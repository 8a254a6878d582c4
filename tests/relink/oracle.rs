//! html5ever as the reference for relink's HTML: a token sink that
//! gathers tokens, and a tree comparison that says whether a rewritten
//! document changed only its URLs. Shared by the corpus tests
//! (`html_corpus.rs`), the tokenizer tests, the robustness properties
//! (`robust/props.rs`) and the fuzz targets (`fuzz/fuzz_targets/`, which
//! include this file by path), so it uses only the library and its own
//! dependencies.
//!
//! The comparison reads the link table and the splitters of lists
//! (`relink::html`, `relink::css`), to know which values may change, and
//! finds the document's base itself, independently of relink.

use std::cell::RefCell;
use std::ops::Range;

use html5ever::tendril::TendrilSink;
use html5ever::tokenizer::{Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::TreeBuilderOpts;
use html5ever::{Attribute, ParseOpts, QualName, local_name, ns, parse_document};
use markup5ever_rcdom::{Handle, NodeData, RcDom};
use relink::BaseUrl;
use relink::html::links::{self, Syntax};
use relink::html::tree::Namespace;

// ---------------------------------------------------------------- tokens

/// Gathers every token but parse errors.
#[derive(Default)]
pub struct Tokens(pub RefCell<Vec<Token>>);

impl TokenSink for Tokens {
    type Handle = ();
    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if !matches!(token, Token::ParseError(_)) {
            self.0.borrow_mut().push(token);
        }
        TokenSinkResult::Continue
    }
}

// ---------------------------------------------------------------- trees

/// Parses as relink does (scripting disabled).
pub fn tree(text: &str) -> RcDom {
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            scripting_enabled: false,
            ..TreeBuilderOpts::default()
        },
        ..ParseOpts::default()
    };
    parse_document(RcDom::default(), opts).one(text)
}

/// Children in tree order, template contents first for a template.
fn children(node: &Handle) -> Vec<Handle> {
    let mut out = Vec::new();
    if let NodeData::Element {
        template_contents, ..
    } = &node.data
        && let Some(contents) = template_contents.borrow().as_ref()
    {
        out.push(contents.clone());
    }
    out.extend(node.children.borrow().iter().cloned());
    out
}

fn is_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

/// What the URL Standard's basic URL parser strips at either end of a
/// URL: C0 controls and space.
fn is_c0_or_space(c: char) -> bool {
    c <= ' '
}

/// A URL as a browser reads it: its ends stripped, tabs and newlines
/// inside removed.
fn browser_read(url: &str) -> String {
    url.trim_matches(is_c0_or_space)
        .replace(['\t', '\n', '\r'], "")
}

/// The document's base, found independently of relink: the first HTML
/// base element with an href, outside template contents, in tree order,
/// resolved against `outer` under its rules. An empty, `data:` or
/// `javascript:` href, or one that gives no valid base, is ignored, and
/// the base is `outer`, as the base chain of the design says.
pub fn document_base(dom: &RcDom, outer: &BaseUrl) -> BaseUrl {
    let mut stack = vec![(dom.document.clone(), false)];
    while let Some((node, in_template)) = stack.pop() {
        if let NodeData::Element {
            name,
            attrs,
            template_contents,
            ..
        } = &node.data
        {
            if !in_template && name.ns == ns!(html) && name.local == local_name!("base") {
                let href = attrs
                    .borrow()
                    .iter()
                    .find(|a| a.name.ns == ns!() && a.name.local == local_name!("href"))
                    .map(|a| a.value.to_string());
                if let Some(href) = href {
                    let href = &*browser_read(&href);
                    let lower = href.to_ascii_lowercase();
                    if href.is_empty()
                        || lower.starts_with("data:")
                        || lower.starts_with("javascript:")
                    {
                        return outer.clone();
                    }
                    return outer
                        .resolve(href)
                        .ok()
                        .and_then(|r| BaseUrl::parse(&r, outer.rules()).ok())
                        .unwrap_or_else(|| outer.clone());
                }
            }
            if let Some(contents) = template_contents.borrow().as_ref() {
                stack.push((contents.clone(), true));
            }
        }
        for child in node.children.borrow().iter().rev() {
            stack.push((child.clone(), in_template));
        }
    }
    outer.clone()
}

/// How closely a changed value is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Every URL of a value (lists, `srcset`, `refresh`, CSS, the text of
    /// an HTML `style` element) is the resolution of the one it replaced,
    /// unless relative to an object's codebase, and the text between the
    /// URLs stays byte for byte.
    Exact,
    /// A single URL is the resolution of the old one, white space around
    /// it aside; a list or CSS value (the text of an HTML `style` element
    /// too) keeps its number of URLs. For any input: a base with white
    /// space in it, say, makes relink escape that white space in the URLs
    /// of a list (so the list stays whole), which is no plain resolution.
    Counted,
}

/// Walks both trees together and says what differs beyond what a rewrite
/// may change: the output must have the same elements, attribute names,
/// text, comments and doctype; a changed attribute must be a link of the
/// table, holding the resolution of its old value against the document's
/// base (found by [`document_base`] over `outer`; a `base` element's own
/// href against `outer`), as closely as `values` says; an `iframe srcdoc`
/// document keeps its own tree by the same rules, with this document's
/// base as its outer layer. Returns how many changed URLs were checked to
/// be resolutions.
pub fn compare(
    before: &RcDom,
    after: &RcDom,
    outer: &BaseUrl,
    values: Values,
) -> Result<usize, String> {
    let base = document_base(before, outer);
    let mut checked = 0;
    let mut stack = vec![(before.document.clone(), after.document.clone(), false)];
    while let Some((a, b, in_style)) = stack.pop() {
        match (&a.data, &b.data) {
            (
                NodeData::Element {
                    name: na,
                    attrs: aa,
                    ..
                },
                NodeData::Element {
                    name: nb,
                    attrs: ab,
                    ..
                },
            ) => {
                checked +=
                    compare_element((na, &aa.borrow()), (nb, &ab.borrow()), outer, &base, values)?;
            }
            (NodeData::Text { contents: ta }, NodeData::Text { contents: tb }) => {
                let (ta, tb) = (ta.borrow(), tb.borrow());
                if ta[..] != tb[..] {
                    if !in_style {
                        return Err(format!("text {:?} became {:?}", &ta[..], &tb[..]));
                    }
                    checked += check_value(Syntax::Css, &ta, &tb, &base, values, true)
                        .map_err(|e| format!("<style>: {e}"))?;
                }
            }
            (NodeData::Comment { contents: ca }, NodeData::Comment { contents: cb }) => {
                if ca != cb {
                    return Err(format!("comment {ca:?} became {cb:?}"));
                }
            }
            (
                NodeData::Doctype {
                    name: da,
                    public_id: pa,
                    system_id: sa,
                },
                NodeData::Doctype {
                    name: db,
                    public_id: pb,
                    system_id: sb,
                },
            ) => {
                if (da, pa, sa) != (db, pb, sb) {
                    return Err(format!("doctype {da:?} became {db:?}"));
                }
            }
            (NodeData::Document, NodeData::Document)
            | (NodeData::ProcessingInstruction { .. }, NodeData::ProcessingInstruction { .. }) => {}
            (x, y) => return Err(format!("node {x:?} became {y:?}")),
        }
        // Only an HTML `style` element's text is CSS that relink rewrites.
        let style = matches!(&a.data, NodeData::Element { name, .. }
            if name.ns == ns!(html) && name.local == local_name!("style"));
        let (ca, cb) = (children(&a), children(&b));
        if ca.len() != cb.len() {
            return Err(format!(
                "children changed in number ({} became {}) under {:?}",
                ca.len(),
                cb.len(),
                a.data
            ));
        }
        for (x, y) in ca.into_iter().zip(cb).rev() {
            stack.push((x, y, style));
        }
    }
    Ok(checked)
}

/// [`compare`] for an element of `before` and its counterpart in `after`,
/// each with its attributes (`base` is the document's base): how many
/// changed URLs were checked to be resolutions.
fn compare_element(
    (na, aa): (&QualName, &[Attribute]),
    (nb, ab): (&QualName, &[Attribute]),
    outer: &BaseUrl,
    base: &BaseUrl,
    values: Values,
) -> Result<usize, String> {
    if na != nb {
        return Err(format!("element {:?} became {:?}", na.local, nb.local));
    }
    if aa.len() != ab.len() {
        return Err(format!("<{}> attributes changed in number", na.local));
    }
    let namespace = match na.ns {
        ns!(html) => Namespace::Html,
        ns!(svg) => Namespace::Svg,
        _ => Namespace::Other,
    };
    let is_base = namespace == Namespace::Html && na.local == local_name!("base");
    let mut checked = 0;
    for (x, y) in aa.iter().zip(ab.iter()) {
        if x.name != y.name {
            return Err(format!(
                "<{}> attribute {:?} became {:?}",
                na.local, x.name, y.name
            ));
        }
        if x.value == y.value {
            continue;
        }
        // Attribute names as the tokenizer gave them.
        let attr = match &x.name.prefix {
            Some(prefix) => format!("{prefix}:{}", x.name.local),
            None => x.name.local.to_string(),
        };
        let Some(row) = links::lookup(namespace, &na.local, &attr) else {
            return Err(format!(
                "<{} {attr}> is no link but {:?} became {:?}",
                na.local, &*x.value, &*y.value
            ));
        };
        let against = if is_base && attr == "href" {
            outer
        } else {
            base
        };
        checked += if row.syntax == Syntax::Srcdoc {
            compare(&tree(&x.value), &tree(&y.value), base, values)
        } else {
            // A URL relative to an object's codebase is checked only for
            // what lies around it.
            check_value(
                row.syntax,
                &x.value,
                &y.value,
                against,
                values,
                !row.codebase,
            )
        }
        .map_err(|e| format!("<{} {attr}>: {e}", na.local))?;
    }
    Ok(checked)
}

/// The URLs of a value of `syntax`: their ranges, and the URL each holds.
fn urls_of(syntax: Syntax, value: &str) -> Vec<(Range<usize>, String)> {
    let trimmed = |r: Range<usize>| {
        let part = &value[r.clone()];
        let lead = part.len() - part.trim_start_matches(is_c0_or_space).len();
        let url = part.trim_matches(is_c0_or_space);
        (r.start + lead..r.start + lead + url.len(), url.to_owned())
    };
    let split = |separator: fn(char) -> bool| {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, c) in value.char_indices().chain([(value.len(), ' ')]) {
            if separator(c) || i == value.len() {
                if i > start {
                    out.push(trimmed(start..i));
                }
                start = i + c.len_utf8();
            }
        }
        out
    };
    match syntax {
        Syntax::Url => vec![trimmed(0..value.len())],
        Syntax::SpaceList => split(is_space),
        Syntax::CommaList => split(|c| c == ','),
        Syntax::Srcset => relink::srcset::urls(value)
            .into_iter()
            .map(trimmed)
            .collect(),
        Syntax::Refresh => relink::refresh::url(value)
            .into_iter()
            .map(trimmed)
            .collect(),
        Syntax::Css => relink::css::urls(value)
            .into_iter()
            .map(|u| (u.range, u.value.trim_matches(is_c0_or_space).to_owned()))
            .collect(),
        Syntax::Srcdoc => Vec::new(),
    }
}

/// Checks a changed value of `syntax` (not a `srcdoc`) as closely as
/// `values` says; `resolved`: whether each changed URL must be the
/// resolution against `base` of the one it replaced. Returns how many
/// URLs were checked to be resolutions.
fn check_value(
    syntax: Syntax,
    before: &str,
    after: &str,
    base: &BaseUrl,
    values: Values,
    resolved: bool,
) -> Result<usize, String> {
    if values == Values::Counted {
        if syntax == Syntax::Url && resolved {
            let want = base
                .resolve(&browser_read(before))
                .map_err(|e| e.to_string())?
                .into_owned();
            // The bytes a browser strips around the URL stay as written.
            if browser_read(after).trim_matches(is_space) != want.trim_matches(is_space) {
                return Err(format!("{before:?} became {after:?}, want {want:?}"));
            }
            return Ok(1);
        }
        let (n, m) = (urls_of(syntax, before).len(), urls_of(syntax, after).len());
        if n != m {
            return Err(format!("{before:?} became {after:?}: {n} urls became {m}"));
        }
        return Ok(0);
    }
    let (ub, ua) = (urls_of(syntax, before), urls_of(syntax, after));
    if ub.len() != ua.len() {
        return Err(format!(
            "{before:?} became {after:?}: {} urls became {}",
            ub.len(),
            ua.len()
        ));
    }
    let gaps = |value: &str, urls: &[(Range<usize>, String)]| {
        let mut gaps = Vec::new();
        let mut at = 0;
        for (r, _) in urls {
            gaps.push(value[at..r.start].to_owned());
            at = r.end;
        }
        gaps.push(value[at..].to_owned());
        gaps
    };
    if gaps(before, &ub) != gaps(after, &ua) {
        return Err(format!(
            "{before:?} became {after:?}: text between urls changed"
        ));
    }
    let mut checked = 0;
    for ((_, b), (_, a)) in ub.iter().zip(&ua) {
        if a == b || !resolved {
            continue;
        }
        let want = base
            .resolve(&browser_read(b))
            .map_err(|e| e.to_string())?
            .into_owned();
        let want = want.trim_matches(is_space);
        if a != want {
            return Err(format!(
                "{before:?} became {after:?}: {b:?} gave {a:?}, want {want:?}"
            ));
        }
        checked += 1;
    }
    Ok(checked)
}
