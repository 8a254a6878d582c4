//! Unit tests of the tokenizer: tokens and spans of small inputs.

use std::cell::RefCell;

use html5ever::tokenizer::{Token, TokenSink, TokenSinkResult};

use super::names::{name_key, short_name_key, tag_atom};
use super::*;

/// Gathers every token.
#[derive(Default)]
struct Tokens(RefCell<Vec<Token>>);

impl TokenSink for Tokens {
    type Handle = ();
    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if !matches!(token, Token::ParseError(_)) {
            self.0.borrow_mut().push(token);
        }
        TokenSinkResult::Continue
    }
}

fn run(input: &str) -> (Vec<Token>, SpanLog) {
    let log = SpanLog::default();
    let sink = tokenize(input, Tokens::default(), &log, Options::default());
    (sink.0.into_inner(), log)
}

#[test]
fn text_runs_are_one_token() {
    let (tokens, _) = run("a\r\nb&amp;c\rd");
    assert_eq!(
        tokens,
        vec![Token::CharacterTokens("a\nb&c\nd".into()), Token::EOFToken]
    );
}

#[test]
fn spans_of_a_tag_and_its_attributes() {
    let src = "x<a HREF='u&amp;v' b=c d e=\"\" b=dup>";
    let (tokens, log) = run(src);
    let Token::TagToken(tag) = &tokens[1] else {
        panic!("{tokens:?}")
    };
    assert_eq!(tag.attrs.len(), 4);
    assert!(tag.had_duplicate_attributes);
    assert_eq!(log.len(), 1);
    assert_eq!(&src[log.tag(0).span()], &src[1..]);
    let attrs = log.attrs(0);
    let shown: Vec<(&str, &str, Quote)> = attrs
        .iter()
        .map(|a| (&src[a.name()], &src[a.value()], a.quote(src)))
        .collect();
    assert_eq!(
        shown,
        vec![
            ("HREF", "u&amp;v", Quote::Single),
            ("b", "c", Quote::Unquoted),
            ("d", "", Quote::Valueless),
            ("e", "", Quote::Double),
        ]
    );
    assert_eq!(&*tag.attrs[0].value, "u&v");
    assert_eq!(&*tag.attrs[0].name.local, "href");
}

#[test]
fn a_missing_value_is_an_empty_unquoted_one_before_the_end() {
    let src = "<a href= >";
    let (_, log) = run(src);
    let attrs = log.attrs(0);
    assert_eq!(attrs[0].quote(src), Quote::Unquoted);
    assert_eq!(attrs[0].value(), 9..9);
    assert_eq!(log.tag(0).span(), 0..10);
}

#[test]
fn end_tag_in_rcdata_has_its_span() {
    let log = SpanLog::default();
    let src = "a</b></title >";
    let options = Options {
        initial_state: InitialState::Rcdata,
        last_start_tag: Some("title".into()),
        ..Options::default()
    };
    let tokens = tokenize(src, Tokens::default(), &log, options)
        .0
        .into_inner();
    assert_eq!(tokens[0], Token::CharacterTokens("a</b>".into()));
    assert_eq!(log.tag(0).span(), 5..src.len());
}

#[test]
fn a_bom_is_skipped_but_offsets_stay_in_the_input() {
    let (tokens, log) = run("\u{feff}<p>");
    assert_eq!(tokens.len(), 2);
    assert_eq!(log.tag(0).span(), 3..6);
}

/// Records the line of each tag token.
#[derive(Default)]
struct Lines(RefCell<Vec<u64>>);

impl TokenSink for Lines {
    type Handle = ();
    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<()> {
        if matches!(token, Token::TagToken(_)) {
            self.0.borrow_mut().push(line);
        }
        TokenSinkResult::Continue
    }
}

#[test]
fn lines_count_crlf_cr_and_lf_once_each() {
    let log = SpanLog::default();
    let src = "a\r\nb<p>\rc<br>\n<i>\r";
    let lines = tokenize(src, Lines::default(), &log, Options::default());
    assert_eq!(lines.0.into_inner(), vec![2, 3, 4]);
}

#[test]
fn current_names_the_tag_only_while_it_is_processed() {
    let (_, log) = run("<a><b>");
    assert_eq!(log.len(), 2);
    assert_eq!(log.current(), None);
}

/// Inputs repeating one construct many times: rescanning would take hours.
#[test]
fn repeated_constructs_take_linear_time() {
    const N: usize = 50_000;
    let cases = [
        ("<", "<"),
        ("</", "</"),
        ("&", "&"),
        ("&#", "&#"),
        ("&amp", "&amp"),
        ("&notit", "&notit"),
        ("&a", "&a"),
        ("<a b='", "&amp"),
        ("<a b=", "&notit"),
        ("<!--", "<!-"),
        ("<!--", "--!"),
        ("<!DOCTYPE", " a"),
        ("<textarea>", "</textare"),
        ("<script>", "<!--<script"),
        ("<script>", "<!--</scrip"),
        ("<svg><![CDATA[", "]]"),
        ("<a", " b"),
        ("<a", " b=c"),
        ("<", "a"),
        ("&", "a"),
    ];
    for (prefix, repeated) in cases {
        let src = format!("{prefix}{}", repeated.repeat(N));
        let options = Options {
            initial_state: if prefix.starts_with("<textarea") {
                InitialState::Rcdata
            } else {
                InitialState::Data
            },
            last_start_tag: Some("textarea".into()),
            ..Options::default()
        };
        let log = SpanLog::default();
        let tokens = tokenize(&src, Tokens::default(), &log, options)
            .0
            .into_inner();
        assert_eq!(tokens.last(), Some(&Token::EOFToken), "{prefix}{repeated}");
    }
}

#[test]
fn a_parse_error_on_a_reconsumed_character_at_the_end_is_no_panic() {
    // `<` after a quoted value starts a name; the missing white space's error is
    // reported with the position moved back over it.
    let src = "<a c='u'<a href=<m c='0'<";
    let (tokens, _) = run(src);
    assert_eq!(tokens.last(), Some(&Token::EOFToken));
    for end in 1..=src.len() {
        run(&src[..end]);
    }
}

#[test]
fn tag_names_map_to_their_ids_and_the_atoms_local_name_from_gives() {
    for (&id, &name) in TagId::ALL.iter().zip(TagId::NAMES).skip(1) {
        assert_eq!(TagId::of(name), id, "{name}");
        assert_eq!(id.atom(), LocalName::from(name), "{name}");
        assert_eq!(tag_atom(name), LocalName::from(name), "{name}");
    }
    for name in [
        "x-custom",
        "di",
        "divv",
        "divx",
        "custom-element",
        "blockquotes",
        "annotation",
        "\u{fffd}",
        "é",
        "",
    ] {
        assert_eq!(TagId::of(name), TagId::Other, "{name}");
        assert_eq!(tag_atom(name), LocalName::from(name), "{name}");
    }
    for name in [
        "", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "é",
    ] {
        assert_eq!(
            short_name_key(name.as_bytes()),
            name_key(name.as_bytes()),
            "{name}"
        );
    }
}

/// A tag as [`Lean`] records it: name, read attributes, whether it had a duplicate.
type LeanTag = (String, Vec<(String, String)>, bool);

/// A sink of relink's own, recording tags' names, read attributes and
/// duplicates, runs as white space or not, and errors and tags in order.
#[derive(Default)]
struct Lean {
    tags: RefCell<Vec<LeanTag>>,
    text: RefCell<Vec<bool>>,
    events: RefCell<Vec<String>>,
}

impl Sink for Lean {
    const HTML5EVER: bool = false;

    fn tag(&self, tag: TagToken<'_>, _line: u64) -> Feedback {
        assert!(tag.attrs.is_empty());
        let read = tag
            .read
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        self.events.borrow_mut().push(format!(
            "{:?} {} {} {}",
            tag.kind,
            tag.atom(),
            tag.self_closing,
            tag.had_duplicate_attributes
        ));
        self.tags
            .borrow_mut()
            .push((tag.atom().to_string(), read, tag.had_duplicate_attributes));
        Feedback::Continue
    }

    fn characters(&self, chars: Chars<'_>, _line: u64) {
        let Chars::StandIn { space, .. } = chars else {
            panic!("{chars:?}")
        };
        self.text.borrow_mut().push(space);
    }

    fn null(&self, _line: u64) {}

    fn comment(&self, text: &str, _line: u64) {
        assert_eq!(text, "");
    }

    fn doctype(&self, _doctype: Doctype, _line: u64) {}

    fn parse_error(&self, message: &'static str, _line: u64) {
        self.events.borrow_mut().push(message.to_owned());
    }

    fn eof(&self, _line: u64) {}

    fn end(&self) {}

    fn in_foreign_content(&self) -> bool {
        false
    }
}

/// Records the tags and parse errors of html5ever tokens as [`Lean`] does.
#[derive(Default)]
struct Events(RefCell<Vec<String>>);

impl TokenSink for Events {
    type Handle = ();
    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            Token::TagToken(tag) => self.0.borrow_mut().push(format!(
                "{:?} {} {} {}",
                tag.kind, tag.name, tag.self_closing, tag.had_duplicate_attributes
            )),
            Token::ParseError(message) => self.0.borrow_mut().push(message.into_owned()),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// The fast path through a tag gives the tags, spans and errors the states
/// give, cut anywhere.
#[test]
fn tags_read_at_once_are_what_the_states_read() {
    let inputs = [
        "<a href=\"u\" title='t' x=y z>t</a >",
        "<IMG SRC=a.png ALT=\"\"/><br/><br / ><p/x>",
        "<a b = \"1\"c='2'/d=3 e=>f</a b=1 / >",
        "<a b\0c=1 d=\"x\0y\" e=f\0g h\0>",
        "<t\0x a=\"&amp;\" b='&lt' c=&gt; d=&notit e=\"&#x41\">",
        "<a =b ==c \"d\"=e 'f' <g>",
        "<a\r\nb\r=\r\n\"c\"\rd=e\r\n>",
        "<a b=\"c\"d=\"e\" f='g'/h>",
        "<a href=x href=y HREF=z hReF>",
        "<a ab=1 ac=2 AB=3 ba=4 abc=5 ba cb=6 a\0=7 a\u{fffd}=8>",
        "<p id=\"é\" dïr=ltr>ü</p>",
        "<dIv cLaSs=x dAtA-X=y Z>style</sTyLe><style></style >",
        // Attributes on lines of their own, indented past eight spaces.
        "<div\n                    class=\"x\"         id=y        \n\t        >t</div          >",
        "<a                 \t        b         =         c                />",
    ];
    for input in inputs {
        for end in (0..=input.len()).filter(|&e| input.is_char_boundary(e)) {
            let text = &input[..end];
            let log = SpanLog::default();
            let options = Options {
                discard_bom: false,
                ..Options::default()
            };
            let states = tokenize(text, Events::default(), &log, options.clone());
            let states_log = log.into_parts();
            let log = SpanLog::default();
            let lean = tokenize_into(text, Lean::default(), &log, options);
            assert_eq!(lean.events.into_inner(), states.0.into_inner(), "{text:?}");
            assert_eq!(log.into_parts(), states_log, "{text:?}");
        }
    }
}

fn run_lean(input: &str) -> Lean {
    let log = SpanLog::default();
    let options = Options {
        attributes: Attributes::TreeBuilder,
        ..Options::default()
    };
    tokenize_into(input, Lean::default(), &log, options)
}

#[test]
fn a_sink_of_its_own_gets_the_read_attributes_decoded() {
    let sink = run_lean("<input HREF='u&amp;v' title=t Type=x&lt;> <!-- c --> <p>x</p>");
    let tags = sink.tags.into_inner();
    assert_eq!(
        tags[0],
        (
            "input".to_owned(),
            vec![("type".to_owned(), "x<".to_owned())],
            false
        )
    );
    assert_eq!(tags.len(), 3);
    assert_eq!(sink.text.into_inner(), vec![true, true, false]);
}

/// Each read attribute is read on the one element the tree builder reads
/// it on ([`READ_BY_TREE_BUILDER`]): an `href` on `a` or a `type` on
/// `script` is neither decoded nor kept.
#[test]
fn only_the_elements_the_tree_builder_asks_have_their_attributes_read() {
    let sink = run_lean(concat!(
        "<a href=u type=t><link href=l type=text/css><script type=module></script>",
        "<input type=hidden href=x><base type=y href=b><font color=c face=f size=1 href=z>",
        "<template shadowrootmode=open type=t></template>",
        "<math><annotation-xml encoding=text/html color=c></annotation-xml></math>",
        "<inputs type=x><basefont href=x><fonts size=1>",
    ));
    let read: Vec<(String, Vec<(String, String)>)> = sink
        .tags
        .into_inner()
        .into_iter()
        .filter(|(_, read, _)| !read.is_empty())
        .map(|(name, read, _)| (name, read))
        .collect();
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(
        read,
        vec![
            ("input".to_owned(), vec![pair("type", "hidden")]),
            ("base".to_owned(), vec![pair("href", "b")]),
            (
                "font".to_owned(),
                vec![pair("color", "c"), pair("face", "f"), pair("size", "1")]
            ),
            ("template".to_owned(), vec![pair("shadowrootmode", "open")]),
            (
                "annotation-xml".to_owned(),
                vec![pair("encoding", "text/html")]
            ),
        ]
    );
}

#[test]
fn duplicates_are_found_however_names_are_written() {
    // Upper case, and a NUL against the U+FFFD it becomes.
    let sink = run_lean("<base href=1 HREF=2 a\0=3 a\u{fffd}=4 b=5>");
    let tags = sink.tags.into_inner();
    assert_eq!(tags[0].1, vec![("href".to_owned(), "1".to_owned())]);
    assert!(tags[0].2);
    // Past the names scanned one by one.
    let many: String = (0..40).map(|i| format!(" n{i}=v")).collect();
    let sink = run_lean(&format!("<input{many} N3=x TYPE=y n39 type=z>"));
    let tags = sink.tags.into_inner();
    assert_eq!(tags[0].1, vec![("type".to_owned(), "y".to_owned())]);
    assert!(tags[0].2);
    let sink = run_lean(&format!("<input{many} type=z>"));
    assert!(!sink.tags.into_inner()[0].2);
    let sink = run_lean("<a b c>");
    assert!(!sink.tags.into_inner()[0].2);
}

/// Records what a sink of relink's own gets, without parse errors (so runs
/// go through [`Tokenizer::text_lt`] and the sparse search), with script
/// data after `script` and RAWTEXT after `style`; with `true`, a sink
/// that takes no text ([`Sink::text_matters`]).
#[derive(Default)]
struct Quiet(RefCell<Vec<String>>, bool);

impl Sink for Quiet {
    const HTML5EVER: bool = false;
    const PARSE_ERRORS: bool = false;

    fn tag(&self, tag: TagToken<'_>, _line: u64) -> Feedback {
        self.0
            .borrow_mut()
            .push(format!("{:?} {}", tag.kind, tag.atom()));
        match (tag.kind, tag.id) {
            (TagKind::StartTag, tag!("script")) => Feedback::Raw(RawKind::ScriptData),
            (TagKind::StartTag, tag!("style")) => Feedback::Raw(RawKind::Rawtext),
            _ => Feedback::Continue,
        }
    }

    fn characters(&self, chars: Chars<'_>, _line: u64) {
        self.0.borrow_mut().push(format!("{chars:?}"));
    }

    fn text_matters(&self) -> bool {
        !self.1
    }

    fn null(&self, _line: u64) {
        self.0.borrow_mut().push("null".to_owned());
    }

    fn comment(&self, _text: &str, _line: u64) {
        self.0.borrow_mut().push("comment".to_owned());
    }

    fn doctype(&self, _doctype: Doctype, _line: u64) {}

    fn parse_error(&self, message: &'static str, _line: u64) {
        panic!("{message}")
    }

    fn eof(&self, _line: u64) {
        self.0.borrow_mut().push("eof".to_owned());
    }

    fn end(&self) {}

    fn in_foreign_content(&self) -> bool {
        false
    }
}

/// Where the sink takes no text, the data state goes from `<` to `<`: the
/// same tags and comments, and no text, reference or NUL read between them.
#[test]
fn text_that_changes_nothing_is_passed_over() {
    let input = "a&amp;b\0c&#0;&lt<p>x\0y&notit;</p><!--\0-->z\0&#x0;<br>\0";
    let run = |deaf| {
        let log = SpanLog::default();
        let options = Options {
            attributes: Attributes::TreeBuilder,
            ..Options::default()
        };
        let sink = tokenize_into(input, Quiet(RefCell::default(), deaf), &log, options);
        sink.0.into_inner()
    };
    let heard = run(false);
    assert_eq!(heard.iter().filter(|e| *e == "null").count(), 4);
    let tokens: Vec<String> = heard
        .into_iter()
        .filter(|e| e != "null" && !e.starts_with("StandIn"))
        .collect();
    assert_eq!(run(true), tokens);
    assert_eq!(tokens.len(), 5, "{tokens:?}");
}

/// The tokens and, after each step, the position and state of a run of
/// `input` from `initial`, with the sparse search from the first stop
/// (`sparse`) or none.
fn steps(
    input: &str,
    initial: InitialState,
    named: bool,
    sparse: bool,
) -> (Vec<String>, Vec<(usize, states::State)>) {
    let log = SpanLog::default();
    let last = if initial == InitialState::Rawtext {
        "style"
    } else {
        "script"
    };
    let options = Options {
        initial_state: initial,
        last_start_tag: named.then(|| last.to_owned()),
        attributes: Attributes::TreeBuilder,
        ..Options::default()
    };
    let mut tokenizer = Tokenizer::new(input, Quiet::default(), &log, options);
    tokenizer.sparse_after = if sparse { 0 } else { usize::MAX };
    let mut trace = Vec::new();
    while let states::Flow::Go = tokenizer.step() {
        trace.push((tokenizer.pos, tokenizer.state));
    }
    trace.push((tokenizer.pos, tokenizer.state));
    (tokenizer.sink.0.into_inner(), trace)
}

/// A run of text longer than the lanes the sparse search tests at once.
const LONG: &str = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz";

proptest::proptest! {
    /// The sparse search ends each run where a stop at each `<` does, in runs
    /// longer than its lanes and in the last bytes.
    #[test]
    fn the_sparse_search_stops_where_each_lt_does(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "<", "</", "</script", "</scriptx", "</script>", "</SCRIPT ", "</style>",
                "</style/", "<!", "<!--", "-->", "-", "\0", "<\0", "<script>", "<style>",
                "a", "<a", "x<y", " ", "\u{e9}", "<p>", "</s", "</S", "</Sx", "</st",
                "</STYLE", "</scrip", "</a>", LONG,
            ]),
            0..40,
        ),
        initial in proptest::sample::select(vec![
            InitialState::ScriptData,
            InitialState::Rawtext,
            InitialState::Data,
        ]),
        named in proptest::bool::weighted(0.8),
        filler in 0usize..140,
    ) {
        // Text before the pieces, so they fall at every place in the lanes.
        let input = "x".repeat(filler) + &pieces.concat();
        let dense = steps(&input, initial, named, false);
        let sparse = steps(&input, initial, named, true);
        proptest::prop_assert_eq!(sparse, dense, "{:?}", input);
    }
}

/// The source of each tag `attributes` logs in `input`, through a sink of relink's own.
fn logged_tags(input: &str, attributes: Attributes) -> Vec<&str> {
    let log = SpanLog::default();
    let options = Options {
        attributes,
        ..Options::default()
    };
    tokenize_into(input, Lean::default(), &log, options);
    let (tags, _) = log.into_parts();
    tags.iter().map(|t| &input[t.span()]).collect()
}

/// A WAT file's parse logs the tags whose attributes its reader reads: a
/// link's (with every attribute, for its details), one it lists that the
/// link table does not rewrite, `html`'s language, `meta`'s names and
/// contents, `title` and `style`; not a tag of other attributes.
#[test]
fn a_wat_files_parse_logs_only_the_tags_its_reader_reads() {
    let input = concat!(
        "<HTML Lang=en><head><title>t</title><meta itemprop=i><meta Name=a content=b>",
        "<meta property=p><meta http-equiv=x><style>s</style></head>",
        "<body class=c><div id=d><p class=x title=y><a href=u rel=r class=k>a</a>",
        "<span data-href=v><button onclick=go()><td background=i><html xml:lang=fr>",
        "<span lang=de><input name=n><img alt=x src=y><b icon=i><i cdata=c><q data-uri=d></body>"
    );
    let wanted = [
        "<HTML Lang=en>",
        "<title>",
        "<meta Name=a content=b>",
        "<meta property=p>",
        "<meta http-equiv=x>",
        "<style>",
        "</style>",
        "<a href=u rel=r class=k>",
        "<span data-href=v>",
        "<button onclick=go()>",
        "<td background=i>",
        "<html xml:lang=fr>",
        "<img alt=x src=y>",
        "<b icon=i>",
        "<i cdata=c>",
        "<q data-uri=d>",
    ];
    assert_eq!(logged_tags(input, Attributes::TreeBuilderHead), wanted);
    // With names the user added to the link table, every start tag with
    // attributes (any may be one of them), and the head's.
    let any = logged_tags(input, Attributes::TreeBuilderHeadAnyAttribute);
    assert_eq!(any.len(), 22, "{any:?}");
    assert!(any.contains(&"<title>") && any.contains(&"<input name=n>"));
}
