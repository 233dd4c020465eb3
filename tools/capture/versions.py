"""The software and hardware a capture ran on, for the dumps' provenance."""
import platform
import subprocess

import torch


def _driver():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30, check=False)
        return r.stdout.strip() or f"nvidia-smi said nothing (exit {r.returncode})"
    except Exception as e:  # reported, not hidden
        return f"unknown: {type(e).__name__}"


def versions():
    cuda = torch.cuda.is_available()
    v = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "gpu": torch.cuda.get_device_name(0) if cuda else "none (cpu)",
        "capability": ".".join(map(str, torch.cuda.get_device_capability(0))) if cuda else None,
        "driver": _driver() if cuda else None,
        "flash_attention_built": bool(getattr(torch.backends.cuda, "is_flash_attention_available", lambda: False)()),
        "flex_attention": _has("torch.nn.attention.flex_attention"),
        "paged_attention_helper": _has("torch.nn.attention.experimental._paged_attention"),
    }
    try:
        import triton
        v["triton"] = triton.__version__
    except Exception as e:  # reported, not hidden
        v["triton"] = f"not importable: {e}"
    try:
        import flashinfer
        v["flashinfer"] = getattr(flashinfer, "__version__", "unknown")
    except Exception as e:
        v["flashinfer"] = f"not importable: {type(e).__name__}"
    return v


def _has(module):
    try:
        __import__(module)
        return True
    except Exception as e:
        return f"no: {type(e).__name__}: {e}"
