//! The functions JavaScript calls: each takes its input as a string (the
//! document's text), a Buffer or Uint8Array (its bytes) or `{ path }` (a
//! file), calls the [`engine`](crate::engine), and gives back JavaScript
//! values; what could not be done is emitted as a `RelinkWarning`
//! (`process.emitWarning`), failures are thrown as `Error`s with the
//! command line's message.

use std::path::Path;

use napi::bindgen_prelude::{
    BufferSlice, Either, Either3, FnArgs, Function, JsObjectValue, Object, Unknown,
};
use napi::{Env, Error, JsString, Result};
use napi_derive::napi;

use crate::atomic;
use crate::engine::{self, Failure, Settings, Source};
use crate::pieces::Pieces;
use crate::rows::RowColumns;
use crate::text;

/// What `links` and `rewrite` take besides the input.
#[napi(object)]
#[derive(Debug, Default)]
pub struct Options {
    /// The URL the input was retrieved from, below the input's own bases
    /// (a BASE element, a message's headers); a web archive's records use
    /// their own.
    pub base: Option<String>,
    /// How references are resolved: RFC 1808 (the default), RFC 3986 or
    /// the WHATWG URL Standard.
    #[napi(ts_type = "'rfc1808' | 'rfc3986' | 'whatwg'")]
    pub rules: Option<String>,
    /// What the input is; found when not given, as the command line finds
    /// it (a file by its name, then its bytes).
    #[napi(
        ts_type = "'html' | 'css' | 'message' | 'mbox' | 'warc' | 'wacz' | 'xml' | 'markdown' | 'rst' | 'sitemap' | 'robots' | 'notebook' | 'epub'"
    )]
    pub kind: Option<String>,
    /// Reads the lazy-loading attributes (data-src, data-srcset,
    /// data-original, data-lazy-src, data-background) as links, as
    /// `relink --lazy` does.
    pub lazy: Option<bool>,
}

/// What `absolutize` takes besides the document and its URL.
#[napi(object)]
#[derive(Debug, Default)]
pub struct AbsolutizeOptions {
    /// How references are resolved: RFC 1808 (the default), RFC 3986 or
    /// the WHATWG URL Standard.
    #[napi(ts_type = "'rfc1808' | 'rfc3986' | 'whatwg'")]
    pub rules: Option<String>,
    /// Reads the lazy-loading attributes as links.
    pub lazy: Option<bool>,
}

/// A file to read, by its path.
#[napi(object)]
pub struct PathInput {
    pub path: String,
}

// The type `links` declares; its rows are made in JavaScript from
// `RowColumns`, never from this struct.
#[allow(dead_code)]
/// A link, with the keys and values of `relink --list --format json`, in
/// its order.
#[napi(object, use_nullable = true)]
#[derive(Debug, Default)]
pub struct LinkRow {
    /// The attribute (or the place) that holds the URL.
    pub attribute: String,
    /// The base the link resolves against; null when there is none.
    pub base: Option<String>,
    /// Where the base came from, as the command line's options name it.
    #[napi(js_name = "base_from")]
    pub base_from: String,
    /// Whether a rewrite changes the link.
    pub changed: bool,
    pub column: f64,
    /// The element (or the kind of place) that holds the URL.
    pub element: String,
    /// The path the input was read from; null for data.
    pub file: Option<String>,
    pub line: f64,
    /// The message's number in an mbox.
    pub message: Option<f64>,
    /// The URL as written.
    pub original: String,
    /// The part of a message.
    pub part: Option<String>,
    /// The record's number in a web archive.
    pub record: Option<f64>,
    #[napi(js_name = "record_id")]
    pub record_id: Option<String>,
    /// The URL made absolute; null when there is no base.
    pub resolved: Option<String>,
    #[napi(js_name = "target_uri")]
    pub target_uri: Option<String>,
}

/// The JavaScript error of a failure, its message the command line's
/// (naming `file`, if any); an I/O error's `code` is its errno's name
/// where Node's own errors have one.
fn js_error(failure: Failure, file: Option<&str>) -> Error<String> {
    let (code, message) = match failure {
        Failure::Value(message) => ("ERR_RELINK", message),
        Failure::Io(error) => (io_code(error.kind()), io_message(&error)),
    };
    let message = match file {
        Some(file) => format!("{file}: {message}"),
        None => message,
    };
    Error::new(code.to_owned(), message)
}

/// An I/O error's text as the command line writes it: lowercase, without
/// its errno.
fn io_message(error: &std::io::Error) -> String {
    let text = error.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) => &text[..at],
        None => &text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn io_code(kind: std::io::ErrorKind) -> &'static str {
    use std::io::ErrorKind::*;
    match kind {
        NotFound => "ENOENT",
        PermissionDenied => "EACCES",
        IsADirectory => "EISDIR",
        NotADirectory => "ENOTDIR",
        AlreadyExists => "EEXIST",
        StorageFull => "ENOSPC",
        _ => "ERR_RELINK_IO",
    }
}

/// Emits each warning as a `RelinkWarning`, through `process.emitWarning`.
fn warn_all(env: &Env, warnings: &[String]) -> Result<(), String> {
    emit_warnings(env, warnings).map_err(napi_error)
}

/// A failure of napi itself, with its status as the code.
fn napi_error(error: Error) -> Error<String> {
    Error::new(error.status.as_ref().to_owned(), error.reason)
}

fn emit_warnings(env: &Env, warnings: &[String]) -> Result<()> {
    if warnings.is_empty() {
        return Ok(());
    }
    let process: Object = env.get_global()?.get_named_property("process")?;
    let emit: Function<FnArgs<(&str, &str)>, ()> = process.get_named_property("emitWarning")?;
    for warning in warnings {
        emit.apply(process, (warning.as_str(), "RelinkWarning").into())?;
    }
    Ok(())
}

/// Resolves `reference` against the absolute URL `base`, by `rules`
/// ("rfc1808", the default, "rfc3986" or "whatwg"). Throws for a base
/// that is not absolute or a rules name not known.
#[napi(ts_args_type = "base: string, reference: string, rules?: 'rfc1808' | 'rfc3986' | 'whatwg'")]
pub fn resolve(base: String, reference: String, rules: Option<String>) -> Result<String, String> {
    engine::resolve(&base, &reference, rules.as_deref()).map_err(|failure| js_error(failure, None))
}

/// Makes the links of an HTML document absolute against `retrievedFrom`,
/// the URL it was retrieved from (a BASE element in it still wins): a
/// string gives a string, a Buffer or Uint8Array a Buffer. Everything but
/// the changed URLs is kept byte for byte; what cannot be done is emitted
/// as a RelinkWarning. Throws for a bad URL or rules name.
#[napi(
    ts_generic_types = "T extends string | Uint8Array",
    ts_args_type = "html: T, retrievedFrom: string, options?: AbsolutizeOptions",
    ts_return_type = "T extends string ? string : Buffer"
)]
pub fn absolutize<'env>(
    env: &'env Env,
    html: Either<JsString<'env>, BufferSlice>,
    retrieved_from: String,
    options: Option<AbsolutizeOptions>,
) -> Result<Either<JsString<'env>, BufferSlice<'env>>, String> {
    let options = options.unwrap_or_default();
    let settings = Settings {
        rules: options.rules.as_deref(),
        lazy: options.lazy.unwrap_or(false),
        ..Settings::default()
    };
    let text = match &html {
        Either::A(text) => Some(text::utf8(text).map_err(napi_error)?),
        Either::B(_) => None,
    };
    let bytes: &[u8] = match (&html, &text) {
        (_, Some((_, utf8))) => utf8,
        (Either::B(bytes), None) => bytes,
        (Either::A(_), None) => &[],
    };
    let source = Source::Bytes {
        data: bytes,
        text: text.is_some(),
    };
    let mut pieces = Pieces::new(bytes);
    let out = engine::absolutize(source, &retrieved_from, settings, &mut pieces)
        .map_err(|failure| js_error(failure, None))?;
    warn_all(env, &out.warnings)?;
    let not_utf8 = || {
        js_error(
            Failure::Value("the rewritten document is not UTF-8".into()),
            None,
        )
    };
    Ok(match (&html, &text, out.changed) {
        // A string is a value: unchanged, it is given back as it came.
        (Either::A(html), _, false) => Either::A(*html),
        (_, Some((units, _)), true) => Either::A(
            pieces
                .string(env, units)
                .map_err(napi_error)?
                .ok_or_else(not_utf8)?,
        ),
        // A Buffer Node owns, freed by its collector as soon as it is
        // garbage: a Buffer made over a Vec would be freed only by a
        // finalizer the event loop runs, which a loop of calls never
        // reaches, and each call would take fresh memory.
        (_, _, true) => Either::B(pieces.buffer(env).map_err(napi_error)?),
        (_, _, false) => Either::B(BufferSlice::copy_from(env, bytes).map_err(napi_error)?),
    })
}

/// Every link of a document or archive, with the keys and values of
/// `relink --list --format json`, in its order: `input` is the document's
/// text (a string), its bytes (a Buffer or Uint8Array) or a file
/// (`{ path }`): HTML, CSS, XML, Markdown, reStructuredText, a message or
/// MHTML file, an mbox, a web archive or a WACZ package, its kind found
/// when not given as the command line finds it. What cannot be done is
/// emitted as a RelinkWarning; an input that cannot be read, or an
/// archive kind given for what is no such archive, throws.
#[napi(
    ts_args_type = "input: string | Uint8Array | PathInput, options?: Options",
    ts_return_type = "Array<LinkRow>"
)]
pub fn links<'env>(
    env: &'env Env,
    input: Either3<String, BufferSlice, PathInput>,
    options: Option<Options>,
) -> Result<Unknown<'env>, String> {
    let options = options.unwrap_or_default();
    let settings = settings(&options);
    let (source, file) = match &input {
        Either3::A(text) => (
            Source::Bytes {
                data: text.as_bytes(),
                text: true,
            },
            None,
        ),
        Either3::B(bytes) => (
            Source::Bytes {
                data: &bytes[..],
                text: false,
            },
            None,
        ),
        Either3::C(PathInput { path }) => (Source::Path(Path::new(path)), Some(path.as_str())),
    };
    let mut rows = RowColumns::new(env).map_err(napi_error)?;
    let warnings = engine::links(source, settings, &mut |found| rows.push(found, file))
        .map_err(|failure| js_error(failure, file))?;
    warn_all(env, &warnings)?;
    rows.into_js(env).map_err(napi_error)
}

/// Rewrites the file at `path` into `dst` (written whole or not at all;
/// it may be `path` itself): any document relink reads, an mbox or a web
/// archive, read and written as a stream. Returns how many documents,
/// messages or records changed. What cannot be done is emitted as a
/// RelinkWarning; an input that cannot be read throws, and `dst` is left
/// as it was.
#[napi(ts_args_type = "path: string, dst: string, options?: Options")]
pub fn rewrite(
    env: &Env,
    path: String,
    dst: String,
    options: Option<Options>,
) -> Result<u32, String> {
    let options = options.unwrap_or_default();
    let settings = settings(&options);
    let (changed, warnings) = atomic::write_file(Path::new(&dst), |output| {
        engine::rewrite(Path::new(&path), settings, output).map_err(Side::Input)
    })
    .map_err(|side| match side {
        Side::Input(failure) => js_error(failure, Some(&path)),
        Side::Output(failure) => js_error(failure, Some(&dst)),
    })?;
    warn_all(env, &warnings)?;
    Ok(u32::try_from(changed).unwrap_or(u32::MAX))
}

/// A failure of a rewrite from a file to a file, and which one it is of.
enum Side {
    Input(Failure),
    Output(Failure),
}

impl From<Failure> for Side {
    fn from(failure: Failure) -> Self {
        Side::Output(failure)
    }
}

fn settings(options: &Options) -> Settings<'_> {
    Settings {
        base: options.base.as_deref(),
        rules: options.rules.as_deref(),
        kind: options.kind.as_deref(),
        lazy: options.lazy.unwrap_or(false),
    }
}
