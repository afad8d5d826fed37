//! C# emitter (placeholder until implemented).
use super::{EmitContext, Files};
/// Emit `csharp/` files.
pub fn emit(_ctx: &EmitContext) -> anyhow::Result<Files> {
    Ok(Files::new())
}
