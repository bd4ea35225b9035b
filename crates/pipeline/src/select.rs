//! Which formalized requirements an experiment takes.

use reqs::Spec;

/// The formalized requirements whose id is in `only` (all when `None`), in spec order,
/// the first `limit` of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Only these ids.
    pub only: Option<Vec<String>>,
    /// At most this many.
    pub limit: Option<usize>,
}

/// A comma-separated list of requirement ids (`R1, R2`), blanks trimmed and empty
/// items left out.
pub fn parse_ids(list: &str) -> Vec<String> {
    list.split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

impl Selection {
    /// The first `limit` formalized requirements.
    pub fn first(limit: Option<usize>) -> Selection {
        Selection { only: None, limit }
    }

    /// Indices into `spec.requirements`.
    pub fn indices(&self, spec: &Spec) -> Vec<usize> {
        spec.requirements
            .iter()
            .enumerate()
            .filter(|(_, r)| r.formula.is_some())
            .filter(|(_, r)| self.only.as_ref().is_none_or(|o| o.contains(&r.id)))
            .map(|(i, _)| i)
            .take(self.limit.unwrap_or(usize::MAX))
            .collect()
    }

    /// The ids of `only` that name no formalized requirement of `spec`.
    pub fn unknown(&self, spec: &Spec) -> Vec<String> {
        self.only
            .iter()
            .flatten()
            .filter(|id| !spec.formalized().any(|r| &r.id == *id))
            .cloned()
            .collect()
    }
}
