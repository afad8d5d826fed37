//! Where the parts of a binary data file are (docs/data-format.md §3), for tests that damage one part and
//! check the loaders' messages.

/// Offsets in a binary data file (format 3).
pub struct Layout {
    /// The first of the string table's code length bytes (one per character of its alphabet and context:
    /// context 0's, then context 1's).
    pub code_lengths: usize,
    /// How many characters the alphabet has.
    pub alphabet: usize,
    /// The first byte of the coded characters.
    pub coded: usize,
    /// The row count's varint; the rows follow it.
    pub rows: usize,
}

fn varint(b: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let c = b[*at];
        *at += 1;
        v |= u64::from(c & 0x7f) << shift;
        if c < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// The parts of `b`, a well-formed file.
pub fn layout(b: &[u8]) -> Layout {
    let mut at = 152;
    let name = varint(b, &mut at) as usize;
    at += name;
    let count = varint(b, &mut at);
    for _ in 0..count {
        varint(b, &mut at);
    }
    let alphabet = varint(b, &mut at) as usize;
    for _ in 0..alphabet {
        varint(b, &mut at);
    }
    let code_lengths = at;
    at += 2 * alphabet;
    let nbytes = varint(b, &mut at) as usize;
    let coded = at;
    Layout {
        code_lengths,
        alphabet,
        coded,
        rows: coded + nbytes,
    }
}

/// Write `b`'s length and CRC-32 again after a change, so only the changed part is wrong.
pub fn reseal(b: &mut [u8]) {
    let len = b.len() as u64;
    b[16..24].copy_from_slice(&len.to_le_bytes());
    let crc = crc32fast::hash(&b[16..]);
    b[12..16].copy_from_slice(&crc.to_le_bytes());
}
