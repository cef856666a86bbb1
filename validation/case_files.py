"""What the ``build_*.py`` scripts of this folder share: writing a JSON-lines case file."""

from __future__ import annotations

import json
from statistics import median

__all__ = ["DEEPSEEK_V3", "LLAMA31", "median", "write_cases"]  # median: the builders' median of runs and of intervals

#: Llama 3.1 8B, 70B and 405B in the case format's model block (seq_len is the case's own), from
#: the models' config.json files
LLAMA31 = {
    "8B": {"name": "Llama 3.1 8B", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
           "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256, "moe": None},
    "70B": {"name": "Llama 3.1 70B", "family": "dense", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
            "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 128256, "moe": None},
    "405B": {"name": "Llama 3.1 405B", "family": "dense", "layers": 126, "hidden": 16384, "heads": 128,
             "kv_heads": 8, "head_dim": None, "ffn_hidden": 53248, "ffn_act": "swiglu", "vocab": 128256,
             "moe": None},
}

#: DeepSeek-V3 (and R1, R1-0528: the same architecture) in the case format's model block, from its
#: config.json (dse preset deepseek-v3), with the router's measured load spread (moe.router_skew)
DEEPSEEK_V3 = {"name": "DeepSeek-V3", "family": "moe", "layers": 61, "hidden": 7168, "heads": 128, "kv_heads": 128,
               "head_dim": None, "ffn_hidden": 18432, "ffn_act": "swiglu", "vocab": 129280,
               "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1,
                       "dense_layers": 3, "expert_groups": 8, "top_groups": 4, "router_skew": 2.16},
               "mla": {"kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                       "v_head_dim": 128}}


def write_cases(cases: list[dict], path: str) -> None:
    """Write ``cases`` (ids unique) to ``path``, one compact JSON object a line, and say so."""
    ids = [c["id"] for c in cases]
    assert len(set(ids)) == len(ids), "case ids must be unique"
    with open(path, "w") as fh:
        for c in cases:
            fh.write(json.dumps(c, separators=(",", ":")) + "\n")
    print(f"wrote {len(cases)} cases to {path}")
