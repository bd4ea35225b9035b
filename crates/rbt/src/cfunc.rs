//! A C function as an implementation: vera finds the function and its parameters with
//! the C front end of `acsl`, writes a driver (a `main` that reads one case from
//! standard input, calls the function and prints its value), compiles the driver with
//! the user's file with the system C compiler (`$CC`, else `cc`), and runs it as an
//! [`Executable`] with a time limit per case.
//!
//! Parameters and the result may be integers (`int`, `long`, `short`, `char`, signed or
//! unsigned, `long long`), floating point (`double`, `float`) or `_Bool`/`bool`. A value
//! that does not fit the parameter's type makes that case an error, never a pass.

use crate::problem::Problem;
use crate::run::{CaseError, Executable, Implementation, SetupError};
use logic::{Sort, Symbol, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A C scalar type the driver can read and print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CType {
    /// A signed or unsigned integer type with its C spelling's range.
    Int { signed: bool, bits: u32 },
    /// `double` or `float`.
    Float,
    /// `_Bool` / `bool`.
    Bool,
}

fn ctype(text: &str) -> Option<CType> {
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "register" | "static" | "inline" | "extern"
            )
        })
        .collect();
    let has = |w: &str| words.contains(&w);
    if words.is_empty() || words.iter().any(|w| w.contains('*') || w.contains('[')) {
        return None;
    }
    if has("double") || has("float") {
        return Some(CType::Float);
    }
    if has("_Bool") || has("bool") {
        return Some(CType::Bool);
    }
    let signed = !has("unsigned");
    let longs = words.iter().filter(|w| **w == "long").count();
    let known = words.iter().all(|w| {
        matches!(
            *w,
            "int" | "long" | "short" | "char" | "signed" | "unsigned"
        )
    });
    if !known {
        return None;
    }
    let bits = if has("char") {
        8
    } else if has("short") {
        16
    } else if longs >= 1 {
        64
    } else {
        32
    };
    Some(CType::Int { signed, bits })
}

impl CType {
    fn c_name(self) -> &'static str {
        match self {
            CType::Int { signed: true, .. } => "long long",
            CType::Int { signed: false, .. } => "unsigned long long",
            CType::Float => "double",
            CType::Bool => "int",
        }
    }

    fn fits(self, sort: &Sort) -> bool {
        match self {
            CType::Int { .. } => *sort == Sort::Int,
            CType::Float => sort.is_numeric(),
            CType::Bool => *sort == Sort::Bool,
        }
    }
}

/// The parameters of `function` in a C text: name and type, in order, and the result
/// type.
fn signature(text: &str, function: &str) -> Result<(Vec<(String, CType)>, CType), SetupError> {
    let file = acsl::front::parse_c(text).map_err(|d| SetupError::C(d.to_string()))?;
    let item = file.function(function).ok_or_else(|| {
        let names: Vec<&str> = file.functions().map(|f| f.name.as_str()).collect();
        SetupError::C(format!(
            "no function `{}` in the C file (functions: {})",
            crate::values::cut(function),
            names.join(", ")
        ))
    })?;
    let end = item.body.map(|b| b.start).unwrap_or(item.span.end);
    let head = &text[item.span.start..end];
    let open = head
        .find('(')
        .ok_or_else(|| SetupError::C(format!("cannot read the parameters of `{function}`")))?;
    let close = head
        .rfind(')')
        .filter(|c| *c > open)
        .ok_or_else(|| SetupError::C(format!("cannot read the parameters of `{function}`")))?;
    let before = head[..open].trim();
    let ret_text = before.strip_suffix(function).unwrap_or(before).trim();
    let ret = ctype(ret_text).ok_or_else(|| {
        SetupError::C(format!(
            "`{function}` returns `{ret_text}`; the driver reads integer, floating-point and Boolean results"
        ))
    })?;
    let mut params = Vec::new();
    let inner = head[open + 1..close].trim();
    if !inner.is_empty() && inner != "void" {
        for p in inner.split(',') {
            let p = p.trim();
            let split = p
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map(|i| i + 1)
                .unwrap_or(0);
            let (ty, name) = (p[..split].trim(), p[split..].trim());
            let t = ctype(ty).filter(|_| !name.is_empty()).ok_or_else(|| {
                SetupError::C(format!(
                    "parameter `{p}` of `{function}`: the driver passes integer, floating-point and Boolean values"
                ))
            })?;
            params.push((name.to_string(), t));
        }
    }
    Ok((params, ret))
}

/// A compiled driver around a C function.
pub struct CFunction {
    exe: Executable,
    name: String,
    // The build folder lives as long as the driver runs.
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for CFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CFunction")
            .field("name", &self.name)
            .finish()
    }
}

/// The driver's text: reads the header line and one line of values, parses each
/// parameter strictly (the whole field, in range), calls the function and prints its
/// value (`%lld`, `%llu`, `%.17g`, `true`/`false`). Exit status 90 means no case came,
/// 91 a field that is not a value of its parameter's type.
fn driver(source: &Path, function: &str, params: &[(String, CType)], ret: CType) -> String {
    let mut d = String::new();
    d.push_str("/* Written by vera tests: reads one case (a CSV header, then one line of values)\n   on standard input, calls the function, prints its result. */\n");
    d.push_str("#include <errno.h>\n#include <limits.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n");
    d.push_str("#define main vera_user_main\n");
    d.push_str(&format!("#include \"{}\"\n", source.display()));
    d.push_str("#undef main\n");
    d.push_str(
        r#"static char vera_line[1 << 16];
static char *vera_fields[256];
static int vera_split(char *s) {
  int n = 0;
  size_t len = strlen(s);
  while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r')) s[--len] = 0;
  vera_fields[n++] = s;
  for (char *p = s; *p && n < 256; p++)
    if (*p == ',') { *p = 0; vera_fields[n++] = p + 1; }
  return n;
}
static void vera_bad(int k) {
  fprintf(stderr, "vera driver: field %d is not a value of its parameter's type\n", k + 1);
  exit(91);
}
static long long vera_int(int k, long long lo, long long hi) {
  char *end; errno = 0;
  long long v = strtoll(vera_fields[k], &end, 10);
  if (errno || end == vera_fields[k] || *end || v < lo || v > hi) vera_bad(k);
  return v;
}
static unsigned long long vera_uint(int k, unsigned long long hi) {
  char *end; errno = 0;
  if (vera_fields[k][0] == '-') vera_bad(k);
  unsigned long long v = strtoull(vera_fields[k], &end, 10);
  if (errno || end == vera_fields[k] || *end || v > hi) vera_bad(k);
  return v;
}
static double vera_real(int k) {
  char *end; errno = 0;
  double v = strtod(vera_fields[k], &end);
  if (errno || end == vera_fields[k] || *end) vera_bad(k);
  return v;
}
static int vera_bool(int k) {
  if (!strcmp(vera_fields[k], "true") || !strcmp(vera_fields[k], "1")) return 1;
  if (!strcmp(vera_fields[k], "false") || !strcmp(vera_fields[k], "0")) return 0;
  vera_bad(k);
  return 0;
}
int main(void) {
  if (!fgets(vera_line, sizeof vera_line, stdin) || !fgets(vera_line, sizeof vera_line, stdin)) {
    fputs("vera driver: no case on standard input\n", stderr);
    return 90;
  }
"#,
    );
    d.push_str(&format!(
        "  if (vera_split(vera_line) != {}) {{ fputs(\"vera driver: wrong number of fields\\n\", stderr); return 91; }}\n",
        params.len().max(1)
    ));
    let mut args = Vec::new();
    for (k, (_, t)) in params.iter().enumerate() {
        let read = match t {
            CType::Int { signed: true, bits } => {
                let (lo, hi) = match bits {
                    8 => ("SCHAR_MIN", "SCHAR_MAX"),
                    16 => ("SHRT_MIN", "SHRT_MAX"),
                    32 => ("INT_MIN", "INT_MAX"),
                    _ => ("LLONG_MIN", "LLONG_MAX"),
                };
                format!("vera_int({k}, {lo}, {hi})")
            }
            CType::Int {
                signed: false,
                bits,
            } => {
                let hi = match bits {
                    8 => "UCHAR_MAX",
                    16 => "USHRT_MAX",
                    32 => "UINT_MAX",
                    _ => "ULLONG_MAX",
                };
                format!("vera_uint({k}, {hi})")
            }
            CType::Float => format!("vera_real({k})"),
            CType::Bool => format!("vera_bool({k})"),
        };
        d.push_str(&format!("  {} a{k} = {read};\n", t.c_name()));
        args.push(format!("a{k}"));
    }
    d.push_str(&format!(
        "  {} r = {function}({});\n",
        ret.c_name(),
        args.join(", ")
    ));
    d.push_str(match ret {
        CType::Int { signed: true, .. } => "  printf(\"%lld\\n\", r);\n",
        CType::Int { signed: false, .. } => "  printf(\"%llu\\n\", r);\n",
        CType::Float => "  printf(\"%.17g\\n\", r);\n",
        CType::Bool => "  puts(r ? \"true\" : \"false\");\n",
    });
    d.push_str("  return 0;\n}\n");
    d
}

/// A value as the driver reads it: integers in decimal, reals as a decimal (a fraction
/// without one as the nearest 17-digit decimal), Booleans as `1`/`0`.
fn c_text(v: &Value) -> String {
    use num_traits::ToPrimitive;
    match v {
        Value::Bool(b) => if *b { "1" } else { "0" }.into(),
        Value::Int(i) => i.to_string(),
        Value::Real(r) => match logic::print::decimal(r) {
            Some(d) => d,
            None => format!("{:.17e}", r.to_f64().unwrap_or(f64::NAN)),
        },
        Value::Enum(_, c) => c.to_string(),
    }
}

impl CFunction {
    /// Builds the driver of `function` in `source`: parameters map to the spec's inputs
    /// by `map` (`PARAM=VAR`) or by name, the result to `result` (default: the spec's
    /// only output).
    pub fn build(
        p: &Problem,
        source: &Path,
        function: &str,
        map: &[(String, String)],
        result: Option<&str>,
        timeout: Duration,
    ) -> Result<CFunction, SetupError> {
        let source = std::fs::canonicalize(source)?;
        let text = std::fs::read_to_string(&source)?;
        let (params, ret) = signature(&text, function)?;
        let spec_of = |param: &str| -> String {
            map.iter()
                .find(|(a, _)| a == param)
                .map(|(_, b)| b.clone())
                .unwrap_or_else(|| param.to_string())
        };
        let mut inputs = Vec::new();
        for (name, t) in &params {
            let s = spec_of(name);
            let v = p.spec.variable(&s).ok_or_else(|| {
                SetupError::Mapping(format!(
                    "parameter `{name}` of `{function}` has no spec variable: map it with --map {name}=VAR"
                ))
            })?;
            if !p.roles.is_input(&s) {
                return Err(SetupError::Mapping(format!(
                    "parameter `{name}` is mapped to `{s}`, which is not an input of the spec"
                )));
            }
            if !t.fits(&v.sort) {
                return Err(SetupError::Mapping(format!(
                    "parameter `{name}` cannot carry `{s}`, a {} variable",
                    v.sort
                )));
            }
            inputs.push((name.clone(), v.name.clone()));
        }
        let result = match result
            .map(String::from)
            .or_else(|| map.iter().find(|(a, _)| a == "result").map(|(_, b)| b.clone()))
        {
            Some(r) => r,
            None if p.roles.outputs.len() == 1 => p.roles.outputs[0].to_string(),
            None => {
                return Err(SetupError::Mapping(format!(
                    "which output is the result of `{function}`? (--outputs VAR; the spec has {} outputs)",
                    p.roles.outputs.len()
                )))
            }
        };
        let rv = p.spec.variable(&result).ok_or_else(|| {
            SetupError::Mapping(format!("`{result}` is not a variable of the spec"))
        })?;
        if p.roles.is_input(&result) {
            return Err(SetupError::Mapping(format!(
                "`{result}` is an input of the spec, not an output"
            )));
        }
        let out_sort = match (ret, &rv.sort) {
            (CType::Float, Sort::Real)
            | (CType::Int { .. }, Sort::Int)
            | (CType::Bool, Sort::Bool) => rv.sort.clone(),
            (CType::Int { .. }, Sort::Real) => Sort::Real,
            _ => {
                return Err(SetupError::Mapping(format!(
                    "the result of `{function}` cannot carry `{result}`, a {} variable",
                    rv.sort
                )))
            }
        };
        let dir = tempfile::tempdir()?;
        let driver_path = dir.path().join("vera_driver.c");
        // scratch: the generated driver in this run's own temporary folder
        std::fs::write(&driver_path, driver(&source, function, &params, ret))?;
        let exe_path = dir.path().join("vera_driver");
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = std::process::Command::new(&compiler)
            .args(["-std=gnu11", "-O1", "-w", "-o"])
            .arg(&exe_path)
            .arg(&driver_path)
            .arg("-lm")
            .output()
            .map_err(|e| SetupError::Build {
                compiler: compiler.clone(),
                output: e.to_string(),
            })?;
        if !out.status.success() {
            return Err(SetupError::Build {
                compiler,
                output: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        let exe = Executable {
            program: exe_path,
            args: Vec::new(),
            timeout,
            inputs,
            fixed: Vec::new(),
            outputs: vec![("result".into(), Symbol::from(&*rv.name), out_sort)],
            enums: p.spec.enums.clone(),
            write: c_text,
        };
        Ok(CFunction {
            exe,
            name: format!("C function {function} in {}", source.display()),
            _dir: dir,
        })
    }

    /// Where the driver was built (for messages).
    pub fn program(&self) -> PathBuf {
        self.exe.program.clone()
    }
}

impl Implementation for CFunction {
    fn run(&mut self, inputs: &[(Symbol, Value)]) -> Result<Vec<(Symbol, Value)>, CaseError> {
        self.exe.run(inputs)
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_read() {
        let text = "/*@ requires lo <= hi; */\nint clamp(int x, const int lo, unsigned long hi) { return x; }\n\
                    static double mean(double a, double b) { return (a + b) / 2; }\n\
                    _Bool ok(void) { return 1; }\nint *bad(int *p) { return p; }\n";
        let (p, r) = signature(text, "clamp").unwrap();
        assert_eq!(
            p,
            vec![
                (
                    "x".into(),
                    CType::Int {
                        signed: true,
                        bits: 32
                    }
                ),
                (
                    "lo".into(),
                    CType::Int {
                        signed: true,
                        bits: 32
                    }
                ),
                (
                    "hi".into(),
                    CType::Int {
                        signed: false,
                        bits: 64
                    }
                ),
            ]
        );
        assert_eq!(
            r,
            CType::Int {
                signed: true,
                bits: 32
            }
        );
        assert_eq!(signature(text, "mean").unwrap().1, CType::Float);
        assert_eq!(signature(text, "ok").unwrap(), (vec![], CType::Bool));
        assert!(signature(text, "bad").is_err());
        assert!(signature(text, "nope")
            .unwrap_err()
            .to_string()
            .contains("clamp"));
    }
}
