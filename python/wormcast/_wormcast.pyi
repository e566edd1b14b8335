"""Types of the extension module (python/src/lib.rs)."""

from os import PathLike
from typing import Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

__version__: str

class WormcastError(Exception):
    """The model found something wrong while it ran."""

class DeadlockError(WormcastError):
    """The watchdog found a cycle of channels waiting for each other."""

class NotDrainedError(WormcastError):
    """A drain ran out of cycles with messages still in the network."""

class ModelFault(WormcastError):
    """The model broke one of its own invariants (a bug in wormcast)."""

_Value = Union[int, Sequence[int], bytes]

class Unit:
    """A unit with a Verilog twin, stepped one rising clock edge per call.

    Inputs hold their value until set again (0 at the start); ``step`` is
    one rising edge of ``clk``.
    """

    @property
    def name(self) -> str:
        """The unit's command-line name (``bitstring-decode``)."""
    @property
    def module(self) -> str:
        """Its Verilog module (``bitstring_decode``)."""
    @property
    def parameters(self) -> Dict[str, int]:
        """Its Verilog parameters (``{"N": 16, "P": 6}``)."""
    @property
    def ports(self) -> List[Tuple[str, Literal["in", "out"], int]]:
        """Every port but the clock: ``(name, direction, width)``."""
    @property
    def inputs(self) -> List[str]:
        """The input ports' names."""
    @property
    def outputs(self) -> List[str]:
        """The output ports' names."""
    @property
    def cycle(self) -> int:
        """Rising edges taken so far."""
    def set(self, **inputs: int) -> None:
        """Sets inputs by name without a clock edge."""
    def get(self, name: str) -> int:
        """An input as last set, or an output as registered at the last edge."""
    def step(self, **inputs: int) -> Dict[str, int]:
        """Sets the inputs given, takes one rising edge, returns every output."""
    @overload
    def run(
        self, cycles: Optional[int] = None, *, as_bytes: Literal[False] = False, **inputs: _Value
    ) -> Dict[str, List[int]]: ...
    @overload
    def run(
        self, cycles: Optional[int] = None, *, as_bytes: Literal[True], **inputs: _Value
    ) -> Dict[str, bytes]: ...
    def stimulus(self, cycles: int, seed: int = 1) -> List[Dict[str, int]]:
        """The testbenches' random and corner-case stimulus, one dict per edge."""

class BitStringDecode(Unit):
    """Seed 000 section 5.3.3's bit-string decode unit (``bitstring_decode.v``)."""

    def __init__(self, nodes: int = 16, ports: int = 6) -> None: ...

class SsrMdDecode(Unit):
    """Seed 000 section 5.2.3's SSR / multi-drop decode unit (``ssr_md_decode.v``)."""

    def __init__(self, ports: int = 6, switches: int = 8) -> None: ...

class ReplBuffer(Unit):
    """The input buffer with chunk reference counts (``repl_buffer.v``)."""

    def __init__(self, chunks: int = 16, chunk_flits: int = 4, ports: int = 6) -> None: ...

class Delivery:
    """One copy of a message delivered."""

    @property
    def msg(self) -> int: ...
    @property
    def src(self) -> int: ...
    @property
    def node(self) -> int: ...
    @property
    def created(self) -> int: ...
    @property
    def injected(self) -> Optional[int]: ...
    @property
    def cycle(self) -> int:
        """The cycle the tail reached the node."""
    @property
    def flits(self) -> int: ...
    def key(self) -> Tuple[int, int]:
        """``(node, cycle)``."""

_Path = Union[str, "PathLike[str]"]

class Network:
    """Any router model of the engine, fed one message and clocked one cycle at a time."""

    def __init__(
        self,
        topology: Optional[str] = None,
        *,
        router: Optional[str] = None,
        routing: Optional[str] = None,
        scheme: Optional[str] = None,
        config: Optional[_Path] = None,
        seed: Optional[int] = None,
        vcd: Optional[_Path] = None,
        trace_from: Optional[int] = None,
        trace_to: Optional[int] = None,
        trace_scope: Optional[List[str]] = None,
    ) -> None: ...
    @property
    def nodes(self) -> int: ...
    @property
    def cycle(self) -> int: ...
    @property
    def router(self) -> str: ...
    @property
    def routing(self) -> str: ...
    @property
    def scheme(self) -> str: ...
    @property
    def topology(self) -> str: ...
    @property
    def header_flits(self) -> int: ...
    @property
    def in_flight(self) -> int: ...
    def send(self, src: int, dests: Union[int, Sequence[int]], flits: int = 20) -> int:
        """Queues a message now; returns its id."""
    def send_worm(
        self,
        src: int,
        kind: Literal["unicast", "ssr", "multi-drop", "bit-string"],
        dests: Sequence[int],
        path: Optional[Sequence[int]] = None,
        payload: int = 16,
    ) -> int:
        """Queues a hand-built worm now (cut-through switch only); returns its id."""
    def step(self, cycles: int = 1) -> List[Delivery]:
        """Simulates cycles (at most 10**12, quiet ones skipped); returns the copies delivered in them. A long step can be interrupted (KeyboardInterrupt)."""
    def drain(self, max_cycles: int = 1000000) -> int:
        """Runs until every copy has arrived; returns the cycle reached. A long drain can be interrupted (KeyboardInterrupt)."""
    def deliveries(self) -> List[Delivery]:
        """Every copy delivered so far, in the order they arrived, but those forget_deliveries dropped."""
    def forget_deliveries(self) -> int:
        """Drops the copies step has returned from what deliveries holds; returns how many. For a testbench that runs long: every copy is kept until forgotten. stats()["delivered"] still counts them."""
    def done(self, msg: int) -> bool: ...
    def stats(self) -> Dict[str, object]: ...
    def links(self) -> List[Tuple[str, int]]: ...
    def close(self) -> Optional[str]:
        """Ends the waveform and writes its views; returns its path.

        A GTKWave save file already beside it that wormcast did not write
        (one saved from GTKWave) is left as it was, with a UserWarning."""
    def __enter__(self) -> "Network": ...
    def __exit__(self, *args: object) -> bool: ...

def units() -> List[str]:
    """The units with Verilog twins, by command-line name."""
