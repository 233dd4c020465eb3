"""Try ways of running a kernel in order; the first that runs wins, and every refusal is kept.

A backend that refuses an input (SDPA's "No available kernel", a FlexAttention lowering that
rejects a block size, an operator whose signature differs in this torch) is a fact about that
kernel and this torch, recorded in the dump's metadata and capture.json, never a crash. The first
refusal of each kind also prints its traceback, so that one device run tells why.
"""
import sys
import traceback
import warnings

_SEEN = set()


class NoWayRan(Exception):
    def __init__(self, refusals):
        super().__init__("; ".join(f"{label}: {why}" for label, why in refusals))
        self.refusals = refusals


def _why(e, caught):
    first = str(e).splitlines()[0] if str(e) else ""
    notes = " | ".join(str(w.message).splitlines()[0] for w in caught)[:600]
    return f"{type(e).__name__}: {first}"[:400] + (f" (warnings: {notes})" if notes else "")


def first_that_runs(ways):
    """ways: [(label, fn)]. Returns (result, label, refusals, warnings of the winner); raises NoWayRan."""
    refusals = []
    for label, fn in ways:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = fn()
            except Exception as e:  # the refusal is the record
                refusals.append((label, _why(e, caught)))
                key = (label, type(e).__name__, str(e)[:80])
                if key not in _SEEN:
                    _SEEN.add(key)
                    print(f"--- first refusal of '{label}':\n{traceback.format_exc(limit=-12)}", file=sys.stderr, flush=True)
                continue
        return result, label, refusals, [str(w.message) for w in caught]
    raise NoWayRan(refusals)
