"""Check that captured dumps carry exactly the inputs of the vectors they were made from.

    python3 tools/capture/same_inputs.py CAPTURE_DIR VECTORS_DIR

Every *.safetensors in CAPTURE_DIR/<kernel>/ must hold each tensor of VECTORS_DIR/<same name> byte
for byte, and the same metadata (out_dtype aside, which the capture sets): a dump whose inputs
changed on the way (another seed, a re-generated vector, a kernel that wrote into its inputs)
would be verified against the wrong reference. Standard library only; exit 1 on any difference.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpio  # noqa: E402


def differences(dump_path, vector_path):
    t, m = dumpio.read(dump_path)
    t0, m0 = dumpio.read(vector_path)
    out = [f"tensor {n}" for n, x in t0.items()
           if n not in t or (x.dtype, x.shape, x.data) != (t[n].dtype, t[n].shape, t[n].data)]
    out += [f"metadata {k}" for k, v in m0.items() if k != "out_dtype" and m.get(k) != v]
    return out


def main(capture_dir, vectors_dir):
    checked, bad = 0, 0
    for kernel in sorted(os.listdir(capture_dir)):
        kdir = os.path.join(capture_dir, kernel)
        if not os.path.isdir(kdir):
            continue
        for f in sorted(x for x in os.listdir(kdir) if x.endswith(".safetensors")):
            checked += 1
            vector = os.path.join(vectors_dir, f)
            diff = differences(os.path.join(kdir, f), vector) if os.path.exists(vector) else ["no such vector"]
            if diff:
                bad += 1
                print(f"{kernel}/{f}: differs in {', '.join(diff)}")
    print(f"{checked} dumps checked, {bad} with inputs unlike the vectors")
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
