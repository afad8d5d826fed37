//! Date-time and duration values in the IR (docs/conventions.md §3, §4): their range and canonical forms.
//!
//! A date-time is whole seconds since the Unix epoch (UTC), years 0001–9999, canonical as RFC 3339
//! `YYYY-MM-DDTHH:MM:SSZ`; a duration is whole milliseconds within ±[`MAX_DURATION_MS`], canonical as a JSON
//! integer (and ISO 8601 `PT…S` for JSON Schema instances). Parsing cells is [`crate::typing::cell::time`]'s.

/// Largest duration magnitude in milliseconds: what C#'s `TimeSpan` holds (±29 227 years); also within
/// JavaScript's safe integers.
pub const MAX_DURATION_MS: i64 = 922_337_203_685_477;

/// Smallest and largest canonical instant: 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
pub const MIN_SECONDS: i64 = -62_135_596_800;
pub const MAX_SECONDS: i64 = 253_402_300_799;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Howard Hinnant's `civil_from_days` (proleptic Gregorian), the same algorithm the generated code uses.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The canonical text of an instant: `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_datetime(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// A duration within ±[`MAX_DURATION_MS`].
pub fn check_duration(ms: i128) -> Result<i64, String> {
    if ms.abs() > MAX_DURATION_MS as i128 {
        return Err(format!(
            "{ms} ms is beyond ±{MAX_DURATION_MS} ms (about 29 000 years)"
        ));
    }
    Ok(ms as i64)
}

/// ISO 8601 text of a duration (for the JSON Schema instance): `PT5400S`, `-PT0.5S`.
pub fn iso_duration(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let a = ms.unsigned_abs();
    if a.is_multiple_of(1000) {
        format!("{sign}PT{}S", a / 1000)
    } else {
        format!("{sign}PT{}.{:03}S", a / 1000, a % 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(format_datetime(1_714_536_000), "2024-05-01T04:00:00Z");
        assert_eq!(format_datetime(MIN_SECONDS), "0001-01-01T00:00:00Z");
        assert_eq!(format_datetime(MAX_SECONDS), "9999-12-31T23:59:59Z");
        assert_eq!(format_datetime(-1), "1969-12-31T23:59:59Z");
        assert_eq!(iso_duration(-500), "-PT0.500S");
        assert_eq!(iso_duration(5_400_000), "PT5400S");
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
        assert!(check_duration(MAX_DURATION_MS as i128 + 1).is_err());
    }
}
