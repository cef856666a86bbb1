#!/usr/bin/env python3
"""Write validation/trtllm_rtx_pro_6000.jsonl: the RTX 6000 Pro Blackwell Server Edition offline-throughput
tables of TensorRT-LLM's performance pages, as inference cases on the dse GPU preset ``RTX-PRO-6000-Server``.
The same pages' other tables are ``trtllm_v1.jsonl`` (v1.0 page) and ``trtllm_devguide.jsonl`` (developer
guide); their row conventions (ids, source, notes, inferred, model blocks) are followed here.

Usage: python validation/build_trtllm_rtx.py   (no network: every number below was read from the pages and is
kept here as a literal, each table verbatim; the model blocks are those of the same models' rows in
``trtllm_v1.jsonl`` / ``build_trtllm_devguide.py``).

Sources (FACT):
  * V1: NVIDIA/TensorRT-LLM ``docs/source/performance/perf-overview.md`` at commit 00f37686aa854010d68bcbd0f4ab000
    221541ca6 (v1.0: '(NEW for v1.0) RTX 6000 Pro Blackwell Server Edition Benchmarks'). Under six model headings
    (Llama 4 Scout, Llama 3.3 70B, Qwen3-235B-A22B, Qwen3-30B-A3B, Llama 4 Maverick, Llama 3.1 405B) a second
    table follows the caption line 'RTX 6000 Pro Blackwell Server Edition' (TABLES_V1). 118 cases, target
    ``tokens_per_s``.
  * DG: ``docs/source/developer-guide/perf-overview.md`` at commit 03e27c7d5ff0c6e89f8328838c0a8e64f1b34f9d, the
    tables 'LLaMA v3.3 70B - RTX 6000 Pro Blackwell Server Edition', 'Qwen3 235B A22B - RTX ...' and 'Qwen3 30B
    A3B - RTX ...' (TABLES_DG; identical at commit 585c756579dc4d01f21fc13c2f604cdb461ac4f0, read). 27 cases,
    target ``tokens_per_s_per_gpu``.
  * R12: the release-1.2 version of the same developer-guide path (code-index file id 53206213621; commit not
    exposed by the index). It states 'As of `release/1.2`, support for B300 and GB300 is in beta', and its
    opening paragraphs are word for word those of https://nvidia.github.io/TensorRT-LLM/1.2.0/developer-guide/
    perf-overview.html (the docs index holds that page's opening only); its changes (B300/GB300 beta, NUMA note,
    Kimi K2 options, '--concurrency -1') are those pull request #12098 '[TRTLLM-9911] [doc] Update
    Perf-Overview.md for Release 1.2' describes. Its three RTX tables (TABLES_R12) hold configurations DG has
    not (TP1,PP4 and TP1,PP8 for Llama 3.3; TP1,PP4 and TP1,PP8 for Qwen3 235B; TP1,PP2/4/8 for Qwen3 30B):
    29 cases, target ``tokens_per_s_per_gpu``.

What the pages state (FACT, quoted in the rows' notes):
  * metric, V1: "The reported metric is `Total Output Throughput (tokens/sec)`." for every table of the page;
    the RTX tables carry no unit of their own and head each column '**N GPUs**' -> target ``tokens_per_s`` of
    the whole N-GPU group, as the v1.0 rows of the other GPUs. DG and R12: "The reported metric is `Output
    Throughput per GPU (tokens/sec/GPU)`.", each RTX table ending "unit: `output tokens per second per GPU`"
    (R12: "*Unit: output tokens per second per GPU*") -> ``tokens_per_s_per_gpu``;
  * RTX, V1 and DG: "RTX 6000 Pro Blackwell Server Edition data is now included in the perf overview. RTX 6000
    systems can benefit from enabling pipeline parallelism (PP) in LLM workloads, so we included several new
    benchmarks for this GPU at various TP x PP combinations. That data is presented in a separate table for
    each network." R12: "RTX 6000 systems can benefit from enabling pipeline parallelism (PP) in LLM workloads.
    Results for various TP x PP combinations on this GPU are presented in a separate table for each network."
    DG/R12 tables: "*Shows Tensor Parallel (TP) and Pipeline Parallel (PP) configurations*";
  * hardware: every page lists 'RTX 6000 Pro Blackwell Server Edition' with no system, server, interconnect or
    GPU count (the other GPUs name theirs: 'B200 180GB (DGX B200)', ...). No page gives an RTX-specific option:
    the same commands and llm_options (CUDA graphs with padding, batch sizes 1 ... 8192; for MoE models
    ``enable_attention_dp: true``, nested under cuda_graph_config on V1) apply to every GPU;
  * commands: ``trtllm-bench --tp $tp_size --pp $pp_size [--ep $ep_size] ... throughput --backend pytorch``
    (values not given; R12 adds ``--concurrency -1`` to the dense command); synthetic dataset of fixed ISL/OSL
    (stdev 0); request counts REQUESTS_V1 / REQUESTS (DG, R12: none for 1000/1000);
  * KV cache: V1 and DG: "In many cases, we also use a higher KV cache percentage by setting
    `--kv_cache_free_gpu_mem_fraction 0.95` ... We fall back to `0.90` or lower if out-of-memory errors are
    encountered."; R12 drops that sentence (its closing warning still says to lower the fraction on OOM). No
    kv_cache_config for these models; R12: "For NUMA systems, consult the 'CPU Affinity configuration in
    TensorRT LLM' guide ... These options were enabled for relevant tests.";
  * precision: every RTX column is FP4: the ModelOpt NVFP4 checkpoints of the pages' FP4 lists (Llama 4 Scout
    and Maverick are not in V1's FP4 list).

What is inferred (INFERRED, listed in each row's ``inferred`` and said in its notes):
  * V1 metric per group, not per GPU: besides the page's one metric sentence, the values say so: Qwen3-30B-A3B
    TP8 at 128/128 is 39,490 (a per-GPU reading would be 8 x 39,490 on 8 RTX GPUs, above B200 TP1's 39,827),
    and the 1000/1000 cells match DG's per-GPU ones once multiplied out (Llama 3.3 TP1,PP2: V1 3,707 for the
    group, DG 1,901 x 2 = 3,802);
  * plans: TPa,PPb = tp a, pp b, dp 1. V1's MoE columns with a > 1 (Scout TP2/TP4, Maverick TP4, Qwen3-235B
    TP2, Qwen3-30B TP2/4/8) are written as the v1.0 rows write TPn: tp a, ep 1, reliability B (the MoE command
    passes ``--ep $ep_size`` without a value and the options ask for attention DP). DG's DEPn,PPb = attention
    DP with expert parallelism over n GPUs in each of b pipeline stages: tp 1, dp n, ep n, pp b, as
    ``build_trtllm_devguide.py`` writes DEPn. TP1 columns of MoE models: ep 1 (TensorRT-LLM's Mapping requires
    moe_tp x moe_ep = tp) and attention DP has nothing to spread over;
  * gpus_per_node 8 (no page says what server held the GPUs; every group here has at most 8);
  * the architectures: the model blocks of the same models (``trtllm_v1.jsonl`` rows; the devguide builder's
    MODELS; case_files.LLAMA31), with Llama 4's chunked attention and ``window_scope: prefill`` as the v1.0
    rows write it (every Llama 4 RTX row has ISL+OSL <= 8192, so the window changes nothing);
  * KV-cache type not stated: inference.kv_cache_dtype left out as in the other rows (dse follows the
    precision).

Left out (FACT):
  * empty cells (V1: Scout TP4,PP2 5000/500, Qwen3-30B TP8,PP1 20000/2000; V1 has no 500/2000 or 20000/2000
    row for Scout, no 20000/2000 for Qwen3-235B and Maverick, four rows fewer for 405B; DG: 1 + 2 + 7; R12: 6);
  * R12 cells that re-measure a configuration DG already has (same table, column and ISL/OSL, other value),
    to keep one case per configuration: Llama 3.3 TP1,PP1 1024/1024 1,724 (DG 1,708) and 8192/1024 306 (296),
    TP1,PP2 1024/1024 1,881 (1,887), 8192/1024 329 (327), 32768/1024 66 (67); Qwen3 30B TP1,PP1 1024/1024
    9,908 (9,755), 1024/8192 3,628 (3,621), 8192/1024 1,925 (1,914), 32768/1024 372 (374) (LEFT_OUT_R12);
  * identical values, no second case: DG's three RTX tables at 585c7565 (= 03e27c7d); a later copy of V1's path
    in the code index (file id 1183216079, commit not exposed) repeats V1's RTX tables without their 128/128
    rows, every other value equal;
  * R12's table of contents lists 'Deepseek R1 0528 - RTX 6000 Pro Blackwell Server Edition', but the page has
    no such table. An earlier developer-guide version (file id 19286142392, commit not exposed; older than DG:
    'RTX Configurations (TP/PP)', "Shows only the best configuration per GPU count based on throughput per
    GPU", its header still naming 'Total Output Throughput (tokens/sec)' while its Units say per GPU) has other
    RTX configurations (Maverick DEP4,PP1 / DEP8,PP1; Qwen3 235B DEP4,PP1; Qwen3 30B DEP4,PP2): not a later
    version, no commit, and its metric is ambiguous, so no case.
"""
import json
import os

from build_trtllm_devguide import (ARCH, COMMIT as DG_COMMIT, HEAD as DG_HEAD, MODELS, REPO, REQUESTS,
                                   SAME_AT as DG_SAME_AT, SOURCE as DG_SOURCE, PAGE as DG_PAGE, parse,
                                   plan_text, precision_text, window_text, with_seq_len)
from case_files import LLAMA31, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "trtllm_rtx_pro_6000.jsonl")
V1_ROWS = os.path.join(HERE, "trtllm_v1.jsonl")

GPU = "RTX-PRO-6000-Server"  # dse preset: NVIDIA RTX PRO 6000 Blackwell Server Edition
GPU_TAG = "RTXPRO6000"
GPUS_PER_NODE = 8  # INFERRED: no page names the RTX system

V1_PAGE = "docs/source/performance/perf-overview.md"
V1_COMMIT = "00f37686aa854010d68bcbd0f4ab000221541ca6"
R12_FILE_ID = "53206213621"

# FACT: V1's RTX tables, verbatim; on the page each follows its model's table and the line
# 'RTX 6000 Pro Blackwell Server Edition'. Unit: the page's `Total Output Throughput (tokens/sec)`.
TABLES_V1 = {
    "Llama 4 Scout": """
| Sequence Length (ISL/OSL) | **4 GPUs**<br/>TP2,PP2 (FP4) | **8 GPUs**<br/>TP4,PP2 (FP4) |
|---|---|---|
| 128/128 | 18,644 | 23,454 |
| 128/2048 | 12,321 | 21,035 |
| 128/4096 | 7,643 | 13,421 |
| 1000/1000 | 9,476 | 15,781 |
| 1000/2000 | 8,919 | 16,434 |
| 2048/128 | 2,615 | 2,941 |
| 2048/2048 | 6,208 | 10,410 |
| 5000/500 | 2,662 | |
""",
    "Llama 3.3 70B": """
| Sequence Length (ISL/OSL) | **1 GPUs**<br/>TP1,PP1 (FP4) | **2 GPUs**<br/>TP1,PP2 (FP4) | **4 GPUs**<br/>TP1,PP4 (FP4) | **8 GPUs**<br/>TP1,PP8 (FP4) |
|---|---|---|---|---|
| 128/128 | 3,264 | 6,172 | 9,641 | 11,881 |
| 128/2048 | 2,422 | 4,993 | 7,922 | 9,833 |
| 128/4096 | 1,349 | 2,893 | 4,978 | 7,352 |
| 500/2000 | 1,856 | 4,114 | 6,939 | 9,435 |
| 1000/1000 | 1,787 | 3,707 | 5,961 | 8,166 |
| 1000/2000 | 1,594 | 2,993 | 5,274 | 6,943 |
| 2048/128 | 393 | 813 | 1,511 | 2,495 |
| 2048/2048 | 1,074 | 2,336 | 3,870 | 6,078 |
| 5000/500 | 401 | 812 | 1,511 | 2,491 |
| 20000/2000 | 142 | 319 | 630 | 1,148 |
""",
    "Qwen3-235B-A22B": """
| Sequence Length (ISL/OSL) | **8 GPUs**<br/>TP2,PP4 (FP4) |
|---|---|
| 128/128 | 18,890 |
| 128/2048 | 12,494 |
| 128/4096 | 7,715 |
| 500/2000 | 11,157 |
| 1000/1000 | 10,697 |
| 1000/2000 | 10,109 |
| 2048/128 | 3,181 |
| 2048/2048 | 6,712 |
| 5000/500 | 3,173 |
""",
    "Qwen3-30B-A3B": """
| Sequence Length (ISL/OSL) | **1 GPUs**<br/>TP1,PP1 (FP4) | **2 GPUs**<br/>TP2,PP1 (FP4) | **4 GPUs**<br/>TP4,PP1 (FP4) | **8 GPUs**<br/>TP8,PP1 (FP4) |
|---|---|---|---|---|
| 128/128 | 28,011 | 32,646 | 36,819 | 39,490 |
| 128/2048 | 12,540 | 22,744 | 35,715 | 52,676 |
| 128/4096 | 7,491 | 15,049 | 28,139 | 33,895 |
| 500/2000 | 10,695 | 17,266 | 26,175 | 44,088 |
| 1000/1000 | 9,910 | 16,431 | 24,046 | 31,785 |
| 1000/2000 | 8,378 | 13,323 | 25,131 | 28,881 |
| 2048/128 | 3,257 | 3,785 | 4,311 | 4,798 |
| 2048/2048 | 5,908 | 10,679 | 18,134 | 22,391 |
| 5000/500 | 2,530 | 3,799 | 5,212 | 5,965 |
| 20000/2000 | 871 | 1,558 | 2,551 | |
""",
    "Llama 4 Maverick": """
| Sequence Length (ISL/OSL) | **8 GPUs**<br/>TP4,PP2 (FP4) |
|---|---|
| 128/128 | 30,583 |
| 128/2048 | 19,146 |
| 128/4096 | 12,165 |
| 500/2000 | 17,870 |
| 1000/1000 | 15,954 |
| 1000/2000 | 12,456 |
| 2048/128 | 4,463 |
| 2048/2048 | 10,727 |
| 5000/500 | 4,613 |
""",
    "Llama 3.1 405B": """
| Sequence Length (ISL/OSL) | **8 GPUs**<br/>TP1,PP8 (FP4) |
|---|---|
| 128/128 | 4,452 |
| 128/2048 | 2,981 |
| 1000/1000 | 2,369 |
| 1000/2000 | 1,931 |
| 2048/128 | 579 |
| 2048/2048 | 1,442 |
""",
}

# FACT: DG's RTX tables at 03e27c7d (identical at 585c7565), verbatim; each ends "unit: `output tokens per
# second per GPU`".
TABLES_DG = {
    "LLaMA v3.3 70B - RTX 6000 Pro Blackwell Server Edition": """
| Sequence Length (ISL/OSL) | **1 GPUs**<br/>TP1,PP1 (FP4) | **2 GPUs**<br/>TP1,PP2 (FP4) |
|---|---|---|
| 1000/1000 | 1,724 | 1,901 |
| 1024/1024 | 1,708 | 1,887 |
| 8192/1024 | 296 | 327 |
| 32768/1024 | | 67 |
""",
    "Qwen3 235B A22B - RTX 6000 Pro Blackwell Server Edition": """
| Sequence Length (ISL/OSL) | **4 GPUs**<br/>DEP2,PP2 (FP4) | **8 GPUs**<br/>DEP8,PP1 (FP4) |
|---|---|---|
| 1000/1000 | 1,731 | 969 |
| 1024/1024 | 1,732 | 963 |
| 1024/8192 | 644 | 711 |
| 32768/1024 | 70 | |
""",
    "Qwen3 30B A3B - RTX 6000 Pro Blackwell Server Edition": """
| Sequence Length (ISL/OSL) | **2 GPUs**<br/>DEP2,PP1 (FP4) | **4 GPUs**<br/>DEP2,PP2 (FP4) | **8 GPUs**<br/>DEP8,PP1 (FP4) | **1 GPUs**<br/>TP1,PP1 (FP4) |
|---|---|---|---|---|
| 1000/1000 | 8,409 | 7,059 | 3,985 | 9,938 |
| 1024/1024 | | 7,019 | | 9,755 |
| 1024/8192 | 3,577 | | 2,406 | 3,621 |
| 8192/1024 | | 1,416 | | 1,914 |
| 32768/1024 | | | 180 | 374 |
""",
}

# FACT: R12's RTX tables, verbatim; each ends "*Unit: output tokens per second per GPU*".
TABLES_R12 = {
    "LLaMA v3.3 70B - RTX 6000 Pro Blackwell Server Edition": """
| Sequence Length (ISL/OSL) | **1 GPUs**<br/>TP1,PP1 (FP4) | **2 GPUs**<br/>TP1,PP2 (FP4) | **4 GPUs**<br/>TP1,PP4 (FP4) | **8 GPUs**<br/>TP1,PP8 (FP4) |
|---|---|---|---|---|
| 1024/1024 | 1,724 | 1,881 | 1,798 | 1,545 |
| 1024/8192 | | | 675 | 630 |
| 8192/1024 | 306 | 329 | 323 | 307 |
| 32768/1024 | | 66 | 66 | 64 |
""",
    "Qwen3 235B A22B - RTX 6000 Pro Blackwell Server Edition": """
| Sequence Length (ISL/OSL) | **4 GPUs**<br/>TP1,PP4 (FP4) | **8 GPUs**<br/>TP1,PP8 (FP4) |
|---|---|---|
| 1024/1024 | 1,529 | 1,185 |
| 1024/8192 | 495 | 495 |
| 8192/1024 | 343 | 337 |
| 32768/1024 | 81 | 83 |
""",
    "Qwen3 30B A3B - RTX 6000 Pro Blackwell Server Edition": """
| Sequence Length (ISL/OSL) | **1 GPUs**<br/>TP1,PP1 (FP4) | **2 GPUs**<br/>TP1,PP2 (FP4) | **4 GPUs**<br/>TP1,PP4 (FP4) | **8 GPUs**<br/>TP1,PP8 (FP4) |
|---|---|---|---|---|
| 1024/1024 | 9,908 | 8,187 | 6,931 | 3,065 |
| 1024/8192 | 3,628 | 3,281 | 3,024 | 1,968 |
| 1024/32768 | | | | 918 |
| 8192/1024 | 1,925 | 1,805 | 1,656 | 1,193 |
| 32768/1024 | 372 | 356 | 349 | 318 |
""",
}

# FACT: cases per table (a check on the parsing); R12 cells of DG's configurations are left out (9).
CELLS = {"V1": {"Llama 4 Scout": 15, "Llama 3.3 70B": 40, "Qwen3-235B-A22B": 9, "Qwen3-30B-A3B": 39,
                "Llama 4 Maverick": 9, "Llama 3.1 405B": 6},
         "DG": {"LLaMA v3.3 70B": 7, "Qwen3 235B A22B": 7, "Qwen3 30B A3B": 13},
         "R12": {"LLaMA v3.3 70B": 8, "Qwen3 235B A22B": 8, "Qwen3 30B A3B": 13}}
LEFT_OUT_R12 = 9

# FACT: V1's request table ($num_requests per ISL/OSL).
REQUESTS_V1 = {(128, 128): 30000, (128, 2048): 3000, (128, 4096): 1500, (1000, 2000): 1500, (2048, 128): 3000,
               (2048, 2048): 1500, (5000, 500): 1500, (1000, 1000): 3000, (500, 2000): 3000, (20000, 2000): 1000}

# V1 table -> (id, model name in trtllm_v1.jsonl, FP4 checkpoint of V1's 'FP4 Models' list or None).
MODELS_V1 = {
    "Llama 4 Scout": ("Llama4-Scout", "Llama 4 Scout 17B-16E", None),
    "Llama 3.3 70B": ("Llama3.3-70B", "Llama 3.3 70B", "nvidia/Llama-3.3-70B-Instruct-FP4"),
    "Qwen3-235B-A22B": ("Qwen3-235B-A22B", "Qwen3-235B-A22B", "nvidia/Qwen3-235B-A22B-FP4"),
    "Qwen3-30B-A3B": ("Qwen3-30B-A3B", "Qwen3-30B-A3B", "nvidia/Qwen3-30B-A3B-FP4"),
    "Llama 4 Maverick": ("Llama4-Maverick", "Llama 4 Maverick 17B-128E", None),
    "Llama 3.1 405B": ("Llama3.1-405B", "Llama 3.1 405B", "nvidia/Llama-3.1-405B-Instruct-FP4"),
}
# The devguide builder's keys for the same models (its MODELS / ARCH / CHECKPOINTS).
DG_KEY = {"Llama 3.3 70B": "LLaMA v3.3 70B", "Qwen3-235B-A22B": "Qwen3 235B A22B", "Qwen3-30B-A3B": "Qwen3 30B A3B",
          "Llama 4 Maverick": "LLaMA v4 Maverick"}

# INFERRED: architecture note of V1's Scout rows (the Maverick note's shared part, then Scout's own figures).
ARCH_SCOUT = (ARCH["LLaMA v4 Maverick"].split("; Maverick:")[0]
              + "; Scout: 16 experts, interleave_moe_layer_step 1 (every layer MoE), so ffn_hidden = expert size.")
MOE_INFERRED = ["model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.head_dim",
                "model.ffn_hidden", "model.vocab", "model.moe", "model.moe.shared_experts", "model.moe.dense_layers"]

RTX_V1 = ("The page: 'RTX 6000 Pro Blackwell Server Edition data is now included in the perf overview. RTX 6000 "
          "systems can benefit from enabling pipeline parallelism (PP) in LLM workloads, so we included several new "
          "benchmarks for this GPU at various TP x PP combinations. That data is presented in a separate table for "
          "each network.'")
RTX_R12 = ("The page: 'RTX 6000 systems can benefit from enabling pipeline parallelism (PP) in LLM workloads. Results "
           "for various TP x PP combinations on this GPU are presented in a separate table for each network.'")
SYSTEM = ("GPU: RTX 6000 Pro Blackwell Server Edition (dse preset {gpu}); the page's hardware list names the GPU only "
          "('RTX 6000 Pro Blackwell Server Edition'), no server, interconnect or GPUs per node (it names 'DGX B200', "
          "'GB200 NVL72' ... for the others); gpus_per_node 8 assumed (the group has {n}). No RTX-specific option "
          "is given: the same commands and llm_options as for the other GPUs.")

V1_SOURCE = ("TensorRT-LLM v1.0 perf-overview.md table '{table}' / 'RTX 6000 Pro Blackwell Server Edition' (the "
             "table after '{table}' captioned 'RTX 6000 Pro Blackwell Server Edition'; {repo} {page} at commit "
             "{commit}; the page documents v1.0: '(NEW for v1.0) RTX 6000 Pro Blackwell Server Edition Benchmarks', "
             "PyTorch backend)")
R12_SOURCE = ("TensorRT-LLM dev guide perf-overview.md, release 1.2 version, table '{table}' ({repo} {page}, the "
              "version that states 'As of `release/1.2`, support for B300 and GB300 is in beta' (code-index file id "
              "{fid}; commit not exposed by the index; its opening is word for word that of "
              "https://nvidia.github.io/TensorRT-LLM/1.2.0/developer-guide/perf-overview.html; the changes pull "
              "request #12098 '[TRTLLM-9911] [doc] Update Perf-Overview.md for Release 1.2' describes), PyTorch "
              "backend)")

V1_HEAD = ("TensorRT-LLM v1.0 trtllm-bench throughput, PyTorch backend, offline max-throughput ({requests}; in-flight "
           "batching, dynamic batch; CUDA graphs with padding, batch sizes up to 8192; kv_cache_free_gpu_mem_fraction "
           "0.95 'in many cases', 0.90 or lower on OOM). The page states: \"The reported metric is `Total Output "
           "Throughput (tokens/sec)`.\" (trtllm-bench output tokens/s for the whole group of GPUs; input tokens not "
           "counted; the RTX tables have no unit of their own and head the column '{n} GPUs'). Table '{table}' / "
           "'RTX 6000 Pro Blackwell Server Edition', column {hdr}; value is for the whole group of {n} GPU(s). "
           "ISL/OSL fixed (stdev 0); seq_len = ISL+OSL.")
R12_HEAD = ("TensorRT-LLM trtllm-bench throughput (release 1.2 page), PyTorch backend, offline max-throughput "
            "({requests}; in-flight batching, dynamic batch; CUDA graphs with padding, batch sizes up to 8192; "
            "{command}; this version no longer says kv_cache_free_gpu_mem_fraction 0.95 was used, only to lower it "
            "on OOM). The page states: \"The reported metric is `Output Throughput per GPU (tokens/sec/GPU)`.\" and "
            "\"All performance values are measured in `output tokens per second per GPU`, where `output tokens` "
            "refers to all generated tokens (excluding input/prompt tokens).\", hence target tokens_per_s_per_gpu: "
            "the {n} GPU(s) of the run produced {n} x this figure. Table '{table}', column {hdr}. ISL/OSL fixed "
            "(stdev 0); seq_len = ISL+OSL. The page: 'For NUMA systems, consult the \"CPU Affinity configuration in "
            "TensorRT LLM\" guide to achieve best performance. These options were enabled for relevant tests.'")


def v1_blocks() -> dict:
    """Model name -> model block (without seq_len) of the first trtllm_v1.jsonl row of that model."""
    blocks = {}
    with open(V1_ROWS) as fh:
        for line in fh:
            model = json.loads(line)["model"]
            blocks.setdefault(model["name"], {k: v for k, v in model.items() if k != "seq_len"})
    return blocks


def column(hdr: str, plan: str) -> tuple[int, str, int, int]:
    """'**4 GPUs**', 'DEP2,PP2' -> (GPUs, 'DEP2', group size 2, pp 2), checking GPUs = group x pp."""
    group, stage = plan.split(",")
    n, pp = int(hdr.strip("*").split()[0]), int(stage.removeprefix("PP"))
    size = int(group.lstrip("DEPT"))
    assert n == size * pp, (hdr, plan)
    return n, group, size, pp


def stages(layers: int, pp: int) -> str:
    """TensorRT-LLM's layer split over pp stages (Mapping.pp_layers: torch.tensor_split, first stages one more)."""
    if pp == 1:
        return ""
    big, extra = divmod(layers, pp)
    split = f"{big} layers each" if not extra else f"{extra} stage(s) of {big + 1} layers, {pp - extra} of {big}"
    return f"{pp} pipeline stages of its {layers} layers ({split}; TensorRT-LLM's Mapping.pp_layers)"


def pp_plan(group: str, size: int, pp: int, block: dict, opts: str | None) -> tuple[dict, str]:
    """The parallel block and notes sentence of a TPa,PPb column with pp > 1 (plan_text covers PP1 and DEPn)."""
    par = {"tp": size, "pp": pp, "dp": 1, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 0, "recompute": "none",
           "microbatch": None, "global_batch": None}
    per_stage = "one GPU in each" if size == 1 else f"tensor parallelism over {size} GPUs in each"
    txt = (f"Parallel plan {group},PP{pp} as the column header states: {per_stage} of {stages(block['layers'], pp)}; "
           f"{size * pp} GPUs in all; tp {size}, pp {pp}, dp 1 (the page's command 'trtllm-bench --tp $tp_size --pp "
           "$pp_size', values not given).")
    if opts and size == 1:
        txt += (f" The '{opts}' llm_options' 'enable_attention_dp: true' has no TP ranks to spread attention over, "
                "and ep is 1: TensorRT-LLM's Mapping requires moe_tp x moe_ep = tp = 1.")
    return par, txt


def cell(tables: dict, table: str, plan: str, isl: int, osl: int) -> float:
    """One cell of a verbatim table: the value in column ``plan`` (e.g. 'DEP8,PP1') and row ISL/OSL."""
    cols, rows = parse(tables[table])
    return dict(zip((c[1] for c in cols), rows[(isl, osl)]))[plan]


def dep_evidence() -> str:
    """V1's Qwen3-30B-A3B TPn cells at 1000/1000 (the group's tokens/s) beside DG's DEPn cells x n (per GPU):
    the same runs, within 3%."""
    texts = []
    for n in (8, 2):
        v1 = cell(TABLES_V1, "Qwen3-30B-A3B", f"TP{n},PP1", 1000, 1000)
        dg = cell(TABLES_DG, "Qwen3 30B A3B - RTX 6000 Pro Blackwell Server Edition", f"DEP{n},PP1", 1000, 1000)
        assert abs(v1 / (n * dg) - 1.0) < 0.03, (n, v1, dg)
        texts.append(f"TP{n} {v1:,.0f} for the group; DEP{n} {dg:,.0f} per GPU x {n} = {n * dg:,.0f}")
    return "; ".join(texts)


def moe_split_v1(plan: str, tp: int, pp: int) -> tuple[dict, str]:
    """The parallel block and notes sentence of V1's MoE column TPn (n > 1): attention DP with EP over n GPUs."""
    par = {"tp": 1, "pp": pp, "dp": tp, "cp": 1, "ep": tp, "sp": False, "vpp": 1, "zero": 0, "recompute": "none",
           "microbatch": None, "global_batch": None}
    return par, (f"MoE parallel split not stated: the page labels the column {plan}, its MoE command passes '--ep "
                 "$ep_size' without giving the value, and its MoE llm_options list 'enable_attention_dp: true' "
                 f"(nested under cuda_graph_config). Recorded as DEP{tp}: attention data parallelism with expert "
                 f"parallelism over the {tp} GPUs of each stage (tp 1, dp {tp}, ep {tp}, pp {pp}), as the developer guide "
                 "labels the same models' columns. The values say so: Qwen3-30B-A3B's TP8 and TP2 cells at 1000/1000 "
                 f"({dep_evidence()}) equal the developer guide's DEP8 and DEP2 cells on these GPUs, multiplied out.")


def requests_text(counts: dict, isl: int, osl: int) -> str:
    reqs = counts.get((isl, osl))
    if reqs:
        return f"all {reqs} requests queued at once"
    return (f"all requests queued at once; the page lists no request count for {isl}/{osl}, the v1.0 page used "
            "3000")


def case(cid, source, prec, block, isl, osl, n, par, metric, value, inferred, notes, reliability="A"):
    inference = {"input_len": isl, "output_len": osl, "batch": None, "concurrency": None,
                 "mode": "offline_max_throughput"}
    if "attention_window" in block:
        inference["window_scope"] = "prefill"
    return {"id": cid, "source": source, "reliability": reliability, "workload": "inference", "precision": prec,
            "model": with_seq_len(block, isl + osl),
            "cluster": {"gpu": GPU, "num_gpus": n, "gpus_per_node": GPUS_PER_NODE}, "parallel": par,
            "inference": inference, "target": {"metric": metric, "value": value}, "also": {}, "inferred": inferred,
            "notes": " ".join(t for t in notes if t)}


def v1_cases(blocks: dict):
    for table, text in TABLES_V1.items():
        mid, name, ckpt = MODELS_V1[table]
        block = blocks[name]
        moe = block["moe"] is not None
        cols, rows = parse(text)
        n_cells = 0
        for (isl, osl), vals in rows.items():
            for (hdr, plan, prec_hdr), value in zip(cols, vals):
                if value is None:
                    continue
                n_cells += 1
                n, group, tp, pp = column(hdr, plan)
                par, ptxt = pp_plan(group, tp, pp, block, None)
                if pp == 1:  # TPn,PP1
                    ptxt = (f"Parallel plan {plan} as the column header states: "
                            + ("one GPU." if tp == 1 else f"tensor parallelism over {tp} GPUs; tp {tp}, pp 1, dp 1."))
                prec = prec_hdr.lower()
                ptext = (f"Precision FP4 as the table states: NVFP4 weights from the ModelOpt checkpoint {ckpt}; "
                         "KV-cache dtype not stated." if ckpt else
                         "Precision FP4 as the table states: NVFP4 weights from the ModelOpt checkpoint (this model "
                         "is not in the page's FP4 model list); KV-cache dtype not stated.")
                arch = ARCH_SCOUT if table == "Llama 4 Scout" else ARCH.get(DG_KEY.get(table, ""), "")
                notes = [V1_HEAD.format(requests=requests_text(REQUESTS_V1, isl, osl), n=n, table=table,
                                        hdr=f"'{n} GPUs' {plan} ({prec_hdr})"),
                         ptxt, RTX_V1, ptext, SYSTEM.format(gpu=GPU, n=n), arch,
                         window_text(isl, osl) if "attention_window" in block else ""]
                inferred = ["cluster.gpus_per_node", "model.ffn_act", "model.seq_len", "parallel.dp"]
                if moe:
                    inferred += MOE_INFERRED
                if moe and tp > 1:
                    par, split = moe_split_v1(plan, tp, pp)
                    notes.append(split)
                    inferred += ["parallel.tp", "parallel.ep"]
                plan_id = f"tp{tp}" + (f"pp{pp}" if pp > 1 else "")
                yield case(f"trtllm1.0_tput_{mid}_{plan_id}_{GPU_TAG}_{isl}-{osl}",
                           V1_SOURCE.format(table=table, repo=REPO, page=V1_PAGE, commit=V1_COMMIT), prec, block,
                           isl, osl, n, par, "tokens_per_s", value, inferred, notes,
                           reliability="B" if moe and tp > 1 else "A")
        assert n_cells == CELLS["V1"][table], (table, n_cells)


def dg_cases(tables: dict, release: str, skip: set):
    """DG (release '') or R12 (release '1.2') RTX tables; cells whose (table, plan, ISL/OSL) is in skip left out."""
    counts = dict.fromkeys(CELLS["R12" if release else "DG"], 0)
    left_out = 0
    for table, text in tables.items():
        key = table.split(" - ")[0]
        m = MODELS[key]
        block, opts = m["block"], m["options"]
        moe = block["moe"]
        cols, rows = parse(text)
        for (isl, osl), vals in rows.items():
            for (hdr, plan, prec_hdr), value in zip(cols, vals):
                if value is None:
                    continue
                if (table, plan, isl, osl) in skip:
                    left_out += 1
                    continue
                counts[key] += 1
                n, group, size, pp = column(hdr, plan)
                if pp == 1:
                    par, ptxt, pinf = plan_text(key, group, size, moe)
                elif group.startswith("DEP"):
                    par, ptxt, pinf = plan_text(key, group, size, moe)
                    par["pp"] = pp
                    ptxt += (f" PP{pp} as the header states: the DEP{size} group repeats in each of "
                             f"{stages(block['layers'], pp)}; {n} GPUs in all; written pp {pp}.")
                else:
                    par, ptxt = pp_plan(group, size, pp, block, opts if moe else None)
                    pinf = ["parallel.dp"]
                prec = prec_hdr.lower()
                hdr_txt = f"'{n} GPUs' {plan} ({prec_hdr})"
                requests = requests_text(REQUESTS, isl, osl)
                if release:
                    command = ("dense command 'trtllm-bench --tp $tp_size --pp $pp_size ... --concurrency -1'"
                               if moe is None else "MoE command 'trtllm-bench --tp $tp_size --pp $pp_size --ep "
                               "$ep_size ...'")
                    head = R12_HEAD.format(requests=requests, command=command, n=n, table=table, hdr=hdr_txt)
                    rtx = RTX_R12
                    source = R12_SOURCE.format(table=table, repo=REPO, page=DG_PAGE, fid=R12_FILE_ID)
                else:
                    head = DG_HEAD.format(requests=requests, n=n, table=table, gpu=f"'{n} GPUs'", plan=plan,
                                          prec=prec_hdr)
                    rtx = RTX_V1
                    source = DG_SOURCE.format(table=table, repo=REPO, page=DG_PAGE, commit=DG_COMMIT, same=DG_SAME_AT)
                rtx += " The table's caption: 'Shows Tensor Parallel (TP) and Pipeline Parallel (PP) configurations'."
                notes = [head, ptxt, rtx, precision_text(key, prec), SYSTEM.format(gpu=GPU, n=n), ARCH[key]]
                inferred = ["cluster.gpus_per_node", "model.ffn_act", "model.seq_len", *pinf]
                if moe:
                    inferred += MOE_INFERRED
                plan_id = group.lower() + (f"pp{pp}" if pp > 1 else "")
                prefix = f"trtllm-devguide{release}"
                yield case(f"{prefix}_tput_{m['id']}_{plan_id}_{GPU_TAG}_{isl}-{osl}", source, prec, block, isl, osl,
                           n, par, "tokens_per_s_per_gpu", value, inferred, notes)
    assert counts == CELLS["R12" if release else "DG"], counts
    assert left_out == (LEFT_OUT_R12 if release else 0), left_out


def cases():
    blocks = v1_blocks()
    # The model blocks are those of the same models elsewhere: check that the sources agree.
    for table, (_, name, _) in MODELS_V1.items():
        if table in DG_KEY:
            assert blocks[name] == MODELS[DG_KEY[table]]["block"], table
    assert blocks["Llama 3.1 405B"] == LLAMA31["405B"]
    dg_configs = set()
    for table, text in TABLES_DG.items():
        cols, rows = parse(text)
        dg_configs |= {(table, plan, isl, osl) for (isl, osl), vals in rows.items()
                       for (_, plan, _), v in zip(cols, vals) if v is not None}
    yield from v1_cases(blocks)
    yield from dg_cases(TABLES_DG, "", set())
    yield from dg_cases(TABLES_R12, "1.2", dg_configs)


def main():
    write_cases(list(cases()), OUT)


if __name__ == "__main__":
    main()
