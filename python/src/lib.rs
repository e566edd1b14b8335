//! The Python package `wormcast`: the units with Verilog twins (seed 000's
//! bit-string and SSR / multi-drop decode units and the replication input
//! buffer, sections 3.4.2, 5.2.3 and 5.3.3) stepped one rising clock edge
//! per call by their Verilog port names, and the network model of the one
//! engine (every router model of seeds 000 to 003) fed one message and
//! clocked one cycle at a time, for cocotb scoreboards and scripts.
//!
//! The classes wrap [`wormcast::switch::twin::drive::Driver`] and
//! [`wormcast::engine::Session`]; `wormcast/__init__.py` re-exports them
//! and `wormcast/_wormcast.pyi` gives their types.

use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyKeyboardInterrupt, PyMemoryError, PyOSError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString};
use std::path::PathBuf;
use wormcast::engine::{RouterModel, RunConfig, RunOptions, Session, TopoSpec};
use wormcast::rtl::BitString;
use wormcast::switch::twin::drive::{Driver, too_wide};
use wormcast::switch::twin::{Dir, Params, Unit as UnitKind};
use wormcast::wave::{TraceLimits, WindowNames};

create_exception!(
    wormcast,
    WormcastError,
    PyException,
    "The model found something wrong while it ran."
);
create_exception!(
    wormcast,
    DeadlockError,
    WormcastError,
    "The network's watchdog found a cycle of channels waiting for each other."
);
create_exception!(
    wormcast,
    NotDrainedError,
    WormcastError,
    "A drain ran out of cycles with messages still in the network."
);
create_exception!(
    wormcast,
    ModelFault,
    WormcastError,
    "The model broke one of its own invariants (a bug in wormcast)."
);

/// A Rust error as the Python exception that fits it: bad input is a
/// `ValueError`, a file that cannot be read or written an `OSError`, a
/// network or a trace refused because it would not fit the memory
/// available a `MemoryError`, what the model finds while it runs a
/// `WormcastError` subclass.
fn err(e: wormcast::Error) -> PyErr {
    use wormcast::Error as E;
    let text = e.to_string();
    match e {
        E::Io { .. } => PyOSError::new_err(text),
        // Where a control group's limit (a Slurm job's --mem) binds, the
        // message says so, as the command line's note does.
        E::TablesTooLarge { .. }
        | E::DirectTooLarge { .. }
        | E::TraceTooLarge { .. }
        | E::ParseTooLarge { .. }
        | E::QueuesTooLarge { .. }
        | E::BacklogTooLarge { .. } => {
            PyMemoryError::new_err(match wormcast::memory_limit_note() {
                Some(note) => format!("{text} ({note})"),
                None => text,
            })
        }
        E::Deadlock(_) | E::DirectDeadlock(_) | E::TreeDeadlock(_) => DeadlockError::new_err(text),
        E::NotDrained { .. } => NotDrainedError::new_err(text),
        E::Fault { .. } => ModelFault::new_err(text),
        E::Interrupted { .. } => PyKeyboardInterrupt::new_err(text),
        _ => PyValueError::new_err(text),
    }
}

/// Argument `name`, a whole number of at most `most`: an int out of range
/// is a `ValueError` that names the argument and the range (Python's own
/// `OverflowError` names neither), anything but an int a `TypeError`.
fn whole(name: &str, ob: &Bound<'_, PyAny>, most: u64) -> PyResult<u64> {
    if !ob.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: an int, not {}",
            ob.get_type().name()?
        )));
    }
    match ob.extract::<u64>() {
        Ok(v) if v <= most => Ok(v),
        _ => Err(PyValueError::new_err(format!(
            "{name} = {ob}: must be a whole number from 0 to {most}"
        ))),
    }
}

/// Readers of whole-number arguments by name, for `from_py_with`.
macro_rules! whole_args {
    ($($f:ident: $t:ty = $name:literal;)*) => {$(
        fn $f(ob: &Bound<'_, PyAny>) -> PyResult<$t> {
            whole($name, ob, <$t>::MAX as u64).map(|v| v as $t)
        }
    )*};
}

whole_args! {
    src_arg: u32 = "src";
    flits_arg: u32 = "flits";
    payload_arg: u32 = "payload";
    cycles_arg: u64 = "cycles";
    max_cycles_arg: u64 = "max_cycles";
    msg_arg: u64 = "msg";
    seed_arg: u64 = "seed";
    vectors_arg: usize = "cycles";
    nodes_arg: u32 = "nodes";
    ports_arg: u32 = "ports";
    switches_arg: u32 = "switches";
    chunks_arg: u32 = "chunks";
    chunk_flits_arg: u32 = "chunk_flits";
    trace_from_arg: u64 = "trace_from";
    trace_to_arg: u64 = "trace_to";
}

/// Argument `name`, a string: anything else a `TypeError` that names the
/// argument (PyO3's own names it only in a note a traceback shows, not in
/// the message).
fn text(name: &str, ob: &Bound<'_, PyAny>) -> PyResult<String> {
    if !ob.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: a str, not {}",
            ob.get_type().name()?
        )));
    }
    ob.extract()
}

/// Readers of string arguments by name, for `from_py_with`.
macro_rules! text_args {
    ($($f:ident = $name:literal;)*) => {$(
        fn $f(ob: &Bound<'_, PyAny>) -> PyResult<String> {
            text($name, ob)
        }
    )*};
}

text_args! {
    topology_arg = "topology";
    router_arg = "router";
    routing_arg = "routing";
    scheme_arg = "scheme";
    kind_arg = "kind";
    port_arg = "name";
}

/// `trace_scope`: `None`, or a list of scope paths (a string alone is
/// refused rather than read as its characters).
fn opt_scopes_arg(ob: &Bound<'_, PyAny>) -> PyResult<Option<Vec<String>>> {
    opt(ob, |ob| {
        let not_scopes = || {
            PyTypeError::new_err("trace_scope: a sequence of scope paths (str), as [\"top.r0\"]")
        };
        if ob.is_instance_of::<PyString>() || ob.is_instance_of::<PyBytes>() {
            return Err(not_scopes());
        }
        ob.try_iter()
            .map_err(|_| not_scopes())?
            .map(|x| {
                let x = x?;
                if !x.is_instance_of::<PyString>() {
                    return Err(PyTypeError::new_err(format!(
                        "trace_scope: a scope path is a str, not {}",
                        x.get_type().name()?
                    )));
                }
                x.extract()
            })
            .collect()
    })
}

/// `as_bytes`: a bool (an int or `None` is refused, by name).
fn as_bytes_arg(ob: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !ob.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "as_bytes: a bool, not {}",
            ob.get_type().name()?
        )));
    }
    ob.extract()
}

/// `name`, a node or a sequence of nodes (not a string), as a list of
/// nodes.
fn node_list(name: &str, ob: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let node = |x: &Bound<'_, PyAny>| -> PyResult<u32> {
        if !x.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!(
                "{name}: a node is an int, not {}",
                x.get_type().name()?
            )));
        }
        x.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{name}: node {x} must be a whole number from 0 to {}",
                u32::MAX
            ))
        })
    };
    if ob.is_instance_of::<PyInt>() {
        return Ok(vec![node(ob)?]);
    }
    let not_nodes = || PyTypeError::new_err(format!("{name}: a node (int) or a sequence of nodes"));
    if ob.is_instance_of::<PyString>() || ob.is_instance_of::<PyBytes>() {
        return Err(not_nodes());
    }
    ob.try_iter()
        .map_err(|_| not_nodes())?
        .map(|x| node(&x?))
        .collect()
}

fn dests_arg(ob: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    node_list("dests", ob)
}

/// `None`, or what `read` reads from `ob`.
fn opt<T>(
    ob: &Bound<'_, PyAny>,
    read: fn(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if ob.is_none() {
        return Ok(None);
    }
    read(ob).map(Some)
}

/// Readers of arguments that may be `None`, for `from_py_with`: each
/// `$f` reads `None` or what `$read` reads.
macro_rules! opt_args {
    ($($f:ident: $t:ty = $read:ident;)*) => {$(
        fn $f(ob: &Bound<'_, PyAny>) -> PyResult<Option<$t>> {
            opt(ob, $read)
        }
    )*};
}

opt_args! {
    opt_cycles_arg: usize = vectors_arg;
    opt_seed_arg: u64 = seed_arg;
    opt_trace_from_arg: u64 = trace_from_arg;
    opt_trace_to_arg: u64 = trace_to_arg;
    opt_topology_arg: String = topology_arg;
    opt_router_arg: String = router_arg;
    opt_routing_arg: String = routing_arg;
    opt_scheme_arg: String = scheme_arg;
}

fn path_arg(ob: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u32>>> {
    opt(ob, |ob| node_list("path", ob))
}

/// Cycles `Network.step` and `Network.drain` simulate between looks at
/// Python's signals: a long call would otherwise ignore Ctrl-C.
const SLICE: u64 = 1 << 16;

/// The most cycles of vectors a unit's `run` or `stimulus` holds in lists
/// at once.
const MOST_VECTORS: usize = 100_000_000;

/// `value`, a Python int, as the 64-bit words of a `width`-bit port
/// (least significant first) in `out`.
fn int_words(
    unit: &str,
    name: &str,
    width: u32,
    value: &Bound<'_, PyAny>,
    out: &mut Vec<u64>,
) -> PyResult<()> {
    out.clear();
    if let Ok(v) = value.extract::<u64>() {
        out.push(v);
        return Ok(());
    }
    if width > 64
        && width <= 128
        && let Ok(v) = value.extract::<u128>()
    {
        out.extend([v as u64, (v >> 64) as u64]);
        return Ok(());
    }
    if !value.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{unit}: {name}: a port value is an int, not {}",
            value.get_type().name()?
        )));
    }
    if value.lt(0)? {
        return Err(PyValueError::new_err(format!(
            "{unit}: {name} = {value}: a port value is not negative"
        )));
    }
    let nbytes = width.div_ceil(8).max(1) as usize;
    let bytes = match value.call_method1("to_bytes", (nbytes, "little")) {
        Ok(b) => b,
        Err(_) => {
            return Err(PyValueError::new_err(format!(
                "{unit}: {}",
                too_wide(name, width, value.call_method0("bit_length")?.extract()?)
            )));
        }
    };
    let bytes = bytes.cast::<PyBytes>()?.as_bytes();
    out.extend(bytes.chunks(8).map(|c| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    }));
    Ok(())
}

/// A port's value as a Python int.
fn to_int<'py>(py: Python<'py>, b: &BitString) -> PyResult<Bound<'py, PyAny>> {
    words_to_int(py, b.words())
}

fn words_to_int<'py>(py: Python<'py>, w: &[u64]) -> PyResult<Bound<'py, PyAny>> {
    match w {
        [] => Ok(0u64.into_pyobject(py)?.into_any()),
        [x] => Ok(x.into_pyobject(py)?.into_any()),
        [lo, 0] => Ok(lo.into_pyobject(py)?.into_any()),
        [lo, hi] => Ok(((*hi as u128) << 64 | *lo as u128)
            .into_pyobject(py)?
            .into_any()),
        _ => {
            let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
            py.get_type::<PyInt>()
                .call_method1("from_bytes", (PyBytes::new(py, &bytes), "little"))
        }
    }
}

/// The sizes a unit's constructor takes.
fn params(nodes: u32, ports: u32, switches: u32, chunks: u32, chunk_flits: u32) -> Params {
    Params {
        nodes,
        ports,
        switches,
        chunks,
        chunk_flits,
    }
}

/// A unit with a Verilog twin, stepped one rising clock edge per call.
///
/// Ports carry the Verilog module's names and widths. Inputs hold their
/// value until set again (all 0 at the start), like the registers a
/// testbench drives; `step` is one rising edge of `clk`: every input is
/// sampled and every output registered. Values are ints, bit 0 the least
/// significant; a vector of `P*N` bits holds port `q`'s field in bits
/// `q*N ..`.
#[pyclass(subclass, unsendable, module = "wormcast")]
pub struct Unit {
    d: Driver,
    buf: Vec<u64>,
}

impl Unit {
    fn make(kind: UnitKind, p: Params) -> PyResult<Unit> {
        Ok(Unit {
            d: Driver::new(kind, &p).map_err(err)?,
            buf: Vec::new(),
        })
    }

    fn set_one(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let k = self.d.port_index(name, Dir::In).map_err(err)?;
        let width = self.d.ports()[k].width;
        let mut buf = std::mem::take(&mut self.buf);
        let r = int_words(self.d.unit().name(), name, width, value, &mut buf)
            .and_then(|()| self.d.set_index(k, &buf).map_err(err));
        self.buf = buf;
        r
    }

    fn set_dict(&mut self, inputs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        if let Some(d) = inputs {
            for (k, v) in d.iter() {
                let name: String = k.extract()?;
                self.set_one(&name, &v)?;
            }
        }
        Ok(())
    }

    fn outputs_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        let names = self.d.ports().iter().filter(|p| p.dir == Dir::Out);
        for (p, v) in names.zip(self.d.outputs()) {
            out.set_item(p.name, to_int(py, v)?)?;
        }
        Ok(out)
    }
}

/// Where the values of one input come from in a batch.
enum Source {
    /// The same every cycle.
    Const,
    /// One value per cycle, `stride` words each.
    Words { stride: usize, words: Vec<u64> },
}

#[pymethods]
impl Unit {
    /// The unit's name on the command line (`bitstring-decode`).
    #[getter]
    fn name(&self) -> &'static str {
        self.d.unit().name()
    }

    /// Its Verilog module (`bitstring_decode`).
    #[getter]
    fn module(&self) -> &'static str {
        self.d.unit().module()
    }

    /// Its Verilog parameters, as `{name: value}` (`{"N": 16, "P": 6}`).
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.d.unit().verilog_params(self.d.params()) {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Every port but the clock, in declaration order, as
    /// `(name, "in" | "out", width)`.
    #[getter]
    fn ports(&self) -> Vec<(&'static str, &'static str, u32)> {
        self.d
            .ports()
            .iter()
            .map(|p| {
                let dir = match p.dir {
                    Dir::In => "in",
                    Dir::Out => "out",
                };
                (p.name, dir, p.width)
            })
            .collect()
    }

    /// The input ports' names, in declaration order.
    #[getter]
    fn inputs(&self) -> Vec<&'static str> {
        let i = self.d.ports().iter().filter(|p| p.dir == Dir::In);
        i.map(|p| p.name).collect()
    }

    /// The output ports' names, in declaration order.
    #[getter]
    fn outputs(&self) -> Vec<&'static str> {
        let o = self.d.ports().iter().filter(|p| p.dir == Dir::Out);
        o.map(|p| p.name).collect()
    }

    /// Rising edges taken so far.
    #[getter]
    fn cycle(&self) -> u64 {
        self.d.edges()
    }

    /// Sets inputs by name (they hold until set again) without a clock
    /// edge.
    #[pyo3(signature = (**inputs))]
    fn set(&mut self, inputs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        self.set_dict(inputs)
    }

    /// The value a port holds: an input as last set, an output as
    /// registered at the last edge.
    fn get<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = port_arg)] name: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let name = name.as_str();
        match self
            .d
            .ports()
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.dir)
        {
            Some(Dir::In) => to_int(py, self.d.input(name).map_err(err)?),
            _ => to_int(py, self.d.output(name).map_err(err)?),
        }
    }

    /// Sets the inputs given (the others hold their values), takes one
    /// rising edge and returns every output as registered at it, as
    /// `{name: int}`.
    #[pyo3(signature = (**inputs))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        inputs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.set_dict(inputs)?;
        self.d.step();
        self.outputs_dict(py)
    }

    /// Many rising edges at once. Each input given is an int (held every
    /// cycle), a sequence of ints (one per cycle), or `bytes` (one value
    /// per cycle, each `ceil(width / 8)` bytes, little-endian); the others
    /// hold their values. `cycles` defaults to the sequences' length (they
    /// must all have it). Returns every output per cycle: `{name: [int]}`,
    /// or with `as_bytes=True` `{name: bytes}` packed as the inputs are.
    /// After the call each input holds its last value. At most 100,000,000
    /// cycles a call, since every output of every cycle is held.
    #[pyo3(signature = (cycles=None, *, as_bytes=false, **inputs))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        #[pyo3(from_py_with = opt_cycles_arg)] cycles: Option<usize>,
        #[pyo3(from_py_with = as_bytes_arg)] as_bytes: bool,
        inputs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let unit = self.d.unit().name();
        let ports = self.d.ports().to_vec();
        let mut sources: Vec<(usize, Source)> = Vec::new();
        let mut n: Option<usize> = cycles;
        let mut len_of: Option<String> = None;
        let mut agree = |name: &str, len: usize, n: &mut Option<usize>| -> PyResult<()> {
            match *n {
                Some(c) if c != len => Err(PyValueError::new_err(format!(
                    "{unit}: {name} has {} for {}{}",
                    wormcast::counted(len as u64, "values"),
                    wormcast::counted(c as u64, "cycles"),
                    len_of
                        .as_deref()
                        .map(|o| format!(" (as many as {o} has)"))
                        .unwrap_or_default()
                ))),
                Some(_) => Ok(()),
                None => {
                    *n = Some(len);
                    len_of = Some(name.to_string());
                    Ok(())
                }
            }
        };
        if let Some(d) = inputs {
            for (k, v) in d.iter() {
                let name: String = k.extract()?;
                let idx = self.d.port_index(&name, Dir::In).map_err(err)?;
                let width = ports[idx].width;
                let stride = (width as usize).div_ceil(64);
                if v.is_instance_of::<PyInt>() {
                    self.set_one(&name, &v)?;
                    sources.push((idx, Source::Const));
                } else if let Ok(b) = v.cast::<PyBytes>() {
                    let bytes = b.as_bytes();
                    let per = (width as usize).div_ceil(8);
                    if bytes.len() % per != 0 {
                        return Err(PyValueError::new_err(format!(
                            "{unit}: {name}: {} is not a whole number of {per}-byte values",
                            wormcast::counted(bytes.len() as u64, "bytes")
                        )));
                    }
                    agree(&name, bytes.len() / per, &mut n)?;
                    let mut words = Vec::with_capacity(bytes.len() / per * stride);
                    for v in bytes.chunks(per) {
                        for c in v.chunks(8) {
                            let mut w = [0u8; 8];
                            w[..c.len()].copy_from_slice(c);
                            words.push(u64::from_le_bytes(w));
                        }
                        words.resize(words.len().div_ceil(stride) * stride, 0);
                    }
                    sources.push((idx, Source::Words { stride, words }));
                } else {
                    let seq = v.try_iter().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "{unit}: {name}: give an int, a sequence of ints or bytes, not {}",
                            v.get_type()
                                .name()
                                .map(|s| s.to_string())
                                .unwrap_or_default()
                        ))
                    })?;
                    let mut words = Vec::new();
                    let mut count = 0usize;
                    for x in seq {
                        // At most `stride` words: a wider value is refused
                        // by the conversion, a value wider than the port
                        // below, before the first edge.
                        int_words(unit, &name, width, &x?, &mut self.buf)?;
                        words.extend_from_slice(&self.buf);
                        words.resize((count + 1) * stride, 0);
                        count += 1;
                    }
                    agree(&name, count, &mut n)?;
                    sources.push((idx, Source::Words { stride, words }));
                }
            }
        }
        let Some(n) = n else {
            return Err(PyValueError::new_err(format!(
                "{unit}: give the number of cycles, or an input with one value per cycle"
            )));
        };
        if n > MOST_VECTORS {
            // Every output of every cycle is held until the call returns:
            // 10^10 cycles asked for 80 GB at once and ended the process.
            return Err(PyValueError::new_err(format!(
                "{unit}: cycles = {n}: at most 100,000,000 cycles a call (every output of \
                 every cycle is held in a list); call run again for more"
            )));
        }
        // Every value is checked before the first edge: a bad one leaves
        // the unit as it was.
        for (idx, s) in &sources {
            if let Source::Words { stride, words } = s {
                for (c, v) in words.chunks(*stride).enumerate() {
                    self.d.check_index(*idx, v).map_err(|e| match e {
                        wormcast::Error::Port { unit, what } => {
                            PyValueError::new_err(format!("{unit}: cycle {c}: {what}"))
                        }
                        e => err(e),
                    })?;
                }
            }
        }
        let outs: Vec<(usize, u32)> = ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.dir == Dir::Out)
            .map(|(k, p)| (k, p.width))
            .collect();
        let strides: Vec<usize> = outs
            .iter()
            .map(|&(_, w)| (w as usize).div_ceil(64))
            .collect();
        let mut rec: Vec<Vec<u64>> = Vec::with_capacity(strides.len());
        for s in &strides {
            let mut r = Vec::new();
            r.try_reserve_exact(n * s).map_err(|_| {
                PyMemoryError::new_err(format!(
                    "cycles = {n}: the outputs of {n} cycles do not fit the memory available"
                ))
            })?;
            rec.push(r);
        }
        for c in 0..n {
            for (idx, s) in &sources {
                if let Source::Words { stride, words } = s {
                    self.d
                        .set_index(*idx, &words[c * stride..(c + 1) * stride])
                        .map_err(err)?;
                }
            }
            self.d.step();
            for ((k, _), r) in outs.iter().zip(rec.iter_mut()) {
                r.extend_from_slice(self.d.output_index(*k).words());
            }
        }
        let out = PyDict::new(py);
        for (((k, width), stride), r) in outs.iter().zip(&strides).zip(&rec) {
            let name = ports[*k].name;
            if as_bytes {
                let per = (*width as usize).div_ceil(8);
                let mut b = Vec::with_capacity(n * per);
                for v in r.chunks(*stride) {
                    let le: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    b.extend_from_slice(&le[..per]);
                }
                out.set_item(name, PyBytes::new(py, &b))?;
            } else if *stride == 1 {
                out.set_item(name, PyList::new(py, r.iter())?)?;
            } else {
                let items: PyResult<Vec<Bound<'py, PyAny>>> =
                    r.chunks(*stride).map(|v| words_to_int(py, v)).collect();
                out.set_item(name, PyList::new(py, items?)?)?;
            }
        }
        Ok(out)
    }

    /// The first `cycles` vectors of the random and corner-case stimulus
    /// the Verilog testbenches use (`wormcast vectors`), from `seed`: one
    /// `{input name: int}` per rising edge.
    #[pyo3(signature = (cycles, seed=1))]
    fn stimulus<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = vectors_arg)] cycles: usize,
        #[pyo3(from_py_with = seed_arg)] seed: u64,
    ) -> PyResult<Bound<'py, PyList>> {
        if cycles > MOST_VECTORS {
            return Err(PyValueError::new_err(format!(
                "cycles = {cycles}: at most 100,000,000 vectors are held in a list"
            )));
        }
        let names = self.inputs();
        let it = self.d.unit().stimulus(self.d.params(), seed).map_err(err)?;
        let list = PyList::empty(py);
        for v in it.take(cycles) {
            let d = PyDict::new(py);
            for (name, x) in names.iter().zip(&v) {
                d.set_item(name, to_int(py, x)?)?;
            }
            list.append(d)?;
        }
        Ok(list)
    }

    fn __repr__(&self) -> String {
        let p: Vec<String> = self
            .d
            .unit()
            .verilog_params(self.d.params())
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!(
            "<wormcast {} ({}) at cycle {}>",
            self.d.unit().module(),
            p.join(", "),
            self.d.edges()
        )
    }
}

/// The bit-string decode unit of seed 000 section 5.3.3 (Verilog twin
/// `hdl_tests/rtl/bitstring_decode.v`): `nodes` bits per destination
/// string (`N`), `ports` switch ports (`P`).
#[pyclass(extends = Unit, unsendable, module = "wormcast")]
pub struct BitStringDecode;

#[pymethods]
impl BitStringDecode {
    #[new]
    #[pyo3(signature = (nodes=16, ports=6))]
    fn new(
        #[pyo3(from_py_with = nodes_arg)] nodes: u32,
        #[pyo3(from_py_with = ports_arg)] ports: u32,
    ) -> PyResult<PyClassInitializer<Self>> {
        let p = params(nodes, ports, 8, 16, 4);
        Ok(PyClassInitializer::from(Unit::make(UnitKind::BitStringDecode, p)?).add_subclass(Self))
    }
}

/// The SSR / multi-drop decode unit of seed 000 section 5.2.3 (Verilog
/// twin `hdl_tests/rtl/ssr_md_decode.v`): `ports` switch ports (`P`),
/// `switches` switches (`S`).
#[pyclass(extends = Unit, unsendable, module = "wormcast")]
pub struct SsrMdDecode;

#[pymethods]
impl SsrMdDecode {
    #[new]
    #[pyo3(signature = (ports=6, switches=8))]
    fn new(
        #[pyo3(from_py_with = ports_arg)] ports: u32,
        #[pyo3(from_py_with = switches_arg)] switches: u32,
    ) -> PyResult<PyClassInitializer<Self>> {
        let p = params(16, ports, switches, 16, 4);
        Ok(PyClassInitializer::from(Unit::make(UnitKind::SsrMdDecode, p)?).add_subclass(Self))
    }
}

/// The replication input buffer of seed 000 sections 3.4.2 and 5.1.2
/// (Verilog twin `hdl_tests/rtl/repl_buffer.v`): `chunks` chunks (`C`) of
/// `chunk_flits` flits (`K`) with reference counts, `ports` readers (`P`).
#[pyclass(extends = Unit, unsendable, module = "wormcast")]
pub struct ReplBuffer;

#[pymethods]
impl ReplBuffer {
    #[new]
    #[pyo3(signature = (chunks=16, chunk_flits=4, ports=6))]
    fn new(
        #[pyo3(from_py_with = chunks_arg)] chunks: u32,
        #[pyo3(from_py_with = chunk_flits_arg)] chunk_flits: u32,
        #[pyo3(from_py_with = ports_arg)] ports: u32,
    ) -> PyResult<PyClassInitializer<Self>> {
        let p = params(16, ports, 8, chunks, chunk_flits);
        Ok(PyClassInitializer::from(Unit::make(UnitKind::ReplBuffer, p)?).add_subclass(Self))
    }
}

/// One copy of a message delivered.
#[pyclass(frozen, eq, module = "wormcast")]
#[derive(Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The message's id (as `Network.send` returned it).
    #[pyo3(get)]
    msg: u64,
    /// Its source node.
    #[pyo3(get)]
    src: u32,
    /// The node this copy reached.
    #[pyo3(get)]
    node: u32,
    /// The cycle the message was sent (created).
    #[pyo3(get)]
    created: u64,
    /// The cycle its first flit entered the network (None where the router
    /// model does not record it).
    #[pyo3(get)]
    injected: Option<u64>,
    /// The cycle its tail reached the node.
    #[pyo3(get)]
    cycle: u64,
    /// Flits the node received.
    #[pyo3(get)]
    flits: u32,
}

#[pymethods]
impl Delivery {
    fn __repr__(&self) -> String {
        format!(
            "Delivery(msg={}, src={}, node={}, created={}, injected={}, cycle={}, flits={})",
            self.msg,
            self.src,
            self.node,
            self.created,
            self.injected.map_or("None".into(), |i| i.to_string()),
            self.cycle,
            self.flits
        )
    }

    /// `(node, cycle)`.
    fn key(&self) -> (u32, u64) {
        (self.node, self.cycle)
    }
}

fn delivery(a: &wormcast::engine::Arrival) -> Delivery {
    Delivery {
        msg: a.msg,
        src: a.src,
        node: a.node,
        created: a.created,
        injected: a.injected,
        cycle: a.arrived,
        flits: a.flits,
    }
}

/// A network of any router model of the engine, fed one message and
/// clocked one cycle at a time.
///
/// `topology` is a spec (`mesh:8x8`, `torus:8x8x8`, `hypercube:6`,
/// `irregular:switches=8,ports=8,nodes=32,seed=1`) or a topology file;
/// `router` is `cut-through`, `wormhole` or `tree` (the topology's default
/// when None), `routing` and `scheme` the model's (its defaults when None);
/// `topology` defaults to `mesh:8x8` and `seed` to 1.
/// `config` names a run configuration file (`wormcast run --config`)
/// whose network, hardware and output sections are used instead (a
/// topology, router, routing, scheme or seed given beside it is refused:
/// the file says them; `vcd` and the window's arguments override its
/// `[output]` key by key). `vcd`
/// writes every register (FST when it ends in `.fst`) from the first cycle,
/// limited to cycles `trace_from..=trace_to` and to the scopes in
/// `trace_scope` (`None`: every scope; an empty list is refused);
/// `close()` ends it and writes the GTKWave and Surfer views.
#[pyclass(unsendable, module = "wormcast")]
pub struct Network {
    s: Session,
}

#[pymethods]
impl Network {
    #[new]
    #[pyo3(signature = (topology=None, *, router=None, routing=None, scheme=None, config=None, seed=None, vcd=None, trace_from=None, trace_to=None, trace_scope=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = opt_topology_arg)] topology: Option<String>,
        #[pyo3(from_py_with = opt_router_arg)] router: Option<String>,
        #[pyo3(from_py_with = opt_routing_arg)] routing: Option<String>,
        #[pyo3(from_py_with = opt_scheme_arg)] scheme: Option<String>,
        config: Option<PathBuf>,
        #[pyo3(from_py_with = opt_seed_arg)] seed: Option<u64>,
        vcd: Option<PathBuf>,
        #[pyo3(from_py_with = opt_trace_from_arg)] trace_from: Option<u64>,
        #[pyo3(from_py_with = opt_trace_to_arg)] trace_to: Option<u64>,
        #[pyo3(from_py_with = opt_scopes_arg)] trace_scope: Option<Vec<String>>,
    ) -> PyResult<Network> {
        // An empty list would keep every scope, as None does: one built
        // from a filter that matched nothing would write the whole network.
        if trace_scope.as_ref().is_some_and(|s| s.is_empty()) {
            return Err(PyValueError::new_err(
                "trace_scope = []: names no scope; give None to write every scope",
            ));
        }
        if let Some(path) = config {
            // The file says these; one given here too was dropped without
            // a word (the topology and the seed were).
            let given = [
                (topology.is_some(), "topology"),
                (router.is_some(), "router"),
                (routing.is_some(), "routing"),
                (scheme.is_some(), "scheme"),
                (seed.is_some(), "seed"),
            ];
            if let Some((_, f)) = given.iter().find(|g| g.0) {
                return Err(PyValueError::new_err(format!(
                    "{f}: give it in the configuration file {} ([network] or [traffic])",
                    path.display()
                )));
            }
            let mut c = RunConfig::load(&path).map_err(err)?;
            // Each argument given stands in for its key of the file's
            // [output], as the command line's options do: `vcd` for its
            // waveform, and the window's arguments narrow the file's
            // waveform without `vcd` given again. A refusal names each
            // setting as it was given (an argument, or the file's key).
            let out = &mut c.output;
            // The waveform's name in a refusal: the argument, or the key.
            let vcd_name = if vcd.is_some() { "vcd" } else { "output.vcd" };
            if vcd.is_some() {
                out.vcd = vcd;
            }
            out.override_window(trace_from, trace_to, trace_scope, WindowNames::API);
            if let Some(v) = &c.output.vcd {
                wormcast::wave::check_not_input(vcd_name, v, [path.as_path()]).map_err(err)?;
            }
            return Ok(Network {
                s: Session::from_config(&c).map_err(err)?,
            });
        }
        let limits = TraceLimits {
            from: trace_from.unwrap_or(0),
            to: trace_to,
            scopes: trace_scope.unwrap_or_default(),
            names: WindowNames::API,
        };
        // A window or a scope limits the waveform `vcd` names: without it
        // they would be dropped without a word (the library's check, as
        // the command line's).
        limits.check_written(vcd.is_some()).map_err(err)?;
        let topo = TopoSpec::parse(topology.as_deref().unwrap_or("mesh:8x8")).map_err(err)?;
        let router = router
            .as_deref()
            .map(RouterModel::parse)
            .transpose()
            .map_err(err)?;
        let o = RunOptions {
            seed: seed.unwrap_or(1),
            scheme,
            ..RunOptions::default()
        };
        let mut s = Session::new(&topo, router, routing.as_deref(), &o).map_err(err)?;
        if let Some(v) = vcd {
            s.trace(&v, limits, o.sim.cycle_ps()).map_err(err)?;
        }
        Ok(Network { s })
    }

    /// Number of nodes.
    #[getter]
    fn nodes(&self) -> u32 {
        self.s.nodes()
    }

    /// Cycles simulated so far.
    #[getter]
    fn cycle(&self) -> u64 {
        self.s.cycle()
    }

    /// The router model.
    #[getter]
    fn router(&self) -> &'static str {
        self.s.router().name()
    }

    /// The routing function.
    #[getter]
    fn routing(&self) -> &'static str {
        self.s.routing()
    }

    /// The multicast scheme a message to several nodes takes.
    #[getter]
    fn scheme(&self) -> String {
        self.s.scheme().to_string()
    }

    /// The topology, as its spec prints.
    #[getter]
    fn topology(&self) -> String {
        self.s.topology().to_string()
    }

    /// Header flits of a unicast packet (a packet must be longer).
    #[getter]
    fn header_flits(&self) -> u32 {
        self.s.header_flits()
    }

    /// Copies sent and not yet delivered.
    #[getter]
    fn in_flight(&self) -> u64 {
        self.s.in_flight()
    }

    /// Queues a message from `src` to `dests` (a node or a list of nodes),
    /// created in the current cycle: a packet of `flits` flits (header
    /// included) to one node, or a multicast carrying the payload such a
    /// packet would, by the network's scheme. Returns its id.
    #[pyo3(signature = (src, dests, flits=20))]
    fn send(
        &mut self,
        #[pyo3(from_py_with = src_arg)] src: u32,
        #[pyo3(from_py_with = dests_arg)] dests: Vec<u32>,
        #[pyo3(from_py_with = flits_arg)] flits: u32,
    ) -> PyResult<u64> {
        self.s.send(src, &dests, flits).map_err(err)
    }

    /// Queues a hand-built worm from `src`, created now: `kind` is
    /// `unicast`, `ssr` (replicated at the switch of its first
    /// destination), `multi-drop` (dropping at the switches of `path`, in
    /// order) or `bit-string`, carrying `payload` flits after its header.
    /// Only the cut-through switch (seed 000) takes them. Returns its id.
    #[pyo3(signature = (src, kind, dests, path=None, payload=16))]
    fn send_worm(
        &mut self,
        #[pyo3(from_py_with = src_arg)] src: u32,
        #[pyo3(from_py_with = kind_arg)] kind: String,
        #[pyo3(from_py_with = dests_arg)] dests: Vec<u32>,
        #[pyo3(from_py_with = path_arg)] path: Option<Vec<u32>>,
        #[pyo3(from_py_with = payload_arg)] payload: u32,
    ) -> PyResult<u64> {
        self.s
            .send_worm(src, &kind, &dests, &path.unwrap_or_default(), payload)
            .map_err(err)
    }

    /// Simulates `cycles` cycles (at most 10^12; those in which nothing
    /// can happen in one go); returns the copies delivered in them. A
    /// long call can be interrupted (`KeyboardInterrupt`).
    #[pyo3(signature = (cycles=1))]
    fn step(
        &mut self,
        py: Python<'_>,
        #[pyo3(from_py_with = cycles_arg)] cycles: u64,
    ) -> PyResult<Vec<Delivery>> {
        Session::check_cycles(cycles).map_err(err)?;
        let mut left = cycles;
        while left > 0 {
            // Slices of SLICE cycles, between which Python's signals are
            // looked at: a long step would otherwise ignore Ctrl-C.
            let n = left.min(SLICE);
            self.s.run(n).map_err(err)?;
            left -= n;
            py.check_signals()?;
        }
        Ok(self.s.take_arrivals().iter().map(delivery).collect())
    }

    /// Simulates until every copy sent has arrived, at most `max_cycles`
    /// cycles (`NotDrainedError` past them); returns the cycle reached. A
    /// long drain can be interrupted (`KeyboardInterrupt`).
    #[pyo3(signature = (max_cycles=1_000_000))]
    fn drain(
        &mut self,
        py: Python<'_>,
        #[pyo3(from_py_with = max_cycles_arg)] max_cycles: u64,
    ) -> PyResult<u64> {
        // In slices of SLICE cycles, as `step`, so that Ctrl-C ends a long
        // drain; the limit a drain that runs out reports is the call's.
        let start = self.s.cycle();
        loop {
            let left = max_cycles - (self.s.cycle() - start);
            let n = left.min(SLICE);
            match self.s.drain(n) {
                Err(wormcast::Error::NotDrained { .. }) if n < left => py.check_signals()?,
                Err(wormcast::Error::NotDrained {
                    cycle,
                    outstanding,
                    what,
                    ..
                }) => {
                    return Err(err(wormcast::Error::NotDrained {
                        cycle,
                        limit: max_cycles,
                        outstanding,
                        what,
                    }));
                }
                r => return r.map_err(err),
            }
        }
    }

    /// Every copy delivered so far, in the order they arrived, but those
    /// `forget_deliveries` dropped.
    fn deliveries(&self) -> Vec<Delivery> {
        self.s.arrivals().iter().map(delivery).collect()
    }

    /// Drops the copies `step` has returned from what `deliveries` holds,
    /// and returns how many it dropped. The network keeps every copy
    /// delivered until told to forget it, so a testbench that runs long
    /// and reads its copies from `step` calls this now and then. The
    /// count of copies delivered (`stats`) keeps them.
    fn forget_deliveries(&mut self) -> usize {
        let before = self.s.arrivals().len();
        self.s.forget_taken();
        before - self.s.arrivals().len()
    }

    /// Whether every copy of message `msg` has been delivered. An id
    /// `send` has not returned is refused (`ValueError`): waiting for it
    /// would never end.
    fn done(&self, #[pyo3(from_py_with = msg_arg)] msg: u64) -> PyResult<bool> {
        let sent = self.s.messages();
        if msg >= sent {
            let sent = match sent {
                0 => "none has been sent yet".to_string(),
                n => format!("the ids sent run from 0 to {}", n - 1),
            };
            return Err(PyValueError::new_err(format!(
                "message {msg} was not sent: {sent}"
            )));
        }
        Ok(self.s.is_done(msg))
    }

    /// Statistics of the copies delivered so far: counts, and latency
    /// (creation to tail) and network latency (first flit in to tail) as
    /// `{count, mean, p50, p99, max}`.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (lat, net) = self.s.summaries();
        let sum = |s: &wormcast::engine::stats::Summary| -> PyResult<Bound<'py, PyDict>> {
            let d = PyDict::new(py);
            d.set_item("count", s.count)?;
            d.set_item("mean", s.mean)?;
            d.set_item("p50", s.p50)?;
            d.set_item("p99", s.p99)?;
            d.set_item("max", s.max)?;
            Ok(d)
        };
        let d = PyDict::new(py);
        d.set_item("cycle", self.s.cycle())?;
        d.set_item("messages", self.s.messages())?;
        d.set_item("delivered", self.s.delivered())?;
        d.set_item("in_flight", self.s.in_flight())?;
        d.set_item("latency", sum(&lat)?)?;
        match net {
            Some(n) => d.set_item("network_latency", sum(&n)?)?,
            None => d.set_item("network_latency", py.None())?,
        }
        Ok(d)
    }

    /// Flits each link has carried since cycle 0, as `(name, flits)`.
    fn links(&self) -> Vec<(String, u64)> {
        self.s.link_flits()
    }

    /// Ends the waveform, if one is written, and writes its GTKWave and
    /// Surfer views beside it; returns its path (None without one). A
    /// GTKWave save file already there that wormcast did not write (one a
    /// user saved) is left as it was, with a `UserWarning` that says so.
    fn close(&mut self, py: Python<'_>) -> PyResult<Option<PathBuf>> {
        let Some((path, views)) = self.s.finish_views().map_err(err)? else {
            return Ok(None);
        };
        if let Some(note) = views.and_then(|v| v.note()) {
            let note = std::ffi::CString::new(note).unwrap_or_default();
            let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
            PyErr::warn(py, category.as_any(), &note, 1)?;
        }
        Ok(Some(path))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &mut self,
        py: Python<'_>,
        _t: &Bound<'_, PyAny>,
        _v: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!(
            "<wormcast Network {}, {} router ({} routing) at cycle {}>",
            self.s.topology(),
            self.s.router(),
            self.s.routing(),
            self.s.cycle()
        )
    }
}

/// The units with Verilog twins, by command-line name.
#[pyfunction]
fn units() -> Vec<&'static str> {
    UnitKind::ALL.iter().map(|u| u.name()).collect()
}

#[pymodule]
fn _wormcast(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Unit>()?;
    m.add_class::<BitStringDecode>()?;
    m.add_class::<SsrMdDecode>()?;
    m.add_class::<ReplBuffer>()?;
    m.add_class::<Network>()?;
    m.add_class::<Delivery>()?;
    m.add_function(wrap_pyfunction!(units, m)?)?;
    m.add("WormcastError", py.get_type::<WormcastError>())?;
    m.add("DeadlockError", py.get_type::<DeadlockError>())?;
    m.add("NotDrainedError", py.get_type::<NotDrainedError>())?;
    m.add("ModelFault", py.get_type::<ModelFault>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
