//! Binary data files (docs/data-format.md §3, format 3): the encoder. The same bytes are embedded in the Rust
//! crate (`generated/rust/data/<Table>.bytes`) and, with `data = ["binary"]`, read by the C# and TypeScript
//! loaders.
//!
//! A file is a 152-byte header (magic, version, flags, CRC-32, length, `dataHash`, `schemaHash`), then the
//! table name, the string table (every distinct string once, in order of first use, its characters in a
//! canonical Huffman code of the file's own alphabet per context: after an ASCII character or not), the row count and the rows, each field written by its
//! schema type: varints for unsigned integers, enum members, union variants, counts and string references
//! (`0` for a string's first use, `i + 1` for string `i` again); zigzag varints for signed integers,
//! date-times, dates and durations; varints for times of day; numbers as a decimal (an exponent byte and a
//! zigzag varint mantissa) when that reads back exactly, else a marker and 8 little-endian bytes; a 0/1 byte
//! for booleans and optional tags; a scalar union's member index, then the member's value; a JSON value's
//! kind, then its body.

use crate::ir::{Project, Row, Table, Type, Value};
use anyhow::{bail, Context, Result};
use foldhash::HashMap;
use foldhash::HashMapExt;

/// The file's first 8 bytes: `\x89GTB\r\n\x1a\n` (a text-mode transfer or a line-ending conversion breaks them).
pub const MAGIC: [u8; 8] = [0x89, b'G', b'T', b'B', 0x0d, 0x0a, 0x1a, 0x0a];
/// The format version this module writes (3: a string table Huffman-coded in two contexts, first-use string
/// references, decimal numbers; docs/data-format.md §3).
pub const VERSION: u16 = 3;
/// The longest Huffman code of a string table, in bits (docs/data-format.md §3.2).
pub const MAX_CODE_LEN: u32 = 24;
/// Powers of ten that binary64 holds exactly (10^0 … 10^22): a decimal number's scale (§3.3).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 152;

/// The binary data file of `table`, whose canonical data hashes to `data_hash` and whose schema hash is
/// `schema_hash` (both 64 hex digits): [`encode_unsealed`], then [`Unsealed::seal`]. `Err` only if the IR
/// breaks its invariants (a value that does not match its field's type), which validation rules out.
pub fn encode(
    project: &Project,
    table: &Table,
    data_hash: &str,
    schema_hash: &str,
) -> Result<Vec<u8>> {
    let sealed = encode_unsealed(project, table)?.seal(data_hash, schema_hash)?;
    Ok(sealed.concat())
}

/// A binary data file whose header is not filled in yet: [`HEADER_LEN`] zero bytes, then the table name,
/// the string table, the row count and the rows. The body does not depend on the hashes, so a build
/// encodes it while the canonical JSON (whose digest is the `dataHash`) is rendered, then seals it in
/// place. The file is kept in two parts, everything up to and including the row count (`head`: the
/// [`HEADER_LEN`] bytes to fill in, the table name, the string table, the row count) and the rows (`body`),
/// and written as such: a big table's rows are not copied again behind its string table (issue 18, peak
/// memory).
#[derive(Debug)]
pub struct Unsealed {
    head: Vec<u8>,
    body: Vec<u8>,
}

/// Rows of a big table's body encoded as one unit on a pool thread ([`encode_unsealed`]).
const CHUNK_ROWS: usize = 4096;

/// Rows of a big table encoded on all cores before their string references are resolved in order: bounds
/// the deferred string uses held at a time.
const WAVE_ROWS: usize = 16 * CHUNK_ROWS;

/// `table`'s binary data file with its header still zeros (see [`Unsealed`]). A table of more than
/// 4,096 rows (`CHUNK_ROWS`) has its rows encoded in chunks on all cores, each string use deferred with its hash;
/// the references are then given in row order on this thread (a string's first use is `0`, a later one its
/// index + 1: the order of first uses is the string table's), so the bytes are those of one encoder.
pub fn encode_unsealed(project: &Project, table: &Table) -> Result<Unsealed> {
    encode_body(project, table, table.rows.len() > CHUNK_ROWS)
}

/// [`encode_unsealed`], the rows encoded in chunks on all cores or not.
fn encode_body(project: &Project, table: &Table, chunked: bool) -> Result<Unsealed> {
    use rayon::prelude::*;
    let mut enc = Encoder::new(
        project,
        table.rows.len() * 16 * table.fields.len().max(1),
        false,
    );
    /// Row `i` of `table` into `e`.
    fn row<'a>(e: &mut Encoder<'a>, table: &'a Table, i: usize, row: &'a Row) -> Result<()> {
        for (f, v) in table.fields.iter().zip(&row.values) {
            e.value(&f.ty, v)
                .with_context(|| format!("table {} row {i} field {}", table.name, f.name))?;
        }
        Ok(())
    }
    if chunked {
        for (w, wave) in table.rows.chunks(WAVE_ROWS).enumerate() {
            let parts: Vec<Result<Encoder<'_>>> = wave
                .par_chunks(CHUNK_ROWS)
                .enumerate()
                .with_max_len(1)
                .map(|(c, rows)| {
                    let mut e = Encoder::new(project, rows.len() * 16 * table.fields.len(), true);
                    for (j, r) in rows.iter().enumerate() {
                        row(&mut e, table, w * WAVE_ROWS + c * CHUNK_ROWS + j, r)?;
                    }
                    Ok(e)
                })
                .collect();
            for part in parts {
                let part = part?;
                let mut at = 0;
                for &(s, h, pos) in &part.uses {
                    enc.body.extend_from_slice(&part.body[at..pos]);
                    let r = enc.reference(s, h);
                    varint(&mut enc.body, r);
                    at = pos;
                }
                enc.body.extend_from_slice(&part.body[at..]);
            }
        }
    } else {
        for (i, r) in table.rows.iter().enumerate() {
            row(&mut enc, table, i, r)?;
        }
    }
    let mut head = Vec::with_capacity(HEADER_LEN + 64 * enc.order.len() + table.name.len() + 16);
    head.resize(HEADER_LEN, 0);
    varint(&mut head, table.name.len() as u64);
    head.extend_from_slice(table.name.as_bytes());
    string_table(&mut head, &enc.order);
    drop(enc.strings);
    drop(enc.hashes);
    drop(enc.order);
    varint(&mut head, table.rows.len() as u64);
    Ok(Unsealed {
        head,
        body: enc.body,
    })
}

impl Unsealed {
    /// The whole file as two parts `[head, body]`, to be written one after the other (see [`Unsealed`]): the
    /// header (magic, version, flags, CRC-32, length, the two hashes as 64 hex digits each) filled in, the
    /// length and the CRC-32 of everything after the CRC field (in both parts) included. `Err` if a hash is
    /// not 64 hex digits long.
    pub fn seal(self, data_hash: &str, schema_hash: &str) -> Result<[Vec<u8>; 2]> {
        if data_hash.len() != 64 || schema_hash.len() != 64 {
            bail!("hashes must be 64 hex digits");
        }
        let Unsealed {
            head: mut out,
            body,
        } = self;
        let mut header = Vec::with_capacity(HEADER_LEN);
        header.extend_from_slice(&MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(&0u16.to_le_bytes());
        header.extend_from_slice(&[0; 4]); // CRC-32, below
        header.extend_from_slice(&((out.len() + body.len()) as u64).to_le_bytes());
        header.extend_from_slice(data_hash.as_bytes());
        header.extend_from_slice(schema_hash.as_bytes());
        debug_assert_eq!(header.len(), HEADER_LEN);
        out[..HEADER_LEN].copy_from_slice(&header);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&out[16..]);
        crc.update(&body);
        out[12..16].copy_from_slice(&crc.finalize().to_le_bytes());
        Ok([out, body])
    }
}

/// The number of coding contexts of a string table (docs/data-format.md §3.2): each has its own canonical
/// Huffman code over the file's alphabet.
pub const CONTEXTS: usize = 2;

/// The context a character is coded in (docs/data-format.md §3.2), from the character before it in its
/// string: 1 after an ASCII character (below U+0080), 0 at the start of a string or after any other. Text
/// that mixes Chinese with ASCII runs (`icon_1024`, `造成120点`, `{0}`, `Boss`) has two alphabets, and a
/// character predicts which one comes next: after ASCII, ASCII is likely. The idea is Brotli's context
/// modelling (RFC 7932 §7.1, its UTF-8 context mode) reduced to one bit.
fn context(prev: char) -> usize {
    usize::from(prev.is_ascii())
}

/// The string table (docs/data-format.md §3.2): the count, each string's length in Unicode scalar values,
/// the alphabet (its symbols ascending, first as a varint then as differences), one code length byte per
/// symbol and context (0: not coded in that context), and the canonically coded characters of every string,
/// most significant bit first, each in the code of its context.
fn string_table(out: &mut Vec<u8>, strings: &[&str]) {
    string_table_in(out, strings, GROUP_STRINGS);
}

/// Strings of a string table counted and coded together on one pool thread: a big table's strings are
/// counted and coded on all cores, the groups' bit streams joined in order (the bytes do not depend on it).
const GROUP_STRINGS: usize = 8192;

/// Character counts per context: a flat array for the Basic Multilingual Plane (where designers' text
/// lives), a map for the rest.
struct Counts {
    bmp: Vec<[u64; CONTEXTS]>,
    astral: HashMap<char, [u64; CONTEXTS]>,
}

impl Counts {
    fn new() -> Self {
        Counts {
            bmp: vec![[0u64; CONTEXTS]; 0x10000],
            astral: HashMap::new(),
        }
    }

    /// Counts the characters of `strings`, each in its context.
    fn add(mut self, strings: &[&str]) -> Self {
        for s in strings {
            let mut ctx = 0;
            for c in s.chars() {
                match self.bmp.get_mut(c as usize) {
                    Some(n) => n[ctx] += 1,
                    None => self.astral.entry(c).or_default()[ctx] += 1,
                }
                ctx = context(c);
            }
        }
        self
    }

    fn merge(mut self, other: Counts) -> Self {
        for (a, b) in self.bmp.iter_mut().zip(&other.bmp) {
            for ctx in 0..CONTEXTS {
                a[ctx] += b[ctx];
            }
        }
        for (c, n) in other.astral {
            let a = self.astral.entry(c).or_default();
            for ctx in 0..CONTEXTS {
                a[ctx] += n[ctx];
            }
        }
        self
    }
}

/// A bit stream, most significant bit first: whole bytes and up to 7 bits held in `acc`.
struct Bits {
    bytes: Vec<u8>,
    acc: u64,
    held: u32,
}

impl Bits {
    /// Appends `code`, which must be below 2^`len` (`len` ≤ 32; nothing above is masked off).
    fn push(&mut self, code: u32, len: u32) {
        self.acc = (self.acc << len) | u64::from(code);
        self.held += len;
        while self.held >= 8 {
            self.bytes.push((self.acc >> (self.held - 8)) as u8);
            self.held -= 8;
        }
        self.acc &= (1 << self.held) - 1;
    }

    /// Appends the bit stream `other`.
    fn append(&mut self, other: &Bits) {
        if self.held == 0 {
            self.bytes.extend_from_slice(&other.bytes);
        } else {
            self.bytes.reserve(other.bytes.len());
            for &b in &other.bytes {
                self.push(u32::from(b), 8);
            }
        }
        self.push(other.acc as u32, other.held);
    }
}

/// [`string_table`], the strings counted and coded in groups of `group` on all cores.
fn string_table_in(out: &mut Vec<u8>, strings: &[&str], group: usize) {
    use rayon::prelude::*;
    varint(out, strings.len() as u64);
    let lengths: Vec<usize> = strings
        .par_iter()
        .with_min_len(group)
        .map(|s| s.chars().count())
        .collect();
    for n in lengths {
        varint(out, n as u64);
    }
    let counts = strings
        .par_chunks(group)
        .fold(Counts::new, Counts::add)
        .reduce(Counts::new, Counts::merge);
    let Counts { bmp, astral } = &counts;
    let mut symbols: Vec<char> = (0..0x10000u32)
        .filter(|&v| bmp[v as usize] != [0; CONTEXTS])
        .filter_map(char::from_u32)
        .collect();
    let mut rest: Vec<char> = astral.keys().copied().collect();
    rest.sort_unstable();
    symbols.extend(rest);
    let count = |c: char| bmp.get(c as usize).copied().unwrap_or_else(|| astral[&c]);
    varint(out, symbols.len() as u64);
    let mut prev = 0u32;
    for (i, c) in symbols.iter().enumerate() {
        let v = *c as u32;
        varint(out, u64::from(if i == 0 { v } else { v - prev }));
        prev = v;
    }
    // Per context: the code lengths of the symbols it codes (0 for the others), then canonical codes (as
    // DEFLATE, RFC 1951 §3.2.2): by length, then by scalar value. `(code, length)` per character and context,
    // again flat for the BMP.
    let mut bmp_codes = vec![[(0u32, 0u32); CONTEXTS]; 0x10000];
    let mut astral_codes: HashMap<char, [(u32, u32); CONTEXTS]> = HashMap::new();
    for ctx in 0..CONTEXTS {
        let coded: Vec<usize> = (0..symbols.len())
            .filter(|&i| count(symbols[i])[ctx] > 0)
            .collect();
        let weights: Vec<u64> = coded.iter().map(|&i| count(symbols[i])[ctx]).collect();
        let mut lens = vec![0u32; symbols.len()];
        for (&i, l) in coded.iter().zip(code_lengths(&weights, MAX_CODE_LEN)) {
            lens[i] = l;
        }
        out.extend(lens.iter().map(|l| *l as u8));
        let mut by_len = coded;
        by_len.sort_by_key(|&i| lens[i]);
        let (mut code, mut len) = (0u32, 0u32);
        for (n, &i) in by_len.iter().enumerate() {
            if n > 0 {
                code += 1;
            }
            code <<= lens[i] - len;
            len = lens[i];
            match bmp_codes.get_mut(symbols[i] as usize) {
                Some(slot) => slot[ctx] = (code, len),
                None => astral_codes.entry(symbols[i]).or_default()[ctx] = (code, len),
            }
        }
    }
    drop(counts);
    let coded: Vec<Bits> = strings
        .par_chunks(group)
        .map(|strings| {
            let mut bits = Bits {
                bytes: Vec::with_capacity(strings.iter().map(|s| s.len()).sum::<usize>() / 2),
                acc: 0,
                held: 0,
            };
            for s in strings {
                let mut ctx = 0;
                for c in s.chars() {
                    let (code, len) = match bmp_codes.get(c as usize) {
                        Some(x) => x[ctx],
                        None => astral_codes[&c][ctx],
                    };
                    bits.push(code, len);
                    ctx = context(c);
                }
            }
            bits
        })
        .collect();
    let mut bits = Bits {
        bytes: Vec::with_capacity(coded.iter().map(|b| b.bytes.len() + 1).sum()),
        acc: 0,
        held: 0,
    };
    for b in &coded {
        bits.append(b);
    }
    drop(coded);
    if bits.held > 0 {
        bits.bytes.push((bits.acc << (8 - bits.held)) as u8);
    }
    varint(out, bits.bytes.len() as u64);
    out.extend_from_slice(&bits.bytes);
}

/// Huffman code lengths (1 ≤ length ≤ `max_len`) for symbols of the given weights (all ≥ 1): a Huffman tree
/// built with ties broken by node number (deterministic); while it is deeper than `max_len`, the weights are
/// halved (rounding up) and it is built again. One symbol gets length 1; none, an empty list.
fn code_lengths(weights: &[u64], max_len: u32) -> Vec<u32> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = weights.len();
    if n <= 1 {
        return vec![1; n];
    }
    let mut w = weights.to_vec();
    loop {
        let mut heap: BinaryHeap<Reverse<(u64, usize)>> = w
            .iter()
            .enumerate()
            .map(|(i, &x)| Reverse((x, i)))
            .collect();
        let mut parent = vec![0usize; 2 * n - 1];
        let mut next = n;
        while let (Some(Reverse((wa, a))), Some(Reverse((wb, b)))) = (heap.pop(), heap.pop()) {
            parent[a] = next;
            parent[b] = next;
            heap.push(Reverse((wa + wb, next)));
            next += 1;
        }
        // Parents are numbered after their children: depths from the root (node 2n − 2) down.
        let mut depth = vec![0u32; 2 * n - 1];
        for id in (0..2 * n - 2).rev() {
            depth[id] = depth[parent[id]] + 1;
        }
        depth.truncate(n);
        if depth.iter().all(|&d| d <= max_len) {
            return depth;
        }
        for x in &mut w {
            *x = x.div_ceil(2);
        }
    }
}

/// The decimal form of a finite `f` (docs/data-format.md §3.3): `(m, e)` with `f` = m × 10^e, |m| < 10^15
/// and −22 ≤ e ≤ 22, from the shortest digits that read back as `f` (no trailing zeros in `m`; `(0, 0)` for
/// zero), when m × 10^e (or m / 10^−e) computed in binary64 gives `f` exactly; else `None` (the number is
/// written as its 8 bytes). The digits are `ryu-js`'s (the shortest round-trip form canonical JSON writes,
/// e.g. `143.03`, `1e+22`, `5e-324`), read without building a `String`: this runs once per number cell.
fn decimal(f: f64) -> Option<(i64, i32)> {
    let mut buf = ryu_js::Buffer::new();
    let text = buf.format_finite(f).as_bytes();
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (mant, exp) = match text.iter().position(|&b| b == b'e') {
        Some(i) => (
            &text[..i],
            std::str::from_utf8(&text[i + 1..])
                .ok()?
                .parse::<i32>()
                .ok()?,
        ),
        None => (text, 0),
    };
    // Significant digits without the point (every digit after the point lowers the exponent by one); zeros
    // are held until a later digit shows they are not trailing ones.
    let (mut m, mut e, mut zeros, mut digits) = (0i64, exp, 0i32, 0i32);
    let mut after_point = false;
    for &b in mant {
        match b {
            b'.' => after_point = true,
            b'0'..=b'9' => {
                if after_point {
                    e -= 1;
                }
                if b == b'0' {
                    zeros += i32::from(m > 0);
                } else {
                    digits += zeros + 1;
                    if digits > 15 {
                        return None;
                    }
                    m = m * 10i64.pow(zeros as u32) * 10 + i64::from(b - b'0');
                    zeros = 0;
                }
            }
            _ => return None,
        }
    }
    e = if m == 0 { 0 } else { e + zeros };
    if !(-22..=22).contains(&e) {
        return None;
    }
    if negative {
        m = -m;
    }
    let back = if e >= 0 {
        m as f64 * POW10[e as usize]
    } else {
        m as f64 / POW10[(-e) as usize]
    };
    (back.to_bits() == f.to_bits()).then_some((m, e))
}

/// Unsigned LEB128, shortest form.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Zigzag: 0, −1, 1, −2 … → 0, 1, 2, 3 …, then LEB128.
fn zigzag(out: &mut Vec<u8>, v: i64) {
    varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

struct Encoder<'a> {
    project: &'a Project,
    body: Vec<u8>,
    /// The string table's indexes, found by their string's hash ([`string_hash`]). A table of indexes with
    /// the hashes beside `order`, not a map from the strings: growing it moves indexes by their stored hash
    /// instead of hashing every string again (on a 1,000,000-row table, rehashing was more than half of the
    /// encoder's string hashing), and an entry is 8 bytes plus the string's 8-byte stored hash, not 24.
    strings: hashbrown::HashTable<usize>,
    /// The string table in index order.
    order: Vec<&'a str>,
    /// `hashes[i]` is the hash of `order[i]`.
    hashes: Vec<u64>,
    /// Whether string uses are deferred: each is recorded in [`Self::uses`] instead of written.
    deferred: bool,
    /// The deferred string uses in order: the string, its hash and where in `body` its reference goes.
    uses: Vec<(&'a str, u64, usize)>,
}

/// The hash of a string in [`Encoder::strings`]: foldhash with a fixed seed (the file's bytes never depend on
/// it; only the order of first uses does).
fn string_hash(s: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x6765_6e74_6162_6c65).hash_one(s)
}

impl<'a> Encoder<'a> {
    /// An encoder with room for `capacity` body bytes, its string uses `deferred` or not.
    fn new(project: &'a Project, capacity: usize, deferred: bool) -> Self {
        Encoder {
            project,
            body: Vec::with_capacity(capacity),
            strings: hashbrown::HashTable::new(),
            order: vec![],
            hashes: vec![],
            deferred,
            uses: vec![],
        }
    }

    /// A string reference: `0` for the next string of the table (its first use), `i + 1` for string `i` again
    /// (deferred: recorded for [`encode_body`] to resolve in row order).
    fn string(&mut self, s: &'a str) {
        let h = string_hash(s);
        if self.deferred {
            self.uses.push((s, h, self.body.len()));
            return;
        }
        let r = self.reference(s, h);
        varint(&mut self.body, r);
    }

    /// The reference of a use of `s` (whose hash is `h`) after the uses so far (see [`Self::string`]).
    fn reference(&mut self, s: &'a str, h: u64) -> u64 {
        let (order, hashes) = (&self.order, &self.hashes);
        match self.strings.entry(h, |&i| order[i] == s, |&i| hashes[i]) {
            hashbrown::hash_table::Entry::Occupied(e) => *e.get() as u64 + 1,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(order.len());
                self.order.push(s);
                self.hashes.push(h);
                0
            }
        }
    }

    fn value(&mut self, ty: &Type, v: &'a Value) -> Result<()> {
        match (ty, v) {
            (Type::Optional(t), Value::Null) => {
                let _ = t;
                self.body.push(0);
            }
            (Type::Optional(t), v) => {
                self.body.push(1);
                // Nested optionals count once: the tag, then the innermost value.
                let mut t: &Type = t;
                while let Type::Optional(inner) = t {
                    t = inner;
                }
                self.value(t, v)?;
            }
            (Type::Bool, Value::Bool(b)) => self.body.push(*b as u8),
            (Type::Int(w), Value::Int(i)) => {
                let (lo, hi) = w.range();
                if *i < lo || *i > hi {
                    bail!("integer {i} outside {}", w.rust_name());
                }
                if lo < 0 {
                    zigzag(&mut self.body, *i as i64);
                } else {
                    varint(&mut self.body, *i as u64);
                }
            }
            (Type::Float, Value::Float(f)) => self.number(*f)?,
            (Type::String, Value::Str(s)) => self.string(s),
            (Type::Enum(n), Value::Enum(m)) => {
                let i = self.member(n, m)?;
                varint(&mut self.body, i);
            }
            (Type::Flags(n), Value::Array(items)) => {
                let mut bits = 0u64;
                for it in items {
                    let Value::Enum(m) = it else {
                        bail!("flag {it:?} is not a member");
                    };
                    bits |= 1 << self.member(n, m)?;
                }
                varint(&mut self.body, bits);
            }
            (Type::DateTime(_), Value::DateTime(s)) => zigzag(&mut self.body, *s),
            (Type::Duration, Value::Duration(ms)) => zigzag(&mut self.body, *ms),
            (Type::Date, Value::Date(days)) => zigzag(&mut self.body, *days),
            (Type::Time(_), Value::Time(secs)) => varint(&mut self.body, u64::from(*secs)),
            (Type::Array(t), Value::Array(items)) => {
                varint(&mut self.body, items.len() as u64);
                for it in items {
                    self.value(t, it)?;
                }
            }
            (Type::Map(kt, vt), Value::Map(entries)) => {
                varint(&mut self.body, entries.len() as u64);
                for (k, x) in entries {
                    self.value(kt, k)?;
                    self.value(vt, x)?;
                }
            }
            (Type::Record(n), Value::Record(vals)) => {
                let project = self.project;
                let rec = project.records.get(n).context("record type")?;
                for (f, x) in rec.fields.iter().zip(vals) {
                    self.value(&f.ty, x)?;
                }
            }
            (Type::Union(n), Value::Union(uv)) => {
                let (tag, vals) = (&uv.tag, &uv.values);
                let project = self.project;
                let u = project.unions.get(n).context("union type")?;
                let Some(i) = u.variants.iter().position(|v| v.tag == *tag) else {
                    bail!("{tag} is not a kind of {n}");
                };
                varint(&mut self.body, i as u64);
                for (f, x) in u.variants[i].fields.iter().zip(vals) {
                    self.value(&f.ty, x)?;
                }
            }
            (Type::Json, Value::Json(j)) => self.json(j)?,
            (Type::Choice(n), v) => {
                let project = self.project;
                let c = project.choices.get(n).context("scalar union type")?;
                let Some(m) = c.member_of(v) else {
                    bail!("{v:?} is not {}", c.words());
                };
                let i = c.members.iter().position(|x| std::ptr::eq(x, m));
                varint(&mut self.body, i.context("member index")? as u64);
                match (m, v) {
                    // A number member holds whole numbers too: written as the double they are.
                    (Type::Float, Value::Int(x)) => self.number(*x as f64)?,
                    _ => self.value(m, v)?,
                }
            }
            (t, v) => bail!("IR invariant: value {v:?} does not match {t:?}"),
        }
        Ok(())
    }

    /// A finite number: `e + 22` and the zigzag varint `m` of its decimal form ([`decimal`]), else `255` and
    /// its 8 little-endian bytes; `-0` is written as `0`, as canonical JSON writes it.
    fn number(&mut self, f: f64) -> Result<()> {
        if !f.is_finite() {
            bail!("number {f} is not finite");
        }
        let f = if f == 0.0 { 0.0 } else { f };
        match decimal(f) {
            Some((m, e)) => {
                self.body.push((e + 22) as u8);
                zigzag(&mut self.body, m);
            }
            None => {
                self.body.push(255);
                self.body.extend_from_slice(&f.to_le_bytes());
            }
        }
        Ok(())
    }

    /// A JSON value ([`Type::Json`]): a varint kind (0 null, 1 false, 2 true, 3 number, 4 string, 5 array,
    /// 6 object), then a number, a string reference, or a count and the items, or a count and the
    /// members (name's string reference, value) in RFC 8785 order (by the UTF-16 code units of the names).
    fn json(&mut self, j: &'a serde_json::Value) -> Result<()> {
        use serde_json::Value as J;
        match j {
            J::Null => varint(&mut self.body, 0),
            J::Bool(b) => varint(&mut self.body, 1 + u64::from(*b)),
            J::Number(n) => {
                varint(&mut self.body, 3);
                self.number(n.as_f64().context("a JSON number")?)?;
            }
            J::String(s) => {
                varint(&mut self.body, 4);
                self.string(s);
            }
            J::Array(items) => {
                varint(&mut self.body, 5);
                varint(&mut self.body, items.len() as u64);
                for x in items {
                    self.json(x)?;
                }
            }
            J::Object(m) => {
                varint(&mut self.body, 6);
                varint(&mut self.body, m.len() as u64);
                let mut members: Vec<(Vec<u16>, &'a String, &'a serde_json::Value)> = m
                    .iter()
                    .map(|(k, v)| (k.encode_utf16().collect(), k, v))
                    .collect();
                members.sort_by(|a, b| a.0.cmp(&b.0));
                for (_, k, v) in members {
                    self.string(k);
                    self.json(v)?;
                }
            }
        }
        Ok(())
    }

    /// The declaration index of member `m` of enum `n`.
    fn member(&self, n: &str, m: &str) -> Result<u64> {
        let e = self.project.enums.get(n).context("enum type")?;
        match e.members.iter().position(|x| x == m) {
            Some(i) => Ok(i as u64),
            None => bail!("{m} is not a member of {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{EnumDef, Field, IntWidth, Row, TableMode};

    fn project() -> Project {
        let mut p = Project::default();
        p.enums.insert(
            "Dir".into(),
            EnumDef {
                name: "Dir".into(),
                doc: String::new(),
                members: vec!["N".into(), "S".into(), "E".into()],
                aliases: vec![],
                values: None,
                idents: vec![],
                origin: String::new(),
            },
        );
        p
    }

    #[test]
    fn bytes_follow_the_documented_layout() {
        let p = project();
        let fields = vec![
            Field::new("id", Type::Int(IntWidth::U16)),
            Field::new("d", Type::Int(IntWidth::I8)),
            Field::new("name", Type::String),
            Field::new("opt", Type::Optional(Box::new(Type::Float))),
            Field::new("dir", Type::Enum("Dir".into())),
            Field::new("flags", Type::Flags("Dir".into())),
            Field::new("tags", Type::Array(Box::new(Type::String))),
        ];
        let e = |m: &str| Value::Enum(m.into());
        let t = Table {
            rows: vec![
                Row::new(vec![
                    Value::Int(300),
                    Value::Int(-2),
                    Value::Str("長槍，「兵」".into()),
                    Value::Float(-0.0),
                    e("S"),
                    Value::Array(vec![e("N"), e("E")]),
                    Value::Array(vec![
                        Value::Str("a".into()),
                        Value::Str("長槍，「兵」".into()),
                    ]),
                ]),
                Row::new(vec![
                    Value::Int(1),
                    Value::Int(3),
                    Value::Str("a".into()),
                    Value::Null,
                    e("E"),
                    Value::Array(vec![]),
                    Value::Array(vec![]),
                ]),
            ],
            ..Table::new("T", TableMode::List, fields)
        };
        let (dh, sh) = ("d".repeat(64), "s".repeat(64));
        let b = encode(&p, &t, &dh, &sh).unwrap();
        assert_eq!(&b[..8], b"\x89GTB\r\n\x1a\n");
        assert_eq!(&b[8..12], &[3, 0, 0, 0]);
        assert_eq!(
            u64::from_le_bytes(b[16..24].try_into().unwrap()),
            b.len() as u64
        );
        assert_eq!(
            u32::from_le_bytes(b[12..16].try_into().unwrap()),
            crc32fast::hash(&b[16..])
        );
        assert_eq!(&b[24..88], dh.as_bytes());
        assert_eq!(&b[88..152], sh.as_bytes());
        assert_eq!(&b[152..154], &[1, b'T']);
        let (strings, rows) = split(&b[154..]);
        assert_eq!(strings, ["長槍，「兵」", "a"]);
        // Row 0: 300 = ac 02; -2 → zigzag 3; a new string (0); optional present, +0.0 as 0 × 10^0 (tag 22,
        // m 0); S = 1; N|E = 0b101; two tags: "a" (new), the CJK string again (string 0 → 1).
        let mut want = vec![2]; // rows
        want.extend_from_slice(&[0xac, 0x02, 3, 0, 1, 22, 0, 1, 0b101, 2, 0, 1]);
        // Row 1: 1; 3 → zigzag 6; "a" again (string 1 → 2); absent; E = 2; no flags; no tags.
        want.extend_from_slice(&[1, 6, 2, 0, 2, 0, 0]);
        assert_eq!(rows, &want[..]);
    }

    #[test]
    fn json_values_and_scalar_unions_follow_the_documented_layout() {
        let mut p = project();
        p.choices.insert(
            "Amount".into(),
            crate::ir::ChoiceDef {
                name: "Amount".into(),
                doc: String::new(),
                members: vec![Type::Float, Type::String],
                origin: String::new(),
            },
        );
        let fields = vec![
            Field::new("j", Type::Json),
            Field::new("a", Type::Array(Box::new(Type::Choice("Amount".into())))),
        ];
        // Members out of RFC 8785 order in the value: written as "a", "€", "😀", "Ａ" (UTF-16 order).
        let j: serde_json::Value =
            serde_json::from_str(r#"{"Ａ":null,"😀":[true,false],"€":-0.0,"a":"長槍，「兵」"}"#)
                .unwrap();
        let t = Table {
            rows: vec![Row::new(vec![
                Value::json(j),
                Value::Array(vec![
                    Value::Int(12),
                    Value::Str("all".into()),
                    Value::Float(2.5),
                ]),
            ])],
            ..Table::new("T", TableMode::List, fields)
        };
        let b = encode(&p, &t, &"d".repeat(64), &"s".repeat(64)).unwrap();
        // Strings in order of first use: a, 長槍，「兵」, €, 😀, Ａ, all.
        assert_eq!(&b[152..154], &[1, b'T']);
        let (strings, rows) = split(&b[154..]);
        assert_eq!(strings, ["a", "長槍，「兵」", "€", "😀", "Ａ", "all"]);
        let mut want = vec![1]; // rows
                                // An object of 4 members: "a" → a new string (0); "€" (new) → number 0 (-0 as 0: tag 22,
                                // m 0); "😀" (new) → array [true, false]; "Ａ" (new) → null.
        want.extend_from_slice(&[6, 4, 0, 4, 0, 0, 3, 22, 0, 0, 5, 2, 2, 1, 0, 0]);
        // Three amounts: 12 in the number member (index 0) as 12 × 10^0, "all" (member 1, new), 2.5 = 25 × 10^-1.
        want.extend_from_slice(&[3, 0, 22, 24, 1, 0, 0, 21, 50]);
        assert_eq!(rows, &want[..]);
    }

    /// A reader of the string table for these tests (the generated loaders have their own): the strings and
    /// the bytes after the table. Checks the canonical code's prefix property on the way.
    fn split(b: &[u8]) -> (Vec<String>, &[u8]) {
        let mut p = 0;
        let next = |p: &mut usize| -> u64 {
            let (mut v, mut shift) = (0u64, 0);
            loop {
                let c = b[*p];
                *p += 1;
                v |= u64::from(c & 0x7f) << shift;
                if c < 0x80 {
                    return v;
                }
                shift += 7;
            }
        };
        let count = next(&mut p) as usize;
        let lens: Vec<usize> = (0..count).map(|_| next(&mut p) as usize).collect();
        let k = next(&mut p) as usize;
        let mut symbols = vec![];
        for i in 0..k {
            let d = next(&mut p) as u32;
            let v = if i == 0 {
                d
            } else {
                symbols.last().map(|c: &char| *c as u32).unwrap() + d
            };
            symbols.push(char::from_u32(v).unwrap());
        }
        let code_lens: Vec<Vec<u32>> = (0..CONTEXTS)
            .map(|c| {
                b[p + c * k..p + (c + 1) * k]
                    .iter()
                    .map(|&l| u32::from(l))
                    .collect()
            })
            .collect();
        p += CONTEXTS * k;
        let nbytes = next(&mut p) as usize;
        let bits = &b[p..p + nbytes];
        p += nbytes;
        // Per context, the coded symbols by code length, then by scalar value (a stable sort).
        let order: Vec<Vec<usize>> = code_lens
            .iter()
            .map(|lens| {
                let mut o: Vec<usize> = (0..k).filter(|&i| lens[i] > 0).collect();
                o.sort_by_key(|&i| lens[i]);
                o
            })
            .collect();
        let mut at = 0usize;
        let mut strings = vec![];
        for n in lens {
            let mut s = String::new();
            let mut ctx = 0;
            for _ in 0..n {
                // Canonical decoding, one bit at a time: codes of each length are consecutive.
                let (mut code, mut first, mut index) = (0u32, 0u32, 0usize);
                let (lens, order) = (&code_lens[ctx], &order[ctx]);
                for len in 1..=MAX_CODE_LEN {
                    code |= u32::from(bits[at / 8] >> (7 - at % 8) & 1);
                    at += 1;
                    let count = order.iter().filter(|&&i| lens[i] == len).count() as u32;
                    if code - first < count {
                        let c = symbols[order[index + (code - first) as usize]];
                        s.push(c);
                        ctx = context(c);
                        break;
                    }
                    assert!(len < MAX_CODE_LEN, "an invalid code");
                    index += count as usize;
                    first = (first + count) << 1;
                    code <<= 1;
                }
            }
            strings.push(s);
        }
        assert_eq!(
            at.div_ceil(8),
            nbytes,
            "the bit stream ends in its last byte"
        );
        (strings, &b[p..])
    }

    #[test]
    fn string_tables_round_trip_with_bounded_code_lengths() {
        let strings = ["", "長槍，「兵」", "aaaa", "😀Ａ€", "a", "兵兵兵兵兵兵"];
        let mut out = vec![];
        string_table(&mut out, &strings);
        let (back, rest) = split(&out);
        assert_eq!(back, strings);
        assert!(rest.is_empty());
        // One symbol: code length 1 in both contexts (first, and after an ASCII character), one bit per
        // character.
        let mut out = vec![];
        string_table(&mut out, &["xxxxxxxxx"]);
        assert_eq!(split(&out).0, ["xxxxxxxxx"]);
        assert_eq!(out, [1, 9, 1, b'x', 1, 1, 2, 0, 0]);
        // Context 1 (after ASCII) codes only what follows ASCII: "b" (after "a") and "€" (after "a") here;
        // context 0 (a string's start, or after non-ASCII) codes 長 (twice), a (twice: after 長, and starting
        // "a€"), € (starting "€長") and b (starting "b").
        let mut out = vec![];
        string_table(&mut out, &["長ab", "€長", "a€", "b"]);
        assert_eq!(split(&out).0, ["長ab", "€長", "a€", "b"]);
        // 4 strings, their lengths, 4 symbols a b € 長 (varints of 0x61, 1, 0x204a, 0x74cb: 1 + 1 + 2 + 3
        // bytes), then the code lengths of context 0 (every symbol) and of context 1 (b and €).
        assert_eq!(&out[..6], &[4, 3, 2, 2, 1, 4]);
        let tables = &out[13..21];
        assert!(
            tables[..4].iter().all(|&l| l > 0),
            "context 0: every symbol"
        );
        assert_eq!(&tables[4..], &[0, 1, 1, 0], "context 1: b and € only");
        // Fibonacci weights make a Huffman tree as deep as there are symbols: 40 symbols are limited to 24.
        let mut fib = vec![1u64, 1];
        while fib.len() < 40 {
            fib.push(fib[fib.len() - 1] + fib[fib.len() - 2]);
        }
        let lens = code_lengths(&fib, MAX_CODE_LEN);
        assert!(
            lens.iter().all(|&l| (1..=MAX_CODE_LEN).contains(&l)),
            "{lens:?}"
        );
        let kraft: f64 = lens.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
        assert!(kraft <= 1.0, "a prefix code: {kraft}");
        assert_eq!(
            code_lengths(&fib, 64).iter().max(),
            Some(&39),
            "unlimited, the tree is a path"
        );
        assert_eq!(code_lengths(&[], 24), Vec::<u32>::new());
    }

    /// A string table counted and coded in groups on all cores is the one coded in one piece, whatever the
    /// group size (groups whose bit streams end mid-byte are joined shifted), and it reads back.
    #[test]
    fn string_tables_coded_in_groups_are_the_table_coded_at_once() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let alphabet: Vec<char> = "兵長槍，。「」、abcxyz 0129😀Ａ€\u{10FFFF}"
            .chars()
            .collect();
        let owned: Vec<String> = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (0..x % 23)
                    .map(|k| alphabet[((x >> (k % 40)) as usize + k as usize) % alphabet.len()])
                    .collect()
            })
            .collect();
        let strings: Vec<&str> = owned.iter().map(String::as_str).collect();
        let mut whole = vec![];
        string_table_in(&mut whole, &strings, usize::MAX);
        for group in [1, 3, 1000, GROUP_STRINGS] {
            let mut grouped = vec![];
            string_table_in(&mut grouped, &strings, group);
            assert!(grouped == whole, "groups of {group} code other bytes");
        }
        let (back, rest) = split(&whole);
        assert_eq!(back, strings);
        assert!(rest.is_empty());
    }

    #[test]
    fn numbers_take_their_decimal_form_when_it_reads_back_exactly() {
        for (f, want) in [
            (143.03, Some((14303, -2))),
            (0.1, Some((1, -1))),
            (-2.5, Some((-25, -1))),
            (5.0, Some((5, 0))),
            (0.0, Some((0, 0))),
            (1e22, Some((1, 22))),
            (1e23, None),
            (123456789012345.0, Some((123456789012345, 0))),
            (1234567890123456.0, None),
            (5e-324, None),
            (std::f64::consts::PI, None),
        ] {
            assert_eq!(decimal(f), want, "{f}");
        }
        // Every decimal form reads back as the number, by the loaders' rule.
        let mut x = 0.37f64;
        for _ in 0..10_000 {
            x = (x * 7919.0 + 0.123).fract() * 1e6;
            let f = (x * 100.0).round() / 100.0;
            if let Some((m, e)) = decimal(f) {
                let back = if e >= 0 {
                    m as f64 * POW10[e as usize]
                } else {
                    m as f64 / POW10[(-e) as usize]
                };
                assert_eq!(back.to_bits(), f.to_bits(), "{f}");
            } else {
                panic!("{f} has a short decimal form");
            }
        }
    }

    /// `decimal` reads ryu-js's digits; Rust's own shortest form (`{:e}`) gives the same `(m, e)` for every
    /// kind of double: integers, cents, tiny and huge magnitudes, negative numbers, random bit patterns.
    #[test]
    fn decimal_forms_agree_with_the_standard_library_shortest_digits() {
        fn by_std(f: f64) -> Option<(i64, i32)> {
            let sci = format!("{f:e}");
            let (mant, exp) = sci.split_once('e')?;
            let exp: i32 = exp.parse().ok()?;
            let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
            if digits.len() > 15 {
                return None;
            }
            let mut m: i64 = digits.parse().ok()?;
            if mant.starts_with('-') {
                m = -m;
            }
            let e = exp - (digits.len() as i32 - 1);
            if !(-22..=22).contains(&e) {
                return None;
            }
            let back = if e >= 0 {
                m as f64 * POW10[e as usize]
            } else {
                m as f64 / POW10[(-e) as usize]
            };
            (back.to_bits() == f.to_bits()).then_some((m, e))
        }
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut checked = 0;
        for k in 0..200_000u64 {
            let r = next();
            let f = match k % 5 {
                0 => f64::from_bits(r),
                1 => (r % 2_000_000) as f64 / 100.0 - 10_000.0,
                2 => (r % 1_000_000_000_000_000) as f64 * 10f64.powi((r % 45) as i32 - 22),
                3 => ((r % 1000) as f64 + 0.5) * 10f64.powi((r >> 40) as i32 % 30 - 15),
                _ => (r >> 11) as f64 / (1u64 << 53) as f64,
            };
            if !f.is_finite() || f == 0.0 && f.is_sign_negative() {
                continue;
            }
            assert_eq!(decimal(f), by_std(f), "{f:e}");
            checked += 1;
        }
        assert!(checked > 150_000);
        for f in [
            0.0,
            1.0,
            -1.0,
            10.0,
            100.0,
            1e15,
            1e21,
            1e22,
            1e-7,
            0.000001,
            123e-22,
            1e-23,
            999999999999999.0,
        ] {
            assert_eq!(decimal(f), by_std(f), "{f:e}");
        }
    }

    #[test]
    fn varints_and_zigzag() {
        let mut v = vec![];
        varint(&mut v, u64::MAX);
        assert_eq!(
            v,
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        for (n, z) in [(0i64, 0u8), (-1, 1), (1, 2), (-2, 3), (63, 126), (-64, 127)] {
            let mut v = vec![];
            zigzag(&mut v, n);
            assert_eq!(v, [z], "{n}");
        }
        let mut v = vec![];
        zigzag(&mut v, i64::MIN);
        let mut w = vec![];
        varint(&mut w, u64::MAX);
        assert_eq!(v, w);
    }

    #[test]
    fn values_that_break_the_ir_are_errors() {
        let p = project();
        let t = Table {
            rows: vec![Row::new(vec![Value::Int(256)])],
            ..Table::new(
                "T",
                TableMode::List,
                vec![Field::new("x", Type::Int(IntWidth::U8))],
            )
        };
        let err = encode(&p, &t, &"0".repeat(64), &"0".repeat(64)).unwrap_err();
        assert!(format!("{err:#}").contains("row 0 field x"), "{err:#}");
    }

    /// A big table encoded in chunks on all cores is the file one encoder writes, string references
    /// included: strings reused within a chunk, across chunks and across waves, in JSON values (member
    /// names too) and optional fields; and a broken value is reported at the same row.
    #[test]
    fn chunked_encoding_writes_the_bytes_of_one_encoder() {
        let p = project();
        let fields = vec![
            Field::new("id", Type::Int(IntWidth::U32)),
            Field::new("name", Type::String),
            Field::new("note", Type::Optional(Box::new(Type::String))),
            Field::new("dir", Type::Enum("Dir".into())),
            Field::new("j", Type::Json),
            Field::new("f", Type::Float),
        ];
        let n = WAVE_ROWS + 3 * CHUNK_ROWS + 17;
        let rows: Vec<Row> = (0..n)
            .map(|i| {
                let json: serde_json::Value = serde_json::json!({
                    "k": format!("值{}", i % 1000),
                    "b": [i % 7, "x"],
                });
                Row::new(vec![
                    Value::Int(i as i128),
                    Value::Str(compact_str::format_compact!(
                        "名字「{}」",
                        (i * 7919) % 50_000
                    )),
                    if i % 3 == 0 {
                        Value::Null
                    } else {
                        Value::Str(compact_str::format_compact!("备注{}", i % 11))
                    },
                    Value::Enum(["N", "S", "E"][i % 3].into()),
                    Value::Json(Box::new(json)),
                    Value::Float(i as f64 / 8.0),
                ])
            })
            .collect();
        let t = Table {
            rows,
            ..Table::new("T", TableMode::List, fields)
        };
        let bytes = |chunked| {
            let u = encode_body(&p, &t, chunked).unwrap();
            [u.head, u.body].concat()
        };
        let (one, chunked) = (bytes(false), bytes(true));
        assert_eq!(one.len(), chunked.len());
        assert!(one == chunked, "the chunked encoder wrote other bytes");
        let (strings, _) = split(&one[HEADER_LEN + 2..]);
        assert!(strings.len() > 50_000, "{} strings", strings.len());

        let mut broken = t.clone();
        let last = broken.rows.len() - 5;
        broken.rows[last].values[3] = Value::Enum("W".into());
        for chunked in [false, true] {
            let err = encode_body(&p, &broken, chunked).unwrap_err();
            assert!(
                format!("{err:#}").contains(&format!("row {last} field dir")),
                "{err:#}"
            );
        }
    }
}
