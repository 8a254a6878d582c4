//! A saved page as plain text whose links still lead somewhere: relink makes
//! its links absolute, then the `html2text` crate renders it, each link a
//! numbered note (`[1]: URL`) at the end.
//! `cargo run --example plain_text -- page.html https://example.com/page.html`.
//! `cargo test --example plain_text` runs its test.

use std::process::ExitCode;

/// The page as text in `width` columns, its links made absolute against
/// `url`, the address it was retrieved from.
fn plain_text(page: &[u8], url: &str, width: usize) -> Result<String, String> {
    let absolute = relink::absolutize_html(page, url).map_err(|err| err.to_string())?;
    html2text::from_read(absolute.as_slice(), width).map_err(|err| err.to_string())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, url] = args.as_slice() else {
        eprintln!("usage: plain_text FILE URL");
        return ExitCode::from(2);
    };
    match std::fs::read(path).map_err(|err| err.to_string()) {
        Ok(page) => match plain_text(&page, url, 80) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("plain_text: {path}: {err}");
                ExitCode::from(1)
            }
        },
        Err(err) => {
            eprintln!("plain_text: {path}: {err}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::plain_text;

    const PAGE: &[u8] = br#"<!doctype html>
<title>Notes</title>
<p>Read <a href="../guide/">the guide</a>, the <a href=faq.html#install>FAQ</a>
and <a href="//mirror.example.org/notes.html">a mirror</a>; mail
<a href="mailto:team@example.com">the team</a>.
"#;

    /// The notes html2text writes at the end of the text: `[N]: URL`.
    fn notes(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|line| line.strip_prefix('[')?.split_once("]: "))
            .map(|(_, url)| url)
            .collect()
    }

    #[test]
    fn every_link_of_the_text_is_absolute() {
        let text = plain_text(PAGE, "https://example.com/docs/notes.html", 80).unwrap();
        let links = notes(&text);
        assert_eq!(
            links,
            [
                "https://example.com/guide/",
                "https://example.com/docs/faq.html#install",
                "https://mirror.example.org/notes.html",
                "mailto:team@example.com",
            ],
            "{text}"
        );
        for link in links {
            assert_eq!(
                relink::resolve("https://elsewhere.invalid/", link, relink::Rules::Rfc1808)
                    .unwrap(),
                link,
                "{link} is relative"
            );
        }
        // Without relink, html2text writes them as the page has them.
        let as_is = html2text::from_read(PAGE, 80).unwrap();
        assert!(notes(&as_is).contains(&"../guide/"), "{as_is}");
    }
}
