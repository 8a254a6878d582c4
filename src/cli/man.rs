//! `relink man`: clap's sections of the manual page, then the ones in
//! `man.roff` beside this file (subcommands, examples, exit status).

use std::io::{self, Write};

use clap::CommandFactory;

use super::args::*;

/// The sections of the manual page clap does not write, in roff: the
/// subcommands (without pages of their own to refer to), examples and exit
/// statuses.
pub(crate) const MAN_SECTIONS: &str = include_str!("man.roff");

/// `relink man`: clap's sections, then [`MAN_SECTIONS`].
pub(crate) fn render_man(out: &mut dyn Write) -> io::Result<()> {
    let man = clap_mangen::Man::new(Cli::command());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    out.write_all(MAN_SECTIONS.as_bytes())?;
    man.render_version_section(out)
}
