#!/usr/bin/env python3
"""Write validation/trtllm_r12_blackwell_ultra.jsonl: the B300 and GB300 (beta) columns of TensorRT-LLM's
release-1.2 developer-guide performance page, as offline-throughput inference cases (target: output tokens/s per
GPU) on the dse GPU presets ``B300`` and ``GB300``.

Usage: python validation/build_trtllm_r12_blackwell_ultra.py   (no network: every number below was read from the
page and is kept here as a literal, the six tables verbatim with all their columns).

Source (FACT): the release-1.2 version of NVIDIA/TensorRT-LLM ``docs/source/developer-guide/perf-overview.md``
(code-index file id 53206213621, commit not exposed by the index), cited as ``build_trtllm_rtx.py`` cites it
(its R12_SOURCE, R12_FILE_ID and R12_HEAD are imported; that builder took the page's RTX tables). The page's six
main tables ('Deepseek R1 0528', 'GPT-OSS 120B', 'GPT-OSS 20B', 'LLaMA v3.3 70B', 'Qwen3 235B A22B', 'Qwen3 30B
A3B') each have a 'B300* (beta)' and a 'GB300* (beta)' column; only those two are taken (56 cases): the B200,
GB200 and H200 columns re-measure GPUs that ``trtllm_mla.jsonl``, ``trtllm_windowed.jsonl`` and
``trtllm_devguide.jsonl`` already hold from earlier versions of the page (commit 03e27c7d).

What the page states (FACT, quoted in each row's notes):
  * metric: "The reported metric is `Output Throughput per GPU (tokens/sec/GPU)`.", "All performance values are
    measured in `output tokens per second per GPU`, where `output tokens` refers to all generated tokens
    (excluding input/prompt tokens)." and "Data in these tables is taken from the `Per GPU Output Throughput
    (tps/gpu)` metric reported by `trtllm-bench`." -> target ``tokens_per_s_per_gpu``;
  * hardware: "Note: As of `release/1.2`, support for B300 and GB300 is in beta, and performance data should not
    be considered finalized." followed by '- B300 288GB (DGX B300) (beta)' and '- GB300 288 GB (GB300 NVL72)
    (beta)'; the columns are headed 'B300* (beta)' and 'GB300* (beta)';
  * plans and precision: the column headers (DEP4 (FP4) for DeepSeek R1 and Qwen3 235B; TP1 (FP4) for the other
    four models, on both GPUs); checkpoints: the 'FP4 Models' list (no GPT-OSS entry);
  * runs: dataset of fixed ISL/OSL (stdev 0), the request table REQUEST_TABLE; the dense and MoE commands of
    COMMANDS (values of $tp_size/$pp_size/$ep_size not given); the llm_options of OPTIONS per model family;
    "For NUMA systems, consult the 'CPU Affinity configuration in TensorRT LLM' guide to achieve best
    performance. These options were enabled for relevant tests."

How the rows are written (INFERRED where not stated; listed in each row's ``inferred``), each family as the
same model's rows of the earlier page version:
  * Llama 3.3 70B, Qwen3 235B A22B, Qwen3 30B A3B: as ``build_trtllm_devguide.py`` (imported: MODELS, ARCH,
    CHECKPOINTS via precision_text, plan_text): DEP4 = tp 1, dp 4, ep 4; TP1 = one GPU; precision fp4 (NVFP4
    checkpoints of the page's FP4 list); KV-cache dtype not stated (no kv_cache_config in these options), left
    out as there;
  * DeepSeek R1 0528: as ``trtllm_mla.jsonl`` (a hand-written file; its B200 DEP4 rows are read here): its model
    block (deepseek-v3 preset values, ``router_skew`` 2.16), inferred list, inference.kv_cache_dtype fp8 and
    inference.attention_dp_balance true, and its notes after the head (plan, NVFP4-v2 checkpoint, CUTLASS MoE
    backend, FP8 KV cache, no MTP, architecture, router skew): the release-1.2 DeepSeek R1 options are those
    the rows describe (checked below against OPTIONS). The request count is given the way
    ``build_trtllm_rtx.py`` gives it ("all N requests queued", read by dse validate), not as
    inference.num_requests;
  * GPT-OSS 120B/20B: as ``trtllm_windowed.jsonl`` (hand-written; its Blackwell TP1 rows are read here): model
    block with sliding-window attention (128 tokens on every other layer), precision fp8 with
    inference.weight_dtype mxfp4 (the page's 'FP4': MXFP4 expert weights, MXFP8 activations on Blackwell),
    kv_cache_dtype fp8 and window_scope compute, inferred list, and its checkpoint, architecture and W4A8
    sentences. One change, stated in the notes: the release-1.2 GPT-OSS options set ``moe_config: backend:
    TRTLLM`` where the earlier rows say CUTLASS (the deployment guides the rows cite give MXFP8 x MXFP4 for both
    backends on Blackwell, so the precision is unchanged);
  * gpus_per_node 8 for the DGX B300, 4 per GB300 NVL72 tray (as the GB200 rows); dse presets B300 and GB300;
  * reliability A as the sibling rows of each model, the beta note quoted in every row.

Left out (FACT): the B200, GB200 and H200 columns (GPUs already covered by earlier page versions; used only as a
parsing check here), the RTX tables (``build_trtllm_rtx.py``), and the empty B300/GB300 cells (DeepSeek R1 B300
32768/1024; Qwen3 30B GB300 1024/32768). Kimi K2 has llm_options on the page but no table.
"""
import json
import os

from build_trtllm_devguide import (ARCH, CHECKPOINTS, MODELS, PAGE as DG_PAGE, REPO, REQUESTS, parse, plan_text,
                                   precision_text, with_seq_len)
from build_trtllm_rtx import MOE_INFERRED, R12_FILE_ID, R12_HEAD, R12_SOURCE, requests_text
from case_files import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "trtllm_r12_blackwell_ultra.jsonl")
MLA_ROWS = os.path.join(HERE, "trtllm_mla.jsonl")
WINDOWED_ROWS = os.path.join(HERE, "trtllm_windowed.jsonl")

# FACT: the page's six main tables, verbatim (each followed on the page by "*Unit: output tokens per second per
# GPU*").
TABLES = {
    "Deepseek R1 0528": """
| Sequence Length (ISL/OSL) | B200<br/>DEP4 (FP4) | B300* (beta)<br/>DEP4 (FP4) | GB200<br/>DEP4 (FP4) | GB300* (beta)<br/>DEP4 (FP4) | H200<br/>DEP8 (FP8) |
|---|---|---|---|---|---|
| 1024/1024 | 5,757 | 6,046 | 4,989 | 4,981 | 1,724 |
| 1024/8192 | 4,228 | 6,235 | 4,474 | 6,842 | 1,335 |
| 1024/32768 | 1,472 | 2,177 | 1,582 | 2,904 | |
| 8192/1024 | 1,176 | 1,489 | 1,276 | 1,599 | |
| 32768/1024 | | | | 335 | |
""",
    "GPT-OSS 120B": """
| Sequence Length (ISL/OSL) | B200<br/>DEP2 (FP4) | B300* (beta)<br/>TP1 (FP4) | GB200<br/>TP1 (FP4) | GB300* (beta)<br/>TP1 (FP4) | H200<br/>DEP2 (FP8) |
|---|---|---|---|---|---|
| 1024/1024 | 29,061 | 34,737 | 29,056 | 38,702 | 6,391 |
| 1024/8192 | 16,434 | 18,338 | 17,079 | 19,866 | 4,260 |
| 1024/32768 | 7,020 | 7,284 | 6,313 | 7,958 | |
| 8192/1024 | 6,938 | 8,361 | 7,874 | 9,407 | 1,881 |
| 32768/1024 | 1,623 | 2,052 | 1,929 | 2,307 | 500 |
""",
    "GPT-OSS 20B": """
| Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4) | B300* (beta)<br/>TP1 (FP4) | GB200<br/>TP1 (FP4) | GB300* (beta)<br/>TP1 (FP4) | H200<br/>TP1 (FP8) |
|---|---|---|---|---|---|
| 1024/1024 | 59,084 | 60,925 | 51,870 | 53,604 | 14,719 |
| 1024/8192 | 37,824 | 42,986 | 35,280 | 44,998 | 12,441 |
| 1024/32768 | 15,799 | 17,461 | 17,414 | 19,147 | 4,240 |
| 8192/1024 | 13,439 | 14,955 | 15,466 | 16,880 | 4,196 |
| 32768/1024 | 2,970 | 3,408 | 3,331 | 3,833 | 965 |
""",
    "LLaMA v3.3 70B": """
| Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4) | B300* (beta)<br/>TP1 (FP4) | GB200<br/>TP1 (FP4) | GB300* (beta)<br/>TP1 (FP4) | H200<br/>TP2 (FP8) |
|---|---|---|---|---|---|
| 1024/1024 | 6,943 | 8,196 | 7,576 | 8,910 | 2,637 |
| 1024/8192 | 3,270 | 3,926 | 3,856 | 4,739 | 1,995 |
| 8192/1024 | 1,347 | 1,597 | 1,593 | 1,900 | 544 |
| 32768/1024 | 279 | 351 | 315 | 418 | 120 |
""",
    "Qwen3 235B A22B": """
| Sequence Length (ISL/OSL) | B200<br/>DEP4 (FP4) | B300* (beta)<br/>DEP4 (FP4) | GB200<br/>DEP4 (FP4) | GB300* (beta)<br/>DEP4 (FP4) | H200<br/>DEP4 (FP8) |
|---|---|---|---|---|---|
| 1024/1024 | 6,423 | 8,143 | 6,777 | 8,430 | 3,494 |
| 1024/8192 | 3,881 | 4,938 | 3,955 | 5,110 | 1,677 |
| 1024/32768 | 1,216 | 1,922 | 1,240 | 1,841 | |
| 8192/1024 | 1,518 | 1,730 | 1,575 | 1,791 | 679 |
| 32768/1024 | 326 | 383 | 342 | 398 | 143 |
""",
    "Qwen3 30B A3B": """
| Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4) | B300* (beta)<br/>TP1 (FP4) | GB200<br/>TP1 (FP4) | GB300* (beta)<br/>TP1 (FP4) |
|---|---|---|---|---|
| 1024/1024 | 26,431 | 30,714 | 19,682 | 22,536 |
| 1024/8192 | 13,940 | 15,182 | 14,916 | 16,920 |
| 1024/32768 | 4,570 | 5,209 | | |
| 8192/1024 | 5,945 | 6,374 | 6,450 | 6,947 |
| 32768/1024 | 1,284 | 1,452 | 1,398 | 1,575 |
""",
}
# FACT: non-empty cells per table (a check on the parsing): all columns, then the B300 + GB300 ones taken.
CELLS_ALL = {"Deepseek R1 0528": 19, "GPT-OSS 120B": 24, "GPT-OSS 20B": 25, "LLaMA v3.3 70B": 20,
             "Qwen3 235B A22B": 24, "Qwen3 30B A3B": 18}
CELLS = {"Deepseek R1 0528": 9, "GPT-OSS 120B": 10, "GPT-OSS 20B": 10, "LLaMA v3.3 70B": 8,
         "Qwen3 235B A22B": 10, "Qwen3 30B A3B": 9}

# FACT: the page's 'FP4 Models' and 'FP8 Models' lists, verbatim (no GPT-OSS entry).
FP4_MODELS = """
nvidia/DeepSeek-R1-0528-NVFP4-v2
nvidia/Qwen3-235B-A22B-FP4
nvidia/Qwen3-30B-A3B-FP4
nvidia/Llama-3.3-70B-Instruct-FP4
"""
FP8_MODELS = """
deepseek-ai/DeepSeek-R1-0528
nvidia/Qwen3-235B-A22B-FP8
nvidia/Llama-3.3-70B-Instruct-FP8
"""

# FACT: the page's request table, verbatim ('Preparing a Dataset'); the same counts as the earlier version's.
REQUEST_TABLE = """
| Input Length | Output Length | Number of Requests |
|--------------|---------------|---------------------|
| 1024         | 1024          | 3000                |
| 8192         | 1024          | 1500                |
| 1024         | 8192          | 1500                |
| 32768        | 1024          | 1000                |
| 1024         | 32768         | 1000                |
"""

# FACT: the page's benchmark commands ('Running the Benchmark'), verbatim.
COMMANDS = {
    "dense": ("trtllm-bench --tp $tp_size --pp $pp_size --model $model_name throughput --dataset $dataset_file "
              "--backend pytorch --config $llm_options  --concurrency -1"),
    "moe": ("trtllm-bench --tp $tp_size --pp $pp_size --ep $ep_size --model $model_name throughput --dataset "
            "$dataset_file --backend pytorch --config $llm_options"),
}

# FACT: the page's llm_options.yml per model family, verbatim (label as the page gives it).
BATCHES = "  batch_sizes: [1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192]"
OPTIONS = {
    "Llama 3.3": f"""
cuda_graph_config:
  enable_padding: true
{BATCHES}
""",
    "GPT-OSS": f"""
cuda_graph_config:
  enable_padding: true
{BATCHES}
enable_attention_dp: true
kv_cache_config:
  dtype: fp8
  # Hopper: use auto
moe_config:
  backend: TRTLLM
  # Hopper: use TRITON
""",
    "DeepSeek R1": f"""
attention_dp_config:
  batching_wait_iters: 0
  enable_balance: true
  timeout_iters: 60
enable_attention_dp: true
cuda_graph_config:
  enable_padding: true
{BATCHES}
moe_config:
  backend: CUTLASS
kv_cache_config:
  dtype: fp8
""",
    "Qwen3 MoE, Llama4 Maverick": f"""
enable_attention_dp: true
cuda_graph_config:
  enable_padding: true
{BATCHES}
""",
}

# Column header -> (dse GPU preset, id tag, gpus_per_node, sentence). FACT: the systems (the page's hardware
# list); INFERRED: gpus_per_node (8 per DGX; 4 per NVL72 tray, as the GB200 rows write it).
GPUS = {
    "B300* (beta)": ("B300", "B300", 8, "B300 from a DGX B300 (the page's hardware list: 'B300 288GB (DGX B300) "
                     "(beta)'; dse preset B300); gpus_per_node 8."),
    "GB300* (beta)": ("GB300", "GB300", 4, "GB300 from a GB300 NVL72 (the page's hardware list: 'GB300 288 GB "
                      "(GB300 NVL72) (beta)'; dse preset GB300); gpus_per_node 4 per tray, as the GB200 rows."),
}
BETA = ("The page: 'Note: As of `release/1.2`, support for B300 and GB300 is in beta, and performance data should "
        "not be considered finalized.' (column header '{hdr}').")
METRIC = ("The page also states: \"Data in these tables is taken from the `Per GPU Output Throughput (tps/gpu)` "
          "metric reported by `trtllm-bench`.\"")

# Table -> how its rows are written: family of the options, row id, and (for the hand-written files) the model
# name of the rows that are the template.
FAMILIES = {
    "Deepseek R1 0528": dict(options="DeepSeek R1", id="DeepSeek-R1-0528", rows=MLA_ROWS, name="DeepSeek-R1-0528"),
    "GPT-OSS 120B": dict(options="GPT-OSS", id="GPT-OSS-120B", rows=WINDOWED_ROWS, name="gpt-oss-120b"),
    "GPT-OSS 20B": dict(options="GPT-OSS", id="GPT-OSS-20B", rows=WINDOWED_ROWS, name="gpt-oss-20b"),
    "LLaMA v3.3 70B": dict(options="Llama 3.3", id=MODELS["LLaMA v3.3 70B"]["id"]),
    "Qwen3 235B A22B": dict(options="Qwen3 MoE, Llama4 Maverick", id=MODELS["Qwen3 235B A22B"]["id"]),
    "Qwen3 30B A3B": dict(options="Qwen3 MoE, Llama4 Maverick", id=MODELS["Qwen3 30B A3B"]["id"]),
}

GPT_OSS_BACKEND = ("MoE backend TRTLLM (the page's GPT-OSS llm_options: moe_config backend TRTLLM, '# Hopper: use "
                   "TRITON'; the earlier page version's rows in trtllm_windowed.jsonl say CUTLASS). KV cache FP8 as "
                   "the page's GPT-OSS options state (kv_cache_config dtype fp8, '# Hopper: use auto').")


def request_counts() -> dict:
    """REQUEST_TABLE -> {(isl, osl): count}."""
    lines = [ln.strip().strip("|") for ln in REQUEST_TABLE.strip().splitlines()[2:]]
    counts = {}
    for ln in lines:
        isl, osl, n = (int(c) for c in ln.split("|"))
        counts[(isl, osl)] = n
    return counts


def options_text(label: str) -> str:
    """The family's llm_options on one line: top-level keys, nested keys (and comments) in braces."""
    parts = []
    for ln in OPTIONS[label].strip().splitlines():
        if ln.startswith("  "):
            parts[-1][1].append(ln.strip())
        else:
            parts.append((ln.strip(), []))
    body = "; ".join(k + (" {" + ", ".join(sub) + "}" if sub else "") for k, sub in parts)
    return f"The page's '{label}' llm_options.yml (passed as --config $llm_options): {body}."


def requests_table_text() -> str:
    pairs = ", ".join(f"{i}/{o} {n}" for (i, o), n in request_counts().items())
    return f"The page's request table ($num_requests per input/output length): {pairs}."


def between(text: str, start: str, end: str | None) -> str:
    """The part of text from start (included) to end (excluded; None: to the end); both must be present."""
    i = text.index(start)
    return text[i:] if end is None else text[i:text.index(end, i)]


def templates(path: str, name: str) -> list[dict]:
    """The Blackwell (B200, GB200) rows of one model in a hand-written file of the earlier page version."""
    with open(path) as fh:
        rows = [json.loads(ln) for ln in fh if ln.strip()]
    return [r for r in rows if r["model"]["name"] == name and r["cluster"]["gpu"] in ("B200-180GB", "GB200")]


def mla_template(plan: str) -> tuple[dict, str]:
    """DeepSeek R1: the B200 row of the plan (its notes after the head, identical over ISL/OSL)."""
    m = FAMILIES["Deepseek R1 0528"]
    rows = [r for r in templates(m["rows"], m["name"]) if r["cluster"]["gpu"] == "B200-180GB"
            and f"_{plan.lower()}_" in r["id"]]
    tails = {r["notes"].split("seq_len = ISL+OSL. ", 1)[1] for r in rows}
    assert len(tails) == 1, "trtllm_mla.jsonl B200 rows differ after the head"
    tail = tails.pop()
    # the reused sentences state these options and checkpoint: check they are the release-1.2 page's too
    opts = OPTIONS["DeepSeek R1"]
    for option, said in (("enable_attention_dp: true", "'enable_attention_dp: true' with attention_dp_config "
                          "enable_balance true, batching_wait_iters 0, timeout_iters 60"),
                         ("  enable_balance: true\n", "enable_balance true"),
                         ("  batching_wait_iters: 0\n", "batching_wait_iters 0"),
                         ("  timeout_iters: 60\n", "timeout_iters 60"),
                         ("  backend: CUTLASS\n", "MoE backend CUTLASS"),
                         ("  dtype: fp8\n", "kv_cache_config dtype fp8"),
                         ("nvidia/DeepSeek-R1-0528-NVFP4-v2", "nvidia/DeepSeek-R1-0528-NVFP4-v2")):
        assert option in opts + FP4_MODELS and said in tail, option
    assert "speculative" not in opts and "load_balancer" not in opts
    assert "No speculative decoding" in tail and "the page's options set no load balancer" in tail
    return rows[0], tail


def windowed_template(table: str) -> tuple[dict, str]:
    """GPT-OSS: a Blackwell TP1 row of the model, and its checkpoint + architecture + W4A8 sentences."""
    m = FAMILIES[table]
    rows = [r for r in templates(m["rows"], m["name"]) if "_tp1_" in r["id"]]
    notes = {r["notes"] for r in rows}
    parts = set()
    for n in notes:
        plan = between(n, "Parallel plan TP1:", " Precision FP4")
        ckpt = between(n, "Precision FP4 as the table states; the page lists no FP4 GPT-OSS checkpoint",
                       "; MoE backend CUTLASS")
        arch = between(n, "Architecture from the openai/", " Modelled as precision fp8")
        w4a8 = between(n, "Modelled as precision fp8 with inference.weight_dtype mxfp4", None)
        parts.add((plan, ckpt + ". " + GPT_OSS_BACKEND, arch, w4a8))
    assert len(parts) == 1, f"{table}: trtllm_windowed.jsonl Blackwell TP1 rows differ"
    opts = OPTIONS["GPT-OSS"]
    assert "backend: TRTLLM" in opts and "dtype: fp8" in opts and "enable_attention_dp: true" in opts
    return rows[0], " ".join(parts.pop())


def inference_block(template: dict | None, isl: int, osl: int) -> dict:
    """The inference block: the template row's (without its request count) or the devguide rows'."""
    inference = {"input_len": isl, "output_len": osl, "batch": None, "concurrency": None,
                 "mode": "offline_max_throughput"}
    if template:
        for k, v in template["inference"].items():
            if k not in inference and k != "num_requests":
                inference[k] = v
    return inference


def cases():
    counts = request_counts()
    assert counts == REQUESTS, "the request table changed from the earlier version's"
    # the checkpoints the reused precision sentences name are in this page's FP4 list; GPT-OSS is in neither list
    assert all(CHECKPOINTS[(t, "fp4")] in FP4_MODELS.split() for t in MODELS if t in TABLES)
    assert "gpt-oss" not in (FP4_MODELS + FP8_MODELS).lower()
    for table, text in TABLES.items():
        fam = FAMILIES[table]
        cols, rows = parse(text)
        assert sum(v is not None for vals in rows.values() for v in vals) == CELLS_ALL[table], table
        n_cells = 0
        for (isl, osl), vals in rows.items():
            for (gpu_hdr, plan, prec_hdr), value in zip(cols, vals):
                if value is None or gpu_hdr not in GPUS:
                    continue  # empty cell, or a column of a GPU the earlier files hold
                n_cells += 1
                assert prec_hdr == "FP4"
                gpu, tag, gpn, system = GPUS[gpu_hdr]
                n = int(plan.lstrip("DEPT"))
                if "rows" in fam:  # DeepSeek R1 / GPT-OSS: the hand-written rows of the earlier version
                    if fam["options"] == "DeepSeek R1":
                        tmpl, tail = mla_template(plan)
                    else:
                        tmpl, tail = windowed_template(table)
                    assert tmpl["parallel"]["dp"] * tmpl["parallel"]["tp"] == n
                    block = {k: v for k, v in tmpl["model"].items() if k != "seq_len"}
                    prec, parallel, reliability = tmpl["precision"], tmpl["parallel"], tmpl["reliability"]
                    inference, inferred = inference_block(tmpl, isl, osl), list(tmpl["inferred"])
                    moe = True
                    body = [tail]
                else:  # Llama 3.3, Qwen3: build_trtllm_devguide's conventions
                    m = MODELS[table]
                    block, moe, reliability = m["block"], m["block"]["moe"] is not None, "A"
                    prec = prec_hdr.lower()
                    parallel, ptxt, pinf = plan_text(table, plan, n, m["block"]["moe"])
                    inference = inference_block(None, isl, osl)
                    inferred = ["cluster.gpus_per_node", "model.ffn_act", "model.seq_len", *pinf, "parallel.pp"]
                    if moe:
                        inferred += MOE_INFERRED
                    body = [ptxt, precision_text(table, prec), ARCH[table]]
                command = (f"MoE command '{COMMANDS['moe']}'" if moe else f"dense command '{COMMANDS['dense']}'")
                hdr = f"{gpu_hdr} {plan} ({prec_hdr})"
                notes = [R12_HEAD.format(requests=requests_text(counts, isl, osl), command=command, n=n,
                                         table=table, hdr=hdr),
                         METRIC, requests_table_text(), options_text(fam["options"]), BETA.format(hdr=gpu_hdr),
                         *body, system]
                cid = f"trtllm-devguide1.2_tput_{fam['id']}_{plan.lower()}_{tag}_{isl}-{osl}"
                source = R12_SOURCE.format(table=table, repo=REPO, page=DG_PAGE, fid=R12_FILE_ID)
                yield {"id": cid, "source": source, "reliability": reliability, "workload": "inference",
                       "precision": prec, "model": with_seq_len(block, isl + osl),
                       "cluster": {"gpu": gpu, "num_gpus": n, "gpus_per_node": gpn}, "parallel": parallel,
                       "inference": inference, "target": {"metric": "tokens_per_s_per_gpu", "value": value},
                       "also": {}, "inferred": inferred, "notes": " ".join(t for t in notes if t)}
        assert n_cells == CELLS[table], (table, n_cells)


def main():
    write_cases(list(cases()), OUT)


if __name__ == "__main__":
    main()
