//! The command line: everything of the `relink` binary but `main`. None of
//! it is in the library, which the binary uses through its public API only.

pub mod batch;
