//! Reading a table: the CSV with every cell's line and column, and which columns are
//! keys, conditions and outcomes.

use crate::cell::{self, Interval, Shape};
use crate::error::TableError;

/// The most data rows a table may have.
pub const MAX_ROWS: usize = 100_000;

/// One cell with its place in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The text as written (not trimmed).
    pub text: String,
    /// 1-based line where the cell starts.
    pub line: u32,
    /// 1-based column (in characters) where the cell starts.
    pub column: u32,
}

/// One data row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 1-based line where the row starts.
    pub line: u32,
    /// Its cells; a short row is padded with empty cells.
    pub cells: Vec<Cell>,
}

/// A CSV table: a header row and data rows. Blank rows are skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The file as the user named it.
    pub file: String,
    /// The header names, trimmed.
    pub headers: Vec<String>,
    /// The header row's line.
    pub header_line: u32,
    /// The data rows.
    pub rows: Vec<Row>,
}

impl Table {
    /// Reads a CSV from bytes: UTF-8 (a byte-order mark is dropped), comma-separated
    /// (or `;` or tab, when the header row has more of those than commas), with a header
    /// row. Errors carry `file:line:col`.
    pub fn read(file: &str, bytes: &[u8]) -> Result<Table, TableError> {
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.valid_up_to();
                let before = String::from_utf8_lossy(&bytes[..at]);
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                return Err(TableError::NotUtf8 {
                    file: file.into(),
                    line: line as u32,
                    column: column as u32,
                    byte: bytes[at],
                });
            }
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if let Some((line, column)) = unclosed_quote(text, delimiter(text)) {
            return Err(TableError::Csv {
                file: file.into(),
                line,
                column,
                message: "a quoted cell is never closed (a `\"` without its closing `\"`)".into(),
            });
        }
        let delim = delimiter(text);
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delim as u8)
            .from_reader(text.as_bytes());
        let bytes = text.as_bytes();
        let mut lines = LineCounter::default();
        let mut headers: Option<(Vec<String>, u32)> = None;
        let mut rows = Vec::new();
        let mut long = Vec::new();
        for rec in reader.records() {
            let rec = rec.map_err(|e| {
                let off = e.position().map_or(0, |p| p.byte() as usize);
                let (line, column) = lines.locate(text, off);
                TableError::Csv {
                    file: file.into(),
                    line,
                    column,
                    message: format!("bad CSV row: {e}"),
                }
            })?;
            let mut off = rec.position().map_or(0, |p| p.byte() as usize);
            while off < bytes.len() && matches!(bytes[off], b'\r' | b'\n') {
                off += 1;
            }
            if rec.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            let (line, _) = lines.locate(text, off);
            let starts = field_columns(text, off, delim);
            let cells: Vec<Cell> = rec
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let (l, c) = starts.get(i).copied().unwrap_or((0, 0));
                    Cell {
                        text: t.to_string(),
                        line: line + l,
                        column: c,
                    }
                })
                .collect();
            match &headers {
                None => {
                    headers = Some((
                        cells.iter().map(|c| c.text.trim().to_string()).collect(),
                        line,
                    ))
                }
                Some((h, _)) => {
                    if rows.len() >= MAX_ROWS {
                        return Err(TableError::TooManyRows {
                            file: file.into(),
                            line,
                            max: MAX_ROWS,
                        });
                    }
                    let mut cells = cells;
                    // A cell beyond the header would be dropped: an error, located.
                    if let Some(extra) = cells[h.len().min(cells.len())..]
                        .iter()
                        .find(|c| !c.text.trim().is_empty())
                    {
                        long.push(crate::error::LongRow {
                            line: extra.line,
                            column: extra.column,
                            cells: cells.len(),
                            extra: extra.text.clone(),
                        });
                    }
                    while cells.len() < h.len() {
                        let column = cells
                            .last()
                            .map_or(1, |c| c.column + c.text.chars().count() as u32 + 1);
                        cells.push(Cell {
                            text: String::new(),
                            line,
                            column,
                        });
                    }
                    rows.push(Row { line, cells });
                }
            }
        }
        let Some((headers, header_line)) = headers else {
            return Err(TableError::Empty { file: file.into() });
        };
        if !long.is_empty() {
            return Err(TableError::LongRows {
                file: file.into(),
                header: headers.len(),
                rows: long,
            });
        }
        Ok(Table {
            file: file.into(),
            headers,
            header_line,
            rows,
        })
    }

    /// The group row `row` belongs to under the key columns `keys`: each key's cell,
    /// trimmed (keys this table has no column or cell for are left out).
    pub fn group_of(&self, row: usize, keys: &[String]) -> crate::Group {
        crate::Group(
            keys.iter()
                .filter_map(|k| {
                    let c = self.column(k)?;
                    let v = self.rows[row].cells.get(c)?.text.trim().to_string();
                    Some((k.clone(), v))
                })
                .collect(),
        )
    }

    /// The index of the column named `name` (case and surrounding blanks ignored).
    pub fn column(&self, name: &str) -> Option<usize> {
        let n = name.trim().to_lowercase();
        self.headers.iter().position(|h| h.to_lowercase() == n)
    }
}

/// Turns byte offsets into lines, moving forward only (rows come in order).
#[derive(Default)]
struct LineCounter {
    off: usize,
    line: u32,
}

impl LineCounter {
    fn locate(&mut self, text: &str, off: usize) -> (u32, u32) {
        let mut off = off.min(text.len());
        while !text.is_char_boundary(off) {
            off -= 1;
        }
        if off < self.off {
            self.off = 0;
            self.line = 0;
        }
        self.line += text.as_bytes()[self.off..off]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u32;
        self.off = off;
        let line_start = text[..off].rfind('\n').map_or(0, |i| i + 1);
        let column = text.get(line_start..off).map_or(0, |s| s.chars().count()) + 1;
        (self.line + 1, column as u32)
    }
}

/// The (line offset, 1-based column) of every field of the record starting at `off`.
fn field_columns(text: &str, off: usize, delim: char) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let Some(rest) = text.get(off..) else {
        return out;
    };
    let mut line = 0u32;
    let mut col = 1u32;
    let mut at_start = true;
    let mut quoted = false;
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if at_start {
            out.push((line, col));
            at_start = false;
            if c == '"' {
                // The cell's text starts after the quote.
                quoted = true;
                col += 1;
                if let Some(last) = out.last_mut() {
                    last.1 = col;
                }
                continue;
            }
        }
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    col += 2;
                    continue;
                }
                quoted = false;
            } else if c == '\n' {
                line += 1;
                col = 1;
                continue;
            }
            col += 1;
            continue;
        }
        match c {
            c if c == delim => at_start = true,
            '\n' | '\r' => break,
            _ => {}
        }
        col += 1;
    }
    if at_start {
        out.push((line, col));
    }
    out
}

/// The separator: `,`, or `;` or a tab when the first non-blank line has more of those
/// than commas (spreadsheets set to a European locale export with `;`).
fn delimiter(text: &str) -> char {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let count = |d: char| first.chars().filter(|c| *c == d).count();
    let (comma, semi, tab) = (count(','), count(';'), count('\t'));
    if semi > comma && semi >= tab {
        ';'
    } else if tab > comma && tab > semi {
        '\t'
    } else {
        ','
    }
}

/// The place of an opening quote that is never closed, if any.
fn unclosed_quote(text: &str, delim: char) -> Option<(u32, u32)> {
    let mut line = 1u32;
    let mut col = 1u32;
    let mut field_start = true;
    let mut open: Option<(u32, u32)> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if open.is_some() {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    col += 2;
                    continue;
                }
                open = None;
            }
        } else if c == '"' && field_start {
            open = Some((line, col));
        }
        field_start = (c == delim || c == '\n') && open.is_none();
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    open
}

/// What a bare amount in a condition column means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BareMode {
    /// Steps: each value is the upper end of its row (`Weight Not Over`): a row covers
    /// the values above the next smaller value of the group, up to and including its
    /// own. The first row starts above 0 when its value is positive (weights, amounts),
    /// or at the given range.
    #[default]
    NotOver,
    /// Steps: each value is the lower end of its row (`from 0`, `from 50`): a row covers
    /// its own value up to, not including, the next larger value; the last row is open
    /// upwards.
    AtLeast,
    /// Each value is a single point.
    Point,
}

impl std::str::FromStr for BareMode {
    type Err = String;
    fn from_str(s: &str) -> Result<BareMode, String> {
        match s {
            "not-over" => Ok(BareMode::NotOver),
            "at-least" => Ok(BareMode::AtLeast),
            "point" => Ok(BareMode::Point),
            _ => Err(format!("`{s}`: expected not-over, at-least or point")),
        }
    }
}

/// Which columns are which, as the user gave them (by header name); `None` means
/// "find out" (see [`Layout::resolve`]).
#[derive(Debug, Clone, Default)]
pub struct Columns {
    /// Key columns (categorical: product, country, currency).
    pub keys: Option<Vec<String>>,
    /// Condition columns, one numeric input each.
    pub when: Option<Vec<String>>,
    /// Outcome columns; each is checked on its own.
    pub then: Option<Vec<String>>,
    /// What a bare amount in a condition column means (default: not-over steps when every
    /// cell of the column is a bare amount, a point otherwise).
    pub bare: Option<BareMode>,
}

/// How a condition column is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Meaning {
    /// Intervals (a bare amount is a point).
    Interval,
    /// Bare amounts as not-over steps.
    NotOver,
    /// Bare amounts as at-least steps.
    AtLeast,
    /// Bare amounts as points.
    Point,
}

/// The resolved roles of the columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Key column indices.
    pub keys: Vec<usize>,
    /// Condition column indices and how each is read.
    pub when: Vec<(usize, Meaning)>,
    /// Outcome column indices.
    pub then: Vec<usize>,
    /// Columns that were left out (no role), with the reason.
    pub ignored: Vec<usize>,
}

impl Layout {
    /// Resolves the columns' roles. Given names are looked up in the header row. What
    /// is not given is found from the cells:
    ///
    /// * keys: columns where more than half of the non-blank cells are text (not an
    ///   amount, interval, outcome or rule) and none is an interval or a rule sentence;
    /// * conditions: the other columns with at least one interval (`50 - 500`, `>
    ///   5000`); when there is none, the first column of bare amounts, provided another
    ///   column is left for the outcome;
    /// * outcomes: every remaining column of amounts, percentages or rule sentences.
    pub fn resolve(table: &Table, cols: &Columns) -> Result<Layout, TableError> {
        let keys = given_columns(table, &cols.keys, "--keys")?;
        let when = given_columns(table, &cols.when, "--when")?;
        let then = given_columns(table, &cols.then, "--then")?;
        check_given(
            table,
            cols,
            [("--keys", &keys), ("--when", &when), ("--then", &then)],
        )?;
        let n = table.headers.len();
        let shapes = ColumnShapes::of(table);
        let taken = |c: usize, v: &[&Option<Vec<usize>>]| {
            v.iter().any(|x| x.as_ref().is_some_and(|x| x.contains(&c)))
        };
        let keys = keys.unwrap_or_else(|| {
            (0..n)
                .filter(|c| !taken(*c, &[&when, &then]) && shapes.is_text(*c))
                .collect()
        });
        let free =
            |c: usize, when: &Option<Vec<usize>>| !keys.contains(&c) && !taken(c, &[when, &then]);
        let when = match when {
            Some(w) => w,
            None => shapes.guess_when(|c| free(c, &None), then.is_some()),
        };
        let when_opt = Some(when.clone());
        let mut ignored = Vec::new();
        let then = match then {
            Some(t) => t,
            None => {
                let mut t = Vec::new();
                for c in 0..n {
                    if !free(c, &when_opt) {
                        continue;
                    }
                    if shapes.outcome_like(c) > 0 {
                        t.push(c);
                    } else {
                        ignored.push(c);
                    }
                }
                t
            }
        };
        if then.is_empty() {
            return Err(TableError::NoOutcome {
                file: table.file.clone(),
                line: table.header_line,
            });
        }
        let when = when
            .into_iter()
            .map(|c| (c, shapes.meaning(c, cols.bare)))
            .collect();
        for c in 0..n {
            let used = keys.contains(&c)
                || then.contains(&c)
                || when_opt.as_ref().is_some_and(|w| w.contains(&c));
            if !used && !ignored.contains(&c) {
                ignored.push(c);
            }
        }
        ignored.sort();
        Ok(Layout {
            keys,
            when,
            then,
            ignored,
        })
    }
}

/// The columns given by `names` for `role` (`None` when none are given); an error
/// names a column the header row does not have.
fn given_columns(
    table: &Table,
    names: &Option<Vec<String>>,
    role: &'static str,
) -> Result<Option<Vec<usize>>, TableError> {
    let Some(names) = names else { return Ok(None) };
    names
        .iter()
        .map(|n| {
            table.column(n).ok_or_else(|| TableError::MissingColumn {
                file: table.file.clone(),
                line: table.header_line,
                name: n.clone(),
                role,
                available: table
                    .headers
                    .iter()
                    .map(|h| format!("`{h}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Checks the given columns, per role: no column named twice for one role (it would be
/// two inputs, or outcomes, that are one: every row would contradict itself), and no
/// column given two roles.
fn check_given(
    table: &Table,
    cols: &Columns,
    roles: [(&'static str, &Option<Vec<usize>>); 3],
) -> Result<(), TableError> {
    for (role, v) in roles {
        let Some(v) = v else { continue };
        if let Some((k, c)) = v.iter().enumerate().find(|(k, c)| v[..*k].contains(c)) {
            let given = match role {
                "--keys" => &cols.keys,
                "--when" => &cols.when,
                _ => &cols.then,
            };
            let names = given.as_deref().unwrap_or_default();
            let first = names[..k].iter().position(|n| table.column(n) == Some(*c));
            return Err(TableError::Twice {
                file: table.file.clone(),
                line: table.header_line,
                name: table.headers[*c].clone(),
                role,
                spelled: match first {
                    Some(f) if names[f] != names[k] => {
                        format!(" (as `{}` and `{}`)", names[f], names[k])
                    }
                    _ => String::new(),
                },
            });
        }
    }
    let given: Vec<(&'static str, &Vec<usize>)> = roles
        .into_iter()
        .filter_map(|(r, v)| v.as_ref().map(|v| (r, v)))
        .collect();
    for (a, (ra, va)) in given.iter().enumerate() {
        for (rb, vb) in given.iter().skip(a + 1) {
            if let Some(c) = va.iter().find(|c| vb.contains(c)) {
                return Err(TableError::TwoRoles {
                    file: table.file.clone(),
                    line: table.header_line,
                    name: table.headers[*c].clone(),
                    first: ra,
                    second: rb,
                });
            }
        }
    }
    Ok(())
}

/// The shape of every cell, per column: what the roles of the columns not given are
/// found from.
struct ColumnShapes(Vec<Vec<Shape>>);

impl ColumnShapes {
    /// The shapes of the cells of `table`, per column.
    fn of(table: &Table) -> ColumnShapes {
        ColumnShapes(
            (0..table.headers.len())
                .map(|c| {
                    table
                        .rows
                        .iter()
                        .map(|r| {
                            r.cells
                                .get(c)
                                .map_or(Shape::Empty, |x| cell::shape(&x.text))
                        })
                        .collect()
                })
                .collect(),
        )
    }

    /// How many cells of column `c` have shape `s`.
    fn count(&self, c: usize, s: Shape) -> usize {
        self.0[c].iter().filter(|x| **x == s).count()
    }

    /// How many cells of column `c` are not blank.
    fn nonblank(&self, c: usize) -> usize {
        self.0[c].len() - self.count(c, Shape::Empty)
    }

    /// How many cells of column `c` can be an outcome (amounts, outcomes, rules).
    fn outcome_like(&self, c: usize) -> usize {
        self.count(c, Shape::Amount) + self.count(c, Shape::Outcome) + self.count(c, Shape::Rule)
    }

    /// Column `c` is a key column: more than half of its non-blank cells are text and
    /// none is an interval or a rule sentence.
    fn is_text(&self, c: usize) -> bool {
        self.nonblank(c) > 0
            && 2 * self.count(c, Shape::Text) > self.nonblank(c)
            && self.count(c, Shape::Interval) == 0
            && self.count(c, Shape::Rule) == 0
    }

    /// The condition columns when none are given: the `free` columns with an
    /// interval, else the first one of bare amounts, provided another column is left
    /// for the outcome (or the outcomes are given).
    fn guess_when(&self, free: impl Fn(usize) -> bool, then_given: bool) -> Vec<usize> {
        let n = self.0.len();
        let with_intervals: Vec<usize> = (0..n)
            .filter(|c| free(*c) && self.count(*c, Shape::Interval) > 0)
            .collect();
        if !with_intervals.is_empty() {
            return with_intervals;
        }
        let bare: Vec<usize> = (0..n)
            .filter(|c| {
                free(*c)
                    && self.count(*c, Shape::Amount) > 0
                    && self.count(*c, Shape::Amount) == self.nonblank(*c)
            })
            .collect();
        let outcome_left =
            (0..n).any(|c| free(c) && Some(&c) != bare.first() && self.outcome_like(c) > 0);
        match bare.first() {
            Some(b) if outcome_left || then_given => vec![*b],
            _ => Vec::new(),
        }
    }

    /// How condition column `c` is read, given how bare amounts are to be read.
    fn meaning(&self, c: usize, bare: Option<BareMode>) -> Meaning {
        let all_bare = self.count(c, Shape::Amount) == self.nonblank(c) && self.nonblank(c) > 0;
        match (all_bare, bare) {
            (false, Some(BareMode::NotOver | BareMode::AtLeast) | None) => Meaning::Interval,
            (_, Some(BareMode::Point)) => Meaning::Point,
            (true, None | Some(BareMode::NotOver)) => Meaning::NotOver,
            (true, Some(BareMode::AtLeast)) => Meaning::AtLeast,
        }
    }
}

/// Reads `NAME=LO..HI` (either end may be left out; both ends inclusive; amounts as in
/// cells, e.g. `amount=0..100,000`), several separated by `;` or given one by one.
pub fn parse_range(arg: &str) -> Result<Vec<(String, Interval)>, TableError> {
    let bad = |m: &str| TableError::BadRange {
        arg: arg.into(),
        message: m.into(),
    };
    let mut out = Vec::new();
    for part in arg.split(';').filter(|p| !p.trim().is_empty()) {
        let (name, spec) = part
            .split_once('=')
            .ok_or_else(|| bad("expected NAME=LO..HI"))?;
        let (lo, hi) = spec
            .split_once("..")
            .ok_or_else(|| bad("expected LO..HI, e.g. 0..100000"))?;
        let read = |s: &str| -> Result<Option<num_rational::BigRational>, TableError> {
            if s.trim().is_empty() {
                return Ok(None);
            }
            match cell::parse_condition(s) {
                Ok(cell::Condition::Bare(v)) => Ok(Some(v)),
                _ => Err(bad(&format!("`{}` is not an amount", s.trim()))),
            }
        };
        let iv = Interval {
            lo: read(lo)?.map(cell::Bound::closed),
            hi: read(hi)?.map(cell::Bound::closed),
        };
        if iv.is_empty() {
            return Err(bad("the range is empty"));
        }
        out.push((name.trim().to_string(), iv));
    }
    if out.is_empty() {
        return Err(bad("expected NAME=LO..HI"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_located() {
        let t = Table::read("t.csv", "a,b\n\n1,\"x, y\"\r\n 2 ,3\n".as_bytes()).unwrap();
        assert_eq!(t.headers, ["a", "b"]);
        assert_eq!(t.rows[0].line, 3);
        assert_eq!((t.rows[0].cells[1].line, t.rows[0].cells[1].column), (3, 4));
        assert_eq!(t.rows[0].cells[1].text, "x, y");
        assert_eq!((t.rows[1].line, t.rows[1].cells[1].column), (4, 5));
    }

    #[test]
    fn semicolons_and_tabs_separate_when_the_header_says_so() {
        let t = Table::read("t.csv", "a;b\n1,5;\"x; y\"\n".as_bytes()).unwrap();
        assert_eq!(t.headers, ["a", "b"]);
        assert_eq!(t.rows[0].cells[0].text, "1,5");
        assert_eq!(
            (t.rows[0].cells[1].text.as_str(), t.rows[0].cells[1].column),
            ("x; y", 6)
        );
        let t = Table::read("t.tsv", "a\tb\n1\t2\n".as_bytes()).unwrap();
        assert_eq!(t.rows[0].cells[1].text, "2");
    }

    #[test]
    fn errors_are_located() {
        let e = Table::read("t.csv", b"a,b\n1,\xff\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:2:3: the file is not UTF-8 (invalid byte 0xff); save it as UTF-8"
        );
        let e = Table::read("t.csv", b"a,b\n1,\"2\n3,4\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:2:3: a quoted cell is never closed"),
            "{e}"
        );
        assert!(matches!(
            Table::read("t.csv", b"\n\n"),
            Err(TableError::Empty { .. })
        ));
    }

    #[test]
    fn ranges() {
        let r = parse_range("amount=0..100,000").unwrap();
        assert_eq!(r[0].0, "amount");
        assert_eq!(r[0].1.to_string(), "0 - 100000");
        assert!(parse_range("amount=5..1").is_err());
        assert!(parse_range("amount").is_err());
        assert_eq!(parse_range("w=..70").unwrap()[0].1.to_string(), "<= 70");
    }
}
