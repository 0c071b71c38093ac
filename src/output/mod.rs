//! The output side: the verdict and stall-report wire formats, the evidence and redaction that
//! make a line safe to print, the batch summary, and one renderer per format.

pub mod evidence;
pub mod redact;
pub mod render;
pub mod safe;
pub mod stall;
pub mod summary;
pub mod verdict;
