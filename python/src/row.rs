//! A link row as Python sees it: a dict with the keys and values of
//! `relink --list --format json`, which the crate's row gives, in its
//! order.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString};

use crate::engine::{Row, RowValue};

/// The keys of a row as Python strings, made once: every row has the
/// same keys in the same order.
static KEYS: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();

/// A link row as a dict; `file` is the path the input was read from.
pub fn row_dict<'py>(
    py: Python<'py>,
    file: Option<&str>,
    row: &Row,
) -> PyResult<Bound<'py, PyDict>> {
    let keys = KEYS.get_or_init(py, || {
        Row::KEYS
            .iter()
            .map(|key| PyString::intern(py, key).unbind())
            .collect()
    });
    let dict = PyDict::new(py);
    for ((_, value), key) in row.fields(file).into_iter().zip(keys) {
        let key = key.bind(py);
        match value {
            RowValue::Null => dict.set_item(key, py.None())?,
            RowValue::Number(n) => dict.set_item(key, n)?,
            RowValue::Bool(b) => dict.set_item(key, b)?,
            RowValue::Text(text) => dict.set_item(key, &*text)?,
        }
    }
    Ok(dict)
}
