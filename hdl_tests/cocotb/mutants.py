"""Planted bugs: one small change to each Verilog twin that a scoreboard
must catch. Each is applied to a copy of the twin by replacing one exact
piece of text (which must occur once: a twin that changed makes the
mutant fail loudly rather than silently test the original)."""

from pathlib import Path

RTL = Path(__file__).resolve().parents[1] / "rtl"

# unit: (module, text in the twin, its replacement, what the bug does)
MUTANTS = {
    "bitstring-decode": (
        "bitstring_decode",
        "if (none) begin",
        "if (none && !ud_in) begin",
        "a header with no destination and the up-down bit set is not an error",
    ),
    "ssr-md-decode": (
        "ssr_md_decode",
        "hf = {3'b101, npairs - 5'd1};",
        "hf = {3'b101, npairs};",
        "the copy that drops the first pair keeps the old pair count",
    ),
    "repl-buffer": (
        "repl_buffer",
        "if (fan_valid && q_count != 0 && fan_mask != 0) begin",
        "if (fan_valid && q_count != 0) begin",
        "a fanout with an empty mask is taken",
    ),
}


def plant(unit, out_dir):
    """Writes the twin of `unit` with its bug into out_dir; returns the path
    and the description."""
    module, old, new, what = MUTANTS[unit]
    text = (RTL / f"{module}.v").read_text()
    if text.count(old) != 1:
        raise SystemExit(f"mutant of {module}: `{old}` occurs {text.count(old)} times in the twin, not once")
    out = Path(out_dir) / f"{module}.v"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text.replace(old, new))
    return out, what
