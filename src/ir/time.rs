//! Date-time and duration values in the IR (docs/conventions.md §3, §4): their range and canonical forms.
//!
//! A date-time is whole seconds since the Unix epoch (UTC), years 0001–9999, canonical as RFC 3339
//! `YYYY-MM-DDTHH:MM:SSZ`; a duration is whole milliseconds within ±[`MAX_DURATION_MS`], canonical as a JSON
//! integer (and ISO 8601 `PT…S` for JSON Schema instances); a date is days since 1970-01-01, canonical as
//! RFC 3339 `full-date` `YYYY-MM-DD`; a time of day is seconds since midnight UTC, canonical as RFC 3339
//! `full-time` `HH:MM:SSZ`. Excel's serial numbers are converted by [`excel_serial`], following Excel's
//! calendar exactly. Parsing cells is [`crate::typing::cell::time`]'s.

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

/// Smallest and largest date: 0001-01-01 and 9999-12-31, in days since 1970-01-01.
pub const MIN_DAYS: i64 = -719_162;
pub const MAX_DAYS: i64 = 2_932_896;

/// The canonical text of a date: `YYYY-MM-DD`.
pub fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The canonical text of a time of day (UTC): `HH:MM:SSZ`.
pub fn format_time(secs: u32) -> String {
    format!("{:02}:{:02}:{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The date part of an Excel serial number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExcelDay {
    /// Day 0 of the 1900 date system, which Excel shows as `1900-01-00`: a serial below 1 is a time of day
    /// with no date.
    None,
    /// Day 60 of the 1900 date system: Excel shows `1900-02-29`, a day that does not exist (Excel keeps Lotus
    /// 1-2-3's leap-year bug).
    Leap1900,
    /// A real day: days since 1970-01-01.
    Day(i64),
}

/// An Excel serial number as Excel shows it: the day and the time of day in whole seconds.
///
/// Excel keeps times to the millisecond: the serial is first rounded to whole milliseconds (which removes the
/// binary noise of a stored `0.41666666666666669`), then fractions of a second are **truncated**, as Excel
/// displays them (`hh:mm:ss` shows 12:00:00.600 as `12:00:00`). 1900 date system: day 1 is 1900-01-01, day 60
/// the fictitious 1900-02-29, day 61 is 1900-03-01; 1904 system (`date1904`): day 0 is 1904-01-01. Negative
/// serials and days after 9999-12-31 are errors (Excel shows `####`).
pub fn excel_serial(value: f64, date1904: bool) -> Result<(ExcelDay, u32), String> {
    if !value.is_finite() || value < 0.0 {
        return Err(format!(
            "the serial number {value} is negative: Excel shows it as ####, not as a date"
        ));
    }
    let ms = (value * 86_400_000.0).round() as i64;
    let (day, ms_of_day) = (ms / 86_400_000, ms % 86_400_000);
    let secs = (ms_of_day / 1000) as u32;
    let epoch_1900 = days_from_civil(1899, 12, 30);
    let day = if date1904 {
        ExcelDay::Day(days_from_civil(1904, 1, 1) + day)
    } else {
        match day {
            0 => ExcelDay::None,
            1..=59 => ExcelDay::Day(epoch_1900 + 1 + day),
            60 => ExcelDay::Leap1900,
            d => ExcelDay::Day(epoch_1900 + d),
        }
    };
    if matches!(day, ExcelDay::Day(d) if d > MAX_DAYS) {
        return Err(format!(
            "the serial number {value} is after 9999-12-31: Excel shows it as ####"
        ));
    }
    Ok((day, secs))
}

/// How Excel shows a date/time serial, in ISO 8601 order (for messages and the text of a date cell):
/// `2024-05-01 12:00:00`, `2024-05-01`, `12:00:00` (below day 1), `1900-02-29`; a duration as `[h]:mm:ss`
/// (`36:00:00`).
pub fn excel_serial_text(value: f64, date1904: bool, duration: bool) -> String {
    if duration {
        let ms = (value.abs() * 86_400_000.0).round() as i64;
        let s = ms / 1000;
        let sign = if value < 0.0 { "-" } else { "" };
        return format!("{sign}{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    }
    let Ok((day, secs)) = excel_serial(value, date1904) else {
        return "####".into();
    };
    let time = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    let date = match day {
        ExcelDay::None if value < 1.0 => return time,
        ExcelDay::None => "1900-01-00".to_string(),
        ExcelDay::Leap1900 => "1900-02-29".to_string(),
        ExcelDay::Day(d) if date1904 && value < 1.0 => {
            let _ = d;
            return time;
        }
        ExcelDay::Day(d) => format_date(d),
    };
    if secs == 0 {
        date
    } else {
        format!("{date} {time}")
    }
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
        assert_eq!(format_date(MIN_DAYS), "0001-01-01");
        assert_eq!(format_date(MAX_DAYS), "9999-12-31");
        assert_eq!(format_time(86_399), "23:59:59Z");
    }

    #[test]
    fn excel_calendar() {
        let day = |v: f64, y: i64, m: i64, d: i64| {
            assert_eq!(
                excel_serial(v, false).unwrap().0,
                ExcelDay::Day(days_from_civil(y, m, d)),
                "{v}"
            )
        };
        day(1.0, 1900, 1, 1);
        day(59.0, 1900, 2, 28);
        assert_eq!(excel_serial(60.0, false).unwrap().0, ExcelDay::Leap1900);
        day(61.0, 1900, 3, 1);
        day(45413.0, 2024, 5, 1);
        day(2_958_465.0, 9999, 12, 31);
        assert!(excel_serial(2_958_466.0, false).is_err());
        assert!(excel_serial(-1.0, false).is_err());
        assert_eq!(excel_serial(0.5, false).unwrap(), (ExcelDay::None, 43_200));
        // 1904 system: day 0 is 1904-01-01; the same date is 1462 days less.
        assert_eq!(
            excel_serial(0.0, true).unwrap().0,
            ExcelDay::Day(days_from_civil(1904, 1, 1))
        );
        assert_eq!(
            excel_serial(45413.0 - 1462.0, true).unwrap().0,
            ExcelDay::Day(days_from_civil(2024, 5, 1))
        );
        // Binary noise is rounded away at the millisecond; fractions of a second are truncated.
        assert_eq!(excel_serial(0.416666666664, false).unwrap().1, 36_000);
        assert_eq!(excel_serial(0.99998842592, false).unwrap().1, 86_399);
        let noon_600ms = 0.5 + 0.6 / 86_400.0;
        assert_eq!(excel_serial(noon_600ms, false).unwrap().1, 43_200);
        assert_eq!(
            excel_serial_text(45413.5, false, false),
            "2024-05-01 12:00:00"
        );
        assert_eq!(excel_serial_text(0.75, false, false), "18:00:00");
        assert_eq!(excel_serial_text(60.0, false, false), "1900-02-29");
        assert_eq!(excel_serial_text(1.5, false, true), "36:00:00");
    }
}
