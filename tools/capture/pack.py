"""Pack a capture directory's kernel folders into a few .tar.gz files for the trip back.

    python3 tools/capture/pack.py CAPTURE_DIR OUT_DIR [--max-mb 15] [--max-files 6]

Whole kernel folders go into capture-1.tar.gz, capture-2.tar.gz, … each holding at most --max-mb of
uncompressed files (so each archive is below that), in the order of the folder names. A folder
that does not fit in --max-files archives is named on stderr and in OUT_DIR/pack.json, never
dropped silently. Standard library only.
"""
import argparse
import json
import os
import sys
import tarfile


def folder_bytes(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


def plan(capture_dir, max_bytes, max_files):
    """[[folder, ...], ...] and the folders left out."""
    groups, left_out, size = [], [], 0
    for name in sorted(os.listdir(capture_dir)):
        path = os.path.join(capture_dir, name)
        if not os.path.isdir(path):
            continue
        n = folder_bytes(path)
        if n > max_bytes:
            left_out.append((name, f"{n} bytes, more than one archive holds"))
            continue
        if not groups or size + n > max_bytes:
            if len(groups) == max_files:
                left_out.append((name, f"no archive left (at most {max_files})"))
                continue
            groups.append([])
            size = 0
        groups[-1].append(name)
        size += n
    return groups, left_out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("capture_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--max-mb", type=float, default=15)
    ap.add_argument("--max-files", type=int, default=6)
    a = ap.parse_args()
    groups, left_out = plan(a.capture_dir, int(a.max_mb * 1e6), a.max_files)
    record = {"archives": [], "left_out": [{"folder": f, "why": why} for f, why in left_out]}
    for i, names in enumerate(groups, 1):
        archive = os.path.join(a.out_dir, f"capture-{i}.tar.gz")
        with tarfile.open(archive, "w:gz") as tar:
            for name in names:
                tar.add(os.path.join(a.capture_dir, name), arcname=name)
        record["archives"].append({"file": os.path.basename(archive), "folders": names, "bytes": os.path.getsize(archive)})
        print(f"pack: {os.path.basename(archive)} {os.path.getsize(archive)} bytes: {', '.join(names)}", flush=True)
    for f, why in left_out:
        print(f"pack: LEFT OUT {f}: {why}", file=sys.stderr, flush=True)
    with open(os.path.join(a.out_dir, "pack.json"), "w") as fh:
        json.dump(record, fh, indent=1)


if __name__ == "__main__":
    main()
