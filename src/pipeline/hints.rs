//! Hints for the orchestrator from the winning match: `retry_after` text such as
//! `30 seconds` or `21h39m57s` turned into whole seconds.

/// Parses a duration as a CLI prints it: a bare number is seconds; units
/// ms, s/sec/seconds, m/min/minutes, h/hr/hours, d/days; compounds such as
/// `8 hours 30 minutes`, `1h, 2m and 3s` or `21h39m57s`. Fractions are rounded
/// up to the next whole second. None when the text is not a duration.
pub fn parse_duration_secs(text: &str) -> Option<u64> {
    let text = text.trim().trim_end_matches('.').to_ascii_lowercase();
    let mut rest = text.as_str();
    let mut millis: u128 = 0;
    let mut parts = 0;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if let Some(r) = rest.strip_prefix("and ") {
            rest = r;
            continue;
        }
        if rest.is_empty() {
            break;
        }
        let num_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let value: f64 = rest[..num_len].parse().ok()?;
        rest = rest[num_len..].trim_start();
        let unit_len = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
        let scale: f64 = match &rest[..unit_len] {
            "" | "s" | "sec" | "secs" | "second" | "seconds" => 1_000.0,
            "ms" | "msec" | "millisecond" | "milliseconds" => 1.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000.0,
            "d" | "day" | "days" => 86_400_000.0,
            _ => return None,
        };
        // A bare number only stands alone: "5 10" is not a duration.
        if unit_len == 0 && parts > 0 {
            return None;
        }
        rest = &rest[unit_len..];
        let ms = value * scale;
        if !ms.is_finite() || !(0.0..=1e18).contains(&ms) {
            return None;
        }
        millis += ms.ceil() as u128;
        parts += 1;
    }
    if parts == 0 {
        return None;
    }
    u64::try_from(millis.div_ceil(1000)).ok()
}

#[cfg(test)]
mod tests {
    use super::parse_duration_secs as p;

    #[test]
    fn units_and_bare_numbers() {
        assert_eq!(p("5"), Some(5));
        assert_eq!(p("5s"), Some(5));
        assert_eq!(p("4 seconds"), Some(4));
        assert_eq!(p("11 sec"), Some(11));
        assert_eq!(p("2 min"), Some(120));
        assert_eq!(p("3m"), Some(180));
        assert_eq!(p("1 minutes"), Some(60));
        assert_eq!(p("2h"), Some(7200));
        assert_eq!(p("1 hours"), Some(3600));
        assert_eq!(p("6173ms"), Some(7));
        assert_eq!(p("1.5s"), Some(2));
    }

    #[test]
    fn compounds() {
        assert_eq!(p("8 hours 30 minutes"), Some(30_600));
        assert_eq!(p("21h39m57s"), Some(21 * 3600 + 39 * 60 + 57));
        assert_eq!(p("1h, 2m and 3s."), Some(3723));
        assert_eq!(p("1 day 2 hours"), Some(93_600));
    }

    #[test]
    fn not_durations() {
        for text in ["", "soon", "5 parsecs", "5 10", "-3s", "a moment"] {
            assert_eq!(p(text), None, "{text:?}");
        }
    }
}
