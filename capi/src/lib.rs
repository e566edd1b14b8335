//! The C ABI of wormcast, for C and C++ testbenches and for SystemVerilog
//! through DPI-C (`hdl_tests/dpi/wormcast_dpi.sv` imports every function):
//! the units with Verilog twins (seed 000's bit-string and SSR /
//! multi-drop decode units and the replication input buffer, sections
//! 3.4.2, 5.2.3 and 5.3.3) stepped one rising clock edge per call by their
//! Verilog port names, and the network of any router model of the engine,
//! fed messages and clocked one cycle at a time.
//!
//! `include/wormcast.h` is generated from this file by cbindgen (the test
//! `tests/header.rs` keeps it current). Every function returns an error
//! code ([`WC_OK`] or a negative `WC_E*`) or a null handle on failure, and
//! [`wc_last_error`] gives the message of the last failure on the calling
//! thread; nothing aborts the simulator that called it, a panic included
//! (it is caught and returned as [`WC_EPANIC`]).
//!
//! Port values are arrays of 32-bit words, least significant first: the
//! layout of SystemVerilog's `svBitVecVal` for a packed `bit` vector.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use wormcast::engine::{RouterModel, RunConfig, RunOptions, Session, TopoSpec};
use wormcast::switch::twin::drive::Driver;
use wormcast::switch::twin::{Dir, Params, Unit};

/// Success.
pub const WC_OK: i32 = 0;
/// A bad argument: a name, a port, a width, a value, a size, a null
/// pointer, a configuration.
pub const WC_EINVAL: i32 = -1;
/// The network's watchdog found a deadlock (the message names its cycle).
pub const WC_EDEADLOCK: i32 = -2;
/// A drain ran out of cycles with messages still in the network.
pub const WC_ENOTDRAINED: i32 = -3;
/// The model broke one of its own invariants (a bug in wormcast).
pub const WC_EFAULT: i32 = -4;
/// A file could not be read or written.
pub const WC_EIO: i32 = -5;
/// wormcast panicked; the panic was caught (a bug in wormcast).
pub const WC_EPANIC: i32 = -6;

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(text: &str) {
    let c = CString::new(text.replace('\0', " ")).unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = c);
}

fn code_of(e: &wormcast::Error) -> i32 {
    use wormcast::Error as E;
    match e {
        E::Io { .. } => WC_EIO,
        E::Deadlock(_) | E::DirectDeadlock(_) | E::TreeDeadlock(_) => WC_EDEADLOCK,
        E::NotDrained { .. } => WC_ENOTDRAINED,
        E::Fault { .. } => WC_EFAULT,
        _ => WC_EINVAL,
    }
}

/// A failure: its code and message.
struct Fail(i32, String);

impl From<wormcast::Error> for Fail {
    fn from(e: wormcast::Error) -> Fail {
        Fail(code_of(&e), e.to_string())
    }
}

fn invalid(text: impl Into<String>) -> Fail {
    Fail(WC_EINVAL, text.into())
}

fn panicked(p: Box<dyn std::any::Any + Send>) {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    set_error(&format!(
        "wormcast panicked (a bug, please report it): {what}"
    ));
}

/// Runs `f`; on a failure or a panic records the message and returns
/// `fail`.
fn guard<T>(fail: T, f: impl FnOnce() -> Result<T, Fail>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(Fail(_, text))) => {
            set_error(&text);
            fail
        }
        Err(p) => {
            panicked(p);
            fail
        }
    }
}

/// Runs `f`; returns [`WC_OK`], or the failure's code (with its message
/// recorded), or [`WC_EPANIC`].
fn code(f: impl FnOnce() -> Result<(), Fail>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => WC_OK,
        Ok(Err(Fail(k, text))) => {
            set_error(&text);
            k
        }
        Err(p) => {
            panicked(p);
            WC_EPANIC
        }
    }
}

/// A C string argument, `None` when null or empty.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, Fail> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller passes a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| invalid(format!("{what}: not UTF-8")))?;
    Ok((!s.is_empty()).then_some(s))
}

unsafe fn required<'a>(p: *const c_char, what: &str) -> Result<&'a str, Fail> {
    // SAFETY: as for `text`.
    unsafe { text(p, what) }?.ok_or_else(|| invalid(format!("{what}: none given")))
}

/// The message of the last failure on this thread ("" if none), valid
/// until the next call into wormcast on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn wc_last_error() -> *const c_char {
    LAST.with(|l| l.borrow().as_ptr())
}

/// A unit with a Verilog twin, driven by its port names (opaque).
pub struct WcUnit {
    d: Driver,
    words: Vec<u64>,
}

/// A network of the engine fed one message and clocked one cycle at a
/// time (opaque).
pub struct WcNet {
    s: Session,
    /// Deliveries `wc_net_next_delivery` has read: the first ones of the
    /// session's log. Once there are `FORGET_READ` of them they are
    /// forgotten, so that a testbench that reads its deliveries as they
    /// come holds memory bounded by those it has not read.
    read: usize,
    /// What the last `wc_net_close` said about the views it did not write
    /// ("" when it wrote them all).
    note: CString,
}

/// Deliveries read before the session forgets them ([`WcNet::read`]):
/// often enough that what is kept stays small, seldom enough that the
/// move of the unread ones to the front is paid once in many reads.
const FORGET_READ: usize = 4096;

/// One copy of a message delivered.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct WcDelivery {
    /// The message's id (as `wc_net_send` returned it).
    pub msg: u64,
    /// Its source node.
    pub src: u32,
    /// The node this copy reached.
    pub node: u32,
    /// The cycle the message was sent.
    pub created: u64,
    /// The cycle its first flit entered the network, or -1 where the
    /// router model does not record it.
    pub injected: i64,
    /// The cycle its tail reached the node.
    pub cycle: u64,
    /// Flits the node received.
    pub flits: u32,
}

/// A new unit: `name` is `bitstring-decode` (sizes `nodes`, `ports`),
/// `ssr-md-decode` (`ports`, `switches`) or `repl-buffer` (`chunks`,
/// `chunk_flits`, `ports`); the sizes a unit does not use are ignored.
/// Every input 0. Null on failure (see `wc_last_error`).
///
/// # Safety
/// `name` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_new(
    name: *const c_char,
    nodes: u32,
    ports: u32,
    switches: u32,
    chunks: u32,
    chunk_flits: u32,
) -> *mut WcUnit {
    guard(std::ptr::null_mut(), || {
        // SAFETY: the caller passes a NUL-terminated string.
        let name = unsafe { required(name, "unit name") }?;
        let unit = Unit::from_name(name)?;
        let p = Params {
            nodes,
            ports,
            switches,
            chunks,
            chunk_flits,
        };
        let d = Driver::new(unit, &p)?;
        Ok(Box::into_raw(Box::new(WcUnit {
            d,
            words: Vec::new(),
        })))
    })
}

/// Frees a unit (null is ignored).
///
/// # Safety
/// `u` is null or a unit from `wc_unit_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_free(u: *mut WcUnit) {
    if !u.is_null() {
        // SAFETY: the caller passes a unit of ours, freed once.
        drop(unsafe { Box::from_raw(u) });
    }
}

unsafe fn unit_mut<'a>(u: *mut WcUnit) -> Result<&'a mut WcUnit, Fail> {
    // SAFETY: the caller passes null or a live unit.
    unsafe { u.as_mut() }.ok_or_else(|| invalid("no unit (a null handle)"))
}

/// Port `port`: an input as last set, an output as registered at the last
/// edge (a name the unit lacks is refused, listing its outputs).
fn port_value<'a>(u: &'a WcUnit, port: &str) -> Result<&'a wormcast::rtl::BitString, Fail> {
    let is_input =
        u.d.ports()
            .iter()
            .any(|p| p.name == port && p.dir == Dir::In);
    Ok(if is_input {
        u.d.input(port)?
    } else {
        u.d.output(port)?
    })
}

/// Sets input `port` from `nwords` 32-bit words, least significant first
/// (the value holds until set again). Words past the port's width must be
/// 0.
///
/// # Safety
/// `u` is a live unit, `port` a NUL-terminated string, `words` points to
/// `nwords` words.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_set(
    u: *mut WcUnit,
    port: *const c_char,
    words: *const u32,
    nwords: u32,
) -> i32 {
    code(|| {
        // SAFETY: as documented.
        let (u, port) = unsafe { (unit_mut(u)?, required(port, "port")?) };
        if words.is_null() && nwords > 0 {
            return Err(invalid(format!("{port}: no value (a null pointer)")));
        }
        let w: &[u32] = if nwords == 0 {
            &[]
        } else {
            // SAFETY: `words` points to `nwords` words.
            unsafe { std::slice::from_raw_parts(words, nwords as usize) }
        };
        let k = u.d.port_index(port, Dir::In)?;
        // The words the port holds, and one more if any word past them is
        // set (the driver then says how many bits the value needs): a wide
        // DPI-C vector costs only what the port needs.
        let width = u.d.ports()[k].width;
        let need = (width as usize).div_ceil(32);
        if w.len() < need {
            return Err(invalid(format!(
                "{port} is {} wide: it needs {}, {nwords} given (in SystemVerilog, define \
                 WC_MAXW to at least {width})",
                wormcast::counted(u64::from(width), "bits"),
                wormcast::counted(need as u64, "words")
            )));
        }
        let used = match w[need.min(w.len())..].iter().position(|&x| x != 0) {
            Some(i) => need + i + 1,
            None => need.min(w.len()),
        };
        u.words.clear();
        u.words.extend(
            w[..used]
                .chunks(2)
                .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32),
        );
        u.d.set_index(k, &u.words)?;
        Ok(())
    })
}

/// Sets input `port`, at most 64 bits wide, from `value` (the value holds
/// until set again): the cheap call for the narrow ports a DPI-C
/// scoreboard sets every cycle.
///
/// # Safety
/// `u` is a live unit, `port` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_set64(u: *mut WcUnit, port: *const c_char, value: u64) -> i32 {
    code(|| {
        // SAFETY: as documented.
        let (u, port) = unsafe { (unit_mut(u)?, required(port, "port")?) };
        u.d.set(port, &[value])?;
        Ok(())
    })
}

/// Writes port `port`, at most 64 bits wide, into `value` (an output as
/// registered at the last edge, or an input as last set).
///
/// # Safety
/// `u` is a live unit, `port` a NUL-terminated string, `value` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_get64(
    u: *mut WcUnit,
    port: *const c_char,
    value: *mut u64,
) -> i32 {
    code(|| {
        // SAFETY: as documented.
        let (u, port) = unsafe { (unit_mut(u)?, required(port, "port")?) };
        let v = port_value(u, port)?;
        if v.len() > 64 {
            return Err(invalid(format!(
                "{port} is {} wide: read it with wc_unit_get",
                wormcast::counted(v.len() as u64, "bits")
            )));
        }
        // SAFETY: as documented.
        let out = unsafe { value.as_mut() }.ok_or_else(|| invalid("value: a null pointer"))?;
        *out = v.words().first().copied().unwrap_or(0);
        Ok(())
    })
}

/// One rising clock edge: every input sampled, every output registered.
///
/// # Safety
/// `u` is a live unit.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_step(u: *mut WcUnit) -> i32 {
    code(|| {
        // SAFETY: as documented.
        unsafe { unit_mut(u) }?.d.step();
        Ok(())
    })
}

/// Writes port `port` (an output as registered at the last edge, or an
/// input as last set) into `nwords` 32-bit words, least significant first;
/// the words past its width are 0. `nwords` must hold the width.
///
/// # Safety
/// `u` is a live unit, `port` a NUL-terminated string, `words` points to
/// `nwords` writable words.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_get(
    u: *mut WcUnit,
    port: *const c_char,
    words: *mut u32,
    nwords: u32,
) -> i32 {
    code(|| {
        // SAFETY: as documented.
        let (u, port) = unsafe { (unit_mut(u)?, required(port, "port")?) };
        let v = port_value(u, port)?;
        let need = v.len().div_ceil(32);
        if (nwords as usize) < need || words.is_null() {
            return Err(invalid(format!(
                "{port} is {} wide: it needs {}, {nwords} given",
                wormcast::counted(v.len() as u64, "bits"),
                wormcast::counted(need as u64, "words")
            )));
        }
        // SAFETY: `words` points to `nwords` writable words.
        let out = unsafe { std::slice::from_raw_parts_mut(words, nwords as usize) };
        out.fill(0);
        for (k, w) in v.words().iter().enumerate() {
            if 2 * k < out.len() {
                out[2 * k] = *w as u32;
            }
            if 2 * k + 1 < out.len() {
                out[2 * k + 1] = (*w >> 32) as u32;
            }
        }
        Ok(())
    })
}

/// The width in bits of port `port`, or a negative error code.
///
/// # Safety
/// `u` is a live unit, `port` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_width(u: *mut WcUnit, port: *const c_char) -> i32 {
    let mut width = 0;
    let c = code(|| {
        // SAFETY: as documented.
        let (u, port) = unsafe { (unit_mut(u)?, required(port, "port")?) };
        let p = u.d.ports().iter().find(|p| p.name == port).ok_or_else(|| {
            let names: Vec<&str> = u.d.ports().iter().map(|p| p.name).collect();
            invalid(format!(
                "{}: no port `{port}`; its ports are {}",
                u.d.unit().name(),
                names.join(", ")
            ))
        })?;
        width = p.width as i32;
        Ok(())
    });
    if c == WC_OK { width } else { c }
}

/// Rising edges taken so far.
///
/// # Safety
/// `u` is a live unit.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_unit_cycle(u: *mut WcUnit) -> u64 {
    // SAFETY: as documented.
    unsafe { u.as_ref() }.map_or(0, |u| u.d.edges())
}

/// A new network: `topology` a spec (`mesh:8x8`, `torus:8x8x8`,
/// `hypercube:6`, `irregular:switches=8,ports=8,nodes=32,seed=1`) or a
/// topology file; `router` (`cut-through`, `wormhole`, `tree`), `routing`
/// and `scheme` null or "" for the defaults; `seed` the random seed of the
/// routers that draw. Null on failure.
///
/// # Safety
/// Each string is null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_new(
    topology: *const c_char,
    router: *const c_char,
    routing: *const c_char,
    scheme: *const c_char,
    seed: u64,
) -> *mut WcNet {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as documented.
        let (topology, router, routing, scheme) = unsafe {
            (
                required(topology, "topology")?,
                text(router, "router")?,
                text(routing, "routing")?,
                text(scheme, "scheme")?,
            )
        };
        let topo = TopoSpec::parse(topology)?;
        let router = router.map(RouterModel::parse).transpose()?;
        let o = RunOptions {
            seed,
            scheme: scheme.map(str::to_string),
            ..RunOptions::default()
        };
        let s = Session::new(&topo, router, routing, &o)?;
        Ok(Box::into_raw(Box::new(WcNet {
            s,
            read: 0,
            note: CString::default(),
        })))
    })
}

/// A new network from a run configuration file (`wormcast run --config`):
/// its network, hardware and waveform sections. Null on failure.
///
/// # Safety
/// `path` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_from_config(path: *const c_char) -> *mut WcNet {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as documented.
        let path = unsafe { required(path, "configuration file") }?;
        let c = RunConfig::load(path)?;
        let s = Session::from_config(&c)?;
        Ok(Box::into_raw(Box::new(WcNet {
            s,
            read: 0,
            note: CString::default(),
        })))
    })
}

/// Frees a network, ending its waveform if one is written (null is
/// ignored).
///
/// # Safety
/// `n` is null or a network from `wc_net_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_free(n: *mut WcNet) {
    if !n.is_null() {
        // SAFETY: the caller passes a network of ours, freed once.
        let mut b = unsafe { Box::from_raw(n) };
        let _ = catch_unwind(AssertUnwindSafe(|| b.s.finish()));
    }
}

unsafe fn net_mut<'a>(n: *mut WcNet) -> Result<&'a mut WcNet, Fail> {
    // SAFETY: the caller passes null or a live network.
    unsafe { n.as_mut() }.ok_or_else(|| invalid("no network (a null handle)"))
}

/// Writes every register to `path` (FST when it ends in `.fst`, VCD
/// otherwise), limited to cycles `from` to `to` (`to` 0: to the end);
/// only before the first cycle. `wc_net_close` ends it.
///
/// # Safety
/// `n` is a live network, `path` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_trace(
    n: *mut WcNet,
    path: *const c_char,
    from: u64,
    to: u64,
) -> i32 {
    code(|| {
        // SAFETY: as documented.
        let (n, path) = unsafe { (net_mut(n)?, required(path, "waveform path")?) };
        let limits = wormcast::wave::TraceLimits {
            from,
            to: (to != 0).then_some(to),
            scopes: Vec::new(),
            // This function's own arguments.
            names: wormcast::wave::WindowNames {
                from: "from",
                to: "to",
                scope: "scope",
                vcd: "path",
            },
        };
        n.s.trace(
            Path::new(path),
            limits,
            RunOptions::default().sim.cycle_ps(),
        )?;
        Ok(())
    })
}

/// Ends the waveform, if one is written, and writes its GTKWave and Surfer
/// views beside it. A GTKWave save file already there that wormcast did
/// not write (one a user saved) is left as it was; `wc_net_note` says so.
///
/// # Safety
/// `n` is a live network.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_close(n: *mut WcNet) -> i32 {
    code(|| {
        // SAFETY: as documented.
        let n = unsafe { net_mut(n) }?;
        let note = n.s.finish_views()?.and_then(|(_, v)| v?.note());
        n.note = CString::new(note.unwrap_or_default()).unwrap_or_default();
        Ok(())
    })
}

/// What the last `wc_net_close` of `n` said beside success: the views it
/// left as they were and why, or "" (also for a null handle). Valid until
/// the next `wc_net_close` or `wc_net_free` of `n`.
///
/// # Safety
/// `n` is null or a live network.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_note(n: *mut WcNet) -> *const c_char {
    // SAFETY: as documented.
    match unsafe { n.as_ref() } {
        Some(n) => n.note.as_ptr(),
        None => c"".as_ptr(),
    }
}

/// Number of nodes (0 for a null handle).
///
/// # Safety
/// `n` is null or a live network.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_nodes(n: *mut WcNet) -> u32 {
    // SAFETY: as documented.
    unsafe { n.as_ref() }.map_or(0, |n| n.s.nodes())
}

/// Cycles simulated so far.
///
/// # Safety
/// `n` is null or a live network.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_cycle(n: *mut WcNet) -> u64 {
    // SAFETY: as documented.
    unsafe { n.as_ref() }.map_or(0, |n| n.s.cycle())
}

/// Copies sent and not yet delivered.
///
/// # Safety
/// `n` is null or a live network.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_in_flight(n: *mut WcNet) -> u64 {
    // SAFETY: as documented.
    unsafe { n.as_ref() }.map_or(0, |n| n.s.in_flight())
}

fn send(n: &mut WcNet, src: u32, dests: &[u32], flits: u32) -> Result<i64, Fail> {
    Ok(n.s.send(src, dests, flits)? as i64)
}

/// Queues a message from `src` to the `ndests` nodes of `dests`, created
/// now: a packet of `flits` flits (header included) to one node, or a
/// multicast carrying the payload such a packet would. Returns its id
/// (from 0), or a negative error code.
///
/// # Safety
/// `n` is a live network, `dests` points to `ndests` nodes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_send(
    n: *mut WcNet,
    src: u32,
    dests: *const u32,
    ndests: u32,
    flits: u32,
) -> i64 {
    let mut id = -1;
    let c = code(|| {
        // SAFETY: as documented.
        let n = unsafe { net_mut(n) }?;
        if dests.is_null() {
            return Err(invalid("dests: none given (a null pointer)"));
        }
        // SAFETY: `dests` points to `ndests` nodes.
        let d = unsafe { std::slice::from_raw_parts(dests, ndests as usize) };
        id = send(n, src, d, flits)?;
        Ok(())
    });
    if c == WC_OK { id } else { c as i64 }
}

/// [`wc_net_send`] with the destinations as a bit string of `nwords`
/// 32-bit words (node `i` is bit `i % 32` of word `i / 32`), as a
/// SystemVerilog `bit` vector passes it; a set bit past the last node is
/// refused.
///
/// # Safety
/// `n` is a live network, `mask` points to `nwords` words.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_send_mask(
    n: *mut WcNet,
    src: u32,
    mask: *const u32,
    nwords: u32,
    flits: u32,
) -> i64 {
    let mut id = -1;
    let c = code(|| {
        // SAFETY: as documented.
        let n = unsafe { net_mut(n) }?;
        if mask.is_null() {
            return Err(invalid("dests: none given (a null pointer)"));
        }
        // SAFETY: `mask` points to `nwords` words.
        let m = unsafe { std::slice::from_raw_parts(mask, nwords as usize) };
        let mut dests = Vec::new();
        for (k, &w) in m.iter().enumerate() {
            for b in 0..32 {
                if w >> b & 1 == 1 {
                    dests.push((32 * k + b) as u32);
                }
            }
        }
        id = send(n, src, &dests, flits)?;
        Ok(())
    });
    if c == WC_OK { id } else { c as i64 }
}

/// Queues a hand-built worm from `src` to the `ndests` nodes of `dests`,
/// created now: `kind` is `unicast`, `ssr`, `multi-drop` (dropping at the
/// `npath` switches of `path`, in order) or `bit-string`, carrying
/// `payload` flits after its header. Only the cut-through switch (seed
/// 000) takes them. Returns the message's id, or a negative error code.
///
/// # Safety
/// `n` is a live network, `kind` a NUL-terminated string, `dests` points
/// to `ndests` nodes and `path` (null when `npath` is 0) to `npath`
/// switches.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_send_worm(
    n: *mut WcNet,
    src: u32,
    kind: *const c_char,
    dests: *const u32,
    ndests: u32,
    path: *const u32,
    npath: u32,
    payload: u32,
) -> i64 {
    let mut id = -1;
    let c = code(|| {
        // SAFETY: as documented.
        let (n, kind) = unsafe { (net_mut(n)?, required(kind, "worm kind")?) };
        if dests.is_null() || (path.is_null() && npath > 0) {
            return Err(invalid("dests or path: a null pointer"));
        }
        // SAFETY: as documented.
        let d = unsafe { std::slice::from_raw_parts(dests, ndests as usize) };
        let p: &[u32] = if npath == 0 {
            &[]
        } else {
            // SAFETY: as documented.
            unsafe { std::slice::from_raw_parts(path, npath as usize) }
        };
        id = n.s.send_worm(src, kind, d, p, payload)? as i64;
        Ok(())
    });
    if c == WC_OK { id } else { c as i64 }
}

/// Simulates `cycles` cycles: at most 10^12 a call ([`WC_EINVAL`] past
/// them, with the reason in `wc_last_error`).
///
/// # Safety
/// `n` is a live network.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_step(n: *mut WcNet, cycles: u64) -> i32 {
    code(|| {
        // SAFETY: as documented.
        unsafe { net_mut(n) }?.s.run(cycles)?;
        Ok(())
    })
}

/// Simulates until every copy sent has arrived, at most `max_cycles`
/// cycles; returns the cycle reached, or a negative error code
/// ([`WC_ENOTDRAINED`] past them).
///
/// # Safety
/// `n` is a live network.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_drain(n: *mut WcNet, max_cycles: u64) -> i64 {
    let mut at = 0;
    let c = code(|| {
        // SAFETY: as documented.
        at = unsafe { net_mut(n) }?.s.drain(max_cycles)? as i64;
        Ok(())
    });
    if c == WC_OK { at } else { c as i64 }
}

/// Takes the oldest delivery not yet taken into `out`: 1 when there was
/// one, 0 when there is none, or a negative error code.
///
/// # Safety
/// `n` is a live network, `out` points to a writable `WcDelivery`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_next_delivery(n: *mut WcNet, out: *mut WcDelivery) -> i32 {
    let mut got = 0;
    let c = code(|| {
        // SAFETY: as documented.
        let n = unsafe { net_mut(n) }?;
        // SAFETY: as documented.
        let out = unsafe { out.as_mut() }.ok_or_else(|| invalid("out: a null pointer"))?;
        if let Some(a) = n.s.arrivals().get(n.read) {
            *out = WcDelivery {
                msg: a.msg,
                src: a.src,
                node: a.node,
                created: a.created,
                injected: a.injected.map_or(-1, |i| i as i64),
                cycle: a.arrived,
                flits: a.flits,
            };
            n.read += 1;
            if n.read == FORGET_READ {
                n.s.forget_arrivals(n.read);
                n.read = 0;
            }
            got = 1;
        }
        Ok(())
    });
    if c == WC_OK { got } else { c }
}

/// [`wc_net_next_delivery`] with each field an output argument, for a
/// DPI-C import (SystemVerilog passes no structs).
///
/// # Safety
/// `n` is a live network; the pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wc_net_next_delivery_fields(
    n: *mut WcNet,
    msg: *mut u64,
    node: *mut u32,
    cycle: *mut u64,
) -> i32 {
    let mut d = WcDelivery::default();
    // SAFETY: as documented.
    let r = unsafe { wc_net_next_delivery(n, &mut d) };
    if r == 1 {
        // SAFETY: as documented.
        unsafe {
            if let Some(m) = msg.as_mut() {
                *m = d.msg;
            }
            if let Some(x) = node.as_mut() {
                *x = d.node;
            }
            if let Some(c) = cycle.as_mut() {
                *c = d.cycle;
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> String {
        // SAFETY: wc_last_error returns a live NUL-terminated string.
        unsafe { CStr::from_ptr(wc_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    /// A network of `topology`'s default router, seed 1, built or the
    /// test fails with the refusal.
    fn net(topology: &CStr) -> *mut WcNet {
        // SAFETY: every string is NUL-terminated or null.
        let n = unsafe {
            wc_net_new(
                topology.as_ptr(),
                std::ptr::null(),
                c"".as_ptr(),
                std::ptr::null(),
                1,
            )
        };
        assert!(!n.is_null(), "{}", last());
        n
    }

    #[test]
    fn a_unit_steps_and_refuses_bad_ports_and_values_with_a_message() {
        unsafe {
            let u = wc_unit_new(c"bitstring-decode".as_ptr(), 8, 3, 0, 0, 0);
            assert!(!u.is_null());
            let set = |p: &CStr, v: &[u32]| wc_unit_set(u, p.as_ptr(), v.as_ptr(), v.len() as u32);
            assert_eq!(set(c"total", &[0x3f]), WC_OK);
            assert_eq!(set(c"restricted", &[0x0f << 8 | 0x30 << 16]), WC_OK);
            assert_eq!(set(c"up_ports", &[1]), WC_OK);
            assert_eq!(set(c"hdr_valid", &[1]), WC_OK);
            assert_eq!(set(c"dests", &[0b0001_0010, 0]), WC_OK);
            assert_eq!(wc_unit_step(u), WC_OK);
            let mut w = [7u32; 2];
            assert_eq!(
                wc_unit_get(u, c"replicate".as_ptr(), w.as_mut_ptr(), 2),
                WC_OK
            );
            assert_eq!(w, [0b110, 0]);
            assert_eq!(
                wc_unit_get(u, c"hdr_out".as_ptr(), w.as_mut_ptr(), 1),
                WC_OK
            );
            assert_eq!(w[0], 0b10 << 8 | 0b1_0000 << 16);
            assert_eq!(wc_unit_width(u, c"hdr_out".as_ptr()), 24);
            let mut v = 0u64;
            assert_eq!(wc_unit_get64(u, c"replicate".as_ptr(), &mut v), WC_OK);
            assert_eq!(v, 0b110);
            assert_eq!(wc_unit_set64(u, c"dests".as_ptr(), 1), WC_OK);
            assert_eq!(wc_unit_get64(u, c"dests".as_ptr(), &mut v), WC_OK);
            assert_eq!(v, 1);
            assert_eq!(wc_unit_set64(u, c"dests".as_ptr(), 256), WC_EINVAL);
            assert_eq!(wc_unit_cycle(u), 1);

            assert_eq!(set(c"dest", &[1]), WC_EINVAL);
            assert!(last().contains("no port `dest`"), "{}", last());
            assert_eq!(set(c"dests", &[1 << 8]), WC_EINVAL);
            assert_eq!(
                last(),
                "bitstring-decode: dests is 8 bits wide; the value given needs 9 bits"
            );
            assert_eq!(set(c"dests", &[0, 1]), WC_EINVAL);
            assert!(last().contains("needs 33 bits"), "{}", last());
            assert_eq!(set(c"hdr_out", &[1]), WC_EINVAL);
            assert!(last().contains("`hdr_out` is an output"), "{}", last());
            let u2 = wc_unit_new(c"bitstring-decode".as_ptr(), 40, 3, 0, 0, 0);
            assert_eq!(
                wc_unit_set(u2, c"restricted".as_ptr(), [0u32; 2].as_ptr(), 2),
                WC_EINVAL
            );
            assert!(
                last().contains("restricted is 120 bits wide: it needs 4 words, 2 given"),
                "{}",
                last()
            );
            wc_unit_free(u2);
            assert_eq!(
                wc_unit_get(u, c"hdr_out".as_ptr(), w.as_mut_ptr(), 0),
                WC_EINVAL
            );
            assert!(last().contains("it needs 1 word, 0 given"), "{}", last());
            assert_eq!(wc_unit_width(u, c"nope".as_ptr()), WC_EINVAL);
            assert_eq!(wc_unit_step(std::ptr::null_mut()), WC_EINVAL);
            assert!(last().contains("null"), "{}", last());
            wc_unit_free(u);

            assert!(wc_unit_new(c"no-such-unit".as_ptr(), 8, 3, 0, 0, 0).is_null());
            assert!(
                last().contains("the units are bitstring-decode"),
                "{}",
                last()
            );
            assert!(wc_unit_new(c"bitstring-decode".as_ptr(), 0, 3, 0, 0, 0).is_null());
            assert!(last().contains("nodes = 0"), "{}", last());
        }
    }

    #[test]
    fn a_multicast_is_delivered_once_per_destination() {
        unsafe {
            let n = net(c"irregular:switches=8,ports=8,nodes=32,seed=1");
            let mask = [1u32 << 4 | 1 << 7 | 1 << 20 | 1 << 31];
            assert_eq!(wc_net_send_mask(n, 3, mask.as_ptr(), 1, 20), 0);
            assert_eq!(wc_net_in_flight(n), 4);
            let end = wc_net_drain(n, 10_000);
            assert_eq!(end, 46);
            let mut got = Vec::new();
            let mut d = WcDelivery::default();
            while wc_net_next_delivery(n, &mut d) == 1 {
                got.push((d.node, d.cycle));
            }
            got.sort_unstable();
            assert_eq!(got, [(4, 46), (7, 46), (20, 46), (31, 39)]);
            assert_eq!(wc_net_send(n, 3, [40u32].as_ptr(), 1, 20), WC_EINVAL as i64);
            assert!(last().contains("node 40 does not exist"), "{}", last());
            let path = [7u32, 5];
            assert_eq!(
                wc_net_send_worm(
                    n,
                    3,
                    c"multi-drop".as_ptr(),
                    [29u32, 21].as_ptr(),
                    2,
                    path.as_ptr(),
                    2,
                    16
                ),
                1
            );
            assert!(wc_net_drain(n, 10_000) > 46);
            assert_eq!(
                wc_net_send_worm(
                    n,
                    3,
                    c"fan".as_ptr(),
                    [29u32].as_ptr(),
                    1,
                    std::ptr::null(),
                    0,
                    16
                ),
                WC_EINVAL as i64
            );
            assert!(last().contains("no worm kind `fan`"), "{}", last());
            let mut worm = Vec::new();
            while wc_net_next_delivery(n, &mut d) == 1 {
                worm.push((d.msg, d.node));
            }
            worm.sort_unstable();
            assert_eq!(worm, [(1, 21), (1, 29)]);
            let (mut m, mut node, mut cyc) = (0u64, 0u32, 0u64);
            assert_eq!(
                wc_net_next_delivery_fields(n, &mut m, &mut node, &mut cyc),
                0
            );
            // A step past 10^12 cycles is refused: its end wrapped, and the
            // call ran nothing (here) or never returned (at cycle 0).
            let at = wc_net_cycle(n);
            assert_eq!(wc_net_step(n, u64::MAX), WC_EINVAL);
            assert_eq!(
                last(),
                format!(
                    "configuration: cycles = {}: a call simulates at most 1000000000000 cycles",
                    u64::MAX
                )
            );
            assert_eq!(wc_net_cycle(n), at);
            // 10^12 cycles of an idle network go by in one skip.
            assert_eq!(wc_net_step(n, 1_000_000_000_000), WC_OK);
            assert_eq!(wc_net_cycle(n), at + 1_000_000_000_000);
            wc_net_free(n);
            assert!(
                wc_net_new(
                    c"torus:4x4".as_ptr(),
                    c"wormhole".as_ptr(),
                    std::ptr::null(),
                    std::ptr::null(),
                    1
                )
                .is_null()
            );
            assert!(
                last().contains("the router models there are tree, cut-through"),
                "{}",
                last()
            );
        }
    }

    /// A traced network's close writes both views, or says which save file
    /// it left as it was: one a user saved from GTKWave.
    #[test]
    fn a_close_says_which_save_file_it_kept() {
        let dir = std::env::temp_dir().join(format!("wormcast-capi-note-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let vcd = dir.join("n.vcd");
        let gtkw = dir.join("n.gtkw");
        let cvcd = CString::new(vcd.to_str().unwrap()).unwrap();
        let note = |n| {
            // SAFETY: wc_net_note returns a live NUL-terminated string.
            unsafe { CStr::from_ptr(wc_net_note(n)) }
                .to_string_lossy()
                .into_owned()
        };
        let run = || unsafe {
            let n = net(c"mesh:2x2");
            assert_eq!(wc_net_trace(n, cvcd.as_ptr(), 0, 0), WC_OK, "{}", last());
            assert_eq!(wc_net_send(n, 0, [3u32].as_ptr(), 1, 4), 0);
            assert!(wc_net_drain(n, 1_000) > 0);
            assert_eq!(wc_net_close(n), WC_OK, "{}", last());
            let said = note(n);
            wc_net_free(n);
            said
        };
        assert_eq!(run(), "");
        let ours = std::fs::read_to_string(&gtkw).unwrap();
        assert!(ours.starts_with(wormcast::wave::GTKW_MARK));
        let saved = "[dumpfile] \"n.vcd\"\n[savefile] \"n.gtkw\"\n";
        std::fs::write(&gtkw, saved).unwrap();
        let said = run();
        assert_eq!(
            said,
            format!(
                "{} was left as it was: it is a save file wormcast did not write (remove it for \
                 wormcast's view)",
                gtkw.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&gtkw).unwrap(), saved);
        assert_eq!(note(std::ptr::null_mut()), "");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A window's refusals name this function's own arguments, `from` and
    /// `to`: an empty window when it is asked for, and a window the run
    /// never reached when the network is closed.
    #[test]
    fn a_window_refusal_names_the_arguments_from_and_to() {
        let dir = std::env::temp_dir().join(format!("wormcast-capi-window-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cvcd = CString::new(dir.join("w.vcd").to_str().unwrap()).unwrap();
        // SAFETY: every handle is live until it is freed, every string
        // NUL-terminated.
        unsafe {
            let n = net(c"mesh:2x2");
            assert_eq!(wc_net_trace(n, cvcd.as_ptr(), 900, 800), WC_EINVAL);
            assert_eq!(
                last(),
                "configuration: to = 800: before from = 900; the window is empty"
            );
            wc_net_free(n);
            let n = net(c"mesh:2x2");
            assert_eq!(wc_net_trace(n, cvcd.as_ptr(), 900, 0), WC_OK, "{}", last());
            assert_eq!(wc_net_step(n, 10), WC_OK, "{}", last());
            assert_eq!(wc_net_close(n), WC_EINVAL);
            assert_eq!(
                last(),
                "configuration: from = 900: past the run's last cycle, 10: the waveform holds \
                 nothing"
            );
            wc_net_free(n);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A testbench that reads its deliveries as they come: 10,000 copies
    /// read one by one, each once and in the order they arrived, across
    /// the points where the read ones are forgotten; the network then
    /// keeps fewer than `FORGET_READ` of them.
    #[test]
    fn deliveries_read_are_forgotten_and_each_is_read_once() {
        let n = net(c"irregular:switches=8,ports=8,nodes=32,seed=1");
        let mut got = Vec::new();
        let mut last_cycle = 0;
        unsafe {
            for round in 0..1_250u32 {
                for k in 0..8u32 {
                    let src = (round + k) % 32;
                    let dest = (src + 1 + k) % 32;
                    assert!(wc_net_send(n, src, &dest, 1, 4) >= 0, "{}", last());
                }
                assert!(wc_net_drain(n, 100_000) >= 0, "{}", last());
                let mut d = WcDelivery::default();
                while wc_net_next_delivery(n, &mut d) == 1 {
                    assert!(d.cycle >= last_cycle, "in the order they arrived");
                    last_cycle = d.cycle;
                    got.push(d.msg);
                }
                assert!((*n).s.arrivals().len() < FORGET_READ);
            }
            assert_eq!((*n).s.delivered(), 10_000);
            wc_net_free(n);
        }
        got.sort_unstable();
        assert_eq!(got, (0..10_000).collect::<Vec<u64>>());
    }
}
