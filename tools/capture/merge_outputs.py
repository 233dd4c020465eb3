"""Puts captured outputs back into full dumps: a device run returns only each kernel's outputs (one
safetensors file per variant, tensors named "<vector set>/<dump stem>", and a JSON record), since the
inputs are the vectors this machine already has. Standard library only.

    python3 tools/capture/merge_outputs.py CAPTURE_DIR VEC_ROOT OUT_ROOT

writes OUT_ROOT/<variant>/<vector set>/<dump>.safetensors: the vector's inputs unchanged, `output`
added, metadata kernel / kernel_version, repeat_bitwise_equal and the variant's per-dump notes. A
refused or failed dump is listed in OUT_ROOT/<variant>/refused.json with its reason."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpio  # noqa: E402


def merge(capture_dir, vec_root, out_root):
    for rec_file in sorted(f for f in os.listdir(capture_dir) if f.endswith(".json") and f != "versions.json"):
        record = json.load(open(os.path.join(capture_dir, rec_file)))
        variant = record["variant"]
        outputs = {}
        tensor_file = os.path.join(capture_dir, f"{variant}.safetensors")
        if os.path.exists(tensor_file):
            outputs, _ = dumpio.read(tensor_file)
        refused, written = {}, 0
        for key, r in sorted(record["dumps"].items()):
            if "notes" not in r:
                refused[key] = r.get("refused") or r.get("error")
                continue
            vset, stem = key.split("/")
            tensors, meta = dumpio.read(os.path.join(vec_root, vset, stem + ".safetensors"))
            tensors["output"] = outputs[key]
            meta.update({"out_dtype": "bf16", "kernel": record["kernel"], "kernel_version": record["kernel_version"],
                         "repeat_bitwise_equal": str(r["repeat_bitwise_equal"]).lower(), "capture_variant": variant})
            meta.update(r["notes"])
            d = os.path.join(out_root, variant, vset)
            os.makedirs(d, exist_ok=True)
            dumpio.write(os.path.join(d, stem + ".safetensors"), tensors, meta)
            written += 1
        os.makedirs(os.path.join(out_root, variant), exist_ok=True)
        with open(os.path.join(out_root, variant, "refused.json"), "w") as fh:
            json.dump(refused, fh, indent=1, ensure_ascii=False)
        print(f"{variant}: {written} dumps, {len(refused)} refused or failed")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    merge(*sys.argv[1:4])
