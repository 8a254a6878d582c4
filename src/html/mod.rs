//! HTML documents: the base, every link, and the rewrite.

pub mod arena;
pub mod charref;
pub mod links;
pub mod rewrite;
pub mod srcset;
pub mod tokenizer;
pub mod tracker;
pub mod tree;
