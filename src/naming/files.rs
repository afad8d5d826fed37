//! File names are made, never taken (docs/conventions.md §6 "File names"): every path gentable writes is
//! built from components that pass [`component_problem`], after the one escape of [`file_name`] (Windows
//! device names), and no two of them may collide on a case-insensitive, normalisation-insensitive file
//! system ([`collision_key`]). The build refuses to write any other path (`build::write`).

use super::keywords::WINDOWS_DEVICES;
use unicode_normalization::UnicodeNormalization;

/// The longest file name (one path component) gentable writes, in bytes: 255 is the limit of ext4, APFS,
/// NTFS (in UTF-16 units, which is no more) and most other file systems.
pub const MAX_FILE_NAME: usize = 255;

/// Characters Windows forbids in file names (besides the control characters).
const FORBIDDEN: &[char] = &['/', '\\', ':', '*', '?', '"', '<', '>', '|'];

/// Whether `name` (a whole file name or its stem) names a Windows device: its part before the first `.`,
/// without trailing spaces, is `CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9` (with ¹²³ too) or
/// `CONIN$`/`CONOUT$`/`CLOCK$`, in any case.
pub fn is_device(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or("").trim_end_matches(' ');
    WINDOWS_DEVICES
        .iter()
        .any(|d| d.to_lowercase() == base.to_lowercase())
}

/// `stem` as a file name every file system accepts, for a stem that already passes [`component_problem`]
/// but for the device check: a Windows device name gets a `_` after its device part (`aux` → `aux_`,
/// `Con` → `Con_`, `nul.txt` → `nul_.txt`); every other stem is returned as it is.
pub fn file_name(stem: &str) -> String {
    if !is_device(stem) {
        return stem.to_string();
    }
    match stem.find('.') {
        Some(i) => format!("{}_{}", stem[..i].trim_end_matches(' '), &stem[i..]),
        None => format!("{}_", stem.trim_end_matches(' ')),
    }
}

/// Why `c` cannot be one component of a path gentable writes, or `None`: empty, `.` or `..`; a path
/// separator or another character Windows forbids (`: * ? " < > |`); a control, bidirectional or invisible
/// character; leading or trailing white space or a trailing dot (Windows drops them, so the file would get
/// another name); a Windows device name; longer than [`MAX_FILE_NAME`] bytes.
pub fn component_problem(c: &str) -> Option<String> {
    if c.is_empty() {
        return Some("it is empty".into());
    }
    if c == "." || c == ".." {
        return Some(format!("{c:?} names a folder, not a file"));
    }
    if let Some(f) = c.chars().find(|ch| FORBIDDEN.contains(ch)) {
        return Some(format!(
            "it contains {f:?}, which is a path separator or a character Windows forbids in file names"
        ));
    }
    if let Some(h) = c
        .chars()
        .find(|ch| ch.is_control() || crate::diag::render::is_hidden(*ch))
    {
        return Some(format!(
            "it contains the invisible or control character U+{:04X}",
            h as u32
        ));
    }
    if c.starts_with(char::is_whitespace) || c.ends_with(char::is_whitespace) {
        return Some("it starts or ends with white space".into());
    }
    if c.ends_with('.') {
        return Some("it ends with a dot, which Windows drops".into());
    }
    if is_device(c) {
        return Some(format!(
            "{:?} is a Windows device name",
            c.split('.').next().unwrap_or(c)
        ));
    }
    if c.len() > MAX_FILE_NAME {
        return Some(format!(
            "it is {} bytes long, more than the {MAX_FILE_NAME} a file name may have",
            c.len()
        ));
    }
    None
}

/// Why `rel` cannot be a path gentable writes under the generated folder, or `None`: it is relative,
/// `/`-separated, and every component passes [`component_problem`], so after normalisation it still lies
/// under the folder.
pub fn path_problem(rel: &str) -> Option<String> {
    if rel.starts_with('/') {
        return Some("it is absolute".into());
    }
    rel.split('/').find_map(|c| {
        component_problem(c).map(|why| format!("its part {c:?} is not a file name: {why}"))
    })
}

/// The key under which two paths are the same file on a case-insensitive or normalisation-insensitive file
/// system (Windows, macOS): NFC, then lower case.
pub fn collision_key(path: &str) -> String {
    path.nfc().collect::<String>().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_are_escaped_in_any_case_and_with_extensions() {
        assert_eq!(file_name("aux"), "aux_");
        assert_eq!(file_name("Con"), "Con_");
        assert_eq!(file_name("nul.txt"), "nul_.txt");
        assert_eq!(file_name("LPT1"), "LPT1_");
        assert_eq!(file_name("COM¹"), "COM¹_");
        assert_eq!(file_name("Console"), "Console");
        assert_eq!(file_name("道具表"), "道具表");
        assert!(is_device("CONIN$") && !is_device("con_"));
        assert_eq!(component_problem(&file_name("prn.json")), None);
    }

    #[test]
    fn components_that_escape_or_mislead_are_refused() {
        for (c, why) in [
            ("..", "names a folder"),
            ("../../escaped", "path separator"),
            ("a/b", "path separator"),
            ("a\\b", "path separator"),
            ("C:evil", "Windows forbids"),
            ("nul.txt", "Windows device name"),
            ("x\u{202e}y", "U+202E"),
            ("x\ny", "U+000A"),
            (" x", "white space"),
            ("x.", "ends with a dot"),
        ] {
            let got = component_problem(c).unwrap_or_else(|| panic!("{c:?} accepted"));
            assert!(got.contains(why), "{c:?}: {got}");
        }
        assert!(component_problem(&"长".repeat(86))
            .unwrap()
            .contains("258 bytes"));
        assert_eq!(component_problem("PieceType.json"), None);
        assert_eq!(path_problem("data/csharp/PieceType.json"), None);
        assert!(path_problem("data/../x.json").is_some());
        assert!(path_problem("/etc/x").is_some());
        assert_eq!(
            collision_key("Data/É.json"),
            collision_key("data/e\u{301}.json")
        );
    }
}
