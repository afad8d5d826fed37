//! Rust emitter (placeholder until implemented).
use super::{EmitContext, Files};
/// Emit `rust/` files.
pub fn emit(_ctx: &EmitContext) -> anyhow::Result<Files> {
    Ok(Files::new())
}
