"""wormcast: register-transfer-level models of multicast interconnection
networks, for testbenches.

Two kinds of model, both stepped one clock cycle per call:

* the units with Verilog twins in ``hdl_tests/rtl`` -- :class:`BitStringDecode`,
  :class:`SsrMdDecode`, :class:`ReplBuffer` -- driven by their Verilog port
  names (``u.step(hdr_valid=1, dests=0b1010)`` returns every output as
  registered at the rising edge), with :meth:`Unit.run` for many cycles at
  once;
* :class:`Network`, any router model of the engine on any topology, fed
  messages with :meth:`Network.send` and clocked with :meth:`Network.step`,
  which returns the copies delivered.

Bad names, widths and values raise ``ValueError`` (or ``TypeError``) with
what is wrong; what the model finds while it runs raises a
:class:`WormcastError` subclass.
"""

from ._wormcast import (
    BitStringDecode,
    DeadlockError,
    Delivery,
    ModelFault,
    Network,
    NotDrainedError,
    ReplBuffer,
    SsrMdDecode,
    Unit,
    WormcastError,
    __version__,
    units,
)

__all__ = [
    "BitStringDecode",
    "DeadlockError",
    "Delivery",
    "ModelFault",
    "Network",
    "NotDrainedError",
    "ReplBuffer",
    "SsrMdDecode",
    "Unit",
    "WormcastError",
    "__version__",
    "units",
]
