//! The fixed modules of every generated crate, as source text: `types` (maps, date-times, durations),
//! `canonical` (the RFC 8785 writer behind `canonical_tables()`) and `runtime` (the reader of the embedded
//! binary data files and its error type). [`super`] lays them out with `prettyplease`.

/// The generated crate's `types` module: maps, date-times and durations.
pub const TYPES_RS: &str = r#"
//! Value types of the tables besides numbers, strings, enums and records.

/// A map (JSON Schema `additionalProperties`): entries sorted by key (integers numerically, strings by
/// bytes), looked up by binary search.
pub struct Map<K: 'static, V: 'static>(pub &'static [(K, V)]);

impl<K, V> Clone for Map<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, V> Copy for Map<K, V> {}
impl<K: core::fmt::Debug, V: core::fmt::Debug> core::fmt::Debug for Map<K, V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.0.iter().map(|(k, v)| (k, v))).finish()
    }
}
impl<K: PartialEq, V: PartialEq> PartialEq for Map<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<K: Ord, V> Map<K, V> {
    /// The value of `key`, if any.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&'static V>
    where
        K: core::borrow::Borrow<Q>,
    {
        let entries: &'static [(K, V)] = self.0;
        entries
            .binary_search_by(|(k, _)| k.borrow().cmp(key))
            .ok()
            .map(|i| &entries[i].1)
    }
    /// Whether `key` is in the map.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: core::borrow::Borrow<Q>,
    {
        self.get(key).is_some()
    }
}

impl<K, V> Map<K, V> {
    /// The entries, sorted by key.
    pub fn entries(&self) -> &'static [(K, V)] {
        self.0
    }
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The entries, sorted by key.
    pub fn iter(&self) -> impl Iterator<Item = (&'static K, &'static V)> {
        let entries: &'static [(K, V)] = self.0;
        entries.iter().map(|(k, v)| (k, v))
    }
}

/// A map key as a JSON member name.
pub trait MapKey {
    /// The member name: a string as is, an integer in decimal.
    fn key_text(&self) -> String;
}
impl MapKey for &str {
    fn key_text(&self) -> String {
        (*self).to_string()
    }
}
macro_rules! int_keys {
    ($($t:ty),*) => {$(
        impl MapKey for $t {
            fn key_text(&self) -> String { self.to_string() }
        }
    )*};
}
int_keys!(i8, i16, i32, i64, u8, u16, u32, u64);

#[cfg(feature = "canonical")]
impl<K: MapKey, V: crate::canonical::Canonical> crate::canonical::Canonical for Map<K, V> {
    fn write_canonical(&self, out: &mut String) {
        let mut keyed: Vec<(Vec<u16>, String, &V)> = self
            .0
            .iter()
            .map(|(k, v)| {
                let t = k.key_text();
                (t.encode_utf16().collect(), t, v)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut first = true;
        out.push('{');
        for (_, k, v) in &keyed {
            crate::canonical::member(out, &mut first, k, *v);
        }
        out.push('}');
    }
}

/// An instant: whole seconds since 1970-01-01T00:00:00Z (UTC; no time zone is ever implied).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime(pub i64);

impl DateTime {
    /// Seconds since the Unix epoch.
    pub const fn unix_seconds(self) -> i64 {
        self.0
    }
    /// Milliseconds since the Unix epoch.
    pub const fn unix_millis(self) -> i64 {
        self.0 * 1000
    }
    /// As a `std::time::SystemTime`.
    pub fn to_system_time(self) -> std::time::SystemTime {
        let d = std::time::Duration::from_secs(self.0.unsigned_abs());
        if self.0 >= 0 {
            std::time::UNIX_EPOCH + d
        } else {
            std::time::UNIX_EPOCH - d
        }
    }
}

impl core::fmt::Display for DateTime {
    /// RFC 3339 in UTC: `2024-05-01T04:00:00Z`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (days, rem) = (self.0.div_euclid(86_400), self.0.rem_euclid(86_400));
        let (y, m, d) = civil_from_days(days);
        write!(f, "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, m, d, rem / 3600, rem / 60 % 60, rem % 60)
    }
}

#[cfg(feature = "canonical")]
impl crate::canonical::Canonical for DateTime {
    fn write_canonical(&self, out: &mut String) {
        crate::canonical::write_str(out, &self.to_string())
    }
}

/// Year, month and day of a day count since 1970-01-01 (proleptic Gregorian; Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + if m <= 2 { 1 } else { 0 }, m, d)
}

/// A calendar date (`format: date`), no time zone: days since 1970-01-01, years 0001-9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub i32);

impl Date {
    /// Days since 1970-01-01.
    pub const fn days_since_epoch(self) -> i32 {
        self.0
    }
    /// `(year, month 1-12, day 1-31)`.
    pub fn ymd(self) -> (i32, u32, u32) {
        let (y, m, d) = civil_from_days(self.0 as i64);
        (y as i32, m as u32, d as u32)
    }
}

impl core::fmt::Display for Date {
    /// RFC 3339 `full-date`: `2024-05-01`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

#[cfg(feature = "canonical")]
impl crate::canonical::Canonical for Date {
    fn write_canonical(&self, out: &mut String) {
        crate::canonical::write_str(out, &self.to_string())
    }
}

/// A time of day (`format: time`): whole seconds since midnight UTC, `0..86400`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u32);

impl Time {
    /// Seconds since midnight UTC.
    pub const fn seconds_since_midnight(self) -> u32 {
        self.0
    }
    /// `(hour, minute, second)` in UTC.
    pub const fn hms(self) -> (u32, u32, u32) {
        (self.0 / 3600, self.0 / 60 % 60, self.0 % 60)
    }
}

impl core::fmt::Display for Time {
    /// RFC 3339 `full-time` in UTC: `21:00:00Z`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (h, m, s) = self.hms();
        write!(f, "{h:02}:{m:02}:{s:02}Z")
    }
}

#[cfg(feature = "canonical")]
impl crate::canonical::Canonical for Time {
    fn write_canonical(&self, out: &mut String) {
        crate::canonical::write_str(out, &self.to_string())
    }
}

/// A duration: whole milliseconds (may be negative).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub i64);

impl Duration {
    /// Milliseconds.
    pub const fn as_millis(self) -> i64 {
        self.0
    }
    /// As a `core::time::Duration` (`None` if negative).
    pub fn to_std(self) -> Option<core::time::Duration> {
        u64::try_from(self.0).ok().map(core::time::Duration::from_millis)
    }
}

#[cfg(feature = "canonical")]
impl crate::canonical::Canonical for Duration {
    fn write_canonical(&self, out: &mut String) {
        crate::canonical::write_int(out, self.0 as i128)
    }
}
"#;

/// The generated crate's `canonical` module: RFC 8785 writer with ECMAScript number formatting.
pub const CANONICAL_RS: &str = r#"
//! RFC 8785 (JCS) canonical JSON of the tables: the rows' bytes of gentable's `generated/data/*.json`.

/// A value that writes itself as canonical JSON.
pub trait Canonical {
    /// Append the canonical JSON of `self` to `out`.
    fn write_canonical(&self, out: &mut String);
}

/// Write one object member (`,"key":value`), handling the separator.
pub fn member<T: Canonical + ?Sized>(out: &mut String, first: &mut bool, key: &str, v: &T) {
    if !*first {
        out.push(',');
    }
    *first = false;
    write_str(out, key);
    out.push(':');
    v.write_canonical(out);
}

/// A table (slice of rows) as a JSON array.
pub fn table<T: Canonical>(rows: &[T]) -> String {
    let mut out = String::new();
    rows.write_canonical(&mut out);
    out
}

/// A JSON string literal: escapes `"`, `\` and control characters only.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(char::from_digit((c as u32) >> 4, 16).unwrap_or('0'));
                out.push(char::from_digit((c as u32) & 15, 16).unwrap_or('0'));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// An integer: a number within ±(2^53 − 1), else a decimal string.
pub fn write_int(out: &mut String, v: i128) {
    const MAX_SAFE: i128 = (1i128 << 53) - 1;
    if (-MAX_SAFE..=MAX_SAFE).contains(&v) {
        out.push_str(&v.to_string());
    } else {
        out.push('"');
        out.push_str(&v.to_string());
        out.push('"');
    }
}

/// A float in ECMAScript `Number.prototype.toString` form (RFC 8785 §3.2.2.3).
pub fn write_f64(out: &mut String, v: f64) {
    if v == 0.0 {
        out.push('0');
        return;
    }
    // Shortest round-trip digits and exponent, e.g. "1.7976931348623157e308".
    let sci = format!("{:e}", v);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant),
    };
    let mut digits: String = mant.chars().filter(|c| *c != '.').collect();
    tie_to_even(&mut digits, v);
    let k = digits.len() as i32;
    let n = exp + 1;
    if neg {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        for _ in 0..(n - k) {
            out.push('0');
        }
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        for _ in 0..(-n) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n - 1 >= 0 { '+' } else { '-' });
        out.push_str(&(n - 1).abs().to_string());
    }
}

/// Where the double `v` lies exactly halfway between two shortest digit strings that read back as `v`,
/// Rust's `{:e}` takes the upper one and ECMAScript the even one: `890713491284145.25` prints as
/// `890713491284145.2` in every other output. `digits` are `{:e}`'s significant digits of `v`; an odd last
/// digit becomes the even one below when `v`'s exact value is the midpoint between them and the even digits
/// read back as `v` (only downwards: on a tie `{:e}` always takes the upper digit, so an even last digit is
/// already ECMAScript's).
fn tie_to_even(digits: &mut String, v: f64) {
    let last = digits.as_bytes()[digits.len() - 1] - b'0';
    if last % 2 == 0 || digits == "1" {
        return;
    }
    let k = digits.len();
    let mut mid = digits[..k - 1].to_string();
    mid.push(char::from(b'0' + last - 1));
    mid.push('5');
    let significant = |precision: usize| -> String {
        let s = format!("{:.*e}", precision, v.abs());
        let mant = s.split('e').next().unwrap_or("");
        mant.chars().filter(|c| *c != '.').collect::<String>().trim_end_matches('0').to_string()
    };
    // Rounded to k + 1 digits first (cheap); then the exact value in full (a double has at most 767
    // significant digits); then whether the even digits read back as `v` (below a power of two the gap to
    // the next double is half the gap above: 2^-24 prints as `5.960464477539063e-8`, not `…062e-8`).
    if significant(k) != mid || significant(800) != mid {
        return;
    }
    let exp = format!("{:e}", v.abs());
    let exp = exp.split('e').nth(1).unwrap_or("0");
    let lower = char::from(b'0' + last - 1);
    let even = if k == 1 {
        format!("{lower}e{exp}")
    } else {
        format!("{}.{}{lower}e{exp}", &digits[..1], &digits[1..k - 1])
    };
    if even.parse::<f64>() == Ok(v.abs()) {
        digits.pop();
        digits.push(char::from(b'0' + last - 1));
    }
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Canonical for $t {
            fn write_canonical(&self, out: &mut String) { write_int(out, *self as i128) }
        }
    )*};
}
ints!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Canonical for bool {
    fn write_canonical(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" })
    }
}
impl Canonical for f64 {
    fn write_canonical(&self, out: &mut String) {
        write_f64(out, *self)
    }
}
impl Canonical for str {
    fn write_canonical(&self, out: &mut String) {
        write_str(out, self)
    }
}
impl<T: Canonical + ?Sized> Canonical for &T {
    fn write_canonical(&self, out: &mut String) {
        (**self).write_canonical(out)
    }
}
impl<T: Canonical> Canonical for Option<T> {
    fn write_canonical(&self, out: &mut String) {
        match self {
            Some(v) => v.write_canonical(out),
            None => out.push_str("null"),
        }
    }
}
impl<T: Canonical> Canonical for [T] {
    fn write_canonical(&self, out: &mut String) {
        // By position: no iterator adapter instance per row type (one per table).
        out.push('[');
        for i in 0..self.len() {
            if i > 0 {
                out.push(',');
            }
            self[i].write_canonical(out);
        }
        out.push(']');
    }
}
"#;

/// The generated crate's `runtime` module: the reader of the embedded binary data files
/// (docs/data-format.md §3) and its error type. Every read is bounds-checked; nothing here is `unsafe`.
pub const RUNTIME_RS: &str = r#"
#![allow(dead_code)]
//! Reading the embedded data files (docs/data-format.md §3 of gentable): the header, CRC-32 and hash checks,
//! the string table, and the typed reads the tables' decoders are made of. Every check failure is a
//! [`DataError`] naming the file; nothing is read past the end of the data.

/// Why an embedded data file cannot be read: a file under `generated/rust/data/` was edited, truncated or
/// copied from another build by hand. Regenerate the crate with `gentable build`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    /// The data file, relative to the crate (`data/PieceType.bytes`).
    pub file: &'static str,
    /// The table it holds.
    pub table: &'static str,
    /// What is wrong, with the byte offset where it was found.
    pub message: String,
}

impl core::fmt::Display for DataError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} (table {}): {}; regenerate the crate with `gentable build`",
            self.file, self.table, self.message
        )
    }
}

impl std::error::Error for DataError {}

const MAGIC: [u8; 8] = [0x89, b'G', b'T', b'B', 0x0d, 0x0a, 0x1a, 0x0a];
const HEADER: usize = 152;
/// How deep records may nest inside one value (recursive types) before the data is refused.
const MAX_DEPTH: u32 = 256;

const fn crc_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut s = 1;
        while s < 8 {
            t[s][i] = (t[s - 1][i] >> 8) ^ t[0][(t[s - 1][i] & 0xff) as usize];
            s += 1;
        }
        i += 1;
    }
    t
}

static CRC: [[u32; 256]; 8] = crc_tables();

/// CRC-32 (ISO-HDLC, as zlib and PNG: reflected polynomial `0xEDB88320`), eight bytes at a time.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    let mut chunks = bytes.chunks_exact(8);
    for ch in &mut chunks {
        let lo = u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]) ^ c;
        let hi = u32::from_le_bytes([ch[4], ch[5], ch[6], ch[7]]);
        c = CRC[7][(lo & 0xff) as usize]
            ^ CRC[6][((lo >> 8) & 0xff) as usize]
            ^ CRC[5][((lo >> 16) & 0xff) as usize]
            ^ CRC[4][(lo >> 24) as usize]
            ^ CRC[3][(hi & 0xff) as usize]
            ^ CRC[2][((hi >> 8) & 0xff) as usize]
            ^ CRC[1][((hi >> 16) & 0xff) as usize]
            ^ CRC[0][(hi >> 24) as usize];
    }
    for &b in chunks.remainder() {
        c = CRC[0][((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// A cursor over one embedded data file, after its header was checked ([`Reader::open`]).
pub struct Reader {
    file: &'static str,
    table: &'static str,
    bytes: &'static [u8],
    pos: usize,
    strings: Vec<&'static str>,
    /// How many strings of the table the rows have used so far (a new one is always the next).
    next: usize,
    depth: u32,
}

macro_rules! uints {
    ($($name:ident: $t:ty),*) => {$(
        /// An unsigned integer of this width (varint), checked against the width.
        #[inline]
        pub fn $name(&mut self) -> Result<$t, DataError> {
            let at = self.pos;
            let v = self.varint()?;
            <$t>::try_from(v).map_err(|_| self.error_at(at, format!("{v} does not fit {}", stringify!($t))))
        }
    )*};
}

macro_rules! sints {
    ($($name:ident: $t:ty),*) => {$(
        /// A signed integer of this width (zigzag varint), checked against the width.
        #[inline]
        pub fn $name(&mut self) -> Result<$t, DataError> {
            let at = self.pos;
            let v = self.zigzag()?;
            <$t>::try_from(v).map_err(|_| self.error_at(at, format!("{v} does not fit {}", stringify!($t))))
        }
    )*};
}

impl Reader {
    /// Check the header of `bytes` (the embedded `file` of `table`): magic, format version 3, flags, length,
    /// CRC-32, the data and schema hashes this crate was generated with, and the table name; read the string
    /// table. Returns the reader at the first row and the row count.
    pub fn open(
        file: &'static str,
        table: &'static str,
        bytes: &'static [u8],
        data_hash: &str,
        schema_hash: &str,
    ) -> Result<(Reader, usize), DataError> {
        let mut r = Reader { file, table, bytes, pos: 0, strings: Vec::new(), next: 0, depth: 0 };
        if bytes.len() < HEADER || bytes[..8] != MAGIC {
            return Err(r.error_at(0, "not a gentable binary data file (its first bytes are not \\x89GTB\\r\\n\\x1a\\n)".into()));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != 3 {
            return Err(r.error_at(8, format!("data format version {version}; this crate reads version 3")));
        }
        let flags = u16::from_le_bytes([bytes[10], bytes[11]]);
        if flags != 0 {
            return Err(r.error_at(10, format!("unknown flags {flags:#06x}")));
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&bytes[16..24]);
        let len = u64::from_le_bytes(len);
        if len != bytes.len() as u64 {
            return Err(r.error_at(16, format!("the file has {} bytes but its header says {len}: it was truncated or extended", bytes.len())));
        }
        let crc = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
        if crc32(&bytes[16..]) != crc {
            return Err(r.error_at(12, "its CRC-32 does not match its bytes: the file was changed after gentable wrote it".into()));
        }
        r.pos = HEADER;
        let n = r.len(1)?;
        let at = r.pos;
        let name = r.take(n)?;
        if name != table.as_bytes() {
            return Err(r.error_at(at, format!("it holds table {:?}, not {table}", String::from_utf8_lossy(name))));
        }
        // The shape first: a file of another schema usually has other data too, and "another schema" says more.
        for (at, want, what) in [(88, schema_hash, "schemaHash"), (24, data_hash, "dataHash")] {
            let got = &bytes[at..at + 64];
            if got != want.as_bytes() {
                let why = if what == "dataHash" { "the file is from another build" } else { "the file was written for another schema" };
                return Err(r.error_at(at, format!("{what} {} differs from this crate's {want}: {why}", String::from_utf8_lossy(got))));
            }
        }
        r.string_table()?;
        let rows = r.len(0)?;
        Ok((r, rows))
    }

    /// The string table (docs/data-format.md §3.2): string lengths in characters, the alphabet, the canonical
    /// Huffman code of each context (after an ASCII character or not) and the coded characters, decoded once into one string that lives as long as the program (the rows
    /// borrow from it, as they borrow from the embedded bytes).
    fn string_table(&mut self) -> Result<(), DataError> {
        let count = self.len(1)?;
        let mut lens = Vec::with_capacity(count);
        let mut total = 0usize;
        for _ in 0..count {
            let n = self.len(0)?;
            total = total.checked_add(n).ok_or_else(|| self.error("string table too long".into()))?;
            lens.push(n);
        }
        let k = self.len(3)?;
        let mut symbols = Vec::with_capacity(k);
        let mut prev = 0u64;
        for i in 0..k {
            let at = self.pos;
            let d = self.varint()?;
            if i > 0 && d == 0 {
                return Err(self.error_at(at, "the string table's characters are not ascending".into()));
            }
            let v = prev.saturating_add(d);
            let c = u32::try_from(v).ok().and_then(char::from_u32).ok_or_else(|| self.error_at(at, format!("{v:#x} is not a Unicode scalar value")))?;
            symbols.push(c);
            prev = v;
        }
        // One code length byte per symbol and context (0: not coded in that context), each context a prefix code.
        let at = self.pos;
        let code_lens = self.take(2 * k)?;
        let mut per_len = [[0u32; 25]; 2];
        for (i, &l) in code_lens.iter().enumerate() {
            if l > 24 {
                return Err(self.error_at(at + i, format!("a code length of {l} bits (0 to 24)")));
            }
            per_len[i / k.max(1)][l as usize] += 1;
        }
        let mut order: [Vec<char>; 2] = [Vec::new(), Vec::new()];
        for ctx in 0..2 {
            let mut left = 1i64;
            for &n in &per_len[ctx][1..] {
                left = (left << 1) - i64::from(n);
                if left < 0 {
                    return Err(self.error_at(at + ctx * k, "the string table's code lengths are not a prefix code".into()));
                }
            }
            let lens = &code_lens[ctx * k..(ctx + 1) * k];
            for len in 1..=24u8 {
                order[ctx].extend(symbols.iter().zip(lens).filter(|(_, &l)| l == len).map(|(c, _)| *c));
            }
        }
        let nbytes = self.len(1)?;
        let at = self.pos;
        let bits = self.take(nbytes)?;
        if total > nbytes.saturating_mul(8) {
            return Err(self.error_at(at, format!("{total} characters cannot be coded in {nbytes} bytes")));
        }
        // Codes of up to 10 bits decode with one look-up of the next 10 bits in their context's table: entry =
        // order index << 5 | length.
        let mut fast = [[0u32; 1024]; 2];
        for (ctx, fast) in fast.iter_mut().enumerate() {
            let (mut code, mut j) = (0usize, 0u32);
            for len in 1..=10usize {
                for _ in 0..per_len[ctx][len] {
                    let shift = 10 - len;
                    fast[code << shift..(code + 1) << shift].fill(j << 5 | len as u32);
                    j += 1;
                    code += 1;
                }
                code <<= 1;
            }
        }
        let end_bit = nbytes * 8;
        let mut text = String::with_capacity(total.saturating_mul(3).min(nbytes.saturating_mul(8)));
        let mut ends = Vec::with_capacity(count);
        let mut bit = 0usize;
        for n in lens {
            // Context 0 at a string's start and after a non-ASCII character, 1 after an ASCII one.
            let mut ctx = 0;
            for _ in 0..n {
                let i = bit / 8;
                let byte = |i: usize| u32::from(bits.get(i).copied().unwrap_or(0));
                let w = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
                let e = fast[ctx][(w >> (14 - bit % 8) & 1023) as usize];
                let c = if e != 0 {
                    bit += (e & 31) as usize;
                    order[ctx][(e >> 5) as usize]
                } else {
                    // A longer code: one bit at a time (canonical decoding: codes of each length are consecutive).
                    let (mut code, mut first, mut index) = (0u32, 0u32, 0usize);
                    let mut len = 1;
                    loop {
                        if bit >= end_bit {
                            return Err(self.error_at(at + nbytes, "the string table's characters end early".into()));
                        }
                        code |= byte(bit / 8) >> (7 - bit % 8) & 1;
                        bit += 1;
                        let n = per_len[ctx][len];
                        if code.wrapping_sub(first) < n {
                            break order[ctx][index + code.wrapping_sub(first) as usize];
                        }
                        if len == 24 {
                            return Err(self.error_at(at + bit / 8, "an invalid code in the string table".into()));
                        }
                        index += n as usize;
                        first = (first + n) << 1;
                        code <<= 1;
                        len += 1;
                    }
                };
                if bit > end_bit {
                    return Err(self.error_at(at + nbytes, "the string table's characters end early".into()));
                }
                text.push(c);
                ctx = usize::from(c.is_ascii());
            }
            ends.push(text.len());
        }
        if bit.div_ceil(8) != nbytes || (bit % 8 != 0 && bits[bit / 8] & (0xff >> (bit % 8)) != 0) {
            return Err(self.error_at(at, "the string table's coded characters do not end in their last byte".into()));
        }
        let text: &'static str = Box::leak(text.into_boxed_str());
        let mut start = 0;
        self.strings.reserve_exact(count);
        for end in ends {
            self.strings.push(&text[start..end]);
            start = end;
        }
        Ok(())
    }

    /// A [`DataError`] at the current position.
    pub fn error(&self, message: String) -> DataError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, at: usize, message: String) -> DataError {
        DataError { file: self.file, table: self.table, message: format!("at byte {at}: {message}") }
    }

    /// The number of bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'static [u8], DataError> {
        let bytes: &'static [u8] = self.bytes;
        match self.pos.checked_add(n).and_then(|end| bytes.get(self.pos..end)) {
            Some(b) => {
                self.pos += n;
                Ok(b)
            }
            None => Err(self.error(format!("{n} more bytes needed, {} left", self.remaining()))),
        }
    }

    /// The end of the rows: nothing may follow them.
    pub fn finish(self) -> Result<(), DataError> {
        if self.pos != self.bytes.len() {
            return Err(self.error(format!("{} bytes follow the last row", self.remaining())));
        }
        if self.next != self.strings.len() {
            return Err(self.error(format!("{} strings of the string table are not used by any row", self.strings.len() - self.next)));
        }
        Ok(())
    }

    /// An unsigned LEB128 varint of at most 10 bytes and 64 bits.
    #[inline]
    pub fn varint(&mut self) -> Result<u64, DataError> {
        let at = self.pos;
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.error_at(at, "the file ends inside a number".into()));
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                return Err(self.error_at(at, "a varint exceeds 64 bits".into()));
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    /// A zigzag varint.
    #[inline]
    pub fn zigzag(&mut self) -> Result<i64, DataError> {
        let u = self.varint()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    uints!(u8: u8, u16: u16, u32: u32, u64: u64);
    sints!(i8: i8, i16: i16, i32: i32, i64: i64);

    /// A count of items of at least `min_size` bytes each: refused if the rest of the file cannot hold them.
    #[inline]
    pub fn len(&mut self, min_size: usize) -> Result<usize, DataError> {
        let at = self.pos;
        let n = self.varint()?;
        match usize::try_from(n) {
            Ok(n) if min_size == 0 || n <= self.remaining() / min_size => Ok(n),
            _ => Err(self.error_at(at, format!("a count of {n} exceeds what is left of the file"))),
        }
    }

    /// An index below `count` (an enum member, a union variant).
    #[inline]
    pub fn index(&mut self, count: usize) -> Result<usize, DataError> {
        let at = self.pos;
        let i = self.varint()?;
        match usize::try_from(i) {
            Ok(i) if i < count => Ok(i),
            _ => Err(self.error_at(at, format!("index {i} is out of range (there are {count})"))),
        }
    }

    /// One byte that must be 0 or 1.
    #[inline]
    fn flag(&mut self, what: &str) -> Result<bool, DataError> {
        match self.bytes.get(self.pos) {
            Some(0) => {
                self.pos += 1;
                Ok(false)
            }
            Some(1) => {
                self.pos += 1;
                Ok(true)
            }
            Some(b) => Err(self.error(format!("{what} byte {b} is neither 0 nor 1"))),
            None => Err(self.error("the file ends before a value".into())),
        }
    }

    /// A boolean.
    #[inline]
    pub fn bool(&mut self) -> Result<bool, DataError> {
        self.flag("a boolean")
    }

    /// Whether an optional value follows.
    #[inline]
    pub fn present(&mut self) -> Result<bool, DataError> {
        self.flag("an optional's tag")
    }

    /// A finite number (docs/data-format.md §3.3): a decimal m × 10^e (tag e + 22, then the zigzag varint m,
    /// |m| < 10^15), or tag 255 and an IEEE 754 binary64.
    #[inline]
    pub fn f64(&mut self) -> Result<f64, DataError> {
        const POW10: [f64; 23] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
        let at = self.pos;
        let tag = *self.take(1)?.first().unwrap_or(&0);
        if tag == 255 {
            let b = self.take(8)?;
            let v = f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            if !v.is_finite() {
                return Err(self.error_at(at, format!("{v} is not a finite number")));
            }
            return Ok(v);
        }
        if tag > 44 {
            return Err(self.error_at(at, format!("number tag {tag} (0 to 44 or 255)")));
        }
        let m = self.zigzag()?;
        if m.unsigned_abs() >= 1_000_000_000_000_000 {
            return Err(self.error_at(at, format!("decimal digits {m} exceed 15")));
        }
        let e = i32::from(tag) - 22;
        Ok(if e >= 0 { m as f64 * POW10[e as usize] } else { m as f64 / POW10[(-e) as usize] })
    }

    /// A string reference: `0`, the next string of the string table (its first use), or `i + 1`, string `i`
    /// again (one already used).
    #[inline]
    pub fn str(&mut self) -> Result<&'static str, DataError> {
        let at = self.pos;
        let i = self.varint()?;
        if i == 0 {
            return match self.strings.get(self.next) {
                Some(s) => {
                    self.next += 1;
                    Ok(*s)
                }
                None => Err(self.error_at(at, format!("a new string, but all {} of the string table are used", self.strings.len()))),
            };
        }
        match usize::try_from(i - 1) {
            Ok(i) if i < self.next => Ok(self.strings[i]),
            _ => Err(self.error_at(at, format!("string {} is used before its first use ({} used so far)", i - 1, self.next))),
        }
    }

    /// A flag set of `members` members.
    #[inline]
    pub fn flags(&mut self, members: u32) -> Result<u64, DataError> {
        let at = self.pos;
        let bits = self.varint()?;
        if members < 64 && bits >> members != 0 {
            return Err(self.error_at(at, format!("flag bits {bits:#x} name members beyond the {members} there are")));
        }
        Ok(bits)
    }

    /// A date-time: seconds since the Unix epoch, years 0001–9999.
    #[inline]
    pub fn datetime(&mut self) -> Result<i64, DataError> {
        let at = self.pos;
        let v = self.zigzag()?;
        if !(-62_135_596_800..=253_402_300_799).contains(&v) {
            return Err(self.error_at(at, format!("date-time {v} s is outside the years 0001-9999")));
        }
        Ok(v)
    }

    /// A date: days since 1970-01-01, years 0001–9999.
    #[inline]
    pub fn date(&mut self) -> Result<i32, DataError> {
        let at = self.pos;
        let v = self.zigzag()?;
        if !(-719_162..=2_932_896).contains(&v) {
            return Err(self.error_at(at, format!("date {v} d is outside the years 0001-9999")));
        }
        Ok(v as i32)
    }

    /// A time of day: seconds since midnight UTC, 0–86 399.
    #[inline]
    pub fn time(&mut self) -> Result<u32, DataError> {
        let at = self.pos;
        let v = self.varint()?;
        if v >= 86_400 {
            return Err(self.error_at(at, format!("time of day {v} s is not below 86 400")));
        }
        Ok(v as u32)
    }

    /// A duration: milliseconds, at most ±922 337 203 685 477.
    #[inline]
    pub fn duration(&mut self) -> Result<i64, DataError> {
        let at = self.pos;
        let v = self.zigzag()?;
        if v.unsigned_abs() > 922_337_203_685_477 {
            return Err(self.error_at(at, format!("duration {v} ms is out of range")));
        }
        Ok(v)
    }

    /// Map entries, which must come in strictly ascending key order.
    pub fn map<K: Ord, V>(&self, entries: Vec<(K, V)>) -> Result<&'static [(K, V)], DataError> {
        if entries.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(self.error("map keys are not in strictly ascending order".into()));
        }
        Ok(leak(entries))
    }

    /// `decode` one level deeper: values nest at most 256 records deep.
    pub fn nested<T>(&mut self, decode: fn(&mut Reader) -> Result<T, DataError>) -> Result<T, DataError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("values nest more than {MAX_DEPTH} deep")));
        }
        self.depth += 1;
        let v = decode(self);
        self.depth -= 1;
        v
    }
}

/// `items` for as long as the program runs (table data is never freed, like a `static`).
pub fn leak<T>(items: Vec<T>) -> &'static [T] {
    if items.is_empty() {
        return &[];
    }
    Box::leak(items.into_boxed_slice())
}

/// `v` for as long as the program runs (a record on a reference cycle).
pub fn boxed<T>(v: T) -> &'static T {
    Box::leak(Box::new(v))
}

/// The error of a map table whose rows `i` and `i + 1` are not strictly ascending by primary key (the
/// lookups search them), found while decoding row `i + 1`.
#[cold]
#[inline(never)]
pub fn unsorted(r: &mut Decoder, i: usize) -> Bad {
    r.error(format!("rows {i} and {} are not in strictly ascending primary-key order", i + 1))
}

/// A table's row type as the runtime's table code sees it: every table's row implements it, so that the
/// row loop, the key-order checks and the primary-key lookup are written once, here, as generic functions
/// (a body type-checked once for the crate instead of a loop and closures per table).
pub trait Row: Sized + Send + Sync + 'static {
    /// The primary key, in the order the rows are sorted and searched: the key field's type, a tuple of the
    /// key fields' types for a composite key, `()` for a list or singleton table.
    type Key: Ord + core::fmt::Debug;
    /// This row's primary key.
    fn key(&self) -> Self::Key;
    /// Read one row from embedded data (docs/data-format.md §3.3): its fields in declaration order.
    fn decode(r: &mut Decoder) -> Result<Self, Bad>;
}

/// The decoder of a map table sorted by primary key (the default order): `n` rows in strictly ascending key
/// order (the lookups search them), stopping at the first that cannot be read. Most tables use this one: its
/// loop is written out here (not [`read`] and a check after it) because it is one instance per table to
/// compile.
pub fn sorted<T: Row>(d: &mut Decoder, n: usize) -> Result<Rows, Bad> {
    let mut rows: Vec<T> = Vec::with_capacity(n.min(d.remaining()));
    for _ in 0..n {
        let row = T::decode(d)?;
        if let Some(prev) = rows.last() {
            if prev.key() >= row.key() {
                return Err(unsorted(d, rows.len() - 1));
            }
        }
        rows.push(row);
    }
    Ok(Box::new(rows))
}

/// Read `n` rows in source order, stopping at the first that cannot be read.
fn read<T: Row>(d: &mut Decoder, n: usize) -> Result<Vec<T>, Bad> {
    let mut rows: Vec<T> = Vec::with_capacity(n.min(d.remaining()));
    for _ in 0..n {
        rows.push(T::decode(d)?);
    }
    Ok(rows)
}

/// The decoder of a list table: `n` rows in source order.
pub fn list<T: Row>(d: &mut Decoder, n: usize) -> Result<Rows, Bad> {
    Ok(Box::new(read::<T>(d, n)?))
}

/// The decoder of a singleton table: exactly one row.
pub fn single<T: Row>(d: &mut Decoder, n: usize) -> Result<Rows, Bad> {
    let rows = read::<T>(d, n)?;
    if rows.len() != 1 {
        return Err(d.error(format!("a singleton table has {} rows", rows.len())));
    }
    Ok(Box::new(rows))
}

/// The decoder of a map table that keeps source order (`order = "source"`): `n` rows with distinct primary
/// keys.
pub fn source_order<T: Row>(d: &mut Decoder, n: usize) -> Result<Rows, Bad> {
    let rows = read::<T>(d, n)?;
    let order = key_order(&rows);
    if let Some(w) = order.windows(2).find(|w| rows[w[0] as usize].key() == rows[w[1] as usize].key()) {
        return Err(d.error(format!("rows {} and {} have the same primary key", w[0], w[1])));
    }
    Ok(Box::new(rows))
}

/// Row positions of `rows` sorted by primary key (the lookup index of a map table that keeps source order).
pub fn key_order<T: Row>(rows: &[T]) -> Box<[u32]> {
    index(rows, |a, b| a.key().cmp(&b.key()))
}

/// The row of `table` (sorted by primary key) whose key is `key`, by binary search.
#[inline]
pub fn get<T: Row>(table: &'static Table, key: T::Key) -> Option<&'static T> {
    let rows = table.rows::<T>();
    search(rows.len(), &mut |i| rows[i].key().cmp(&key)).map(|i| &rows[i])
}

/// The row of `rows` (a map table that keeps source order) whose key is `key`, by binary search over
/// `by_key`, the row positions sorted by key ([`key_order`]).
#[inline]
pub fn get_in_order<T: Row>(rows: &'static [T], by_key: &[u32], key: T::Key) -> Option<&'static T> {
    search(by_key.len(), &mut |j| rows[by_key[j] as usize].key().cmp(&key)).map(|j| &rows[by_key[j] as usize])
}

/// The row of `table` that a foreign key `key` references, found by `lookup` (the table's `get` or a unique
/// key's `get_by_…`): validation guarantees it for every row read from the tables, so a missing row panics
/// ([`dangling`]).
#[inline]
pub fn resolve<K: Copy + core::fmt::Debug, T: 'static>(
    lookup: fn(K) -> Option<&'static T>,
    table: &'static str,
    key: K,
) -> &'static T {
    match lookup(key) {
        Some(row) => row,
        None => dangling(table, &key),
    }
}

/// [`resolve`] for an optional foreign key.
#[inline]
pub fn resolve_some<K: Copy + core::fmt::Debug, T: 'static>(
    lookup: fn(K) -> Option<&'static T>,
    table: &'static str,
    key: Option<K>,
) -> Option<&'static T> {
    match key {
        Some(key) => Some(resolve(lookup, table, key)),
        None => None,
    }
}

/// [`resolve`] for each key of an array of foreign keys, in order.
#[inline]
pub fn resolve_each<K: Copy + core::fmt::Debug + 'static, T: 'static>(
    lookup: fn(K) -> Option<&'static T>,
    table: &'static str,
    keys: &'static [K],
) -> impl Iterator<Item = &'static T> {
    keys.iter().map(move |&key| resolve(lookup, table, key))
}

/// Decode every table of `tables` that is not decoded yet, in order; the first that cannot be read is the
/// error (the crate's `load()`).
pub fn load(tables: &'static [&'static Table]) -> Result<(), DataError> {
    for t in tables {
        t.try_decoded()?;
    }
    Ok(())
}

/// Row positions of `rows` sorted by `cmp` (a unique key's lookup index).
pub fn index<T>(rows: &[T], cmp: impl Fn(&T, &T) -> core::cmp::Ordering) -> Box<[u32]> {
    let mut order: Vec<u32> = (0..rows.len() as u32).collect();
    order.sort_by(|&a, &b| cmp(&rows[a as usize], &rows[b as usize]));
    order.into_boxed_slice()
}

/// Binary search over the positions `0..len`, ordered by `cmp(i)` (how position `i`'s key compares with the
/// key searched): the position whose key is equal, if any. One function for every primary-key lookup of the
/// crate, where a `binary_search_by` per table was one more generic instance per table to compile.
#[inline(never)]
pub fn search(len: usize, cmp: &mut dyn FnMut(usize) -> core::cmp::Ordering) -> Option<usize> {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match cmp(mid) {
            core::cmp::Ordering::Less => lo = mid + 1,
            core::cmp::Ordering::Greater => hi = mid,
            core::cmp::Ordering::Equal => return Some(mid),
        }
    }
    None
}

/// The decoded rows of one table: a `Vec` of its row type, type-erased so that every table shares one
/// [`Table`] type (one `OnceLock` and one decode driver compiled for the whole crate, not one per table).
pub type Rows = Box<dyn core::any::Any + Send + Sync>;

/// One table's embedded data file and its rows, decoded on first use (docs/data-format.md §3).
///
/// The bytes are not in this crate: the crate root's `embedded(index)` gets them from the facade crate that
/// embeds them, so that a data edit recompiles only that small crate.
pub struct Table {
    /// The table's position among the embedded files (the facade's list, in table-name order).
    index: usize,
    /// The data file, relative to the facade crate (`data/PieceType.bytes`).
    file: &'static str,
    /// The table's name, which the file must hold.
    name: &'static str,
    /// The `schemaHash` this crate was generated with, which the file must carry.
    schema_hash: &'static str,
    /// The table's own decoder: `n` rows into a `Vec` of its row type, each value checked.
    decode: fn(&mut Decoder, usize) -> Result<Rows, Bad>,
    rows: std::sync::OnceLock<Result<Rows, DataError>>,
}

impl Table {
    /// A table not decoded yet.
    pub const fn new(
        index: usize,
        file: &'static str,
        name: &'static str,
        schema_hash: &'static str,
        decode: fn(&mut Decoder, usize) -> Result<Rows, Bad>,
    ) -> Table {
        Table { index, file, name, schema_hash, decode, rows: std::sync::OnceLock::new() }
    }

    /// The decoded rows (decoding them on the first call, once even under concurrent calls), or why the
    /// embedded data cannot be read.
    #[inline(never)]
    fn decoded(&'static self) -> &'static Result<Rows, DataError> {
        self.rows.get_or_init(|| self.decode_now())
    }

    fn decode_now(&self) -> Result<Rows, DataError> {
        let Some((bytes, data_hash)) = crate::embedded(self.index) else {
            return Err(DataError {
                file: self.file,
                table: self.name,
                message: "the facade crate embeds no data file for this table: it is from another build".into(),
            });
        };
        let (r, n) = Reader::open(self.file, self.name, bytes, data_hash, self.schema_hash)?;
        let mut d = Decoder { r, failure: None, depth: 0 };
        let rows = match (self.decode)(&mut d, n) {
            Ok(rows) => rows,
            Err(Bad) => return Err(d.failure()),
        };
        d.r.finish()?;
        Ok(rows)
    }

    /// The decoded rows, or a copy of why the embedded data cannot be read.
    #[inline(never)]
    fn try_decoded(&'static self) -> Result<&'static Rows, DataError> {
        match self.decoded() {
            Ok(rows) => Ok(rows),
            Err(e) => Err(e.clone()),
        }
    }

    /// The decoded rows, or a panic naming the data file.
    #[inline(never)]
    fn decoded_or_panic(&'static self) -> &'static Rows {
        match self.decoded() {
            Ok(rows) => rows,
            Err(e) => fail(e),
        }
    }

    /// Every row, or why the embedded data cannot be read.
    pub fn try_rows<T: 'static>(&'static self) -> Result<&'static [T], DataError> {
        Ok(self.typed(self.try_decoded()?))
    }

    /// Every row, or a panic naming the data file (see the table's `try_all`).
    pub fn rows<T: 'static>(&'static self) -> &'static [T] {
        self.typed(self.decoded_or_panic())
    }

    fn typed<T: 'static>(&self, rows: &'static Rows) -> &'static [T] {
        match rows.downcast_ref::<Vec<T>>() {
            Some(rows) => rows,
            None => wrong_type(self.name),
        }
    }
}

/// A value that could not be read: the zero-sized error of the tables' decoders, whose [`DataError`] the
/// [`Decoder`] keeps. With it a decoder's `Result`s fit in registers: the decoders are most of the crate's
/// code, and a `DataError` moved through every field read made them most of its compile time
/// (docs/performance.md of gentable).
#[derive(Debug)]
pub struct Bad;

/// The [`Reader`] as the tables' decoders use it. Every read returns its value, or, once a read failed, a
/// default (`0`, `false`, `""`) without reading further; the first [`DataError`] is kept for [`Table`] to
/// return. A decoder reads all its fields and then asks [`Decoder::check`] once whether they were read: a
/// value built from a failed read never leaves the decoder. Each read is one call (`#[inline(never)]`) and
/// no read is followed by a `?`, so the decoders stay small for the compiler: they are most of the crate's
/// code (docs/performance.md of gentable). Counts read after a failure are 0, so no loop runs on.
pub struct Decoder {
    r: Reader,
    failure: Option<DataError>,
    /// How deep records nest at the current value (recursive types), at most 256.
    depth: u32,
}

macro_rules! reads {
    ($($name:ident ( $($arg:ident : $at:ty),* ) -> $t:ty),* $(,)?) => {
        $(
            #[doc = " The [`Reader`] read of the same name; after a failure (kept), the type's default."]
            #[inline(never)]
            pub fn $name(&mut self $(, $arg: $at)*) -> $t {
                if self.failure.is_some() {
                    return Default::default();
                }
                match self.r.$name($($arg),*) {
                    Ok(v) => v,
                    Err(e) => {
                        self.keep(e);
                        Default::default()
                    }
                }
            }
        )*
    };
}

impl Decoder {
    reads!(
        bool() -> bool,
        present() -> bool,
        f64() -> f64,
        str() -> &'static str,
        index(count: usize) -> usize,
        len(min_size: usize) -> usize,
        flags(members: u32) -> u64,
        datetime() -> i64,
        date() -> i32,
        time() -> u32,
        duration() -> i64,
        u8() -> u8,
        u16() -> u16,
        u32() -> u32,
        u64() -> u64,
        i8() -> i8,
        i16() -> i16,
        i32() -> i32,
        i64() -> i64,
    );

    /// Keep `e` (the first failure wins) and stop decoding.
    #[cold]
    #[inline(never)]
    fn keep(&mut self, e: DataError) -> Bad {
        if self.failure.is_none() {
            self.failure = Some(e);
        }
        Bad
    }

    /// A failure at the current position.
    #[cold]
    #[inline(never)]
    pub fn error(&mut self, message: String) -> Bad {
        let e = self.r.error(message);
        self.keep(e)
    }

    /// Why decoding stopped.
    fn failure(&mut self) -> DataError {
        match self.failure.take() {
            Some(e) => e,
            None => self.r.error("a value could not be read".into()),
        }
    }

    /// The number of bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.r.remaining()
    }

    /// `v`, if every read so far succeeded; otherwise [`Bad`] (the failure is kept). The one check of a
    /// decoder, after all its reads.
    #[inline]
    pub fn check<T>(&self, v: T) -> Result<T, Bad> {
        match self.failure {
            None => Ok(v),
            Some(_) => Err(Bad),
        }
    }

    /// An enum member: its index in `all` (the enum's `ALL`, never empty: gentable refuses an enum without
    /// members); after a failure, the first member.
    #[inline(never)]
    pub fn member<E: Copy>(&mut self, all: &'static [E]) -> E {
        let i = self.index(all.len());
        match all.get(i) {
            Some(&e) => e,
            None => no_members(),
        }
    }

    /// An array of `item`s, each at least `min_size` bytes: its count, then the items; for as long as the
    /// program runs (see [`leak`]). After a failure, empty.
    #[inline(never)]
    pub fn array<T>(&mut self, min_size: usize, item: fn(&mut Decoder) -> T) -> &'static [T] {
        let n = self.len(min_size);
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(item(self));
            if self.failure.is_some() {
                break;
            }
        }
        leak(v)
    }

    /// Map entries, which must come in strictly ascending key order.
    pub fn map<K: Ord, V>(&mut self, entries: Vec<(K, V)>) -> Result<&'static [(K, V)], Bad> {
        match self.r.map(entries) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.keep(e)),
        }
    }

    /// `decode` one level deeper: values nest at most 256 records deep.
    pub fn nested<T>(&mut self, decode: fn(&mut Decoder) -> Result<T, Bad>) -> Result<T, Bad> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("values nest more than {MAX_DEPTH} deep")));
        }
        self.depth += 1;
        let v = decode(self);
        self.depth -= 1;
        v
    }
}

/// The panic of [`Table::rows`]: the embedded data cannot be read.
#[cold]
#[inline(never)]
fn fail(e: &DataError) -> ! {
    panic!("{e}")
}

/// An enum without members reached a decoder: a gentable bug, never data (the schema stage refuses it).
#[cold]
#[inline(never)]
fn no_members() -> ! {
    panic!("an enum without members (a gentable bug)")
}

/// A table's decoder made rows of another type than its accessors read: a gentable bug, never data.
#[cold]
#[inline(never)]
fn wrong_type(table: &str) -> ! {
    panic!("table {table}: decoded rows of another type (a gentable bug)")
}

/// The panic of a typed reference whose row is missing: only a row built by hand can get here.
#[cold]
pub fn dangling(table: &str, key: &dyn core::fmt::Debug) -> ! {
    panic!("{table} has no row with key {key:?}: the row holding this reference was not read from the tables (validation guarantees their references)")
}
"#;

/// Appended to the `types` module when a field holds any JSON value ([`Type::Json`]).
pub const JSON_RS: &str = r#"
/// Any JSON value (a field whose schema allows every value, `true` or `{}`, or the untyped members and
/// items of objects and arrays). Numbers are IEEE 754 doubles; object members are in RFC 8785 order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(&'static str),
    Array(&'static [Json]),
    Object(&'static [(&'static str, Json)]),
}

impl Json {
    /// The member `key` of an object, if any.
    pub fn get(&self, key: &str) -> Option<&'static Json> {
        match *self {
            Json::Object(members) => members.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    /// Whether this is JSON `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Json::Bool(b) => Some(b),
            _ => None,
        }
    }
    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Json::Number(n) => Some(n),
            _ => None,
        }
    }
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&'static str> {
        match *self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&'static [Json]> {
        match *self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }
    /// The members in RFC 8785 order, if this is an object.
    pub fn as_object(&self) -> Option<&'static [(&'static str, Json)]> {
        match *self {
            Json::Object(m) => Some(m),
            _ => None,
        }
    }
}

impl Json {
    /// Read one JSON value from embedded data (docs/data-format.md §3.3): its kind (0 null, 1 false, 2 true,
    /// 3 number, 4 string, 5 array, 6 object), then its body; object members strictly ascending by the UTF-16
    /// code units of their names.
    pub(crate) fn decode(r: &mut crate::runtime::Decoder) -> Result<Json, crate::runtime::Bad> {
        r.nested(|r| {
            let v = match r.index(7) {
                0 => Json::Null,
                1 => Json::Bool(false),
                2 => Json::Bool(true),
                3 => Json::Number(r.f64()),
                4 => Json::String(r.str()),
                5 => {
                    let n = r.len(1);
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        items.push(Json::decode(r)?);
                    }
                    Json::Array(crate::runtime::leak(items))
                }
                _ => {
                    let n = r.len(2);
                    let mut members: Vec<(&'static str, Json)> = Vec::with_capacity(n);
                    for _ in 0..n {
                        let k = r.str();
                        members.push((k, Json::decode(r)?));
                    }
                    if members
                        .windows(2)
                        .any(|w| w[0].0.encode_utf16().cmp(w[1].0.encode_utf16()) != core::cmp::Ordering::Less)
                    {
                        return Err(r.error("object members are not in strictly ascending order".into()));
                    }
                    Json::Object(crate::runtime::leak(members))
                }
            };
            r.check(v)
        })
    }
}

#[cfg(feature = "canonical")]
impl crate::canonical::Canonical for Json {
    fn write_canonical(&self, out: &mut String) {
        match *self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => b.write_canonical(out),
            Json::Number(n) => crate::canonical::write_f64(out, n),
            Json::String(s) => crate::canonical::write_str(out, s),
            Json::Array(items) => items.write_canonical(out),
            Json::Object(members) => {
                let mut first = true;
                out.push('{');
                for (k, v) in members {
                    crate::canonical::member(out, &mut first, k, v);
                }
                out.push('}');
            }
        }
    }
}

"#;
