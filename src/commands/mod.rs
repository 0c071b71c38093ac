//! The commands besides `classify`, each pure where it can be: `explain` for
//! people, `test` for profile authors (with the bait corpus), `show`.

pub mod bait;
pub mod check;
pub mod corpus;
pub mod explain;
pub mod man;
pub mod show;
