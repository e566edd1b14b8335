#![warn(missing_docs)]
//! # wormcast
//!
//! Register-transfer-level models of multicast-capable interconnection
//! networks. Switches are built from explicit input buffers (chunks with
//! reference counts), decode units and a crossbar with round-robin output
//! arbiters; every component is ticked once per clock cycle and every
//! register can be dumped to a VCD waveform with a Verilog-like hierarchy.
//! The specification is four papers, cited as seeds 000 to 003
//! (docs/references.md gives them in full; seed 000: multicast in irregular
//! switch-based networks).
//!
//! ```
//! use wormcast::net::{IrregularParams, Network};
//! use wormcast::sim::{SimConfig, System, Traffic};
//! use wormcast::wave::VcdWriter;
//!
//! // The paper's default system: 32 nodes on eight 8-port switches.
//! let net = Network::new(&IrregularParams::default().generate()?)?;
//! let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(0.05, 128))?;
//! // Trace every register of every switch and endpoint.
//! sys.attach_tracer(Box::new(VcdWriter::create(std::env::temp_dir().join("doc.vcd"))?))?;
//! sys.run(10_000)?;
//! sys.finish_trace()?;
//! let r = sys.report();
//! assert!(r.packets_delivered > 0);
//! println!("{r}");
//! # Ok::<(), wormcast::Error>(())
//! ```
//!
//! Modules:
//! - [`rtl`]: the kernel (registers, registered channels, FIFO, round-robin
//!   arbiter, bit strings, the component and tracing traits);
//! - [`wave`]: waveforms: VCD and FST writers with GTKWave and Surfer views,
//!   readers of VCD, FST and GHW, `cosim` and `wave diff`;
//! - [`net`]: topologies, the irregular-network generator, the BFS spanning
//!   tree with up*/down* directions and the routing tables;
//! - [`header`]: header encodings;
//! - [`link`]: what crosses a node's link: packets, worms, the endpoint
//!   interface (below both `sim` and `ni`);
//! - [`switch`]: the switch (input buffers, decode, crossbar, link flow
//!   control);
//! - [`dests`]: the one check of a multicast's source and destinations;
//! - [`mcast`]: multicast trees, k-binomial trees and their optimal `k`,
//!   orderings of participants;
//! - [`ni`]: hosts and network interfaces (DMA engines, NI processor,
//!   smart-NI multicast forwarding);
//! - [`sim`]: systems, traffic, statistics and the deadlock watchdog;
//! - [`direct`]: direct networks (wormhole routers on hypercubes, 3-D meshes,
//!   meshes and tori with tree routers; seeds 001 to 003);
//! - [`engine`]: one harness for every network: topology specs, router
//!   models, traffic patterns, one statistics module;
//! - [`experiment`]: the papers' experiments as sweeps, CSV files and plots;
//! - [`interrupt`]: a run stopped part way when the process is asked to
//!   (Ctrl-C, a batch system's time limit).

pub mod deadlock;
pub mod dests;
pub mod direct;
pub mod engine;
mod error;
pub mod experiment;
mod gaps;
pub mod header;
pub mod interrupt;
pub mod link;
mod marks;
pub mod mcast;
mod memory;
pub mod net;
pub mod ni;
mod par;
pub mod rtl;
pub mod sim;
pub mod switch;
pub mod wave;
mod words;

pub use error::{Error, Item, MAX_TEXT_BYTES, Result, make_dir, read_text};
pub use memory::{megabytes, memory_limit_note};
pub use rtl::BitString;
pub use words::{Counted, counted};

/// The build: the crate's version, and the commit it was built from when
/// it was built from a git checkout (`0.1.0+3f2a9c41d0e7`), marked
/// `.modified-` and a hash of the edits when its sources differ from that
/// commit (`0.1.0+3f2a9c41d0e7.modified-5be0c3f1a2d49e07`). A sweep's
/// journal records it with every job, so that results of two builds,
/// whose models may differ, are never resumed or merged as one sweep's.
pub const BUILD: &str = env!("WORMCAST_BUILD");

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
