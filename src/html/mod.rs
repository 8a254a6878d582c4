//! HTML documents: the base, every link, and the rewrite.

pub mod arena;
pub mod charref;
mod document;
mod entities;
pub mod links;
pub mod page;
pub mod rewrite;
mod saved;
mod tag_sets;
pub mod tokenizer;
pub mod tracker;
pub mod tree;
