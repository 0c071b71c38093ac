//! The commands besides `classify`, each pure where it can be: `explain` for
//! people, `test` for profile authors (with the bait corpus), `show`, and
//! `stall`'s decision and state file.

pub mod bait;
pub mod check;
pub mod corpus;
pub mod explain;
pub mod man;
pub mod show;
pub mod stall;
