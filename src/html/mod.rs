//! HTML documents: the base, every link, and the rewrite.

pub mod charref;
pub mod lex;
pub mod tree;
