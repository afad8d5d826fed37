//! Date-time and duration cells (docs/conventions.md §3, §4) → IR values ([`crate::ir::time`] has their range and
//! canonical forms).
//!
//! Never the machine's time zone: a date-time cell carries its own offset (`2024-05-01T12:00:00+08:00`,
//! `…Z`), or the field declares one (`x-gentable-timeZone: "+08:00"`), or it is an error. Values are whole
//! seconds since the Unix epoch (sub-second digits must be zero); the canonical form is UTC RFC 3339
//! `YYYY-MM-DDTHH:MM:SSZ`, years 0001–9999. Durations are whole milliseconds, written ISO 8601 (`PT1H30M`,
//! `P1DT2H`, `-PT0.5S`; a day is 24 hours; years and months are rejected) or with units (`1h30m`, `90s`,
//! `250ms`, `2d`), canonical as a JSON integer of milliseconds. Parsing uses `jiff` with fixed offsets only.

use crate::ir::time::{check_duration, days_from_civil, MAX_SECONDS, MIN_SECONDS};
use jiff::civil::DateTime;
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
        Err(_) => match excel_serial(t) {
            Some(dt) => (dt, None),
            None => return Err(err(format!("expected a date-time, found {t:?}"))),
        },
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

/// An Excel date cell's serial number (days since 1899-12-30, fraction = time of day), to the second.
fn excel_serial(t: &str) -> Option<DateTime> {
    let f: f64 = t.parse().ok()?;
    if !(1.0..2_958_466.0).contains(&f) {
        return None;
    }
    let secs = (f * 86_400.0).round() as i64;
    let base = DateTime::constant(1899, 12, 30, 0, 0, 0, 0);
    base.checked_add(jiff::SignedDuration::from_secs(secs)).ok()
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
        // Excel serial 45413.5 = 2024-05-01 12:00 in the field's zone.
        assert_eq!(
            parse_datetime("45413.5", Some(8 * 3600)).unwrap(),
            1_714_536_000
        );
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
