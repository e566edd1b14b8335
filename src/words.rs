//! How the crate's messages count: "1 packet", "2 packets". A leaf
//! module, so that the error type and the reports its variants carry
//! (the deadlock reports) can both use it without using each other.

use std::fmt;

/// `n` things, `what` in the plural (`packets`): "1 packet", "2 packets",
/// as the crate's messages count. Only a plural made by a final "s" is
/// made singular this way: give "mismatches" another way.
///
/// The count is written where it is formatted, with nothing allocated,
/// so that a message built in a simulation's inner loop (a fault's, taken
/// only when the fault happens) costs that loop nothing to carry:
/// `format!("{}", counted(1, "flits"))` is "1 flit", and
/// `counted(2, "flits").to_string()` is "2 flits".
pub fn counted(n: u64, what: &str) -> Counted<'_> {
    Counted { n, what }
}

/// A count and what it counts, written as [`counted`] says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted<'a> {
    n: u64,
    what: &'a str,
}

impl fmt::Display for Counted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.what.strip_suffix('s') {
            Some(one) if self.n == 1 => write!(f, "1 {one}"),
            _ => write!(f, "{} {}", self.n, self.what),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_thing_in_the_singular_and_others_in_the_plural() {
        assert_eq!(counted(1, "flits").to_string(), "1 flit");
        assert_eq!(counted(0, "flits").to_string(), "0 flits");
        assert_eq!(counted(2, "payload flits").to_string(), "2 payload flits");
        assert_eq!(counted(1, "payload flits").to_string(), "1 payload flit");
        // A plural not made by a final "s" is left as it is.
        assert_eq!(counted(1, "data").to_string(), "1 data");
        assert_eq!(
            format!("the run of {}", counted(1, "cycles")),
            "the run of 1 cycle"
        );
    }
}
