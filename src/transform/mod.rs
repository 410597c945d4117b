//! Transformations of a system before an engine searches it: the cone of
//! influence of the property ([`slice`]) and counter loops over processes
//! run at once ([`companions`]). Answers are always checked on the system
//! the front end produced, not on a transformed one.

pub mod companions;
pub mod data;
pub mod slice;
