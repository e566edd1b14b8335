//! What the examples share: reading their arguments as the command-line
//! tool reads its own, refusing by name what they would otherwise ignore,
//! printing an error as the tool does, and ending quietly on a closed
//! pipe. How `one_number` reads a count is tested through the examples
//! that take one (`threads`, `wave_scale`), with the helpers here.
//! (Not an example itself: cargo takes `examples/NAME.rs` and
//! `examples/NAME/main.rs` as examples, not this file.)

// Each example uses a part of it.
#![allow(dead_code)]

/// Sets the process up as the command-line tool does, output to a closed
/// pipe (`cargo run --release --example scale | head -3`) ending it
/// quietly instead of failing a print, and returns the example's
/// arguments, its own name left out.
pub fn start() -> Vec<String> {
    wormcast::interrupt::quiet_on_closed_pipe();
    std::env::args().skip(1).collect()
}

/// What an example's `main` returns for what it did: an error is printed
/// as the command-line tool prints one, with exit status 1.
pub fn exit(done: wormcast::Result<()>) -> std::process::ExitCode {
    match done {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The one argument an example takes, a whole number from `lo` to `hi`,
/// or `default` without one. `what` says what the number is ("a count of
/// pairs"); a refusal names `field`, or `arguments` for a second argument.
pub fn one_number(
    args: &[String],
    field: &'static str,
    what: &str,
    (lo, hi): (usize, usize),
    default: usize,
) -> wormcast::Result<usize> {
    if let Some(a) = args.get(1) {
        return Err(wormcast::Error::Config {
            field: "arguments",
            value: a.clone(),
            reason: format!("one argument at most, {what}"),
        });
    }
    match args.first() {
        Some(a) => a
            .parse()
            .ok()
            .filter(|n| (lo..=hi).contains(n))
            .ok_or_else(|| wormcast::Error::Config {
                field,
                value: a.clone(),
                reason: format!("{what} from {} to {}", grouped(lo), grouped(hi)),
            }),
        None => Ok(default),
    }
}

/// `n` with its thousands grouped by commas, as the tool's messages write
/// counts.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Refuses any argument given to an example that takes none
/// (`cargo run --release --example NAME`).
pub fn no_arguments(args: &[String], example: &str) -> wormcast::Result<()> {
    match args.first() {
        Some(a) => Err(wormcast::Error::Config {
            field: "arguments",
            value: a.clone(),
            reason: format!("this example takes none (`cargo run --release --example {example}`)"),
        }),
        None => Ok(()),
    }
}

/// Arguments as the examples' `options` take them.
pub fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Checks that `options` refuses each of `cases`, an argument list and the
/// error it must give (after "configuration: ").
pub fn refuses<T: std::fmt::Debug>(
    options: impl Fn(&[String]) -> wormcast::Result<T>,
    cases: &[(&[&str], &str)],
) {
    for (a, want) in cases {
        let e = options(&args(a)).expect_err(&format!("{a:?} is refused"));
        assert_eq!(e.to_string(), format!("configuration: {want}"), "{a:?}");
    }
}

// benches/vcd.rs includes this file too (through examples/wave_scale.rs),
// and its test build runs none of these tests.
#[cfg(test)]
#[allow(unused_imports)]
mod tests {
    use super::{no_arguments, refuses};

    #[test]
    fn an_example_that_takes_no_argument_refuses_one_by_name() {
        let options = |a: &[String]| no_arguments(a, "speed");
        assert!(options(&[]).is_ok());
        refuses(
            options,
            &[(
                &["1000000"],
                "arguments = 1000000: this example takes none (`cargo run --release --example speed`)",
            )],
        );
    }
}
