"""Train tiny-swa (main LM + MTP head jointly) and save BF16 weights.

  python3 training/train.py --corpus training/data/corpus.jsonl --out runs/train [--steps N | --time-budget S]

With --steps auto (the default) the step count is chosen from the throughput measured over the first
steps so that training fits --time-budget seconds; the chosen N is printed and recorded, and
`--steps N` reproduces the same schedule (warm-up is fixed-length and ends after the decision, so
the learning-rate curve depends only on N). Fixed seed; GPU kernels are not bitwise deterministic
(atomic adds in backward), so a rerun agrees to noise, not bit for bit.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

import st_io  # noqa: E402
from corpus import eval_chunks, random_batch, read_documents, stream  # noqa: E402
from model import Config, TinySwa, init_weights  # noqa: E402

MTP_LOSS_WEIGHT = 0.3
LN2 = math.log(2.0)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", type=Path, default=Path("training/data/corpus.jsonl"))
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--steps", default="auto", help="number of optimizer steps, or 'auto' (fit --time-budget)")
    p.add_argument("--time-budget", type=float, default=300.0, help="seconds of training for --steps auto")
    p.add_argument("--max-steps", type=int, default=20000)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--ctx", type=int, default=512)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--min-lr-ratio", type=float, default=0.1)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--eval-every", type=int, default=1000)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--compile", action="store_true", help="torch.compile the training step (falls back to eager on failure)")
    p.add_argument("--val-limit", type=int, default=0, help="use only the first N validation ids (smoke tests)")
    p.add_argument("--small", action="store_true", help="smoke test: 2 layers, d=64 (CPU)")
    return p.parse_args()


def lr_at(step: int, total: int, args: argparse.Namespace) -> float:
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    progress = min(1.0, (step - args.warmup) / max(1, total - args.warmup))
    floor = args.lr * args.min_lr_ratio
    return floor + (args.lr - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def losses(model: TinySwa, x: torch.Tensor, y: torch.Tensor, fast: bool) -> tuple[torch.Tensor, torch.Tensor]:
    logits, mtp_logits = model(x, fast=fast)
    v = logits.shape[-1]
    main = F.cross_entropy(logits.float().reshape(-1, v), y.reshape(-1))
    # MTP at position t predicts token t+2, which is y[t+1]
    mtp = F.cross_entropy(mtp_logits.float().reshape(-1, v), y[:, 1:].reshape(-1))
    return main, mtp


@torch.no_grad()
def val_bits_per_byte(model: TinySwa, val: torch.Tensor, ctx: int, autocast: bool) -> float:
    model.eval()
    x, y, valid = eval_chunks(val, ctx)
    total, count = 0.0, 0
    for i in range(0, x.shape[0], 64):
        with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16, enabled=autocast):
            logits, _ = model(x[i : i + 64], fast=True)
        nll = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y[i : i + 64].reshape(-1), reduction="none")
        m = valid[i : i + 64].reshape(-1)
        total += nll[m].sum().item()
        count += int(m.sum().item())
    model.train()
    return total / count / LN2


def param_groups(model: TinySwa, weight_decay: float) -> list[dict]:
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        # decay projection matrices only; norms and the (tied) embedding are left alone
        (decay if p.ndim == 2 and "embed_tokens" not in name else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def make_optimizer(model: TinySwa, args: argparse.Namespace) -> torch.optim.Optimizer:
    groups = param_groups(model, args.weight_decay)
    kwargs = {"lr": args.lr, "betas": (0.9, 0.95), "eps": 1e-8}
    if args.device.startswith("cuda"):
        try:
            return torch.optim.AdamW(groups, fused=True, **kwargs)
        except (TypeError, RuntimeError):
            pass
    return torch.optim.AdamW(groups, **kwargs)


def main() -> int:
    args = parse_args()
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    cfg = Config()
    if args.small:
        cfg = Config(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                     num_key_value_heads=1, head_dim=32, query_pre_attn_scalar=32, sliding_window=16,
                     layer_types=["sliding_attention", "full_attention"])
    model = TinySwa(cfg)
    init_weights(model, args.seed)
    model.to(device)
    n_params = sum(p.numel() for p in model.parameters())
    n_mtp = sum(p.numel() for p in model.mtp.parameters())
    print(f"parameters: {n_params} ({n_params - n_mtp} main + {n_mtp} MTP head)", flush=True)

    train_data = stream(read_documents(args.corpus, "train")).to(device)
    val_data = stream(read_documents(args.corpus, "val")).to(device)
    if args.val_limit:
        val_data = val_data[: args.val_limit]
    print(f"train {train_data.numel()} ids, val {val_data.numel()} ids", flush=True)

    opt = make_optimizer(model, args)
    gen = torch.Generator(device=device).manual_seed(args.seed)
    use_autocast = device.type == "cuda"

    def make_step(net: torch.nn.Module):
        def step_fn(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=use_autocast):
                main_loss, mtp_loss = losses(net, x, y, fast=True)
            (main_loss + MTP_LOSS_WEIGHT * mtp_loss).backward()
            return main_loss.detach(), mtp_loss.detach()
        return step_fn

    step_fn = make_step(model)
    compiled = step_fn
    if args.compile and hasattr(torch, "compile"):
        compiled = make_step(torch.compile(model))

    total = args.max_steps if args.steps == "auto" else int(args.steps)
    curve: list[dict] = []
    t_start = time.time()
    t_probe = None
    acc_main = torch.zeros((), device=device)
    acc_mtp = torch.zeros((), device=device)
    acc_n = 0
    step = 0
    while step < total:
        x, y = random_batch(train_data, args.batch, args.ctx, gen)
        for group in opt.param_groups:
            group["lr"] = lr_at(step, total, args)
        try:
            main_loss, mtp_loss = compiled(x, y)
        except Exception as exc:  # torch.compile can fail on an unusual platform: train eagerly instead
            if compiled is step_fn:
                raise
            print(f"torch.compile failed ({type(exc).__name__}: {exc}); continuing eagerly", flush=True)
            opt.zero_grad(set_to_none=True)
            compiled = step_fn
            main_loss, mtp_loss = compiled(x, y)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        acc_main += main_loss
        acc_mtp += mtp_loss
        acc_n += 1
        step += 1
        if args.steps == "auto" and step == 20:
            if device.type == "cuda":
                torch.cuda.synchronize()
            t_probe = time.time()
        if args.steps == "auto" and step == 80:
            if device.type == "cuda":
                torch.cuda.synchronize()
            per_step = (time.time() - t_probe) / 60
            remaining = args.time_budget - (time.time() - t_start)
            total = min(args.max_steps, step + int(remaining / per_step))
            total = max(step, total // 100 * 100)
            print(f"measured {per_step * 1000:.1f} ms/step; training for {total} steps "
                  f"(reproduce with --steps {total})", flush=True)
        if step % args.log_every == 0 or step == total:
            m, t = (acc_main / acc_n).item(), (acc_mtp / acc_n).item()
            point = {"step": step, "seconds": round(time.time() - t_start, 1), "lr": lr_at(step - 1, total, args),
                     "train_bits_per_byte": m / LN2, "train_mtp_bits_per_byte": t / LN2}
            if step % args.eval_every == 0 or step == total:
                point["val_bits_per_byte"] = val_bits_per_byte(model, val_data, args.ctx, use_autocast)
            curve.append(point)
            print(json.dumps(point), flush=True)
            acc_main.zero_()
            acc_mtp.zero_()
            acc_n = 0
    train_seconds = time.time() - t_start
    print(f"trained {step} steps in {train_seconds:.1f} s", flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    weights = {name: p.detach().to(torch.bfloat16) for name, p in model.named_parameters()}
    st_io.save(args.out / "weights-bf16.safetensors", weights, {"format": "pt"})
    log = {"steps": step, "train_seconds": round(train_seconds, 1), "batch": args.batch, "ctx": args.ctx,
           "lr": args.lr, "min_lr_ratio": args.min_lr_ratio, "warmup": args.warmup, "weight_decay": args.weight_decay,
           "seed": args.seed, "mtp_loss_weight": MTP_LOSS_WEIGHT, "parameters": n_params, "mtp_parameters": n_mtp,
           "train_bytes": int(train_data.numel()), "val_bytes": int(val_data.numel()),
           "device": torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu",
           "torch": torch.__version__, "compiled": compiled is not step_fn, "small": args.small,
           "config": cfg.__dict__, "curve": curve}
    (args.out / "train-log.json").write_text(json.dumps(log, indent=1))
    print(f"wrote {args.out}/weights-bf16.safetensors and train-log.json", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
