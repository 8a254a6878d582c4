//! The front door's own tests.

use super::documents::rewrite_in_memory;
use super::input::*;
use super::*;
use crate::base::{Base, BaseSource, LayerStatus};
use crate::error::Error;
use crate::kind::Kind;
use crate::links::{LinkRow, WarningKind};
use crate::options::Options;
use crate::rewriter::Rewriter;
use crate::splice::Make;
use crate::url::BaseUrl;

mod run {
    use super::*;

    #[test]
    fn compressed_output_is_told_before_it_is_written() {
        let gzip = *b"\x1f\x8b\x08\x00";
        let zstd = *b"\x28\xb5\x2f\xfd\x00";
        assert!(writes_compressed(Kind::Warc, &gzip));
        assert!(writes_compressed(Kind::Warc, &zstd));
        assert!(writes_compressed(Kind::Html, &gzip));
        assert!(writes_compressed(Kind::Html, b"\xfd7zXZ\0"));
        assert!(writes_compressed(Kind::Wacz, b"PK\x03\x04"));
        assert!(!writes_compressed(Kind::Warc, b"WARC/1.1\r\n"));
        assert!(!writes_compressed(Kind::Html, b"<p>"));
        assert!(!writes_compressed(Kind::Mbox, b"From a@b"));
    }

    /// A document written from its splice is the document made whole,
    /// in every encoding (decoded in place, or into a copy whose offsets
    /// are found again in the bytes) and kind; its bytes reach the events
    /// only when kept.
    #[test]
    fn a_splice_writes_the_bytes_made_whole() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut inputs: Vec<(Kind, Vec<u8>)> = [
            "utf-16le.html",
            "utf-16be.html",
            "shift_jis.html",
            "windows-1252.html",
            "fallback-1252.html",
            "crlf.html",
            "empty-url.css",
        ]
        .iter()
        .map(|name| {
            let kind = if name.ends_with(".css") {
                Kind::Css
            } else {
                Kind::Html
            };
            (
                kind,
                std::fs::read(root.join("fixtures/html").join(name)).unwrap(),
            )
        })
        .collect();
        inputs.push((
            Kind::Html,
            b"\xef\xbb\xbf<a href=x>\xff\xfe<img src=y>".to_vec(),
        ));
        inputs.push((Kind::Markdown, b"[a](x) <a href=y>\n\n[d]: z\n".to_vec()));
        inputs.push((
            Kind::Xml,
            b"<feed xmlns='http://www.w3.org/2005/Atom'><link href='x'/></feed>".to_vec(),
        ));
        let rewriter = Rewriter::new().retrieved_from("http://h/a/");
        let url = BaseUrl::parse("http://h/a/", crate::url::Rules::Rfc1808).unwrap();
        let base = Base::new(url, BaseSource::RetrievedFrom);
        let options = Options::default().outer(Some(&base));
        for (kind, input) in &inputs {
            let report = rewrite_in_memory(*kind, input, &options, Make::Bytes).unwrap();
            let made = report.output.expect("changed");
            for keep in [false, true] {
                let mut out = Vec::new();
                let mut seen = None;
                let report = rewriter
                    .clone()
                    .kind(*kind)
                    .keep_new_bytes(keep)
                    .run(
                        Input::bytes(input),
                        Output::Always(&mut out),
                        &mut |event| {
                            if let Event::Done(done) = event {
                                seen = Some(done.output.map(<[u8]>::to_vec));
                            }
                            Ok(())
                        },
                    )
                    .unwrap();
                assert!(report.changed);
                assert_eq!(out, made, "{kind:?}");
                assert_eq!(seen, Some(keep.then(|| made.clone())), "{kind:?}");
            }
        }
    }

    #[test]
    fn an_error_on_start_stops_the_run_before_a_byte_is_written() {
        let mut out = Vec::new();
        let result = Rewriter::new().retrieved_from("http://a/").run(
            Input::bytes(b"<a href=x>x</a>"),
            Output::Always(&mut out),
            &mut |event| match event {
                Event::Start {
                    kind: Kind::Html, ..
                } => Err(io::Error::other("refused")),
                _ => Ok(()),
            },
        );
        assert!(matches!(result, Err(Error::Io(e)) if e.to_string() == "refused"));
        assert!(out.is_empty());
    }

    #[test]
    fn a_path_that_cannot_be_opened_is_named() {
        let missing = std::env::temp_dir().join("relink-no-such-file.html");
        let err = Rewriter::new()
            .run(Input::path(&missing), Output::Nowhere, &mut |_| Ok(()))
            .unwrap_err();
        assert!(matches!(&err, Error::Io(e) if e.kind() == io::ErrorKind::NotFound));
        assert!(
            err.to_string()
                .starts_with(&format!("{}: cannot read", missing.display()))
        );
    }

    #[test]
    fn a_guessed_kind_that_finds_nothing_says_so() {
        let rewriter = Rewriter::new().retrieved_from("http://a/");
        let guessed = |input: Input<'_>| {
            let report = rewriter
                .run(input, Output::Nowhere, &mut |_| Ok(()))
                .unwrap();
            report
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::KindGuessed)
        };
        // A style sheet or Markdown with nothing to tell its kind.
        assert!(guessed(Input::bytes(b"a { background: url(x.png) }")));
        assert!(guessed(Input::bytes(b"[a](x)").named("notes")));
        // Told by its kind, its name or its content; or links found.
        assert!(!guessed(Input::bytes(b"[a](x)").kind(Kind::Markdown)));
        assert!(!guessed(Input::bytes(b"[a](x)").named("notes.md")));
        assert!(!guessed(Input::bytes(b"<!doctype html><p>no links")));
        assert!(!guessed(Input::bytes(b"<p><a href=x>x</a>")));
    }

    #[test]
    fn a_document_written_when_changed_is_not_written_unchanged() {
        let rewriter = Rewriter::new().retrieved_from("http://a/");
        let mut out = Vec::new();
        let report = rewriter
            .run(
                Input::bytes(b"<a href=http://b/>b</a>"),
                Output::WhenChanged(&mut out),
                &mut |_| Ok(()),
            )
            .unwrap();
        assert!(!report.changed && out.is_empty());
        let report = rewriter
            .run(
                Input::bytes(b"<a href=x>x</a>"),
                Output::WhenChanged(&mut out),
                &mut |_| Ok(()),
            )
            .unwrap();
        assert!(report.changed);
        assert_eq!(out, b"<a href=http://a/x>x</a>");
    }
}

mod rewrite {
    use super::*;
    use std::io::Write;

    const MBOX: &[u8] = b"From a@b Thu Jan  1 00:00:00 1970\nContent-Type: text/html\n\n\
        <a href=x>x</a>\n\nFrom a@b Thu Jan  1 00:00:00 1970\n\
        Content-Base: http://b.example/m/\nContent-Type: text/html\n\n<a href=y>y</a>\n";

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    /// The rows of a run over `input`, written to `output`.
    fn run(
        rewriter: &Rewriter,
        input: Input<'_>,
        output: Output<'_>,
    ) -> Result<(Vec<LinkRow>, Report), Error> {
        let mut rows = Vec::new();
        let report = rewriter.run(input, output, &mut |event| {
            if let Event::Rows(found) = event {
                rows.extend_from_slice(found);
            }
            Ok(())
        })?;
        Ok((rows, report))
    }

    fn resolved(rows: &[LinkRow]) -> Vec<(Option<usize>, &str)> {
        rows.iter()
            .map(|r| (r.message, r.link.resolved.as_str()))
            .collect()
    }

    #[test]
    fn rows_of_html_are_the_links_of_rewrite() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/d/");
        let page = b"<a href=x>x</a><img src=../i.png>";
        let (rows, _) = run(&rewriter, Input::bytes(page), Output::Nowhere).unwrap();
        let links = rewriter.rewrite(page).unwrap();
        let expected: Vec<&str> = links.links().iter().map(|l| l.resolved.as_str()).collect();
        assert_eq!(resolved(&rows), [(None, expected[0]), (None, expected[1])]);
        assert!(rows.iter().all(|r| r.part.is_none() && r.record.is_none()));
    }

    /// Each message's base layers come with its own `Done`, so that none
    /// are kept for the end of a large mbox.
    #[test]
    fn each_unit_is_done_with_the_layers_of_its_base() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/");
        let mut seen = Vec::new();
        rewriter
            .run(Input::bytes(MBOX), Output::Nowhere, &mut |event| {
                if let Event::Done(done) = event {
                    let used = done.layers.iter().map(|(label, layers)| {
                        let used = layers.iter().find(|l| l.status == LayerStatus::Used);
                        (label.clone(), used.map(|l| l.source.clone()))
                    });
                    seen.push((format!("{:?}", done.unit), used.collect::<Vec<_>>()));
                }
                Ok(())
            })
            .unwrap();
        let message = |n: usize, source| {
            let label = format!("message {n}, the message (text/html)");
            (format!("Message({n})"), vec![(label, Some(source))])
        };
        assert_eq!(
            seen,
            [
                message(1, BaseSource::RetrievedFrom),
                message(
                    2,
                    BaseSource::Header {
                        name: "Content-Base".into(),
                        part: String::new()
                    }
                )
            ]
        );
    }

    #[test]
    fn an_mbox_gives_its_rows_gzipped_or_not() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/");
        let (plain, report) = run(&rewriter, Input::reader(MBOX), Output::Nowhere).unwrap();
        assert_eq!(report.messages, 2);
        assert_eq!(
            resolved(&plain),
            [
                (Some(1), "http://a.example/x"),
                (Some(2), "http://b.example/m/y")
            ]
        );
        let packed = gzip(MBOX);
        let (unpacked, _) = run(&rewriter, Input::reader(&packed[..]), Output::Nowhere).unwrap();
        assert_eq!(resolved(&unpacked), resolved(&plain));
        assert_eq!(
            resolved(rewriter.rewrite(&packed).unwrap().rows()),
            resolved(&plain)
        );
    }

    #[test]
    fn a_gzipped_mbox_is_rewritten_gzipped() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/");
        let mut plain = Vec::new();
        let (_, report) = run(&rewriter, Input::bytes(MBOX), Output::Always(&mut plain)).unwrap();
        assert!(report.changed);
        let mut packed = Vec::new();
        let mut numbers = Vec::new();
        rewriter
            .run(
                Input::bytes(&gzip(MBOX)),
                Output::Always(&mut packed),
                &mut |event| {
                    if let Event::Done(done) = event
                        && let crate::front::Unit::Message(n) = done.unit
                    {
                        numbers.push(n);
                    }
                    Ok(())
                },
            )
            .unwrap();
        assert_eq!(numbers, [1, 2]);
        assert!(packed.starts_with(b"\x1f\x8b"));
        let unpacked = crate::compressed::gunzip(&packed, 1 << 20).unwrap().bytes;
        assert_eq!(unpacked, plain);
        assert_eq!(plain, rewriter.rewrite(MBOX).unwrap().bytes());
    }

    #[test]
    fn rows_of_an_archive_given_another_kind_are_refused() {
        let warc = b"WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        let rewriter = Rewriter::new().kind(Kind::Html);
        assert!(matches!(
            run(&rewriter, Input::bytes(warc), Output::Nowhere),
            Err(Error::ArchiveAsDocument)
        ));
        let (rows, report) = run(&Rewriter::new(), Input::bytes(warc), Output::Nowhere).unwrap();
        assert!(rows.is_empty());
        assert_eq!((report.kind, report.records), (Some(Kind::Warc), 1));
    }

    #[test]
    fn a_zstd_document_is_left_as_it_is_with_a_warning() {
        let zstd = *b"\x28\xb5\x2f\xfd\0\0\0";
        let out = Rewriter::new()
            .retrieved_from("http://a/")
            .rewrite(&zstd)
            .unwrap();
        assert!(!out.changed());
        assert_eq!(out.bytes(), zstd);
        assert!(out.warnings()[0].message.contains("zstd"));
        let named = Rewriter::new().run(
            Input::bytes(&zstd).named("crawl.warc.zst"),
            Output::Nowhere,
            &mut |_| Ok(()),
        );
        assert!(matches!(named, Err(Error::CompressedArchive("zstd"))));
    }
}
