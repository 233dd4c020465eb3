"""Self-test of dumpio.py with the standard library only:  python3 tools/capture/test_dumpio.py DUMP

Reads a dump written by `faultline kernel vectors`, checks its tensors and metadata, writes it back
with an added output, and checks the rewrite parses to the same tensors (byte for byte).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpio  # noqa: E402


def main(path):
    t, m = dumpio.read(path)
    for name in ("query", "kv_cache", "block_tables", "seq_lens"):
        assert name in t, name
    q = t["query"]
    assert len(q.shape) == 3 and q.shape[0] == int(m["q_len_per_req"]) * t["seq_lens"].shape[0]
    t["output"] = dumpio.Tensor("BF16", q.shape, bytes(2 * q.shape[0] * q.shape[1] * q.shape[2]))
    m = dict(m, kernel="dumpio self-test", kernel_version="0", out_dtype="bf16")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "x.safetensors")
        dumpio.write(out, t, m)
        with open(out, "rb") as f:
            blob = f.read()
        header_len = int.from_bytes(blob[:8], "little")
        assert (8 + header_len) % 8 == 0, "data region must start 8-byte aligned"
        t2, m2 = dumpio.read(out)
    assert m2 == m
    assert set(t2) == set(t)
    for k in t:
        assert (t2[k].dtype, t2[k].shape, t2[k].data) == (t[k].dtype, t[k].shape, t[k].data), k
    print(f"dumpio ok: {len(t)} tensors, {len(m)} metadata keys round-tripped")


if __name__ == "__main__":
    main(sys.argv[1])
