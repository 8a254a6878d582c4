//! A link row as Python sees it: a dict with the keys of
//! `relink --list --format json`.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::engine::Row;

/// A link row as a dict; `file` is the path the input was read from.
pub fn row_dict<'py>(
    py: Python<'py>,
    file: Option<&Py<PyString>>,
    row: Row,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "file"), file.map(|f| f.bind(py)))?;
    dict.set_item(intern!(py, "message"), row.message)?;
    dict.set_item(intern!(py, "part"), row.part)?;
    let record = row.record.as_deref();
    dict.set_item(intern!(py, "record"), record.map(|r| r.number))?;
    dict.set_item(intern!(py, "record_id"), record.map(|r| &r.record_id))?;
    dict.set_item(intern!(py, "target_uri"), record.map(|r| &r.target_uri))?;
    dict.set_item(intern!(py, "line"), row.line)?;
    dict.set_item(intern!(py, "column"), row.column)?;
    dict.set_item(intern!(py, "element"), row.element)?;
    dict.set_item(intern!(py, "attribute"), row.attribute)?;
    dict.set_item(intern!(py, "original"), row.original)?;
    dict.set_item(intern!(py, "resolved"), row.resolved)?;
    dict.set_item(intern!(py, "base"), row.base)?;
    dict.set_item(intern!(py, "base_from"), row.base_from)?;
    dict.set_item(intern!(py, "changed"), row.changed)?;
    Ok(dict)
}
