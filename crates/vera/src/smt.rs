//! `vera smt check` and `vera smt fmt`: the scripts are run by `solver::script` on a
//! `solver::Pool`; this module renders what it found.

use logic::SourceFile;

/// `vera smt check FILE...`
pub fn check(a: &crate::cli::SmtCheckArgs) -> crate::output::Outcome {
    let (files, args) = (&a.files, &a.solver);
    if args.transcript.is_some() && files.len() > 1 {
        anyhow::bail!("--transcript records one session: give a single file");
    }
    let config = args.config();
    let jobs = args.jobs().min(files.len()).max(1);
    let pool = solver::Pool::new(config.clone(), jobs).exact_transcript();
    let progress = (files.len() > 1).then(|| {
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                .expect("valid template"),
        );
        bar
    });
    let reports = solver::script::check_files(&pool, files, &|| {
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    });
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    eprint!("{}", printer::smt::stderr_lines(&reports, files.len() > 1));
    Ok(Box::new(printer::smt::check_report(
        &config.kind.to_string(),
        reports,
        files.len() > 1,
    )))
}

/// `vera smt fmt FILE`
pub fn fmt(a: &crate::cli::SmtFmtArgs) -> crate::output::Outcome {
    let (path, width) = (a.file.as_path(), a.width);
    let text = safefile::read_text(path)?;
    let file = SourceFile::new(path.display().to_string(), text);
    match logic::parse_script(&file) {
        Ok(script) => crate::output::text("smt fmt", logic::script::format_script(&script, width)),
        Err(d) => {
            eprintln!("{d}");
            Err(crate::output::Reported.into())
        }
    }
}
