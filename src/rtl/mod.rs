//! The register-transfer-level kernel every hardware unit of wormcast is built from.
//!
//! It fixes the clock semantics of the model (docs/architecture.md): one global clock, a
//! [`Reg`] whose value `q` is read during a cycle and whose next value `d` is
//! written and committed at the edge, memories ([`Fifo`]) whose write port
//! commits the same way, and registered [`ChannelBank`] channels between
//! components, so that a value written in cycle `t` is seen by the reader in
//! cycle `t + 1` and the order in which components are evaluated never changes
//! a result. [`RoundRobin`] is the arbiter of every output port (seed 000
//! section 3.1, Fig. 2a: one arbiter per output of the `k x k` crossbar), and
//! [`BitString`] / [`PortMask`] are the bit vectors the decode units work on.
//! Two schedulers of the simulation itself live here too, for the systems
//! that share them: books keyed by sequence number and a timing wheel.
//! Tracing ([`trace`]) is a trait the model is given: components declare their
//! signals once and are sampled after every clock edge.

mod arbiter;
mod bits;
mod channel;
mod clocked;
pub(crate) mod crew;
pub use crew::HandOver;
mod fifo;
mod reg;
mod seqmap;
mod set;
pub mod trace;
pub(crate) mod waitfor;
mod wheel;

pub use arbiter::RoundRobin;
pub(crate) use arbiter::first_at_or_after;
pub use bits::{BitString, PortIter, PortMask, bits_for};
pub use channel::{ChannelBank, ChannelId, LevelBank, Sink};
pub use clocked::{Clocked, Next};
pub use fifo::Fifo;
pub use reg::Reg;
pub(crate) use seqmap::SeqMap;
pub(crate) use set::{Bits, insert_into};
pub(crate) use wheel::Wheel;
