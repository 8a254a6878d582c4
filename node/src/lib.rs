//! The Node.js package `relink`: relink's resolver and rewriters for
//! JavaScript, built with napi-rs. `index.js` loads it and `index.d.ts`
//! describes it, both made by `napi build`.
//!
//! - [`engine`]: every call into the relink crate, behind plain types;
//! - [`atomic`]: files written whole or not at all;
//! - [`functions`]: the functions JavaScript calls, their inputs, rows,
//!   warnings and errors;
//! - [`pieces`]: `absolutize`'s output made from the pieces relink
//!   writes;
//! - [`rows`]: `links`' rows made in JavaScript from columns;
//! - [`text`]: a string's text to and from UTF-8.
// Denied, not forbidden: the code napi-rs generates allows it where it
// must, and no other code may.
#![deny(unsafe_code)]
// napi-rs registers the functions only outside tests: in a test build
// nothing would call them.
#![cfg_attr(test, allow(dead_code))]

mod atomic;
mod engine;
mod functions;
mod pieces;
mod rows;
mod text;
