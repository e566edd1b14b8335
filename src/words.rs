//! How the crate's messages count: "1 packet", "2 packets". A leaf
//! module, so that the error type and the reports its variants carry
//! (the deadlock reports) can both use it without using each other.

/// `n` things, `what` in the plural (`packets`): "1 packet", "2 packets",
/// as the crate's messages count. Only a plural made by a final "s" is
/// made singular this way: give "mismatches" another way.
pub fn counted(n: u64, what: &str) -> String {
    match what.strip_suffix('s') {
        Some(one) if n == 1 => format!("1 {one}"),
        _ => format!("{n} {what}"),
    }
}
