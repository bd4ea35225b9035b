//! Paths a request names, kept under the served folder.
//!
//! A request names a file by its path relative to the served folder (`/` separated).
//! Absolute paths, `..`, and anything that resolves (through symbolic links) outside
//! the folder are refused; the same check runs before every read and every write.

use std::path::{Component, Path, PathBuf};

/// Why a path was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PathError {
    /// `..`, an absolute path, or a drive prefix.
    #[error("`{0}` is not a path inside the served folder")]
    Outside(String),
    /// Nothing there (or it cannot be read).
    #[error("`{0}` does not exist in the served folder")]
    Missing(String),
}

/// The served folder, canonical.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// The folder, made canonical (it must exist).
    pub fn new(dir: &Path) -> std::io::Result<Root> {
        let dir = dir.canonicalize()?;
        if !dir.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a folder",
            ));
        }
        Ok(Root { dir })
    }

    /// `rel` spelled one way: `/` separated, without `.`, empty or trailing parts
    /// (`./a//b.toml/` is `a/b.toml`); refused like [`Root::existing`] refuses it.
    pub fn normalize(&self, rel: &str) -> Result<String, PathError> {
        let joined = self.join(rel)?;
        self.relative(&joined)
            .ok_or_else(|| PathError::Outside(rel.to_string()))
    }

    /// The canonical folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// An existing file or folder named by `rel`, after following links, inside the root.
    pub fn existing(&self, rel: &str) -> Result<PathBuf, PathError> {
        let joined = self.join(rel)?;
        let real = joined
            .canonicalize()
            .map_err(|_| PathError::Missing(rel.to_string()))?;
        if !real.starts_with(&self.dir) {
            return Err(PathError::Outside(rel.to_string()));
        }
        Ok(real)
    }

    /// A file that may not exist yet: its folder must exist inside the root, and the
    /// name must not be a link that leads outside it.
    pub fn writable(&self, rel: &str) -> Result<PathBuf, PathError> {
        let joined = self.join(rel)?;
        let name = joined
            .file_name()
            .ok_or_else(|| PathError::Outside(rel.to_string()))?
            .to_owned();
        let parent = joined
            .parent()
            .ok_or_else(|| PathError::Outside(rel.to_string()))?;
        let real_parent = parent
            .canonicalize()
            .map_err(|_| PathError::Missing(rel.to_string()))?;
        if !real_parent.starts_with(&self.dir) {
            return Err(PathError::Outside(rel.to_string()));
        }
        let path = real_parent.join(name);
        if let Ok(real) = path.canonicalize() {
            if !real.starts_with(&self.dir) {
                return Err(PathError::Outside(rel.to_string()));
            }
        }
        Ok(path)
    }

    /// `path` relative to the root, `/` separated (for links).
    pub fn relative(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.dir).ok()?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    fn join(&self, rel: &str) -> Result<PathBuf, PathError> {
        let p = Path::new(rel);
        let mut out = self.dir.clone();
        for c in p.components() {
            match c {
                Component::Normal(n) => out.push(n),
                Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                    return Err(PathError::Outside(rel.to_string()))
                }
            }
        }
        if rel.contains('\0') {
            return Err(PathError::Outside(rel.to_string()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_outside_and_links() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("in")).unwrap();
        std::fs::write(t.path().join("in/a.toml"), "x").unwrap();
        std::fs::write(t.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(t.path().join("secret"), t.path().join("in/link")).unwrap();
        let root = Root::new(&t.path().join("in")).unwrap();
        assert!(root.existing("a.toml").is_ok());
        assert!(root.existing("./a.toml").is_ok());
        for bad in ["../secret", "/etc/passwd", "a.toml/../../secret", "link"] {
            assert!(
                matches!(root.existing(bad), Err(PathError::Outside(_))),
                "{bad}"
            );
        }
        assert!(matches!(root.existing("nope"), Err(PathError::Missing(_))));
        assert!(root.writable("new.toml").is_ok());
        assert!(matches!(root.writable("link"), Err(PathError::Outside(_))));
        assert!(matches!(root.writable("../x"), Err(PathError::Outside(_))));
        assert_eq!(
            root.relative(&root.dir().join("a.toml")).as_deref(),
            Some("a.toml")
        );
        for same in ["a.toml", "./a.toml", ".//a.toml", "a.toml/"] {
            assert_eq!(root.normalize(same).as_deref(), Ok("a.toml"), "{same}");
        }
        assert!(matches!(root.normalize("../x"), Err(PathError::Outside(_))));
        assert!(Root::new(&t.path().join("secret")).is_err());
    }
}
