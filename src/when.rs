//! Times on the command line: RFC 3339 in, RFC 3339 (UTC) out, Unix
//! milliseconds inside.

use agent_resume_core::UnixMillis;
use anyhow::{Context, Result};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Now.
pub fn now() -> UnixMillis {
    millis(OffsetDateTime::now_utc())
}

fn millis(t: OffsetDateTime) -> UnixMillis {
    let ms = t.unix_timestamp_nanos() / 1_000_000;
    UnixMillis(i64::try_from(ms).unwrap_or(i64::MAX))
}

/// Parses an RFC 3339 time (`2026-11-30T05:00:00Z`, `…+01:00`).
pub fn parse(text: &str) -> Result<UnixMillis> {
    let t = OffsetDateTime::parse(text, &Rfc3339).context("not an RFC 3339 time")?;
    Ok(millis(t))
}

/// Formats as RFC 3339 in UTC with milliseconds; `None` when the year is out
/// of RFC 3339's range.
pub fn format(at: UnixMillis) -> Option<String> {
    let t = OffsetDateTime::from_unix_timestamp_nanos(i128::from(at.0) * 1_000_000).ok()?;
    t.format(&Rfc3339).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trips_through_unix_millis() {
        let at = parse("2026-11-30T06:00:00.250+01:00").expect("parses");
        assert_eq!(at, UnixMillis(1_796_014_800_250));
        assert_eq!(format(at).as_deref(), Some("2026-11-30T05:00:00.25Z"));
        assert!(parse("yesterday").is_err());
        assert_eq!(format(UnixMillis(i64::MAX)), None);
    }
}
