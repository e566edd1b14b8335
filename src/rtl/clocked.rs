//! The component trait.

/// What a component needs after a cycle's evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// It has work next cycle whatever arrives on its channels.
    Busy,
    /// It has nothing to do until a channel delivers something, or until the
    /// given cycle, whichever comes first.
    SleepUntil(u64),
    /// It has nothing to do until a channel delivers something.
    Sleep,
}

/// A clocked hardware component, evaluated once per cycle.
///
/// `eval` computes the combinational logic of the cycle from the component's
/// current state and the `q` side of the channels it reads, writes the `d`
/// side of the channels it drives, and commits its own registers. A
/// component reads no other component's state: everything it learns from
/// outside arrives through a registered channel, which the system commits
/// at the clock edge after every component has been evaluated. So the order
/// of evaluation inside a cycle cannot change any result, and a component
/// may commit its registers at the end of its own `eval` (calling
/// [`Reg::edge`](super::Reg::edge) on each) with the same effect as at the
/// global edge.
///
/// Components whose pipeline stages are evaluated consumer-first (each stage
/// reading what its producer held at the start of the cycle, then the
/// producer updating it) need no separate commit: the result is the same as
/// with a register between every pair of stages.
pub trait Clocked {
    /// The channels and bookkeeping this kind of component touches in a cycle.
    type Io<'a>;

    /// Evaluates one cycle and commits the component's registers.
    fn eval(&mut self, io: &mut Self::Io<'_>) -> Next;
}
