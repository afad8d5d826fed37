//! The frame words of the renderers (`error`, `help: `, `column C`, …) as data, one [`Words`] per
//! language: [`EN`] here, the Chinese in `zh.rs` ([`super::lang::Lang::words`]).

/// The words and phrases the renderers put around messages.
#[derive(Debug)]
pub struct Words {
    /// `error`, `warning` (before `[GT0201]`).
    pub error: &'static str,
    pub warning: &'static str,
    /// `help: ` (before a help text).
    pub help: &'static str,
    /// `cell text: `.
    pub cell_text: &'static str,
    /// `at ` (before a location when there is no source line).
    pub at: &'static str,
    /// `note: `.
    pub note: &'static str,
    /// `column {}` / `field {}` (the underline's label; `{}` is the letters / the quoted name).
    pub column: &'static str,
    pub field: &'static str,
    /// Between the label's parts: `, `.
    pub comma: &'static str,
}

pub const EN: Words = Words {
    error: "error",
    warning: "warning",
    help: "help: ",
    cell_text: "cell text: ",
    at: "at ",
    note: "note: ",
    column: "column {}",
    field: "field {}",
    comma: ", ",
};
