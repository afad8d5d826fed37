//! JSON data files (docs/data-format.md §2): one table per file, one row per line, a header line with the
//! table's hashes.
//!
//! ```text
//! {"gentable":{"dataHash":"…","format":1,"rowCount":2,"schemaHash":"…","table":"PieceType"},"rows":[
//! {"Id":"Assassin",…},
//! {"Id":"Censor",…}
//! ]}
//! ```
//!
//! Every row line is the RFC 8785 (JCS) canonical JSON of one row, followed by `,` except the last. The file
//! is one JSON document (any JSON reader loads it), and with its `\n` characters removed it is the canonical
//! JSON of that document: JCS escapes every line terminator inside strings, and the members are in JCS
//! order. The table's **canonical bytes** — what the content hash and the conformance harness are defined
//! over — are `[`, the row lines without their line ends, `]`: exactly the rows array in canonical form
//! ([`canonical_bytes`]). `dataHash` is the BLAKE3 of those bytes.

use crate::ir::canonical;
use crate::ir::{Project, Table};

/// The `format` number of the JSON data-file layout this module writes.
pub const FORMAT: u64 = 1;

/// What the header line of a JSON data file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The table name.
    pub table: String,
    /// BLAKE3 (64 lowercase hex digits) of the table's canonical bytes.
    pub data_hash: String,
    /// The table's schema hash ([`super::layout::schema_hash`]).
    pub schema_hash: String,
    /// The number of rows (row lines).
    pub row_count: u64,
    /// The layout version ([`FORMAT`]).
    pub format: u64,
}

/// The data file of `table` whose schema hash is `schema_hash`, and the BLAKE3 digest of its canonical
/// bytes (the `dataHash` it carries): [`render_parts`] joined.
pub fn render(project: &Project, table: &Table, schema_hash: &str) -> (String, [u8; 32]) {
    let (parts, digest) = render_parts(project, table, schema_hash);
    (parts.concat(), digest)
}

/// The data file of `table` as consecutive parts (the header line, the row lines in chunks, the closing
/// line), never joined, so a big table's file is in memory once; and the BLAKE3 digest of its canonical
/// bytes (the `dataHash` it carries). A table of more than [`canonical::CHUNK_ROWS`] rows is rendered in
/// chunks on all cores (rayon), in order.
pub fn render_parts(
    project: &Project,
    table: &Table,
    schema_hash: &str,
) -> (Vec<String>, [u8; 32]) {
    use rayon::prelude::*;
    let (mut head, hash_at) = head(table, schema_hash);
    let order = canonical::jcs_order(&table.fields);
    let chunk = |rows: &[crate::ir::Row]| row_lines(project, table, &order, rows);
    let mut parts: Vec<String> = if table.rows.len() > canonical::CHUNK_ROWS {
        table
            .rows
            .par_chunks(canonical::CHUNK_ROWS)
            .map(chunk)
            .collect()
    } else {
        vec![chunk(&table.rows)]
    };
    parts.retain(|p| !p.is_empty());
    // The last row has no comma.
    if let Some(last) = parts.last_mut() {
        last_line(last);
    }
    let mut h = blake3::Hasher::new();
    h.update(b"[");
    let mut scratch = vec![];
    for part in &parts {
        hash_lines(&mut h, part, &mut scratch);
    }
    h.update(b"]");
    let digest = *h.finalize().as_bytes();
    let hex = blake3::Hash::from_bytes(digest).to_hex();
    head.replace_range(hash_at..hash_at + 64, hex.as_str());
    parts.insert(0, head);
    parts.push(TAIL.to_string());
    (parts, digest)
}

/// Rows per batch of [`render_streamed`]: each batch is rendered in chunks of [`canonical::CHUNK_ROWS`] on
/// all cores and handed over before the next one starts.
pub const BATCH_ROWS: usize = 8 * canonical::CHUNK_ROWS;

/// The data file of `table`, byte for byte what [`render_parts`] renders, handed to `out` part by part in
/// order and never whole in memory (a big table's file, issue 18): the header line with 64 zeros where its
/// `dataHash` goes, the row lines in batches of [`BATCH_ROWS`], the closing line. Returns the offset of
/// those zeros in the file (the caller writes the hash there: it is known only after the last row) and the
/// BLAKE3 digest of the canonical bytes (the `dataHash`).
pub fn render_streamed(
    project: &Project,
    table: &Table,
    schema_hash: &str,
    out: &mut dyn FnMut(&[u8]),
) -> (usize, [u8; 32]) {
    use rayon::prelude::*;
    let (head, hash_at) = head(table, schema_hash);
    out(head.as_bytes());
    let order = canonical::jcs_order(&table.fields);
    let mut h = blake3::Hasher::new();
    h.update(b"[");
    let mut scratch = vec![];
    let batches = table.rows.len().div_ceil(BATCH_ROWS);
    for (b, batch) in table.rows.chunks(BATCH_ROWS).enumerate() {
        let mut parts: Vec<String> = batch
            .par_chunks(canonical::CHUNK_ROWS)
            .map(|rows| row_lines(project, table, &order, rows))
            .collect();
        if b + 1 == batches {
            // The last row has no comma.
            if let Some(last) = parts.iter_mut().rev().find(|p| !p.is_empty()) {
                last_line(last);
            }
        }
        for part in &parts {
            hash_lines(&mut h, part, &mut scratch);
            out(part.as_bytes());
        }
    }
    h.update(b"]");
    out(TAIL.as_bytes());
    (hash_at, *h.finalize().as_bytes())
}

/// The closing line of a data file.
const TAIL: &str = "]}\n";

/// The header line of `table`'s data file with 64 zeros where its `dataHash` goes, and their offset.
fn head(table: &Table, schema_hash: &str) -> (String, usize) {
    let mut head = String::new();
    head.push_str("{\"gentable\":{\"dataHash\":\"");
    let hash_at = head.len();
    head.push_str(&"0".repeat(64));
    head.push_str(&format!(
        "\",\"format\":{FORMAT},\"rowCount\":{},\"schemaHash\":\"{schema_hash}\",\"table\":",
        table.rows.len()
    ));
    canonical::write_string(&mut head, &table.name);
    head.push_str("},\"rows\":[\n");
    (head, hash_at)
}

/// The lines of `rows`, each a row's canonical object followed by `,` and a line end.
fn row_lines(project: &Project, table: &Table, order: &[usize], rows: &[crate::ir::Row]) -> String {
    let mut s = String::with_capacity(64 * rows.len());
    for row in rows {
        canonical::write_object_in(&mut s, project, &table.fields, order, &row.values);
        s.push_str(",\n");
    }
    s
}

/// Drops the comma of the last line of `part` (the file's last row).
fn last_line(part: &mut String) {
    part.truncate(part.len() - 2);
    part.push('\n');
}

/// Feeds the canonical bytes of the row lines in `part` (whole lines, each ending in `\n`) to `h`: the
/// lines without their line ends, so that `[`, the lines, `]` hash as the canonical array without the
/// whole array being built (one part at a time is joined in `scratch`). The lines are joined in `scratch` first and hashed in one call: BLAKE3 hashes several 1 KiB chunks
/// at once (AVX2) only when it is given them together; fed line by line (a few hundred bytes each), it
/// compressed one block at a time (5 % of csv-1m's samples; issue 18).
fn hash_lines(h: &mut blake3::Hasher, part: &str, scratch: &mut Vec<u8>) {
    scratch.clear();
    for line in part.split_terminator('\n') {
        scratch.extend_from_slice(line.as_bytes());
    }
    h.update(scratch);
}

/// The header of a JSON data file: its first line, read without looking at the rows; `Err` says why `text`
/// does not start like a data file of this layout.
pub fn header(text: &str) -> Result<Header, String> {
    let first = text.split('\n').next().unwrap_or_default();
    let doc: serde_json::Value = serde_json::from_str(&format!("{first}]}}"))
        .map_err(|e| format!("line 1 is not a data file header: {e}"))?;
    let h = &doc["gentable"];
    let text_of = |k: &str| {
        h[k].as_str()
            .map(str::to_string)
            .ok_or(format!("line 1: gentable.{k} is not a string"))
    };
    let header = Header {
        table: text_of("table")?,
        data_hash: text_of("dataHash")?,
        schema_hash: text_of("schemaHash")?,
        row_count: h["rowCount"]
            .as_u64()
            .ok_or("line 1: gentable.rowCount is not a count")?,
        format: h["format"]
            .as_u64()
            .ok_or("line 1: gentable.format is not a number")?,
    };
    if header.format != FORMAT {
        return Err(format!(
            "line 1: format {} (this gentable reads format {FORMAT})",
            header.format
        ));
    }
    Ok(header)
}

/// The header and the canonical bytes of a JSON data file, or why `text` is not one written in this
/// layout (the first line that breaks it, or rows that do not hash to the header's `dataHash`).
pub fn parse(text: &str) -> Result<(Header, String), String> {
    let Some(body) = text.strip_suffix("]}\n") else {
        return Err("the file does not end with the line \"]}\"".into());
    };
    let (_, rows) = body.split_once('\n').ok_or("the file has no header line")?;
    let header = header(text)?;
    let lines: Vec<&str> = rows.split_terminator('\n').collect();
    if rows.contains('\n') && !rows.ends_with('\n') || lines.len() as u64 != header.row_count {
        return Err(format!(
            "{} row lines, but the header says rowCount {}",
            lines.len(),
            header.row_count
        ));
    }
    let mut canonical = String::with_capacity(rows.len() + 2);
    canonical.push('[');
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        if !last && !line.ends_with(',') || last && line.ends_with(',') {
            return Err(format!(
                "line {}: a row line ends with ',' unless it is the last",
                i + 2
            ));
        }
        canonical.push_str(line);
    }
    canonical.push(']');
    if blake3::hash(canonical.as_bytes()).to_hex().as_str() != header.data_hash {
        return Err(format!(
            "the rows do not hash to the header's dataHash {}",
            header.data_hash
        ));
    }
    Ok((header, canonical))
}

/// The canonical bytes of a JSON data file (see the module docs); `Err` as [`parse`].
pub fn canonical_bytes(text: &str) -> Result<String, String> {
    parse(text).map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Field, IntWidth, Row, TableMode, Type, Value};

    fn table(rows: Vec<Vec<Value>>) -> Table {
        let fields = vec![
            Field::new("b", Type::Int(IntWidth::U8)),
            Field::new("a", Type::String),
        ];
        Table {
            rows: rows.into_iter().map(Row::new).collect(),
            ..Table::new("T\"x", TableMode::List, fields)
        }
    }

    #[test]
    fn one_row_per_line_and_canonical_bytes_are_the_old_array() {
        let p = Project::default();
        let t = table(vec![
            vec![Value::Int(1), Value::Str("line\nbreak，。「」".into())],
            vec![Value::Int(2), Value::Str("\u{2028}".into())],
        ]);
        let (text, digest) = render(&p, &t, &"5".repeat(64));
        let canonical = canonical::table_json(&p, &t);
        assert_eq!(
            text,
            format!(
                "{{\"gentable\":{{\"dataHash\":\"{}\",\"format\":1,\"rowCount\":2,\"schemaHash\":\"{}\",\"table\":\"T\\\"x\"}},\"rows\":[\n{{\"a\":\"line\\nbreak，。「」\",\"b\":1}},\n{{\"a\":\"\u{2028}\",\"b\":2}}\n]}}\n",
                blake3::hash(canonical.as_bytes()).to_hex(),
                "5".repeat(64)
            )
        );
        assert_eq!(digest, *blake3::hash(canonical.as_bytes()).as_bytes());
        let (h, c) = parse(&text).unwrap();
        assert_eq!(c, canonical);
        assert_eq!((h.table.as_str(), h.row_count, h.format), ("T\"x", 2, 1));
        // The file is one JSON document; without its newlines it is canonical JSON.
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(canonical::json_value(&doc), text.replace('\n', ""));
    }

    #[test]
    fn empty_and_big_tables() {
        let p = Project::default();
        let (text, _) = render(&p, &table(vec![]), &"0".repeat(64));
        assert!(text.ends_with("\"rows\":[\n]}\n"), "{text}");
        assert_eq!(parse(&text).unwrap().1, "[]");
        let n = canonical::CHUNK_ROWS * 2 + 3;
        let t = table(
            (0..n)
                .map(|i| {
                    vec![
                        Value::Int((i % 200) as i128),
                        Value::Str(compact_str::format_compact!("r{i}")),
                    ]
                })
                .collect(),
        );
        let (text, _) = render(&p, &t, &"0".repeat(64));
        assert_eq!(text.lines().count(), n + 2);
        assert_eq!(parse(&text).unwrap().1, canonical::table_json(&p, &t));
    }

    #[test]
    fn a_streamed_file_is_the_rendered_file_once_its_hash_is_written() {
        let p = Project::default();
        let schema = "5".repeat(64);
        for n in [0, 1, BATCH_ROWS, BATCH_ROWS + 1] {
            let t = table(
                (0..n)
                    .map(|i| {
                        vec![
                            Value::Int((i % 200) as i128),
                            Value::Str(compact_str::format_compact!("「{i}」")),
                        ]
                    })
                    .collect(),
            );
            let (whole, digest) = render(&p, &t, &schema);
            let mut streamed: Vec<u8> = vec![];
            let mut parts = 0;
            let (at, d) = render_streamed(&p, &t, &schema, &mut |b| {
                streamed.extend_from_slice(b);
                parts += 1;
            });
            assert_eq!(d, digest, "{n} rows");
            assert_eq!(&streamed[at..at + 64], "0".repeat(64).as_bytes());
            streamed[at..at + 64].copy_from_slice(blake3::Hash::from_bytes(d).to_hex().as_bytes());
            assert_eq!(String::from_utf8(streamed).unwrap(), whole, "{n} rows");
            // Header, one part per chunk of rows, closing line.
            assert_eq!(parts, 2 + n.div_ceil(canonical::CHUNK_ROWS), "{n} rows");
        }
    }

    #[test]
    fn parse_refuses_edited_and_truncated_files() {
        let p = Project::default();
        let t = table(vec![
            vec![Value::Int(1), Value::Str("a".into())],
            vec![Value::Int(2), Value::Str("b".into())],
        ]);
        let (text, _) = render(&p, &t, &"0".repeat(64));
        let edited = text.replace("\"b\":2", "\"b\":3");
        assert!(parse(&edited).unwrap_err().contains("dataHash"));
        assert!(parse(&text[..text.len() - 2]).is_err());
        let dropped = text.replacen("{\"a\":\"b\",\"b\":2}\n", "", 1);
        assert!(parse(&dropped).unwrap_err().contains("rowCount 2"));
        assert!(parse("[{\"a\":1}]").is_err());
    }
}
