//! Makes the links of an HTML file absolute, with relink's public API only:
//! `cargo run --example absolutize -- page.html https://example.com/page.html`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, retrieved_from] = args.as_slice() else {
        eprintln!("usage: absolutize FILE URL");
        return ExitCode::from(2);
    };
    let page = match std::fs::read(path) {
        Ok(page) => page,
        Err(err) => {
            eprintln!("absolutize: {path}: {err}");
            return ExitCode::from(1);
        }
    };
    match relink::absolutize_html(&page, retrieved_from) {
        Ok(out) => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(&out);
            // The resolver alone, as scripts use it.
            match relink::resolve(retrieved_from, "../", relink::Rules::Rfc1808) {
                Ok(parent) => eprintln!("absolutize: parent directory is {parent}"),
                Err(err) => eprintln!("absolutize: {err}"),
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("absolutize: {path}: {err}");
            ExitCode::from(1)
        }
    }
}
