pub(crate) fn extract(_f: &str, _t: &str, _x: &mut crate::Extraction) -> Result<(), crate::ExtractError> { Ok(()) }
