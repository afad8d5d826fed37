//! Date-time and duration cells (docs/conventions.md §3, §4) → IR values ([`crate::ir::time`] has their range and
//! canonical forms).
//!
//! Never the machine's time zone: a date-time cell carries its own offset (`2024-05-01T12:00:00+08:00`,
//! `…Z`), or the field declares one (`x-gentable-timeZone: "+08:00"`), or it is an error. Values are whole
//! seconds since the Unix epoch (sub-second digits must be zero); the canonical form is UTC RFC 3339
//! `YYYY-MM-DDTHH:MM:SSZ`, years 0001–9999. Durations are whole milliseconds, written ISO 8601 (`PT1H30M`,
//! `P1DT2H`, `-PT0.5S`; a day is 24 hours; years and months are rejected) or with units (`1h30m`, `90s`,
//! `250ms`, `2d`), canonical as a JSON integer of milliseconds. Dates (`format: date`) are calendar days
//! (`2024-05-01`, `2024/5/1`); times of day (`format: time`) are whole seconds, UTC like date-times
//! (`05:00`, `05:00:00+08:00`). Excel date/time cells are converted from their serial number as Excel shows
//! them ([`crate::ir::time::excel_serial`]). Parsing uses `jiff` with fixed offsets only.

use crate::ir::time::{
    check_duration, days_from_civil, excel_serial, excel_serial_text, ExcelDay, MAX_DAYS,
    MAX_SECONDS, MIN_DAYS, MIN_SECONDS,
};
use jiff::fmt::temporal::Pieces;

/// Why a cell is not a date-time or duration: a message and a fix (typing reports it as GT0201).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeError {
    pub message: String,
    pub help: Option<String>,
}

fn err(m: String) -> TimeError {
    TimeError {
        message: m,
        help: Some(
            "write a date-time with its offset, e.g. 2024-05-01T12:00:00+08:00 or 2024-05-01 04:00:00Z \
             (or give the field \"x-gentable-timeZone\")"
                .into(),
        ),
    }
}

/// Parse a date-time cell; `zone` (seconds east of UTC) applies when the text has no offset.
pub fn parse_datetime(s: &str, zone: Option<i32>) -> Result<i64, TimeError> {
    let t = s.trim();
    // Date, time and offset are taken apart by jiff's RFC 3339 / ISO 8601 parser and combined here, so the
    // whole range 0001-9999 works and nothing consults a time zone database or the machine's zone.
    let (civil, offset) = match Pieces::parse(t) {
        Ok(p) => {
            if p.time_zone_annotation().is_some() {
                return Err(err(format!(
                    "{t:?} names a time zone; write a numeric offset like +08:00 instead"
                )));
            }
            let time = p.time().unwrap_or(jiff::civil::Time::midnight());
            (
                p.date().to_datetime(time),
                p.offset().map(|o| o.to_numeric_offset().seconds()),
            )
        }
        Err(_) => return Err(err(format!("expected a date-time, found {t:?}"))),
    };
    let off = match (offset, zone) {
        (Some(o), _) => o,
        (None, Some(z)) => z,
        (None, None) => {
            return Err(err(format!(
                "the date-time {t:?} has no time zone offset (the machine's zone is never used)"
            )))
        }
    };
    // A leap second (`23:59:60`) has no Unix time: jiff reads it as :59, which would be another instant.
    if let Some(i) = t.find(":60") {
        let b = t.as_bytes();
        if i >= 3 && b[i - 3] == b':' && b.get(i + 3).is_none_or(|c| !c.is_ascii_digit()) {
            return Err(TimeError {
                message: format!("{t:?} is a leap second (:60), which no date-time value can hold"),
                help: Some("write the second before it (:59) or after it".into()),
            });
        }
    }
    if let Some(o) = offset {
        // RFC 3339: offsets from -23:59 to +23:59, with their minutes (`+01:00`, not `+01` or `+0100`).
        let time = t.rsplit(['T', 't', ' ']).next().unwrap_or(t);
        let written = time.rfind(['+', '-']).map(|i| &time[i..]).unwrap_or("");
        let b = written.as_bytes();
        let shaped =
            b.len() == 6 && b[3] == b':' && b[1..3].iter().chain(&b[4..6]).all(u8::is_ascii_digit);
        if !written.is_empty() && !shaped {
            return Err(err(format!(
                "{t:?}: write the offset with its minutes, like +01:00 (RFC 3339)"
            )));
        }
        if o.abs() >= 86_400 {
            return Err(err(format!(
                "{t:?}: the offset is outside -23:59 to +23:59"
            )));
        }
    }
    if civil.subsec_nanosecond() != 0 {
        return Err(TimeError {
            message: format!("{t:?} has fractions of a second; date-times are whole seconds"),
            help: Some("drop the fraction".into()),
        });
    }
    let days = days_from_civil(
        civil.year() as i64,
        civil.month() as i64,
        civil.day() as i64,
    );
    let secs = days * 86_400
        + civil.hour() as i64 * 3600
        + civil.minute() as i64 * 60
        + civil.second() as i64
        - off as i64;
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&secs) {
        return Err(err(format!(
            "{t:?} is outside the years 0001-9999 (in UTC)"
        )));
    }
    Ok(secs)
}

fn offset_of(zone: Option<i32>, what: &str, shown: &str) -> Result<i32, TimeError> {
    zone.ok_or_else(|| {
        err(format!(
            "the {what} {shown:?} has no time zone offset (the machine's zone is never used)"
        ))
    })
}

/// An Excel serial as Excel shows it (for messages), its day and its time of day in seconds.
fn shown_serial(value: f64, date1904: bool) -> Result<(String, ExcelDay, u32), TimeError> {
    let shown = excel_serial_text(value, date1904, false);
    let (day, secs) = excel_serial(value, date1904).map_err(|m| TimeError {
        message: m,
        help: None,
    })?;
    Ok((shown, day, secs))
}

/// The date of an Excel serial, if it has a real one (`what` names the field's type for the message).
fn serial_day(day: ExcelDay, shown: &str, what: &str) -> Result<i64, TimeError> {
    match day {
        ExcelDay::Day(d) => Ok(d),
        ExcelDay::Leap1900 => Err(TimeError {
            message: format!("Excel shows 1900-02-29, a day that does not exist (Excel's 1900 leap-year bug), as a {what}"),
            help: Some("enter the date you mean (1900-02-28 or 1900-03-01)".into()),
        }),
        ExcelDay::None => Err(TimeError {
            message: format!("the cell holds the time {shown} with no date (Excel shows day 0 as 1900-01-00), not a {what}"),
            help: Some("enter a date, or make the field \"format\": \"time\"".into()),
        }),
    }
}

/// An Excel date/time cell (its serial number) in a `date-time` field: the instant Excel shows, in the
/// field's zone (a serial has no offset, so the field needs `x-gentable-timeZone`).
pub fn datetime_from_serial(
    value: f64,
    date1904: bool,
    zone: Option<i32>,
) -> Result<i64, TimeError> {
    let (shown, day, secs) = shown_serial(value, date1904)?;
    let day = serial_day(day, &shown, "date-time")?;
    let off = offset_of(zone, "Excel date-time", &shown)?;
    let t = day * 86_400 + secs as i64 - off as i64;
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&t) {
        return Err(err(format!(
            "{shown:?} is outside the years 0001-9999 (in UTC)"
        )));
    }
    Ok(t)
}

/// An Excel date cell in a `date` field: its day, which must have no time of day (a date field does not drop
/// what the cell shows).
pub fn date_from_serial(value: f64, date1904: bool) -> Result<i64, TimeError> {
    let (shown, day, secs) = shown_serial(value, date1904)?;
    let day = serial_day(day, &shown, "date")?;
    if secs != 0 {
        return Err(TimeError {
            message: format!("the cell holds {shown}: a date field takes whole days, not a time of day"),
            help: Some("remove the time (=INT(…) or retype the date), or make the field \"format\": \"date-time\"".into()),
        });
    }
    Ok(day)
}

/// An Excel time cell in a `time` field: its time of day (no date part: a serial below 1), in UTC through the
/// field's zone.
pub fn time_from_serial(value: f64, date1904: bool, zone: Option<i32>) -> Result<u32, TimeError> {
    let (shown, _, secs) = shown_serial(value, date1904)?;
    if value >= 1.0 {
        return Err(TimeError {
            message: format!(
                "the cell holds {shown}: a time field takes a time of day with no date"
            ),
            help: Some(
                "enter only the time (=MOD(…,1)), or make the field \"format\": \"date-time\""
                    .into(),
            ),
        });
    }
    let off = offset_of(zone, "Excel time", &shown)?;
    Ok((secs as i64 - off as i64).rem_euclid(86_400) as u32)
}

/// An Excel duration cell (`[h]:mm:ss`, a serial counting days) in a `duration` field: whole milliseconds.
pub fn duration_from_serial(value: f64) -> Result<i64, TimeError> {
    let ms = (value * 86_400_000.0).round();
    if !ms.is_finite() || ms.abs() > crate::ir::time::MAX_DURATION_MS as f64 {
        return Err(derr(&value.to_string()));
    }
    check_duration(ms as i128).map_err(|m| TimeError {
        message: m,
        help: None,
    })
}

fn date_err(t: &str) -> TimeError {
    TimeError {
        message: format!("expected a date, found {t:?}"),
        help: Some("write the date year first: 2024-05-01 (or 2024/5/1)".into()),
    }
}

/// Parse a date cell: `YYYY-MM-DD`, or year first with `-` or `/` and one- or two-digit month and day
/// (`2024/5/1`, as Excel's Chinese locale writes dates to CSV). Never day-first or month-first: `5/1/2024`
/// is ambiguous.
pub fn parse_date(s: &str) -> Result<i64, TimeError> {
    let t = s.trim();
    let parts: Vec<&str> = t.split(['-', '/']).collect();
    let sep_ok = t.matches('-').count() == 2 || t.matches('/').count() == 2;
    let [y, m, d] = parts.as_slice() else {
        return Err(date_err(t));
    };
    let digits = |x: &str, lo: usize, hi: usize| {
        (lo..=hi).contains(&x.len()) && x.bytes().all(|b| b.is_ascii_digit())
    };
    if !sep_ok || !digits(y, 4, 4) || !digits(m, 1, 2) || !digits(d, 1, 2) {
        return Err(date_err(t));
    }
    let (y, m, d): (i16, i8, i8) = (
        y.parse().map_err(|_| date_err(t))?,
        m.parse().map_err(|_| date_err(t))?,
        d.parse().map_err(|_| date_err(t))?,
    );
    if jiff::civil::Date::new(y, m, d).is_err() || y < 1 {
        return Err(TimeError {
            message: format!("{t:?} is not a day of the calendar"),
            help: Some("check the month and the day".into()),
        });
    }
    let days = days_from_civil(y as i64, m as i64, d as i64);
    debug_assert!((MIN_DAYS..=MAX_DAYS).contains(&days));
    Ok(days)
}

/// Parse a time-of-day cell to seconds since midnight UTC: `HH:MM` or `HH:MM:SS` (24-hour), with an
/// offset (`Z`, `+08:00`) or in the field's zone. Fractions of a second are an error; so is `24:00`.
pub fn parse_time(s: &str, zone: Option<i32>) -> Result<u32, TimeError> {
    let t = s.trim();
    let (clock, off) = match t.find(['Z', 'z', '+', '-']) {
        Some(i) => {
            let o = &t[i..];
            let off = time_offset(o).ok_or_else(|| {
                err(format!(
                    "{o:?} is not a time zone offset like +08:00 or Z (RFC 3339: two-digit hours and minutes, -23:59 to +23:59)"
                ))
            })?;
            (&t[..i], Some(off))
        }
        None => (t, None),
    };
    let bad = || TimeError {
        message: format!("expected a time of day like 05:00 or 05:00:00, found {t:?}"),
        help: Some("write hours and minutes (and seconds) with colons, 24-hour: 17:30:00".into()),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return Err(bad());
    }
    if parts.last().is_some_and(|p| p.contains('.')) {
        return Err(TimeError {
            message: format!("{t:?} has fractions of a second; times are whole seconds"),
            help: Some("drop the fraction".into()),
        });
    }
    let mut n = [0u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let len_ok = if i == 0 {
            (1..=2).contains(&p.len())
        } else {
            p.len() == 2
        };
        if !len_ok || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        n[i] = p.parse().map_err(|_| bad())?;
    }
    if n[0] > 23 || n[1] > 59 || n[2] > 59 {
        return Err(bad());
    }
    let off = match off {
        Some(o) => o,
        None => offset_of(zone, "time", t)?,
    };
    let local = (n[0] * 3600 + n[1] * 60 + n[2]) as i64;
    Ok((local - off as i64).rem_euclid(86_400) as u32)
}

/// A time-of-day cell's offset: `Z`, or RFC 3339's `+HH:MM` / `-HH:MM` (two digits each, -23:59 to +23:59)
/// in seconds east of UTC. Stricter than `x-gentable-timeZone`'s [`crate::schema::parse_offset`]: `-8:000`
/// or `+08` in a cell is an error, never a guessed offset.
fn time_offset(o: &str) -> Option<i32> {
    if o.eq_ignore_ascii_case("z") {
        return Some(0);
    }
    let b = o.as_bytes();
    if b.len() != 6 || b[3] != b':' || !matches!(b[0], b'+' | b'-') {
        return None;
    }
    let two = |s: &str| {
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse::<i32>().ok())
            .flatten()
    };
    let (h, m) = (two(&o[1..3])?, two(&o[4..6])?);
    if h > 23 || m > 59 {
        return None;
    }
    Some(if b[0] == b'-' { -1 } else { 1 } * (h * 3600 + m * 60))
}

fn derr(t: &str) -> TimeError {
    TimeError {
        message: format!("expected a duration, found {t:?}"),
        help: Some(
            "write ISO 8601 like PT1H30M or P1DT12H, or units like 1h30m, 90s, 250ms, 2d".into(),
        ),
    }
}

/// Parse a duration cell to milliseconds.
pub fn parse_duration(s: &str) -> Result<i64, TimeError> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let ms: i128 = if let Some(iso) = body.strip_prefix('P').or_else(|| body.strip_prefix('p')) {
        let iso = iso.to_ascii_uppercase();
        let (date, time) = match iso.split_once('T') {
            Some((d, t)) => (d.to_string(), Some(t.to_string())),
            None => (iso.clone(), None),
        };
        if date.is_empty() && time.as_deref().is_none_or(str::is_empty) {
            return Err(derr(t));
        }
        // ISO 8601: weeks stand alone (P2W), never with days or a time.
        if date.contains('W') && (!date.ends_with('W') || time.is_some()) {
            return Err(derr(t));
        }
        let mut total =
            units(&date, &[("W", 604_800_000), ("D", 86_400_000)]).ok_or_else(|| derr(t))?;
        if let Some(time) = time {
            if time.is_empty() {
                return Err(derr(t));
            }
            total += units(&time, &[("H", 3_600_000), ("M", 60_000), ("S", 1000)])
                .ok_or_else(|| derr(t))?;
        }
        total
    } else {
        let lower = body.replace(' ', "").to_ascii_lowercase();
        if lower.is_empty() || lower.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return Err(derr(t));
        }
        units(
            &lower,
            &[
                ("ms", 1),
                ("d", 86_400_000),
                ("h", 3_600_000),
                ("m", 60_000),
                ("s", 1000),
            ],
        )
        .ok_or_else(|| derr(t))?
    };
    let ms = if neg { -ms } else { ms };
    check_duration(ms).map_err(|_| derr(t))
}

/// `<number><unit>…` with units in the given order (each at most once) → milliseconds; fractions allowed
/// when they come to whole milliseconds.
fn units(s: &str, table: &[(&str, i128)]) -> Option<i128> {
    let mut rest = s;
    let mut total: i128 = 0;
    let mut last = 0usize;
    while !rest.is_empty() {
        let n = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        if n == 0 {
            return None;
        }
        let (num, after) = rest.split_at(n);
        let (i, (u, scale)) = table
            .iter()
            .enumerate()
            .skip(last)
            .find(|(_, (u, _))| after.starts_with(u))?;
        last = i + 1;
        rest = &after[u.len()..];
        let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
        if whole.is_empty() && frac.is_empty() {
            return None;
        }
        let w: i128 = if whole.is_empty() {
            0
        } else {
            whole.parse().ok()?
        };
        let mut part = w.checked_mul(*scale)?;
        if !frac.is_empty() {
            let digits: i128 = frac.parse().ok()?;
            let den = 10i128.checked_pow(frac.len() as u32)?;
            let num = digits.checked_mul(*scale)?;
            if num % den != 0 {
                return None;
            }
            part += num / den;
        }
        total = total.checked_add(part)?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes() {
        assert_eq!(parse_datetime("1970-01-01T00:00:00Z", None).unwrap(), 0);
        assert_eq!(
            parse_datetime("2024-05-01T12:00:00+08:00", None).unwrap(),
            1_714_536_000
        );
        assert_eq!(
            parse_datetime("2024-05-01 12:00:00", Some(8 * 3600)).unwrap(),
            1_714_536_000
        );
        assert_eq!(
            parse_datetime("2024-05-01", Some(0)).unwrap(),
            1_714_521_600
        );
        assert!(parse_datetime("2024-05-01 12:00:00", None).is_err());
        assert!(parse_datetime("2024-05-01T12:00:00.5Z", None).is_err());
        assert_eq!(
            parse_datetime("9999-12-31T23:59:59Z", None).unwrap(),
            MAX_SECONDS
        );
        assert_eq!(
            parse_datetime("0001-01-01T00:00:00Z", None).unwrap(),
            MIN_SECONDS
        );
        assert!(parse_datetime("0001-01-01T00:00:00+01:00", None).is_err());
        assert!(parse_datetime("2024-05-01T12:00:00[Asia/Shanghai]", None).is_err());
        // A time of day's offset is RFC 3339's: two-digit hours and minutes within ±23:59.
        assert_eq!(
            parse_time("08:30:06-08:00", None).unwrap(),
            16 * 3600 + 30 * 60 + 6
        );
        assert!(parse_time("08:30:06-8:000", None).is_err());
        assert!(parse_time("08:30:06+08", None).is_err());
        assert!(parse_time("08:30:06+24:00", None).is_err());
        // Never another instant: a leap second, an offset of 24 hours, an offset without its minutes.
        let e = parse_datetime("1998-12-31T23:59:60Z", None).unwrap_err();
        assert!(e.message.contains("leap second"), "{}", e.message);
        assert!(parse_datetime("1998-12-31T23:58:60Z", None).is_err());
        let e = parse_datetime("1990-12-31T15:59:59-24:00", None).unwrap_err();
        assert!(e.message.contains("-23:59 to +23:59"), "{}", e.message);
        let e = parse_datetime("1985-04-12T23:20:50+01", None).unwrap_err();
        assert!(e.message.contains("+01:00"), "{}", e.message);
        assert_eq!(
            parse_datetime("1985-04-12T23:20:50-23:59", None).unwrap(),
            parse_datetime("1985-04-13T23:19:50Z", None).unwrap()
        );
        // Excel serial 45413.5 = 2024-05-01 12:00 in the field's zone; a bare number is no date-time text.
        assert_eq!(
            datetime_from_serial(45413.5, false, Some(8 * 3600)).unwrap(),
            1_714_536_000
        );
        assert_eq!(
            datetime_from_serial(45413.5 - 1462.0, true, Some(8 * 3600)).unwrap(),
            1_714_536_000
        );
        assert!(datetime_from_serial(45413.5, false, None).is_err());
        assert!(datetime_from_serial(60.5, false, Some(0)).is_err());
        assert!(parse_datetime("45413.5", Some(8 * 3600)).is_err());
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(parse_date("1970-01-01").unwrap(), 0);
        assert_eq!(parse_date("2024/5/1").unwrap(), 19_844);
        assert_eq!(parse_date(" 2024-05-01 ").unwrap(), 19_844);
        assert!(parse_date("2023-02-29").is_err());
        assert!(parse_date("5/1/2024").is_err());
        assert!(parse_date("2024-05/01").is_err());
        assert_eq!(date_from_serial(45413.0, false).unwrap(), 19_844);
        assert!(date_from_serial(45413.5, false).is_err());
        assert!(date_from_serial(60.0, false).is_err());
        assert_eq!(parse_time("05:00", Some(8 * 3600)).unwrap(), 21 * 3600);
        assert_eq!(parse_time("05:00:30Z", None).unwrap(), 5 * 3600 + 30);
        assert_eq!(parse_time("5:00:00+08:00", None).unwrap(), 21 * 3600);
        assert!(parse_time("05:00", None).is_err());
        assert!(parse_time("24:00", Some(0)).is_err());
        assert!(parse_time("05:00:00.5Z", None).is_err());
        assert!(parse_time("5", Some(0)).is_err());
        assert_eq!(time_from_serial(0.75, false, Some(0)).unwrap(), 18 * 3600);
        assert!(time_from_serial(1.75, false, Some(0)).is_err());
        assert_eq!(duration_from_serial(1.5).unwrap(), 129_600_000);
    }

    #[test]
    fn weeks_stand_alone() {
        assert_eq!(parse_duration("P2W").unwrap(), 1_209_600_000);
        assert!(parse_duration("P1WT1H").is_err());
        assert!(parse_duration("P1W2D").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("PT1H30M").unwrap(), 5_400_000);
        assert_eq!(parse_duration("1h30m").unwrap(), 5_400_000);
        assert_eq!(parse_duration("1h 30m").unwrap(), 5_400_000);
        assert_eq!(parse_duration("P1DT2H").unwrap(), 93_600_000);
        assert_eq!(parse_duration("-PT0.5S").unwrap(), -500);
        assert_eq!(parse_duration("250ms").unwrap(), 250);
        assert_eq!(parse_duration("2d").unwrap(), 172_800_000);
        assert_eq!(parse_duration("1.5s").unwrap(), 1500);
        assert!(parse_duration("P1M").is_err());
        assert!(parse_duration("90").is_err());
        assert!(parse_duration("PT").is_err());
        assert!(parse_duration("30m1h").is_err());
    }
}
