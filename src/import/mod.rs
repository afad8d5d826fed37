//! **import/** owns what brings tables into gentable from elsewhere: `gentable import luban` ([`luban`]),
//! `gentable init` and `gentable infer` ([`infer`]), and writing their files ([`mod@write`]). It is beside the
//! pipeline: it may use the base modules, `read/` and `schema/`; only the command line (`cli`) imports it (tests/architecture.rs).

pub mod infer;
pub mod luban;
pub mod write;
