//! `gentable init` and `gentable infer` (placeholder).
use super::write::Report;
use std::path::Path;
/// Placeholder.
pub fn init(_dir: &Path) -> Report { Report::default() }
/// Placeholder.
pub fn command(_f: &Path, _s: Option<&str>) -> Report { Report::default() }
