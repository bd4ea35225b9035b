//! Documents: plain text (often extracted from a PDF) and Markdown.
//!
//! The passes, in order: ligatures are replaced; page breaks are found (page-number
//! lines such as `-57-` or `Page 3 of 9`, form feeds) and the lines that repeat at page
//! breaks (running headers and footers) dropped; footnotes at the foot of each page are
//! taken out, and their numbers glued into the text of the same page removed; tables of
//! contents are skipped. What remains is read as headings (numbered, checked to follow
//! the previous one, or Markdown `#`), numbered paragraphs `(n)`, lines with an explicit
//! id (`R-12:`), Markdown tables with an id column, and prose, whose "shall" sentences
//! become candidates. A paragraph goes on over a page break; words hyphenated across
//! line ends are joined.

use crate::{one_line, Confidence, Extraction, Format, Requirement, Source};
use std::collections::{HashMap, HashSet};

/// One line of the document after the clean-up passes.
#[derive(Debug, Clone)]
struct Line {
    /// 1-based line number in the file.
    no: u32,
    text: String,
}

/// Replaces typographic ligatures by their letters; returns how many were replaced.
fn unligature(s: &str, count: &mut usize) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let rep = match c {
            '\u{fb00}' => "ff",
            '\u{fb01}' => "fi",
            '\u{fb02}' => "fl",
            '\u{fb03}' => "ffi",
            '\u{fb04}' => "ffl",
            '\u{fb05}' | '\u{fb06}' => "st",
            '\u{a0}' => " ",
            '\u{ad}' => "",
            _ => {
                out.push(c);
                continue;
            }
        };
        *count += 1;
        out.push_str(rep);
    }
    out
}

/// `-57-`, `- 57 -`, `– 57 –`, `Page 3`, `Page 3 of 9`, `3 of 9`, `3/9`.
fn is_page_number(t: &str) -> bool {
    let t = t.trim();
    if t.is_empty() || t.len() > 20 {
        return false;
    }
    let digits = |s: &str| !s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit());
    let dashes = |c: char| c == '-' || c == '–' || c == '—';
    if t.starts_with(dashes) && t.ends_with(dashes) {
        let inner = t.trim_matches(dashes).trim();
        return digits(inner);
    }
    let lower = t.to_ascii_lowercase();
    let rest = lower.strip_prefix("page").map(str::trim).unwrap_or(&lower);
    let parts: Vec<&str> = rest
        .split(|c: char| c == '/' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    match parts.as_slice() {
        [n] => lower.starts_with("page") && digits(n),
        [n, "of", m] => digits(n) && digits(m),
        [n, m] => t.contains('/') && digits(n) && digits(m),
        _ => false,
    }
}

/// A line with digit runs replaced by `#`, trimmed: the shape running headers share.
fn form(t: &str) -> String {
    let mut out = String::new();
    let mut in_digits = false;
    for c in t.trim().chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

/// A line that reads as a requirement: an explicit id, a numbered paragraph, or
/// "shall" or "must". Such a line is never page furniture.
fn reads_as_requirement(t: &str) -> bool {
    explicit_id(t).is_some()
        || numbered_paragraph(t.trim()).is_some()
        || has_word(t, "shall")
        || has_word(t, "must")
}

/// A footnote's first line: its number glued to its text (`16requirement ...`).
fn footnote_start(t: &str) -> Option<(u32, &str)> {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 4 {
        return None;
    }
    let rest = &t[digits..];
    let c = rest.chars().next()?;
    if c.is_whitespace()
        || c.is_ascii_digit()
        || matches!(c, '.' | ',' | ')' | '-' | '/' | ':' | '%')
    {
        return None;
    }
    Some((t[..digits].parse().ok()?, rest))
}

/// A numbered section heading: its number and title (`5.1 Basal Flow Rate`).
fn numbered_heading(t: &str) -> Option<(Vec<u32>, &str)> {
    let t = t.trim();
    let num_len = t.find(char::is_whitespace)?;
    let num = t[..num_len].trim_end_matches('.');
    let title = t[num_len..].trim();
    let mut parts = Vec::new();
    for p in num.split('.') {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        parts.push(p.parse().ok()?);
    }
    let first = title.chars().next()?;
    if !first.is_uppercase()
        || title.chars().count() > 90
        || parts.len() > 5
        || parts[0] > 99
        || title.ends_with(['.', ',', ';', ':'])
        || has_word(title, "shall")
        || has_word(title, "must")
    {
        return None;
    }
    Some((parts, title))
}

/// Whether `new` may follow `cur`: its first child, or the next sibling of `cur` or of
/// one of its ancestors. (A wrapped line `8 Medical electrical ...` after section 6.4.1
/// is not a heading.)
fn follows(cur: Option<&[u32]>, new: &[u32]) -> bool {
    let Some(cur) = cur else { return true };
    if new.len() == cur.len() + 1 && new[..cur.len()] == *cur && new[cur.len()] <= 1 {
        return true;
    }
    (1..=cur.len())
        .any(|k| new.len() == k && new[..k - 1] == cur[..k - 1] && new[k - 1] == cur[k - 1] + 1)
}

/// Whether `text` contains `word` as a whole word (ASCII case-insensitive).
pub(crate) fn has_word(text: &str, word: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut from = 0;
    while let Some(p) = lower[from..].find(word) {
        let s = from + p;
        let e = s + word.len();
        let before = s == 0 || !b[s - 1].is_ascii_alphanumeric();
        let after = e == b.len() || !b[e].is_ascii_alphanumeric();
        if before && after {
            return true;
        }
        from = e;
    }
    false
}

/// A dot leader of a table of contents.
fn is_toc_leader(t: &str) -> bool {
    t.contains(". . .") || t.contains("....") || t.contains("…")
}

/// `(12) text`: the paragraph number and the rest.
fn numbered_paragraph(t: &str) -> Option<(u32, &str)> {
    let rest = t.strip_prefix('(')?;
    let close = rest.find(')')?;
    let n = &rest[..close];
    if n.is_empty() || n.len() > 3 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((n.parse().ok()?, rest[close + 1..].trim_start()))
}

/// A line that starts with an explicit requirement id: `R-12: text`, `**REQ7** text`,
/// `- [S-3] text`, `ELS-14-A The system shall ...` (without a separator, only with
/// "shall" or "must" in the text).
fn explicit_id(t: &str) -> Option<(String, String)> {
    let mut s = t.trim_start();
    for bullet in ["- ", "* ", "+ "] {
        if let Some(r) = s.strip_prefix(bullet) {
            s = r.trim_start();
        }
    }
    let (wrapped, s) = if let Some(r) = s.strip_prefix("**") {
        (Some("**"), r)
    } else if let Some(r) = s.strip_prefix('[') {
        (Some("]"), r)
    } else {
        (None, s)
    };
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(s.len());
    let id = s[..end].trim_end_matches(['.', '-']);
    let letters = id.bytes().take_while(u8::is_ascii_uppercase).count();
    if !(1..=6).contains(&letters)
        || id.len() > 24
        || !id.bytes().any(|b| b.is_ascii_digit())
        || id.bytes().any(|b| b.is_ascii_lowercase())
    {
        return None;
    }
    let after_letters = &id[letters..];
    if !after_letters.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '_') {
        return None;
    }
    let mut rest = &s[id.len()..];
    let mut separated = false;
    if let Some(w) = wrapped {
        let w = if w == "**" { "**" } else { "]" };
        rest = rest.strip_prefix(w)?;
        separated = true;
    }
    let r = rest.trim_start();
    for sep in [":", ".", ")", "–", "—", "-"] {
        if let Some(x) = r.strip_prefix(sep) {
            if x.starts_with(char::is_whitespace) {
                rest = x;
                separated = true;
                break;
            }
        }
    }
    if !rest.starts_with(char::is_whitespace) && !rest.is_empty() && !separated {
        return None;
    }
    let text = rest.trim().trim_start_matches("**").trim();
    if text.is_empty() {
        return None;
    }
    if !(separated || has_word(text, "shall") || has_word(text, "must")) {
        return None;
    }
    Some((id.to_string(), text.to_string()))
}

/// A list item inside a paragraph: `a. `, `1. `, `- `, `• `.
fn is_list_item(t: &str) -> bool {
    let t = t.trim_start();
    if t.starts_with("- ") || t.starts_with("• ") || t.starts_with("* ") {
        return true;
    }
    let n = t.bytes().take_while(|b| b.is_ascii_alphanumeric()).count();
    (1..=3).contains(&n)
        && t[n..].starts_with(". ")
        && (t[..n].bytes().all(|b| b.is_ascii_digit())
            || (n == 1 && t.as_bytes()[0].is_ascii_lowercase()))
}

/// Words that put a number after them in running text: a number after one of these is
/// not taken for a footnote mark.
const NUMBER_WORDS: &[&str] = &[
    "of", "than", "to", "at", "least", "for", "in", "table", "tables", "section", "sections",
    "and", "or", "by", "with", "within", "from", "every", "about", "per", "is", "are", "be",
    "step", "steps", "figure", "page", "over", "under", "after", "before", "first", "last", "the",
    "all", "most", "only", "up", "chapter", "appendix", "part", "version", "rev",
];

/// Where footnote mark `n` is in `line` at or after byte `from`: the byte range to cut.
fn find_mark(line: &str, n: u32, from: usize) -> Option<(usize, usize)> {
    let pat = n.to_string();
    let b = line.as_bytes();
    let mut at = from;
    while let Some(p) = line.get(at..)?.find(&pat) {
        let s = at + p;
        let e = s + pat.len();
        at = e;
        if (s > 0 && b[s - 1].is_ascii_digit()) || (e < b.len() && b[e].is_ascii_alphanumeric()) {
            continue;
        }
        if e < b.len()
            && !(b[e].is_ascii_whitespace() || matches!(b[e], b'.' | b',' | b';' | b':' | b')'))
        {
            continue;
        }
        if s == 0 {
            continue;
        }
        let before = line[..s].chars().next_back()?;
        if before.is_lowercase() || matches!(before, ')' | '’' | '”' | '"' | '\'' | ';' | ':') {
            return Some((s, e));
        }
        if before == '.' || before == ',' {
            // after a sentence, not in a decimal: `patient.21`, but `0.1` is a number;
            // a section number `6.4.2.72` ends in its mark
            let head = &line[..s - 1];
            let prev = head.chars().next_back();
            let token_start = head.rfind(char::is_whitespace).map_or(0, |p| p + 1);
            let token = &head[token_start..];
            let sectionish = token.matches('.').count() >= 2
                && token.bytes().all(|c| c.is_ascii_digit() || c == b'.');
            let word_before = head[..token_start]
                .split_whitespace()
                .next_back()
                .unwrap_or("")
                .to_lowercase();
            let captioned = matches!(word_before.as_str(), "table" | "figure" | "section")
                && token.bytes().all(|c| c.is_ascii_digit());
            if prev.is_some_and(|c| !c.is_ascii_digit()) || sectionish || captioned {
                return Some((s, e));
            }
            continue;
        }
        if before == ' ' {
            let word = line[..s - 1].rsplit(' ').next().unwrap_or("");
            let last = word.chars().next_back();
            let lower = word.to_lowercase();
            if last.is_some_and(|c| c.is_alphabetic() || c == ')')
                && !NUMBER_WORDS.contains(&lower.as_str())
                && !word.ends_with('=')
            {
                return Some((s - 1, e));
            }
        }
    }
    None
}

/// The cleaned lines and notes of a document (furniture, footnotes, TOC removed).
fn clean(text: &str, notes: &mut Vec<String>) -> (Vec<Line>, Toc) {
    let mut ligatures = 0;
    let mut raw: Vec<String> = text
        .split('\n')
        .map(|l| unligature(l.trim_end_matches('\r'), &mut ligatures))
        .collect();
    if ligatures > 0 {
        notes.push(format!(
            "replaced {ligatures} ligatures (ﬁ, ﬂ, ...) by their letters"
        ));
    }
    let (breaks, mut drop, page_numbers) = page_breaks(&mut raw);
    let furniture = if breaks.len() >= 3 {
        running_furniture(&raw, &breaks, &mut drop)
    } else {
        Vec::new()
    };
    if page_numbers > 0 {
        notes.push(format!("dropped {page_numbers} page-number lines"));
    }
    for (text, at) in &furniture {
        let lines: Vec<String> = at.iter().map(u32::to_string).collect();
        notes.push(format!(
            "dropped {} running header or footer line{} like `{text}` next to page breaks (line{} {})",
            at.len(),
            if at.len() == 1 { "" } else { "s" },
            if at.len() == 1 { "" } else { "s" },
            lines.join(", ")
        ));
    }
    let mut lines: Vec<String> = raw;
    let (footnotes, marks) = if breaks.is_empty() {
        (0, 0)
    } else {
        remove_footnotes(&mut lines, &pages(&breaks, &drop), &mut drop)
    };
    if footnotes > 0 {
        notes.push(format!(
            "took out {footnotes} footnotes and {marks} footnote numbers glued into the text"
        ));
    }
    let (toc, contents) = table_of_contents(&lines, &mut drop);
    if toc > 0 {
        notes.push(format!("skipped {toc} table-of-contents lines"));
    }
    let lines = lines
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !drop[*i])
        .map(|(i, text)| Line {
            no: i as u32 + 1,
            text,
        })
        .collect();
    (lines, contents)
}

/// The page breaks of the lines (page-number lines, dropped, and form feeds, taken
/// out of their line), the lines to drop so far, and how many page numbers there were.
fn page_breaks(raw: &mut [String]) -> (Vec<usize>, Vec<bool>, usize) {
    let mut breaks: Vec<usize> = Vec::new();
    let mut drop = vec![false; raw.len()];
    let mut page_numbers = 0;
    for (i, l) in raw.iter().enumerate() {
        if is_page_number(l) {
            breaks.push(i);
            drop[i] = true;
            page_numbers += 1;
        } else if l.contains('\u{c}') {
            breaks.push(i);
        }
    }
    for l in raw.iter_mut() {
        if l.contains('\u{c}') {
            *l = l.replace('\u{c}', "");
        }
    }
    (breaks, drop, page_numbers)
}

/// Running headers and footers: forms next to most page breaks, marked in `drop`; each
/// with the numbers of the lines dropped, for a note.
///
/// A line that reads as a requirement (an explicit id, a numbered paragraph, "shall"
/// or "must") is never furniture, and only lines next to a page break are dropped as
/// such.
fn running_furniture(
    raw: &[String],
    breaks: &[usize],
    drop: &mut [bool],
) -> Vec<(String, Vec<u32>)> {
    let mut furniture: Vec<(String, Vec<u32>)> = Vec::new();
    let mut counts: HashMap<String, usize> = HashMap::new();
    let near = |i: usize, dir: isize| -> Vec<usize> {
        let mut v = Vec::new();
        let mut j = i as isize + dir;
        while j >= 0 && (j as usize) < raw.len() && v.len() < 2 {
            let ju = j as usize;
            if !raw[ju].trim().is_empty() && !is_page_number(&raw[ju]) {
                v.push(ju);
            }
            j += dir;
        }
        v
    };
    let mut around: Vec<usize> = Vec::new();
    for &b in breaks {
        let mut v = near(b, -1);
        v.extend(near(b, 1));
        v.retain(|&j| !reads_as_requirement(&raw[j]));
        let forms: HashSet<String> = v.iter().map(|&j| form(&raw[j])).collect();
        for f in forms {
            *counts.entry(f).or_insert(0) += 1;
        }
        around.extend(v);
    }
    // The start of the first page and the end of the last are page edges too.
    let first: Vec<usize> = (0..raw.len())
        .filter(|&j| !raw[j].trim().is_empty() && !is_page_number(&raw[j]))
        .take(2)
        .collect();
    let last: Vec<usize> = (0..raw.len())
        .rev()
        .filter(|&j| !raw[j].trim().is_empty() && !is_page_number(&raw[j]))
        .take(2)
        .collect();
    around.extend(
        first
            .into_iter()
            .chain(last)
            .filter(|&j| !reads_as_requirement(&raw[j])),
    );
    around.sort_unstable();
    around.dedup();
    let need = (breaks.len() * 2 / 5).max(3);
    let running: HashSet<&String> = counts
        .iter()
        .filter(|(f, &c)| c >= need && f.chars().count() >= 3)
        .map(|(f, _)| f)
        .collect();
    let mut by_form: HashMap<String, usize> = HashMap::new();
    for i in around {
        let f = form(&raw[i]);
        if drop[i] || !running.contains(&f) {
            continue;
        }
        drop[i] = true;
        let k = *by_form.entry(f).or_insert_with(|| {
            furniture.push((one_line(&raw[i]), Vec::new()));
            furniture.len() - 1
        });
        furniture[k].1.push(i as u32 + 1);
    }
    furniture
}

/// The lines of each page that are not dropped, by index.
fn pages(breaks: &[usize], drop: &[bool]) -> Vec<Vec<usize>> {
    let mut pages: Vec<Vec<usize>> = vec![Vec::new()];
    let break_set: HashSet<usize> = breaks.iter().copied().collect();
    for (i, &dropped) in drop.iter().enumerate() {
        if break_set.contains(&i) {
            pages.push(Vec::new());
        }
        if !dropped {
            pages.last_mut().expect("one page").push(i);
        }
    }
    pages
}

/// Drops the footnotes at the foot of each page and takes their marks, in order, out
/// of the page's body; returns how many footnotes and marks there were.
fn remove_footnotes(
    lines: &mut [String],
    pages: &[Vec<usize>],
    drop: &mut [bool],
) -> (usize, usize) {
    let mut expected: u32 = 1;
    let (mut footnotes, mut marks) = (0usize, 0usize);
    for page in pages {
        let body: Vec<usize> = page
            .iter()
            .copied()
            .filter(|&i| !lines[i].trim().is_empty())
            .collect();
        let Some(start) = footnote_block(lines, &body, expected) else {
            continue;
        };
        let mut nums = Vec::new();
        for &i in &body[start..] {
            if let Some((n, _)) = footnote_start(&lines[i]) {
                nums.push(n);
            }
            drop[i] = true;
        }
        footnotes += nums.len();
        expected = nums.last().map_or(expected, |n| n + 1);
        // marks, in order, in the page's body
        let (mut li, mut pos) = (0usize, 0usize);
        for n in nums {
            let mut k = li;
            let mut from = pos;
            while k < start {
                if let Some((s, e)) = find_mark(&lines[body[k]], n, from) {
                    lines[body[k]].replace_range(s..e, "");
                    marks += 1;
                    li = k;
                    pos = s;
                    break;
                }
                k += 1;
                from = 0;
            }
        }
    }
    (footnotes, marks)
}

/// Drops the lines of tables of contents (dot leaders, and numbered lines near them);
/// returns how many and the numbered entries.
fn table_of_contents(lines: &[String], drop: &mut [bool]) -> (usize, Toc) {
    let leaders: Vec<usize> = (0..lines.len())
        .filter(|&i| is_toc_leader(&lines[i]))
        .collect();
    let leader_set: HashSet<usize> = leaders.iter().copied().collect();
    let mut toc = 0;
    let mut entries = HashSet::new();
    let mut depth = 0;
    for i in 0..lines.len() {
        if drop[i] {
            continue;
        }
        let t = lines[i].trim();
        let ends_in_number = t
            .rsplit(' ')
            .next()
            .is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()));
        let near_leader = (i.saturating_sub(3)..=i + 3).any(|j| leader_set.contains(&j));
        // (A line that reads as a requirement and has no dot leader is not an entry.)
        if leader_set.contains(&i)
            || (ends_in_number && near_leader && t.contains(' ') && !reads_as_requirement(t))
        {
            drop[i] = true;
            toc += 1;
            let entry = t
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .trim_end_matches(['.', ' ', '…']);
            if let Some((num, title)) = numbered_heading(entry) {
                entries.insert(toc_key(&num, title));
                depth = depth.max(num.len());
            }
        }
    }
    (toc, Toc { entries, depth })
}

/// The numbered entries of a document's table of contents, if it has one.
struct Toc {
    /// Section number and the first word of the title, lower case.
    entries: HashSet<(Vec<u32>, String)>,
    /// The deepest level the table lists.
    depth: usize,
}

impl Toc {
    /// Whether a numbered heading is one: listed in the table of contents, or deeper
    /// than the table goes and following the current section; with no table, following
    /// the current section.
    fn accepts(&self, cur: Option<&[u32]>, num: &[u32], title: &str) -> bool {
        if self.entries.len() < 3 {
            return follows(cur, num);
        }
        self.entries.contains(&toc_key(num, title)) || (num.len() > self.depth && follows(cur, num))
    }
}

fn toc_key(num: &[u32], title: &str) -> (Vec<u32>, String) {
    let first: String = title
        .split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    (num.to_vec(), first.to_lowercase())
}

/// The index in `body` where the page's footnotes start, if it has any: a line
/// `<n><text>` with `n` the next footnote number (or close to it), followed only by
/// footnotes numbered one up and their continuation lines.
fn footnote_block(lines: &[String], body: &[usize], expected: u32) -> Option<usize> {
    // footnotes stand at the foot of a page: only its last lines are looked at, which
    // also bounds the time this takes on a page of any length
    let first = body.len().saturating_sub(FOOT_LINES);
    'start: for (k, &i) in body.iter().enumerate().skip(first) {
        let Some((n, _)) = footnote_start(&lines[i]) else {
            continue;
        };
        if !(expected..expected + 6).contains(&n) && n != 1 {
            continue;
        }
        let mut last = n;
        for &j in &body[k + 1..] {
            let t = lines[j].trim();
            if let Some((m, _)) = footnote_start(t) {
                if m == last + 1 || m == last + 2 {
                    last = m;
                    continue;
                }
            }
            if numbered_paragraph(t).is_some()
                || numbered_heading(t).is_some()
                || t.starts_with("Table ")
            {
                continue 'start;
            }
        }
        return Some(k);
    }
    None
}

/// Whether a paragraph's line `t` may go on to the next line: it fills the measure
/// (`long` characters or more) and does not close with a sentence and a parenthesized
/// reference (`... jazz chord. (IEC 60601-1-8 2.3.1)`), which ends a paragraph.
fn runs_on(t: &str, long: usize) -> bool {
    if t.chars().count() < long {
        return false;
    }
    let closed = t.ends_with(')')
        && t.rfind('(').is_some_and(|p| {
            let before = t[..p].trim_end();
            before.ends_with('.') && !t[p + 1..t.len() - 1].contains(['(', ')'])
        });
    !closed
}

/// How many of a page's last non-blank lines may hold its footnotes.
const FOOT_LINES: usize = 80;

/// What a block of lines is being read as.
#[derive(Debug)]
enum Block {
    None,
    Para {
        id: String,
        start: u32,
        lines: Vec<String>,
        section: Option<String>,
    },
    Prose {
        lines: Vec<(u32, String)>,
        section: Option<String>,
    },
}

/// Reads a document's requirements into `x`.
pub(crate) fn extract(file: &str, text: &str, x: &mut Extraction) {
    let markdown = x.format == Format::Markdown;
    let (lines, toc) = clean(text, &mut x.notes);
    let words = word_set(&lines);
    let blank = lines.iter().filter(|l| l.text.trim().is_empty()).count();
    let blank_separated = markdown || blank * 12 > lines.len();
    // a full line: wrapped text fills the measure
    let mut lens: Vec<usize> = lines
        .iter()
        .map(|l| l.text.trim().chars().count())
        .filter(|&n| n > 0)
        .collect();
    lens.sort_unstable();
    let full = lens.get(lens.len() * 9 / 10).copied().unwrap_or(80);
    let long = full * 3 / 4;

    let mut r = Reader {
        file,
        words: &words,
        x,
        removed: Vec::new(),
        hyphens: 0,
        spaced: 0,
    };
    let mut w = Walk {
        section_num: None,
        section: None,
        block: Block::None,
        prev_long: false,
        lead_in: None,
        long,
        markdown,
        blank_separated,
    };
    let mut i = 0;
    while i < lines.len() {
        i = w.line(&mut r, &lines, &toc, i);
    }
    r.finish(w.block);
    r.notes();
}

/// Where the walk over a document's lines is: the section, the block being read and
/// what the previous lines say about the next one.
struct Walk {
    /// The number of the current numbered section.
    section_num: Option<Vec<u32>>,
    /// The current section's heading.
    section: Option<String>,
    /// The block being read.
    block: Block,
    /// Whether the previous line runs to the end of the measure (the text goes on).
    prev_long: bool,
    /// A one-line lead-in that begins each following numbered item.
    lead_in: Option<String>,
    /// The length from which a line counts as running on.
    long: usize,
    /// Whether the document is Markdown.
    markdown: bool,
    /// Whether paragraphs are separated by blank lines (so every line goes on).
    blank_separated: bool,
}

impl Walk {
    /// Reads line `i` (and the lines it opens, for a fence or a table); returns the
    /// index of the next line to read.
    fn line(&mut self, r: &mut Reader, lines: &[Line], toc: &Toc, i: usize) -> usize {
        let line = &lines[i];
        let t = line.text.trim();
        let next = i + 1;
        if t.is_empty() {
            self.close(r);
            self.prev_long = false;
            return next;
        }
        if self.markdown && (t.starts_with("```") || t.starts_with("~~~")) {
            return self.skip_fence(r, lines, next);
        }
        if self.markdown && t.starts_with('#') {
            self.markdown_heading(r, t);
            return next;
        }
        if self.numbered_heading(r, toc, t) {
            return next;
        }
        if t.starts_with('|') {
            return self.table(r, lines, next);
        }
        if self.caption(r, t) || self.numbered_paragraph(r, t, line.no) {
            return next;
        }
        if let Some((id, rest)) = explicit_id(t) {
            self.start_paragraph(r, id, line.no, vec![rest], t);
            return next;
        }
        self.text(r, t, line.no);
        next
    }

    /// Hands the block being read to the reader.
    fn close(&mut self, r: &mut Reader) {
        r.finish(std::mem::replace(&mut self.block, Block::None));
    }

    /// Skips a fenced code block that opens at line `i - 1` (code, not requirements),
    /// its closing fence too, with a note; returns the index after it.
    fn skip_fence(&mut self, r: &mut Reader, lines: &[Line], mut i: usize) -> usize {
        self.close(r);
        let t = lines[i - 1].text.trim();
        let fence_char = t.as_bytes()[0];
        let fence_len = t.bytes().take_while(|&b| b == fence_char).count();
        let open = lines[i - 1].no;
        let mut close = None;
        while i < lines.len() {
            let u = lines[i].text.trim();
            i += 1;
            let n = u.bytes().take_while(|&b| b == fence_char).count();
            if n >= fence_len && u[n..].trim().is_empty() {
                close = Some(lines[i - 1].no);
                break;
            }
        }
        r.x.notes.push(match close {
            Some(c) => format!("skipped a fenced code block (lines {open}-{c})"),
            None => format!(
                "skipped a fenced code block from line {open} to the end: its fence is never closed"
            ),
        });
        self.prev_long = false;
        i
    }

    /// A Markdown heading starts a section.
    fn markdown_heading(&mut self, r: &mut Reader, t: &str) {
        let title = t.trim_start_matches('#').trim();
        self.close(r);
        if let Some((num, _)) = numbered_heading(title) {
            self.section_num = Some(num);
        } else {
            self.section_num = None;
        }
        self.section = Some(one_line(title));
    }

    /// A numbered heading that the table of contents accepts starts a section; false
    /// when `t` is none.
    fn numbered_heading(&mut self, r: &mut Reader, toc: &Toc, t: &str) -> bool {
        let Some((num, title)) = numbered_heading(t) else {
            return false;
        };
        if !toc.accepts(self.section_num.as_deref(), &num, title) {
            return false;
        }
        self.close(r);
        let num_s = num.iter().map(u32::to_string).collect::<Vec<_>>().join(".");
        self.section = Some(format!("{num_s} {}", one_line(title)));
        self.section_num = Some(num);
        self.prev_long = false;
        true
    }

    /// A table with pipes from line `i - 1`, read whole; returns the index after it.
    fn table(&mut self, r: &mut Reader, lines: &[Line], i: usize) -> usize {
        self.close(r);
        let startline = i - 1;
        let mut j = startline;
        while j < lines.len() && lines[j].text.trim().starts_with('|') {
            j += 1;
        }
        r.table(&lines[startline..j], &self.section);
        self.prev_long = false;
        j
    }

    /// A table or figure caption (`Table 3: ...`) starts a prose block of its own;
    /// false when `t` is none.
    fn caption(&mut self, r: &mut Reader, t: &str) -> bool {
        let after = t.split_once(' ').map_or("", |p| p.1);
        let caption = (t.starts_with("Table ") || t.starts_with("Figure "))
            && after.split_once(':').is_some_and(|(n, _)| n.len() <= 6);
        if !caption {
            return false;
        }
        self.close(r);
        self.block = Block::Prose {
            lines: Vec::new(),
            section: self.section.clone(),
        };
        self.prev_long = false;
        true
    }

    /// A numbered paragraph (`(3) ...`) starts a requirement numbered within the
    /// section; false when `t` is none.
    fn numbered_paragraph(&mut self, r: &mut Reader, t: &str, no: u32) -> bool {
        let Some((n, rest)) = numbered_paragraph(t) else {
            return false;
        };
        // a one-line lead-in that stops mid-sentence (`... self-test of`) begins
        // each following item that goes on in lower case
        match &self.block {
            Block::Prose { lines: ls, .. }
                if ls.len() == 1 && ls[0].1.ends_with(char::is_alphabetic) =>
            {
                self.lead_in = Some(ls[0].1.clone());
            }
            Block::Para { .. } => {}
            _ => self.lead_in = None,
        }
        if !rest.starts_with(char::is_lowercase) {
            self.lead_in = None;
        }
        let prefix = self
            .section_num
            .as_ref()
            .map(|v| v.iter().map(u32::to_string).collect::<Vec<_>>().join("."))
            .unwrap_or_default();
        let mut lines = vec![rest.to_string()];
        if let Some(lead) = &self.lead_in {
            lines.insert(0, lead.clone());
        }
        self.start_paragraph(r, format!("{prefix}({n})"), no, lines, t);
        true
    }

    /// Starts the requirement `id` at line `no` with its first `lines`; `t` is the
    /// line read.
    fn start_paragraph(
        &mut self,
        r: &mut Reader,
        id: String,
        no: u32,
        lines: Vec<String>,
        t: &str,
    ) {
        self.close(r);
        self.block = Block::Para {
            id,
            start: no,
            lines,
            section: self.section.clone(),
        };
        self.prev_long = runs_on(t, self.long);
    }

    /// A line of text: it goes on the block being read, or starts a prose block.
    fn text(&mut self, r: &mut Reader, t: &str, no: u32) {
        let cont = self.blank_separated
            || self.prev_long
            || is_list_item(t)
            || t.starts_with(|c: char| {
                c.is_lowercase() || c == '§' || c == '(' || c.is_ascii_digit()
            });
        match &mut self.block {
            Block::Para { lines: ls, .. } if cont => ls.push(t.to_string()),
            Block::Prose { lines: ls, .. } => ls.push((no, t.to_string())),
            _ => {
                self.close(r);
                self.block = Block::Prose {
                    lines: vec![(no, t.to_string())],
                    section: self.section.clone(),
                };
            }
        }
        self.prev_long = runs_on(t, self.long);
    }
}

/// Every word of the document, in lower case: tells a hyphenated word (`power-on`) from
/// a word split at a line end (`sys-` `tem`).
fn word_set(lines: &[Line]) -> HashSet<String> {
    let mut set = HashSet::new();
    for l in lines {
        for w in l.text.split(|c: char| !c.is_alphabetic()) {
            if w.len() > 1 {
                set.insert(w.to_lowercase());
            }
        }
    }
    set
}

struct Reader<'a> {
    file: &'a str,
    words: &'a HashSet<String>,
    x: &'a mut Extraction,
    removed: Vec<String>,
    hyphens: usize,
    spaced: usize,
}

impl Reader<'_> {
    /// The notes on what reading the document changed: paragraphs marked removed,
    /// spaced-out capitals and hyphenated words joined.
    fn notes(&mut self) {
        if !self.removed.is_empty() {
            let removed = self.removed.join(", ");
            self.x
                .notes
                .push(format!("skipped paragraphs marked removed: {removed}"));
        }
        if self.spaced > 0 {
            let n = self.spaced;
            self.x.notes.push(format!(
                "joined {n} words whose capitals were spaced out (V T BI)"
            ));
        }
        if self.hyphens > 0 {
            let h = self.hyphens;
            self.x
                .notes
                .push(format!("joined {h} words hyphenated across line ends"));
        }
    }

    /// Joins wrapped lines: a word split at a line end is joined (`sys-` + `tem`), a
    /// hyphenated word keeps its hyphen (`power-` + `on`), a number range too (`60601-1-` + `8`).
    fn join(&mut self, lines: &[String]) -> String {
        let mut out = String::new();
        for l in lines {
            self.append(&mut out, l);
        }
        one_line(&out)
    }

    /// Appends one wrapped line to `out` (see [`Reader::join`]).
    fn append(&mut self, out: &mut String, l: &str) {
        let l = l.trim();
        if out.is_empty() {
            out.push_str(l);
            return;
        }
        let prev_char = out.trim_end_matches('-').chars().next_back();
        if out.ends_with('-') && !out.ends_with(" -") && !out.ends_with("--") {
            if prev_char.is_some_and(|c| c.is_ascii_digit()) {
                out.push_str(l);
                return;
            }
            if prev_char.is_some_and(char::is_alphabetic) && l.starts_with(char::is_lowercase) {
                let a_start = out[..out.len() - 1]
                    .rfind(|c: char| !c.is_alphabetic())
                    .map_or(0, |p| p + 1);
                let a = out[a_start..out.len() - 1].to_lowercase();
                let next_token = l.split_whitespace().next().unwrap_or("");
                let b: String = l.chars().take_while(|c| c.is_alphabetic()).collect();
                let b = b.to_lowercase();
                let joined = format!("{a}{b}");
                let keep = next_token
                    .trim_end_matches(['.', ',', ';', ':', ')'])
                    .contains('-')
                    || (!self.words.contains(&joined)
                        && self.words.contains(&a)
                        && self.words.contains(&b)
                        && a.len() > 2);
                if !keep {
                    out.pop();
                    self.hyphens += 1;
                }
                out.push_str(l);
                return;
            }
        }
        out.push(' ');
        out.push_str(l);
    }

    fn finish(&mut self, block: Block) {
        match block {
            Block::None => {}
            Block::Para {
                id,
                start,
                lines,
                section,
            } => {
                let joined = self.join(&lines);
                let text = self.respace(&joined);
                let bare: String = text
                    .chars()
                    .filter(|c| c.is_alphanumeric() || c.is_whitespace())
                    .collect::<String>()
                    .to_lowercase();
                let bare = bare.trim();
                if bare.is_empty()
                    || bare == "removed"
                    || bare == "deleted"
                    || bare == "reserved"
                    || bare == "intentionally left blank"
                {
                    self.removed.push(id);
                    return;
                }
                self.x.requirements.push(Requirement {
                    id,
                    text,
                    section,
                    kind: None,
                    confidence: Confidence::High,
                    source: Source {
                        file: self.file.to_string(),
                        line: Some(start),
                        record: None,
                    },
                    fretish: None,
                    formalization: None,
                });
            }
            Block::Prose { lines, section } => self.candidates(&lines, section),
        }
    }

    /// Joins capitals that math typesetting spaced out (`V T BI` becomes `VTBI`) when
    /// the joined word is written as such elsewhere in the document.
    fn respace(&mut self, text: &str) -> String {
        let tokens: Vec<&str> = text.split(' ').collect();
        let caps = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_uppercase());
        let mut out: Vec<String> = Vec::with_capacity(tokens.len());
        let mut i = 0;
        while i < tokens.len() {
            if tokens[i].len() == 1 && caps(tokens[i]) {
                // a run of single capitals, then one more capital word (maybe with punctuation)
                let mut j = i;
                while j < tokens.len() && tokens[j].len() == 1 && caps(tokens[j]) {
                    j += 1;
                }
                if j < tokens.len() && j - i >= 1 {
                    let last = tokens[j];
                    let word = last.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
                    if caps(word) && j - i + word.len() >= 3 {
                        let joined: String = tokens[i..j].concat() + word;
                        if self.words.contains(&joined.to_lowercase()) {
                            out.push(format!("{joined}{}", &last[word.len()..]));
                            self.spaced += 1;
                            i = j + 1;
                            continue;
                        }
                    }
                }
            }
            out.push(tokens[i].to_string());
            i += 1;
        }
        out.join(" ")
    }

    /// The "shall" sentences of a prose block, as candidates.
    fn candidates(&mut self, lines: &[(u32, String)], section: Option<String>) {
        if !lines.iter().any(|(_, l)| has_word(l, "shall")) {
            return;
        }
        // join, remembering where each line starts
        let mut starts: Vec<(usize, u32)> = Vec::new();
        let mut text = String::new();
        for (no, l) in lines {
            starts.push((text.len(), *no));
            self.append(&mut text, l);
        }
        let line_of = |pos: usize| {
            starts
                .iter()
                .rev()
                .find(|(s, _)| *s <= pos)
                .map_or(lines[0].0, |p| p.1)
        };
        let mut sentence_start = 0;
        let bytes = text.as_bytes();
        let mut k = 0;
        while k <= bytes.len() {
            let end = k == bytes.len()
                || (matches!(bytes[k], b'.' | b'!' | b'?')
                    && (k + 1 == bytes.len()
                        || (bytes[k + 1] == b' '
                            && bytes.get(k + 2).is_some_and(|c| !c.is_ascii_lowercase()))));
            if end {
                let stop = (k + 1).min(bytes.len());
                let s = text[sentence_start..stop].trim();
                if has_word(s, "shall") {
                    let start_pos = sentence_start
                        + (text[sentence_start..].len()
                            - text[sentence_start..].trim_start().len());
                    let text = one_line(s.trim_start_matches(['-', '*', '•', '+']));
                    let line = line_of(start_pos);
                    self.x.requirements.push(Requirement {
                        id: format!("line-{line}"),
                        text,
                        section: section.clone(),
                        kind: None,
                        confidence: Confidence::Candidate,
                        source: Source {
                            file: self.file.to_string(),
                            line: Some(line),
                            record: None,
                        },
                        fretish: None,
                        formalization: None,
                    });
                }
                sentence_start = stop;
            }
            k += 1;
        }
    }

    /// A table with pipes: its rows are requirements when a column is an id column and
    /// another one holds the text.
    fn table(&mut self, rows: &[Line], section: &Option<String>) {
        let cells = |t: &str| -> Vec<String> { table_cells(t) };
        let Some(head) = rows.first() else { return };
        let header = cells(&head.text);
        let norm = |s: &str| {
            s.to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
        };
        let find = |names: &[&str]| {
            header
                .iter()
                .position(|h| names.contains(&norm(h).as_str()))
        };
        let id_col = find(&[
            "id",
            "reqid",
            "requirementid",
            "identifier",
            "key",
            "ref",
            "no",
            "number",
        ]);
        let text_col = find(&[
            "text",
            "requirement",
            "requirementtext",
            "description",
            "statement",
            "shall",
            "reqtext",
        ]);
        let kind_col = find(&["type", "kind", "category", "requirementtype"]);
        let (Some(id_col), Some(text_col)) = (id_col, text_col) else {
            let mut prose: Vec<(u32, String)> = Vec::new();
            for r in rows {
                let c = cells(&r.text);
                prose.push((r.no, format!("{}.", c.join(" "))));
            }
            for p in prose {
                self.candidates(&[p], section.clone());
            }
            return;
        };
        for r in &rows[1..] {
            let c = cells(&r.text);
            if c.iter()
                .all(|x| x.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
            {
                continue;
            }
            let id = c.get(id_col).cloned().unwrap_or_default();
            let text = one_line(c.get(text_col).map_or("", String::as_str));
            if id.is_empty() && text.is_empty() {
                continue;
            }
            if id.is_empty() {
                self.x.notes.push(format!(
                    "line {}: a table row without an id is not read as a requirement: {}",
                    r.no,
                    crate::excerpt(&text, 60)
                ));
                continue;
            }
            if text.is_empty() {
                self.x.notes.push(format!(
                    "line {}: table row {id} has no text and is not read as a requirement",
                    r.no
                ));
                continue;
            }
            self.x.requirements.push(Requirement {
                id,
                text,
                section: section.clone(),
                kind: kind_col
                    .and_then(|k| c.get(k))
                    .filter(|s| !s.is_empty())
                    .cloned(),
                confidence: Confidence::High,
                source: Source {
                    file: self.file.to_string(),
                    line: Some(r.no),
                    record: None,
                },
                fretish: None,
                formalization: None,
            });
        }
    }
}

/// The cells of a Markdown table row: split at every `|` that is not escaped
/// (`\|` is a pipe inside a cell), trimmed, bold marks removed.
fn table_cells(t: &str) -> Vec<String> {
    let t = t.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let mut cells = Vec::new();
    let mut cur = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    // After a row's closing pipe there is nothing.
    if !cur.trim().is_empty() {
        cells.push(cur);
    }
    cells
        .into_iter()
        .map(|c| c.trim().replace("**", ""))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers() {
        for p in ["-57-", "- 3 -", "Page 3", "Page 3 of 9", "3 of 9", "– 12 –"] {
            assert!(is_page_number(p), "{p}");
        }
        for p in ["57", "(3)", "-", "Page one", "3 of the pumps"] {
            assert!(!is_page_number(p), "{p}");
        }
    }

    /// A line shaped like the running header but in the middle of a page is text, not
    /// furniture: only the lines next to page breaks are dropped, and named.
    #[test]
    fn furniture_is_dropped_only_next_to_page_breaks() {
        let mut doc = String::new();
        let words = ["alpha", "beta", "gamma", "delta", "epsilon"];
        for (p, w) in words.iter().enumerate() {
            doc.push_str(&format!("Pump manual 7 of {p}\n"));
            doc.push_str(&format!("Text on {w}.\n"));
            if p == 2 {
                doc.push_str("Pump manual 9 of 2\n");
            }
            doc.push_str(&format!("\nMore on {w}s.\n"));
            doc.push_str(&format!("Last on {w}.\n"));
            doc.push_str(&format!("- {p} -\n"));
        }
        let mut notes = Vec::new();
        let (lines, _) = clean(&doc, &mut notes);
        let kept: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert!(kept.contains(&"Pump manual 9 of 2"), "{kept:?}");
        assert_eq!(
            kept.iter().filter(|t| t.starts_with("Pump manual")).count(),
            1,
            "{kept:?}"
        );
        assert!(
            notes.contains(&"dropped 5 running header or footer lines like `Pump manual 7 of 0` next to page breaks (lines 1, 7, 13, 20, 26)".to_string()),
            "{notes:?}"
        );
    }

    #[test]
    fn headings_follow() {
        assert!(follows(Some(&[6, 4, 1]), &[6, 4, 2]));
        assert!(follows(Some(&[6, 4, 1]), &[6, 5]));
        assert!(follows(Some(&[6, 4, 1]), &[7]));
        assert!(!follows(Some(&[6, 4, 1]), &[8]));
        assert!(follows(Some(&[5]), &[5, 1]));
        assert!(follows(None, &[3]));
    }

    #[test]
    fn explicit_ids() {
        let t = |s: &str| explicit_id(s).map(|(i, t)| format!("{i}|{t}"));
        assert_eq!(
            t("R-12: The pump shall stop.").as_deref(),
            Some("R-12|The pump shall stop.")
        );
        assert_eq!(
            t("- **REQ7** The pump stops.").as_deref(),
            Some("REQ7|The pump stops.")
        );
        assert_eq!(
            t("[S-3] Alarms sound.").as_deref(),
            Some("S-3|Alarms sound.")
        );
        assert_eq!(
            t("ELS-14-A The light shall blink.").as_deref(),
            Some("ELS-14-A|The light shall blink.")
        );
        assert_eq!(t("G1 The patient should receive enough drug."), None);
        assert_eq!(t("UC1 Clinician Normal Operation"), None);
        assert_eq!(t("Abc-1: x"), None);
    }

    #[test]
    fn marks() {
        let cut =
            |l: &str, n: u32| find_mark(l, n, 0).map(|(s, e)| format!("{}{}", &l[..s], &l[e..]));
        assert_eq!(
            cut("basal flow rate 16, Fbasal", 16).as_deref(),
            Some("basal flow rate, Fbasal")
        );
        assert_eq!(
            cut("a time stamp88 with", 88).as_deref(),
            Some("a time stamp with")
        );
        assert_eq!(
            cut("to the patient.21 (UC2", 21).as_deref(),
            Some("to the patient. (UC2")
        );
        assert_eq!(cut("Tpoh = 55 C", 55), None);
        assert_eq!(cut("tolerance of 0.1 ml/hr", 1), None);
        assert_eq!(cut("minimum of 4 harmonic", 4), None);
        assert_eq!(cut("UC1.4 §4.1.1", 1), None);
        assert_eq!(
            cut("in Section 6.4.2.72 (IEC", 72).as_deref(),
            Some("in Section 6.4.2. (IEC")
        );
    }
}
