"""Write data/heldout-prose.txt: at most 200 000 bytes of validation documents (never trained on),
kept in the project as probe prompt text. Documents in id order, separated by a blank line; the last
one is cut at a sentence end so the file stays under the cap and is valid UTF-8.

  python3 training/heldout_slice.py   (after training/fetch_corpus.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import read_documents  # noqa: E402

CAP = 200_000
ROOT = Path(__file__).resolve().parent.parent


def build(docs: list[dict[str, str]]) -> tuple[str, list[str]]:
    parts: list[str] = []
    used: list[str] = []
    size = 0
    for d in docs:
        text = d["text"]
        sep = "\n" if parts else ""
        room = CAP - size - len(sep.encode("utf-8"))
        if len(text.encode("utf-8")) > room:
            cut = text.encode("utf-8")[:room].decode("utf-8", errors="ignore")
            end = cut.rfind(". ")
            if end <= 0:
                break
            text = cut[: end + 1] + "\n"
            used.append(f"{d['id']} (first {len(text.encode('utf-8'))} bytes)")
            parts.append(sep + text)
            break
        parts.append(sep + text)
        used.append(d["id"])
        size += len((sep + text).encode("utf-8"))
    return "".join(parts), used


def main() -> int:
    text, used = build(read_documents(ROOT / "training" / "data" / "corpus.jsonl", "val"))
    out = ROOT / "data" / "heldout-prose.txt"
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}: {len(text.encode('utf-8'))} bytes from {len(used)} documents:")
    for u in used:
        print(f"  {u}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
