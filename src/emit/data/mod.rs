//! **emit/data/** owns the data files every output's loader reads (docs/data-format.md): the JSON layout
//! with one row per line ([`json`]) and the schema hash of a table ([`layout`]). It may import the IR only.
//!
//! Data files are per table and carry, in their header, the table's name, the BLAKE3 of its canonical data
//! (`dataHash`) and its schema hash; the hashes that change with every data edit of any table (the content
//! hash of an export group) live in `content-hash.txt` and in one small hash file per language, never in
//! every data file or code module, so a one-cell edit changes one line of one data file.

pub mod binary;
pub mod json;
pub mod layout;

pub use layout::schema_hash;
