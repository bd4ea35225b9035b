//! Small helpers for terminal text: one-line excerpts, escaping of control characters
//! from users' files, and colors.

/// Shortens text for one-line display.
pub fn excerpt(s: &str, max: usize) -> String {
    let one_line: String = clean(&s.split_whitespace().collect::<Vec<_>>().join(" "));
    if one_line.chars().count() <= max {
        one_line
    } else {
        format!(
            "{}...",
            one_line
                .chars()
                .take(max.saturating_sub(3))
                .collect::<String>()
        )
    }
}

/// `s` with every control character (escape, carriage return, line break, ...) and
/// every bidirectional-override character shown as a `\u{..}` escape, so text from a
/// user's file can neither send terminal escapes nor forge report lines.
pub fn clean(s: &str) -> String {
    let bad = |c: char| {
        c.is_control()
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    if !s.chars().any(bad) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if bad(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// What a painted word means; mapped to a terminal color.
#[derive(Debug, Clone, Copy)]
pub enum Paint {
    /// A good verdict (consistent, entailed).
    Good,
    /// A finding.
    Bad,
    /// Unknown or doubtful.
    Warn,
    /// An identifier.
    Id,
}

/// Colors `s` when standard output is a terminal and `NO_COLOR` is not set.
pub fn paint(p: Paint, s: &str) -> String {
    use std::io::IsTerminal;
    use std::sync::OnceLock;
    static COLOR: OnceLock<bool> = OnceLock::new();
    let on = *COLOR.get_or_init(|| {
        std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
    });
    if !on {
        return s.to_string();
    }
    let code = match p {
        Paint::Good => "32",
        Paint::Bad => "31",
        Paint::Warn => "33",
        Paint::Id => "1",
    };
    format!("\x1b[{code}m{s}\x1b[0m")
}

/// An error and its causes on one line, each after a colon (as `{:#}` shows an error
/// with its context).
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}
