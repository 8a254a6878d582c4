//! The native module `relink._relink`: relink's resolver and rewriters for
//! Python, built with PyO3 and maturin. The Python package `relink`
//! (`python/relink/`) exports its functions; its stub,
//! `relink/__init__.pyi`, describes them.
//!
//! - [`engine`]: every call into the relink crate, behind plain types;
//! - [`io`]: a path, data in memory or a Python file object, as input or
//!   output, taken one way by every function;
//! - [`stream`]: the links of an archive read on a background thread;
//! - [`atomic`]: files written whole or not at all;
//! - [`error`]: failures as Python exceptions, warnings as
//!   `RelinkWarning`;
//! - [`row`]: a link row as a dict;
//! - [`functions`]: the functions Python calls.
#![forbid(unsafe_code)]

mod atomic;
mod engine;
mod error;
mod functions;
mod io;
mod row;
mod stream;

use pyo3::pymodule;

/// Make the relative links of documents absolute, by RFC 1808.
#[pymodule(name = "_relink")]
mod relink_module {
    use pyo3::prelude::*;

    #[pymodule_export]
    use super::functions::{
        absolutize, links, mbox_links, resolve, rewrite, rewrite_mbox, rewrite_warc, warc_links,
        wat,
    };
    #[pymodule_export]
    use super::stream::LinkStream;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add(
            "RelinkWarning",
            m.py().get_type::<super::error::RelinkWarning>(),
        )?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        // Private: what the stub's `Kind` is checked against.
        m.add("KINDS", super::engine::kind_names())?;
        // Private: the keys of a row, in order, which the stub's `Link`
        // and the tests are checked against.
        m.add("ROW_KEYS", super::engine::Row::KEYS.to_vec())?;
        Ok(())
    }
}
