//! The plot section of the case page (both outputs over one input).

use crate::app::App;
use crate::case_page::CaseFiles;
use std::collections::BTreeMap;

/// The plot section: the chart and the form that chooses the input and fixes the others.
pub fn section(
    _app: &App,
    _rel: &str,
    _case: &CaseFiles,
    _regions: &[bl::check::Region],
    _params: &BTreeMap<String, String>,
) -> String {
    String::new()
}
