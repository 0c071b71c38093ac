//! The integration tests: one binary, running the real `faultsift` through the
//! [`util::Test`] builder and reading its verdicts as typed values.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod util;

mod batch;
mod builtin_profiles;
mod classify;
mod clients;
mod docs;
mod engines;
mod examples;
mod first_hour;
mod hardening;
mod hostile;
mod hostile_profiles;
mod profiles;
mod properties;
mod rejoin;
mod snapshots;
mod stall;
mod toolkit;
mod tools;
mod transcripts;
