//! C code with ACSL specifications for vera.
//!
//! - [`parse_c`]: a tree-sitter-c front end listing functions, prototypes, user
//!   types, globals and global ACSL annotations with their byte spans, contracts,
//!   loops and references.
//! - [`segments`]: the dependency graph (calls and type references), its strongly
//!   connected components in topological order, so recursion and mutual recursion
//!   form one segment; [`points_of_interest`] in post-order.
//! - [`annotate`]: insertion of ACSL comments that keeps every original byte, and
//!   [`harness`] extraction of one segment with the contracts it depends on (and
//!   the whole definitions of callees without an `assigns` clause).
//! - [`mod@verify`]: Frama-C/WP on each segment's harness, in parallel and cached,
//!   with per-goal and per-property results and a verdict that never calls zero
//!   goals or a failed smoke test a success.
//! - [`mod@strength`]: mutants through the syntax tree, equivalent ones filtered by
//!   Trivial Compiler Equivalence, and the variant discrimination rate.
//!
//! A later synthesis loop drives the same pieces: for each segment (in order) and
//! each point of interest (in post-order), [`annotate::annotate_poi`] inserts
//! candidate clauses, [`harness`] and [`wp::run_wp`] check them, and
//! [`strength_file`] finds the surviving mutants to show.

#![warn(missing_docs)]

pub mod annotate;
pub mod front;
pub mod mutate;
pub mod plan;
pub mod project;
pub mod segment;
pub mod strength;
pub mod tce;
mod util;
pub mod verify;
pub mod workspace;
pub mod wp;

pub use annotate::{annotate_poi, harness, insert, AnnotateError, Annotated, Harness, Insertion};
pub use front::{
    parse_c, CFile, Diagnostic, Diagnostics, Item, ItemKind, Loop, LoopKind, Source, Span,
};
pub use mutate::{mutants, Mutant, Operator};
pub use project::{
    read_compile_commands, CppFlags, FlagError, Origin, Preprocessor, Program, Unit,
};
pub use segment::{function_segments, points_of_interest, segments, Poi, PoiKind, Segment};
pub use strength::{
    strength, strength_edited, strength_file, strength_program, Fate, MutantOutcome, StrengthError,
    StrengthOptions, StrengthReport,
};
pub use tce::{Equivalence, TceConfig, TceError};
pub use util::content_hash;
pub use verify::{verify, verify_file, RunStats, SegmentReport, VerifyReport};
pub use wp::{
    detect, run_input, run_wp, Goal, GoalStatus, Input, Message, Property, PropertyStatus, Select,
    Setup, SmokeTest, Verdict, WpConfig, WpError, WpRun,
};
