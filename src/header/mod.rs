//! Header encodings and their flits.
//!
//! A flit is one byte (seed 000 section 6.2: links are 1 byte wide, equal to
//! the flit size), so a header of `b` bits takes `ceil(b / 8)` flits, sent
//! most significant byte first. The first bit of every header is the tag that
//! tells the decode unit which encoding follows; `0` is unicast.

mod unicast;

pub use unicast::{HeaderError, MAX_UNICAST_FLITS, UnicastFormat};
