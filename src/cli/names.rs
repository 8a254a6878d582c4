//! How the command line names where a base came from, in every report.

use relink::{BaseSource, LinkRow};

/// Where a link's base came from, as the command line names it.
pub(crate) fn base_from(row: &LinkRow) -> String {
    row.link
        .base
        .as_ref()
        .map(|b| source_name(&b.source))
        .unwrap_or_else(|| "none".to_owned())
}

/// Where a base came from, as the command line names it: the library says
/// "the retrieval URL", the user gave `--retrieved-from`.
pub(crate) fn source_name(source: &BaseSource) -> String {
    source.option_name()
}
