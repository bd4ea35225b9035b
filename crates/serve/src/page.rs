//! The page frame and small HTML helpers shared by every page.
//!
//! Pages are rendered on the server. The frame links one style sheet and one script,
//! both embedded in the binary (`assets/`); the Content-Security-Policy sent with every
//! page allows scripts and styles from the server only, so even a text that escaped
//! escaping could not run a script.

pub use report::html::escape;

/// The style sheet (served at `/assets/style.css`).
pub const STYLE: &str = include_str!("../assets/style.css");
/// The script (served at `/assets/app.js`).
pub const SCRIPT: &str = include_str!("../assets/app.js");

/// The Content-Security-Policy of every page.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The form that saves a previewed change: the hidden `fields` posted to `action`,
/// and a button that names the `file` it writes.
pub fn apply_form(action: &str, fields: &str, file: &str) -> String {
    format!(
        "<form id=\"apply-form\" method=\"post\" action=\"{action}\">{fields}<button id=\"apply\" type=\"submit\">Save to {}</button></form>",
        escape(file)
    )
}

/// The page of the one file `path`: the frame titled with the path, which is also its
/// only crumb.
pub fn file_frame(path: &str, csrf: &str, body: &str) -> String {
    frame(path, &[(String::new(), path.to_string())], csrf, body)
}

/// A whole page: the frame around `body` (HTML already escaped where needed).
pub fn frame(title: &str, crumbs: &[(String, String)], csrf: &str, body: &str) -> String {
    let mut nav = String::from("<a href=\"/\">vera</a>");
    for (href, label) in crumbs {
        nav.push_str(" / ");
        if href.is_empty() {
            nav.push_str(&format!("<span>{}</span>", escape(label)));
        } else {
            nav.push_str(&format!(
                "<a href=\"{}\">{}</a>",
                escape(href),
                escape(label)
            ));
        }
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"csrf\" content=\"{csrf}\">\
         <title>{title}</title><link rel=\"stylesheet\" href=\"/assets/style.css\">\
         <script src=\"/assets/app.js\" defer></script></head>\
         <body><header><nav>{nav}</nav></header><main>\n{body}\n</main>\
         <footer>vera serve — local review page; nothing leaves this machine.</footer></body></html>\n",
        csrf = escape(csrf),
        title = escape(title),
    )
}

/// Percent-encodes a query parameter value.
pub fn enc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A hidden form field.
pub fn hidden(name: &str, value: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
        attr(name),
        attr(value)
    )
}

/// Escapes a value the page sends back (a hidden field, a `data-` attribute the script
/// posts): unlike [`escape`], which shows control characters and bidirectional
/// overrides as visible stand-ins, the browser reads back exactly `s` (control
/// characters as character references, everything else as it is), so an id or a path
/// with such a character still names the same requirement or file.
pub fn attr(s: &str) -> String {
    report::html::escape_markup(s, Some("&#39;"), |out, c| match c {
        '\t' | '\n' => out.push(c),
        '\u{0}'..='\u{1F}' | '\u{7F}' => out.push_str(&format!("&#{};", c as u32)),
        c => out.push(c),
    })
}

/// A message box (`kind`: `notice` or `error`), with the id the tests look for.
pub fn message(kind: &str, html: &str) -> String {
    format!("<div id=\"{kind}\" class=\"message {kind}\" role=\"status\">{html}</div>")
}

/// A unified diff of two texts, each line escaped, with classes for added and removed
/// lines; the raw diff text is what the `pre` holds (`#diff`).
pub fn diff(name: &str, old: &str, new: &str) -> String {
    let d = similar::TextDiff::from_lines(old, new);
    let text = d
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string();
    let mut out = String::from("<pre id=\"diff\" class=\"diff\">");
    for line in text.split_inclusive('\n') {
        let class = if line.starts_with("+++") || line.starts_with("---") {
            "hdr"
        } else if line.starts_with('+') {
            "add"
        } else if line.starts_with('-') {
            "del"
        } else if line.starts_with("@@") {
            "hunk"
        } else {
            "ctx"
        };
        out.push_str(&format!("<span class=\"{class}\">{}</span>", escape(line)));
    }
    out.push_str("</pre>");
    out
}

/// The content version of a file: the first 16 bytes of its SHA-256, in hex, or
/// `absent` when there is no file.
pub fn version(bytes: Option<&[u8]>) -> String {
    use sha2::Digest;
    match bytes {
        None => "absent".into(),
        Some(b) => sha2::Sha256::digest(b)[..16]
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn attr_keeps_what_escape_shows_differently() {
        let id = "R\u{202e}1\u{1b}[31m\r<\"'&>";
        assert_eq!(
            super::attr(id),
            "R\u{202e}1&#27;[31m&#13;&lt;&quot;&#39;&amp;&gt;"
        );
        assert!(super::hidden("id", id).contains("value=\"R\u{202e}1&#27;"));
    }
}
