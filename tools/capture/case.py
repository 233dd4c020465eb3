"""One dump's inputs as torch tensors on a device, and its metadata as Python numbers."""
import math

import dumpio


class Case:
    def __init__(self, path, device):
        import torch
        self.path = path
        self.tensors, self.meta = dumpio.read(path)
        t = self.tensors
        self.q_len = int(self.meta["q_len_per_req"])
        self.window_left = int(self.meta["window_left"])
        self.sm_scale = float(self.meta["sm_scale"])
        self.bmm1 = float(self.meta["bmm1_scale"])
        self.bmm2 = float(self.meta["bmm2_scale"])
        self.page = int(self.meta["page_size"])
        self.layout = self.meta.get("kv_layout", "HND")
        self.q_fp8 = self.meta["q_dtype"] == "fp8_e4m3"
        self.kv_fp8 = self.meta["kv_dtype"] == "fp8_e4m3"
        self.scale = {k: (t[f"{k}_scale"].values()[0] if f"{k}_scale" in t else 1.0) for k in "qkv"}
        self.query = dumpio.to_torch(t["query"], device)
        kv = dumpio.to_torch(t["kv_cache"], device)
        # always hand kernels an HND view: [blocks, 2, Hkv, page, hd] (a strided view of NHD data)
        self.kv_hnd = kv if self.layout == "HND" else kv.transpose(2, 3)
        self.block_tables = dumpio.to_torch(t["block_tables"], device).to(torch.int32).contiguous()
        self.seq_lens_list = [int(x) for x in dumpio.to_torch(t["seq_lens"]).tolist()]
        self.seq_lens = torch.tensor(self.seq_lens_list, dtype=torch.int32, device=device)
        self.batch = len(self.seq_lens_list)
        self.tokens, self.num_heads, self.head_dim = self.query.shape
        self.num_kv_heads = self.kv_hnd.shape[2]

    def flops(self):
        """4·hd per (row, head, attended key): Q·K and P·V."""
        n = 0
        for s in self.seq_lens_list:
            for t in range(self.q_len):
                p = s - self.q_len + t
                lo = 0 if self.window_left < 0 else max(0, p - self.window_left)
                n += p - lo + 1
        return 4 * self.head_dim * self.num_heads * n

    def write(self, path, out_bf16, kernel, version, extra):
        tensors = dict(self.tensors)
        tensors["output"] = dumpio.from_torch(out_bf16)
        meta = dict(self.meta)
        meta.update({"out_dtype": "bf16", "kernel": kernel, "kernel_version": version})
        meta.update(extra)
        dumpio.write(path, tensors, meta)


def pages_of(seq_len, page):
    return math.ceil(seq_len / page)
