#!/usr/bin/env python3
"""Write validation/trtllm_devguide.jsonl: the Llama 3.3 70B, Llama 4 Maverick, Qwen3-235B-A22B and
Qwen3-30B-A3B offline-throughput tables of TensorRT-LLM's developer-guide performance page, as inference
cases (target: output tokens/s per GPU).

Usage: python validation/build_trtllm_devguide.py   (no network: every number below was read from the page
and is kept here as a literal, the four tables verbatim).

Source (FACT): NVIDIA/TensorRT-LLM ``docs/source/developer-guide/perf-overview.md`` at commit 03e27c7d5ff0c6e89f
8328838c0a8e64f1b34f9d; the four tables are identical at commit 585c756579dc4d01f21fc13c2f604cdb461ac4f0 (both
read). The page names no release; it is later than v1.0 (whose page, ``docs/source/performance/perf-overview.md``
@00f37686, is ``trtllm_v1.jsonl``): it reports "Output Throughput per GPU (tokens/sec/GPU)" where v1.0 reported
the TP group's total. The same page's other tables are already cases: 'Deepseek R1 0528' (``trtllm_mla.jsonl``)
and 'GPT-OSS 120B' / 'GPT-OSS 20B' (``trtllm_windowed.jsonl``); the row conventions (ids, source, notes, the
DEPn plan) are theirs.

What the page states (FACT, quoted in each row's notes):
  * metric: "All performance values are measured in `output tokens per second per GPU`, where `output tokens`
    includes the first and all subsequent generated tokens (input tokens are not included)." -> target
    ``tokens_per_s_per_gpu``;
  * hardware: H100 SXM 80GB (DGX H100), H200 SXM 141GB (DGX H200), B200 180GB (DGX B200), GB200 192GB (GB200
    NVL72), RTX 6000 Pro Blackwell Server Edition;
  * checkpoints: the 'FP4 Models' and 'FP8 Models' lists (CHECKPOINTS below);
  * runs: ``trtllm-bench ... throughput --backend pytorch`` on a synthetic dataset of fixed ISL/OSL (stdev 0),
    the request counts of REQUESTS below (none given for 1000/1000); dense command ``--tp $tp_size --pp
    $pp_size``, MoE command ``--tp $tp_size --pp $pp_size --ep $ep_size`` (values not given);
  * llm_options: Llama 3.3 -> cuda_graph_config (enable_padding, batch sizes 1 ... 8192) only; 'Qwen3 MoE,
    Llama4 Maverick' -> enable_attention_dp: true plus the same cuda_graph_config. Neither sets a
    kv_cache_config or a moe_config (the DeepSeek R1 and GPT-OSS options do);
  * "In many cases, we also use a higher KV cache percentage by setting `--kv_cache_free_gpu_mem_fraction
    0.95` ... We fall back to `0.90` or lower if out-of-memory errors are encountered."

What is inferred (INFERRED, listed in each row's ``inferred`` and said in its notes):
  * DEPn = attention data parallelism with expert parallelism over n GPUs, written tp 1, dp n, ep n as
    ``trtllm_mla.jsonl`` writes it ('DEP' is not defined on the page; its MoE options enable attention DP);
  * pp 1 everywhere; dp 1 for the TP columns; gpus_per_node 8 for the DGX systems, 4 per GB200 NVL72 tray;
  * the architectures (not on the page): the model blocks of the same models in ``trtllm_v1.jsonl``, with
    Llama 4's chunked attention (8,192-token chunks on 3 layers of 4) and ``window_scope: prefill`` as every
    Llama 4 row there has it (TensorRT-LLM's chunked attention "can only be applied to context requests");
  * the KV-cache type: not stated; as in the v1.0 rows ``inference.kv_cache_dtype`` is left out, so dse
    follows the precision (FP8 KV cache for fp8 and fp4 weights).

Left out (FACT): the tables 'LLaMA v3.3 70B - RTX 6000 Pro Blackwell Server Edition', 'Qwen3 235B A22B - RTX
6000 Pro Blackwell Server Edition' and 'Qwen3 30B A3B - RTX 6000 Pro Blackwell Server Edition': they are
``trtllm_rtx_pro_6000.jsonl`` (``build_trtllm_rtx.py``, on the preset RTX-PRO-6000-Server). The empty cells of the
four tables below (9: 'Not all configurations were tested for all GPUs.') have no case.
"""
import os

from case_files import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "trtllm_devguide.jsonl")

REPO = "NVIDIA/TensorRT-LLM"
PAGE = "docs/source/developer-guide/perf-overview.md"
COMMIT = "03e27c7d5ff0c6e89f8328838c0a8e64f1b34f9d"
SAME_AT = "585c756579dc4d01f21fc13c2f604cdb461ac4f0"  # the four tables are identical there (read)

# FACT: the page's four tables, verbatim (unit line: `output tokens per second per GPU`).
TABLES = {
    "LLaMA v3.3 70B": """
| Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4) | GB200<br/>TP1 (FP4) | H200<br/>TP2 (FP8) | H100<br/>TP2 (FP8) |
|---|---|---|---|---|
| 1000/1000 | 6,920 | 7,769 | 2,587 | 2,209 |
| 1024/1024 | 6,842 | 7,751 | 2,582 | |
| 1024/8192 | 3,242 | 3,805 | 2,009 | |
| 8192/1024 | 1,362 | 1,491 | 537 | 398 |
| 32768/1024 | 274 | 302 | 120 | |
""",
    "LLaMA v4 Maverick": """
| Sequence Length (ISL/OSL) | B200<br/>DEP4 (FP4) | GB200<br/>DEP4 (FP4) | H200<br/>DEP8 (FP8) |
|---|---|---|---|
| 1000/1000 | 11,337 | 11,828 | 4,146 |
| 1024/1024 | 11,227 | 11,905 | 4,180 |
| 1024/8192 | 5,174 | 5,508 | 1,157 |
| 1024/32768 | 2,204 | 2,300 | 679 |
| 8192/1024 | 3,279 | 3,444 | 1,276 |
| 32768/1024 | 859 | 963 | |
""",
    "Qwen3 235B A22B": """
| Sequence Length (ISL/OSL) | B200<br/>DEP4 (FP4) | GB200<br/>DEP4 (FP4) | H200<br/>DEP4 (FP8) | H100<br/>DEP8 (FP8) |
|---|---|---|---|---|
| 1000/1000 | 5,764 | 6,172 | 3,288 | 1,932 |
| 1024/1024 | 5,756 | 5,862 | 3,268 | 1,935 |
| 1024/8192 | 3,389 | 3,423 | 1,417 | 873 |
| 1024/32768 | 1,255 | | | |
| 8192/1024 | 1,410 | 1,464 | 627 | |
| 32768/1024 | 319 | 333 | 134 | |
""",
    "Qwen3 30B A3B": """
| Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4) | GB200<br/>TP1 (FP4) |
|---|---|---|
| 1000/1000 | 26,971 | 22,856 |
| 1024/1024 | 26,611 | 22,201 |
| 1024/8192 | 13,497 | 14,272 |
| 1024/32768 | 4,494 | 4,925 |
| 8192/1024 | 5,735 | 6,201 |
| 32768/1024 | 1,265 | 1,380 |
""",
}
# FACT: non-empty cells per table (a check on the parsing): 17 + 17 + 19 + 12 = 65.
CELLS = {"LLaMA v3.3 70B": 17, "LLaMA v4 Maverick": 17, "Qwen3 235B A22B": 19, "Qwen3 30B A3B": 12}

# FACT: the page's request table ($num_requests per ISL/OSL); 1000/1000 is not in it.
REQUESTS = {(1024, 1024): 3000, (8192, 1024): 1500, (1024, 8192): 1500, (32768, 1024): 1000, (1024, 32768): 1000}

# FACT: the page's 'FP4 Models' / 'FP8 Models' lists (Qwen3-30B-A3B has no FP8 entry and no FP8 column).
CHECKPOINTS = {
    ("LLaMA v3.3 70B", "fp4"): "nvidia/Llama-3.3-70B-Instruct-FP4",
    ("LLaMA v3.3 70B", "fp8"): "nvidia/Llama-3.3-70B-Instruct-FP8",
    ("LLaMA v4 Maverick", "fp4"): "nvidia/Llama-4-Maverick-17B-128E-Instruct-NVFP4",
    ("LLaMA v4 Maverick", "fp8"): "nvidia/Llama-4-Maverick-17B-128E-Instruct-FP8",
    ("Qwen3 235B A22B", "fp4"): "nvidia/Qwen3-235B-A22B-FP4",
    ("Qwen3 235B A22B", "fp8"): "nvidia/Qwen3-235B-A22B-FP8",
    ("Qwen3 30B A3B", "fp4"): "nvidia/Qwen3-30B-A3B-FP4",
}

# Column header GPU -> dse GPU preset and GPUs per node. FACT: the systems (page's hardware list).
# INFERRED: gpus_per_node (8 per DGX; 4 per GB200 NVL72 tray, as trtllm_mla/trtllm_windowed write it).
GPUS = {
    "B200": ("B200-180GB", 8, "DGX B200"),
    "GB200": ("GB200", 4, "GB200 NVL72"),
    "H200": ("H200-SXM-141GB", 8, "DGX H200"),
    "H100": ("H100-SXM-80GB", 8, "DGX H100"),
}

# INFERRED (not on the page): model blocks copied from the rows of trtllm_v1.jsonl for the same models;
# seq_len is set per row (ISL + OSL). Their architecture sources are said in ARCH below (v1.0 rows' wording).
MODELS = {
    "LLaMA v3.3 70B": dict(
        id="Llama3.3-70B", options="Llama 3.3",
        block={"name": "Llama 3.3 70B", "family": "dense", "layers": 80, "hidden": 8192, "heads": 64,
               "kv_heads": 8, "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 128256,
               "moe": None}),
    "LLaMA v4 Maverick": dict(
        id="Llama4-Maverick", options="Qwen3 MoE, Llama4 Maverick",
        block={"name": "Llama 4 Maverick 17B-128E", "family": "moe", "layers": 48, "hidden": 5120, "heads": 40,
               "kv_heads": 8, "head_dim": None, "ffn_hidden": 16384, "ffn_act": "swiglu", "vocab": 202048,
               "moe": {"experts": 128, "top_k": 1, "expert_ffn_hidden": 8192, "shared_experts": 1,
                       "dense_layers": 24},
               "attention_window": 8192, "attention_window_kind": "chunked", "full_attention_every": 4}),
    "Qwen3 235B A22B": dict(
        id="Qwen3-235B-A22B", options="Qwen3 MoE, Llama4 Maverick",
        block={"name": "Qwen3-235B-A22B", "family": "moe", "layers": 94, "hidden": 4096, "heads": 64,
               "kv_heads": 4, "head_dim": 128, "ffn_hidden": 1536, "ffn_act": "swiglu", "vocab": 151936,
               "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 1536, "shared_experts": 0,
                       "dense_layers": 0}}),
    "Qwen3 30B A3B": dict(
        id="Qwen3-30B-A3B", options="Qwen3 MoE, Llama4 Maverick",
        block={"name": "Qwen3-30B-A3B", "family": "moe", "layers": 48, "hidden": 2048, "heads": 32, "kv_heads": 4,
               "head_dim": 128, "ffn_hidden": 768, "ffn_act": "swiglu", "vocab": 151936,
               "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 768, "shared_experts": 0,
                       "dense_layers": 0}}),
}

# INFERRED: architecture notes, worded as in the v1.0 rows of the same models (Llama 3.3 rows there have none).
ARCH = {
    "LLaMA v3.3 70B": "",
    "LLaMA v4 Maverick": (
        "Architecture: Llama 4 text_config values from the HF config.json as copied in NVIDIA/TensorRT-LLM "
        "tests/unittest/_torch/modeling/test_modeling_llama_min_latency.py (LLAMA_4_MAVERICK_TWO_LAYER_CONFIG, "
        "layers cut from 48) and the transformers Llama4TextConfig defaults (= Scout): hidden 5120, 48 layers, "
        "40 heads, 8 kv heads, head_dim 128, expert intermediate_size 8192, dense intermediate_size_mlp 16384, "
        "vocab 202048, top-1 routing plus one shared expert (size 8192) in every MoE layer; Maverick: 128 experts, "
        "interleave_moe_layer_step 2, so 24 MoE layers alternate with 24 dense layers (FFN 16384); ffn_hidden = "
        "dense-layer FFN and moe.dense_layers = 24 (interleaved, not leading)."),
    "Qwen3 235B A22B": (
        "Architecture: Qwen3-MoE values from the HF config.json (Qwen/Qwen3-235B-A22B) as quoted in public config "
        "copies found via the code search (e.g. slime scripts/models/qwen3-235B-A22B.sh, vLLM/estimator test "
        "fixtures): 94 layers, hidden 4096, 64 heads, 4 kv heads, head_dim 128, moe_intermediate_size 1536, 128 "
        "experts top-8, vocab 151936; all layers MoE (decoder_sparse_step 1, mlp_only_layers []), no shared "
        "expert, QK-norm."),
    "Qwen3 30B A3B": (
        "Architecture: Qwen3-MoE values from the HF config.json (Qwen/Qwen3-30B-A3B) as quoted in public config "
        "copies found via the code search (e.g. slime scripts/models/qwen3-30B-A3B.sh, vLLM/estimator test "
        "fixtures): 48 layers, hidden 2048, 32 heads, 4 kv heads, head_dim 128, moe_intermediate_size 768, 128 "
        "experts top-8, vocab 151936; all layers MoE (decoder_sparse_step 1, mlp_only_layers []), no shared "
        "expert, QK-norm."),
}

SOURCE = ("TensorRT-LLM dev guide perf-overview.md (developer guide) table '{table}' ({repo} {page} at commit "
          "{commit}; the table is identical at commit {same}; the page names no release (later than v1.0: it "
          "reports 'Output Throughput per GPU (tokens/sec/GPU)'), PyTorch backend)")

HEAD = ("TensorRT-LLM trtllm-bench throughput, PyTorch backend, offline max-throughput ({requests}; in-flight "
        "batching, dynamic batch; CUDA graphs with padding, batch sizes up to 8192; kv_cache_free_gpu_mem_fraction "
        "0.95 'in many cases', 0.90 or lower on OOM). The page states: \"The reported metric is `Output Throughput "
        "per GPU (tokens/sec/GPU)`.\" and \"All performance values are measured in `output tokens per second per "
        "GPU`, where `output tokens` includes the first and all subsequent generated tokens (input tokens are not "
        "included).\" (trtllm-bench 'Per GPU Output Throughput'), hence target tokens_per_s_per_gpu: the {n} "
        "GPU(s) of the run produced {n} x this figure. Table '{table}', column {gpu} {plan} ({prec}). ISL/OSL "
        "fixed (stdev 0); seq_len = ISL+OSL.")


def parse(table: str):
    """The verbatim markdown table -> [(gpu, plan, precision)], {(isl, osl): [value or None per column]}."""
    lines = [ln.strip() for ln in table.strip().splitlines()]
    header = [c.strip() for c in lines[0].strip("|").split("|")][1:]
    cols = []
    for h in header:
        gpu, rest = h.split("<br/>")
        plan, prec = rest.split(" (")
        cols.append((gpu, plan, prec.rstrip(")")))
    rows = {}
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        isl, osl = map(int, cells[0].split("/"))
        vals = [float(c.replace(",", "")) if c else None for c in cells[1:]]
        assert len(vals) == len(cols)
        rows[(isl, osl)] = vals
    return cols, rows


def plan_text(table: str, plan: str, n: int, moe: dict | None) -> tuple[dict, str, list[str]]:
    """parallel block, notes sentence, inferred parallel keys for the column's plan (DEPn or TPn)."""

    def block(tp, dp, ep):
        return {"tp": tp, "pp": 1, "dp": dp, "cp": 1, "ep": ep, "sp": False, "vpp": 1, "zero": 0,
                "recompute": "none", "microbatch": None, "global_batch": None}

    opts = MODELS[table]["options"]
    if plan.startswith("DEP"):
        assert moe is not None and plan == f"DEP{n}"
        experts = moe["experts"]
        held = ("attention, dense-layer FFN, shared-expert, router and embedding weights" if moe["shared_experts"]
                else "attention, router and embedding weights")
        txt = (f"Parallel plan DEP{n}: TensorRT-LLM's attention data parallelism with expert parallelism over {n} "
               f"GPUs (the page's '{opts}' llm_options set 'enable_attention_dp: true', at the top level, with no "
               "attention_dp_config; its MoE command passes --tp/--ep without values; 'DEP' itself is not defined "
               f"on the page): every GPU holds the {held} and serves its own requests, the {experts} routed "
               f"experts are split {n} ways ({experts // n} per GPU). Written as tp 1, dp {n}, ep {n}. MoE backend "
               "not stated (the options set no moe_config: TensorRT-LLM's default).")
        return block(1, n, n), txt, []
    assert plan == f"TP{n}"
    if n == 1:
        extra = (f" (the page's '{opts}' llm_options' 'enable_attention_dp: true' does nothing on one GPU)"
                 if moe else "")
        txt = f"Parallel plan TP1: one GPU{extra}; tp 1, ep 1."
    else:
        txt = (f"Parallel plan TP{n}: tensor parallelism over {n} GPUs (the page's dense-model command "
               f"'trtllm-bench --tp $tp_size --pp $pp_size', values not given); tp {n}, dp 1, pp 1.")
    return block(n, 1, 1), txt, ["parallel.dp"]


def precision_text(table: str, prec: str) -> str:
    ckpt = CHECKPOINTS[(table, prec)]
    if prec == "fp4":
        txt = (f"Precision FP4 as the table states: NVFP4 weights from the ModelOpt checkpoint {ckpt} (the page's "
               "FP4 model list; ModelOpt NVFP4: E2M1 weights and activations with an FP8 scale per 16 values). "
               "dse's fp4 counts every linear weight at 9/16 byte and runs every GEMM in FP4 (embedding and LM "
               "head 16-bit).")
    else:
        txt = (f"Precision FP8 as the table states: ModelOpt FP8 checkpoint {ckpt} (the page's FP8 model list). "
               "dse's fp8 counts 1 byte per weight and runs the GEMMs at the FP8 rate.")
    opts = MODELS[table]["options"]
    return (txt + f" KV-cache dtype not stated: the page's '{opts}' llm_options set no kv_cache_config (its DeepSeek "
            "R1 and GPT-OSS options set dtype fp8); as in the v1.0 rows inference.kv_cache_dtype is left out, so "
            "dse follows the precision (FP8 KV cache for fp8 and fp4 weights).")


def window_text(isl: int, osl: int) -> str:
    """Llama 4's chunked attention, worded as the v1.0 Llama 4 rows (and README) do."""
    if isl + osl <= 8192:
        return ("Llama 4 uses chunked attention (8192-token chunks) on 3 of 4 layers and NoPE on every 4th; "
                "equivalent to full causal attention here since ISL+OSL <= 8192.")
    txt = (f"Llama 4 uses chunked attention (8192-token chunks) on 3 of 4 layers and NoPE on every 4th (global "
           f"attention); here ISL+OSL = {isl + osl} > 8192, so the chunked layers attend only within their "
           "8192-token chunk: written as attention_window 8192, attention_window_kind chunked, full_attention_every "
           "4 (transformers Llama4TextConfig: attention_chunk_size 8192, no_rope_layer_interval 4, i.e. layers 4, "
           "8, ... are NoPE with full attention; not stated on the page). inference.window_scope prefill: "
           "TensorRT-LLM's chunked attention \"can only be applied to context requests\" (its "
           "docs/source/features/long-sequence.md), so decode reads and the KV cache are those of full attention")
    if isl <= 8192:
        txt += f"; the {isl}-token prompts fit in one chunk, so the window changes nothing in this row."
    else:
        txt += f"; the {isl}-token prompts span {-(-isl // 8192)} chunks."
    return txt


def with_seq_len(block: dict, seq_len: int) -> dict:
    """The model block with seq_len after vocab, in the key order of the v1.0 rows."""
    out = {}
    for k, v in block.items():
        out[k] = v
        if k == "vocab":
            out["seq_len"] = seq_len
    return out


def cases():
    for table, text in TABLES.items():
        cols, rows = parse(text)
        m = MODELS[table]
        moe = m["block"]["moe"]
        n_cells = 0
        for (isl, osl), vals in rows.items():
            for (gpu_hdr, plan, prec_hdr), value in zip(cols, vals):
                if value is None:
                    continue  # empty cell: not run
                n_cells += 1
                n = int(plan.lstrip("DEPT"))
                prec = prec_hdr.lower()
                gpu, gpn, system = GPUS[gpu_hdr]
                parallel, ptxt, pinf = plan_text(table, plan, n, moe)
                reqs = REQUESTS.get((isl, osl))
                requests = (f"all {reqs} requests queued at once" if reqs else
                            f"all requests queued at once; the page lists no request count for {isl}/{osl}, the "
                            "v1.0 page used 3000")
                notes = [HEAD.format(requests=requests, n=n, table=table, gpu=gpu_hdr, plan=plan, prec=prec_hdr),
                         ptxt, precision_text(table, prec)]
                if gpu_hdr == "GB200":
                    notes.append("GB200 from a GB200 NVL72 (page: 'GB200 192GB (GB200 NVL72)'); gpus_per_node 4 "
                                 "per tray.")
                else:
                    notes.append(f"{gpu_hdr} from a {system} (page's hardware list); gpus_per_node 8.")
                if ARCH[table]:
                    notes.append(ARCH[table])
                inference = {"input_len": isl, "output_len": osl, "batch": None, "concurrency": None,
                             "mode": "offline_max_throughput"}
                inferred = ["cluster.gpus_per_node", "model.ffn_act", "model.seq_len", *pinf, "parallel.pp"]
                if moe:
                    inferred += ["model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.head_dim",
                                 "model.ffn_hidden", "model.vocab", "model.moe", "model.moe.shared_experts",
                                 "model.moe.dense_layers"]
                if "attention_window" in m["block"]:
                    inference["window_scope"] = "prefill"
                    inferred += ["model.attention_window", "model.attention_window_kind",
                                 "model.full_attention_every"]
                    notes.append(window_text(isl, osl))
                yield {
                    "id": f"trtllm-devguide_tput_{m['id']}_{plan.lower()}_{gpu_hdr}_{isl}-{osl}",
                    "source": SOURCE.format(table=table, repo=REPO, page=PAGE, commit=COMMIT, same=SAME_AT),
                    "reliability": "A",
                    "workload": "inference",
                    "precision": prec,
                    "model": with_seq_len(m["block"], isl + osl),
                    "cluster": {"gpu": gpu, "num_gpus": n, "gpus_per_node": gpn},
                    "parallel": parallel,
                    "inference": inference,
                    "target": {"metric": "tokens_per_s_per_gpu", "value": value},
                    "also": {},
                    "inferred": inferred,
                    "notes": " ".join(notes),
                }
        assert n_cells == CELLS[table], (table, n_cells)


def main():
    write_cases(list(cases()), OUT)


if __name__ == "__main__":
    main()
