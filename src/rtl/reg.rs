//! A clocked register.

/// A D flip-flop bank holding a value of type `T`.
///
/// Logic reads [`q`](Reg::q) (the value latched at the last clock edge) and
/// writes [`set`](Reg::set) (the `d` input). [`edge`](Reg::edge) copies `d` to
/// `q`. A register that is not written in a cycle holds its value, as a
/// register with an enable would.
///
/// ```
/// use wormcast::rtl::Reg;
/// let mut r = Reg::new(0u8);
/// r.set(5);
/// assert_eq!(*r.q(), 0); // not visible before the edge
/// r.edge();
/// assert_eq!(*r.q(), 5);
/// r.edge(); // not written: holds
/// assert_eq!(*r.q(), 5);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Reg<T: Clone> {
    q: T,
    d: T,
}

impl<T: Clone> Reg<T> {
    /// A register holding `reset` on both its output and its input.
    pub fn new(reset: T) -> Self {
        Reg {
            q: reset.clone(),
            d: reset,
        }
    }

    /// The current (latched) value.
    pub fn q(&self) -> &T {
        &self.q
    }

    /// The value that will be latched at the next edge.
    pub fn d(&self) -> &T {
        &self.d
    }

    /// Drives the `d` input for this cycle.
    pub fn set(&mut self, value: T) {
        self.d = value;
    }

    /// The clock edge: `q <= d`.
    pub fn edge(&mut self) {
        self.q = self.d.clone();
    }

    /// Synchronous reset: both `q` and `d` take `value`.
    pub fn reset(&mut self, value: T) {
        self.q = value.clone();
        self.d = value;
    }
}
