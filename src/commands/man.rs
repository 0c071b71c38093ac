//! `faultsift man [COMMAND]`: the top-level page, or one subcommand's page
//! (`faultsift-classify(1)`), with its options, exit status and environment.

use anyhow::{Result, anyhow};
use clap::CommandFactory;

use crate::cli::Cli;

/// The roff of the page for `command` (none: the top level).
pub fn page(command: Option<&str>) -> Result<Vec<u8>> {
    let mut cli = Cli::command();
    cli.build();
    let (cmd, title) = match command {
        None => (cli.clone(), "faultsift".to_string()),
        Some(name) => {
            let sub = cli.find_subcommand(name).ok_or_else(|| {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                anyhow!("no command `{name}` (commands: {})", names.join(", "))
            })?;
            (sub.clone().name(format!("faultsift-{name}")), format!("faultsift-{name}"))
        }
    };
    let man = clap_mangen::Man::new(cmd.clone()).title(title.to_uppercase());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut out)?;
    }
    if cmd.get_after_help().is_some() {
        man.render_extra_section(&mut out)?;
    }
    out.extend_from_slice(exit_status(command).as_bytes());
    out.extend_from_slice(ENVIRONMENT.as_bytes());
    out.extend_from_slice(see_also(&cli, command).as_bytes());
    man.render_version_section(&mut out)?;
    Ok(out)
}

fn exit_status(command: Option<&str>) -> String {
    let body = match command {
        Some("classify") | None => {
            "0 when every log was classified, whatever the verdicts; 2 on a usage or profile error, \
             when nothing is to be classified (a directory with no matching file), or when any log \
             could not be read (the others are still reported).\n.PP\n\
             With \\fB\\-q\\fR: nothing is printed; 0 when any log's action is pause or retry, 1 when none, \
             2 on error, as grep \\-q."
        }
        Some("test") => {
            "0 when every check passes, 1 when a check failed, 2 when a profile could not be loaded \
                         (the others are still checked) or on a usage error."
        }
        Some(_) => "0 on success, 2 on a usage or profile error.",
    };
    format!(
        ".SH \"EXIT STATUS\"\n{body}\n.PP\nErrors are one line on standard error, starting \\fBfaultsift:\\fR. \
         A reader that goes away (a broken pipe) is not an error.\n"
    )
}

const ENVIRONMENT: &str = r#".SH ENVIRONMENT
.TP
\fBFAULTSIFT_PROFILE\fR
The profile, when \fB\-\-profile\fR is not given.
.TP
\fBFAULTSIFT_PROFILE_PATH\fR
Directories searched for \fINAME\fR.toml after each \fB\-\-profile\-dir\fR, separated by colons.
.TP
\fBXDG_CONFIG_HOME\fR
Profiles are also looked up in $XDG_CONFIG_HOME/faultsift/profiles (default ~/.config/faultsift/profiles). The working directory is never searched implicitly.
.TP
\fBNO_COLOR\fR, \fBTERM\fR
Colour (\fB\-\-color auto\fR) is off when NO_COLOR is set and not empty, or TERM is dumb.
.TP
\fBGITHUB_STEP_SUMMARY\fR
With \fB\-\-format github\fR, the Markdown table is appended to this file (unset or empty: not written).
.TP
\fBFAULTSIFT_COMPLETE\fR
Set by the shell completion scripts of \fBfaultsift completions\fR.
"#;

fn see_also(cli: &clap::Command, command: Option<&str>) -> String {
    let mut pages: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name())
        .filter(|n| Some(*n) != command)
        .map(|n| format!("\\fBfaultsift\\-{n}\\fR(1)"))
        .collect();
    if command.is_some() {
        pages.insert(0, "\\fBfaultsift\\fR(1)".to_string());
    }
    format!(".SH \"SEE ALSO\"\n{}\n", pages.join(", "))
}
