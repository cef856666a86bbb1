#!/usr/bin/env python3
"""Write validation/nemo_perf_summary.jsonl: NVIDIA NeMo Framework "Performance Summary" pre-training rows
of the NeMo 2.0 era (containers 24.09, 25.02, 25.04, 25.07) that no other case file already holds.

Usage: python validation/build_nemo_perf_summary.py   (no network: every number below was read from the
pages named in PAGES and is kept here as a literal).

Where the tables were read. The NeMo user guide's performance page, as stored copies of
docs.nvidia.com (the NVIDIA/NeMo repository's ``docs/source/performance/performance_summary.md`` is stored
only at @070a0bb1, the NeMo 24.07 version whose rows ../shared/validation/llm.jsonl already holds; none of
its five later stored versions could be reached). Every stored copy of a page gives only the page's first
~2,500 characters, so only the first table(s) of each version could be read:

- 24.09: https://docs.nvidia.com/nemo-framework/user-guide/24.09/performance/performance_summary.html --
  the whole "Pretraining" table (12 rows, FP8; columns #-GPUs, GBS, MBS, Sequence Length, TP, PP, CP, VP,
  Tokens/sec/GPU, Model TFLOP/sec/GPU, est. days). The stored text drops the page's bullet lists, so the
  container and system lines are not in it: container 24.09 is INFERRED from the documentation tree the page
  belongs to, system DGX-H100 from the 24.07 version of the same table (NVIDIA/NeMo @070a0bb1, "System:
  DGX-H100"), whose 12 plans it repeats with figures 0-5.5% apart. The Fine-Tuning table is cut off.
- 25.02: https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance_summary.html, the
  stored copy (two renderings) saying "Container: NeMo 25.02", "System: DGX-B200": the whole DGX-B200 table
  (8 rows, FP8, with EP and GA columns, no FSDP column) and the first DGX-H100 row (GPT3-175B, 512 GPUs).
  One rendering leaves the GPT3-175B TFLOP/s cell empty, the other prints 1722 (kept).
- 25.04: https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/archive/25.04-performance-summary.html
  and the stored copies of .../latest/performance/performance_summary.html saying "Container: NeMo 25.04":
  the DGX-GB200 table (FP8 with per-tensor current scaling, as the page says) through GPT3-175B, LLAMA3-8B,
  -70B, -405B, Nemotron-15B, -340B, Mixtral-8x7B and Mixtral-8x22B, whose TFLOP/s cell is cut after "10"
  (not kept; NeMo's count below gives 1008). GPT3-175B's TFLOP/s cell is empty in the compact rendering,
  1942 in the other (kept). The B200 and H100 tables of 25.04 are beyond every stored excerpt.
- 25.07: https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance-summary.html
  ("Container: NeMo 25.07", "System: DGX-GB200"): LLAMA3-8B, LLAMA3-70B, LLAMA3.1-405B, LLAMA4-Scout-LLM and
  the plan of LLAMA4-Maverick-LLM, whose figures are cut off. Cells "a (b)" give two runs. The page's footnote
  is beyond the excerpt: that the parenthesized runs are MXFP8 is INFERRED (reliability B), as
  build_megatron_bridge_2509.py did for the 25.09 tables of the same form (25.11 labels them "FP8-CS
  (FP8-MX)"; NeMo's scripts/performance/helpers.py has fp8_recipe "cs" and "mxfp8"); the unparenthesized
  runs are FP8 with per-tensor current scaling, as the page's sentence above the table says. Where a plan
  cell is "a (b)", the parenthesized run takes (b).
- 24.12: no stored copy of a 24.12 page was found.

Precision: every table is FP8 (dse ``fp8``). 25.02 does not name the scaling recipe; the performance scripts
of the time set ``bf16_with_fp8_mixed()`` (delayed scaling; scripts/llm/performance/pretrain_nemotron3_22b.py
@1dcbd6c2, scripts/performance/llm/pretrain_mixtral_8x22b.py @00c06c8d) -- INFERRED, id slug ``fp8``.

Left out (LEFT_OUT below, with the figures), as repeats -- a run whose model, system, dse precision and plan
(GPUs, GBS, MBS, TP, PP, CP, VP, EP, FSDP) equal a row of ../shared/validation/llm.jsonl or
validation/megatron_bridge*.jsonl, or a newer row of this file: the 24.09 GPT3-5B, -20B, -175B (128 and 512
GPUs), LLAMA2-7B, -13B, -70B, Nemotron-340B, LLAMA3-8B and -70B rows (all NeMo 24.07 DGX-H100 plans in
llm.jsonl); the 25.02 DGX-H100 GPT3-175B 512-GPU row (the same); the 25.02 B200 LLAMA3-8B and LLAMA3-405B
rows, the 25.04 GB200 LLAMA3-8B and LLAMA3-405B rows and the 25.07 GB200 LLAMA3-8B and LLAMA3.1-405B rows (both
runs each) (Megatron-Bridge 25.09/25.11 plans); the 25.04 GB200 LLAMA3-70B FSDP row (4035; the 25.07 row of
the same plan is kept, as build_megatron_bridge_2509.py keeps the newer container). The 25.07 LLAMA4-Scout
MXFP8 run (10717) shares its plan with the FP8-CS run and is kept in that case's notes only. Not readable:
LLAMA4-Maverick-LLM 25.07 (figures cut off), everything after the first table(s) of each page (25.02 H100
beyond its first row, 25.04 and 25.07 B200/H100, all Fine-Tuning tables, hence no fine-tuning case). No
hybrid Mamba (Nemotron-H) row was among the tables read. Every plan was checked: tp x pp x dp x cp = GPUs and
GA = GBS / (MBS x dp) equals the GA column where the table has one; no row read failed it once the Mixtral-8x22B
swap below is applied.

Inferred (each case's ``inferred``): gpus_per_node (4 on GB200 compute trays, 8 on DGX-B200/H100),
dp = GPUs / (tp pp cp), sp = (tp > 1) (the scripts' set_primary_perf_configs), FSDP 0 or no FSDP column ->
zero 1 (distributed optimizer, NeMo's default), FSDP 1 -> zero 3 (Megatron FSDP, data_parallel_sharding_strategy
optim_grads_params), no recompute and no activation offloading (the recommended-config CSVs,
scripts/performance/recommended_model_configs/model_configs_{gb200,b200}.csv @06c0e700 / @026c682e, give
recompute_layers 0 and activation_offload_layers 0 for every plan here that they list; the 24.09 plans are
in none -> NeMo default), the 24.09 EP (1, no column). The Mixtral-8x22B rows print "GBS 1, MBS 64" for 256
GPUs at 65,536 tokens: read as GBS 64, MBS 1 (GA 16 = 64 / (1 x dp 4); the B200 CSV has mbs 1, gbs 64) and
expert TP 1 from the same CSV (etp_size 1 with TP 2: ``parallel.etp: 1``, dse's MoE parallel folding, a key
../shared/validation/README.md's format does not have) -- reliability B.

Architectures (NeMo 2.0 config classes in NVIDIA/NeMo nemo/collections/llm/gpt/model/, checked against the
models' published configs where there are some), and each one checked against the table's own "Model
TFLOP/sec/GPU" column: NeMo's count per token, 3 x [L (2 h (q + 2 kv + o) + FFN GEMMs + 4 s h_attn) + 2 h V]
(attention scores causal, 2 s h_attn, for Mixtral-8x22B and Llama 4), divided into the TFLOP/s figure,
gives the tokens/s figure to within 0.1% for every kept row with the blocks below:
- GPT3-175B: GPTConfig175B (base.py @0175f4c6: 96 L, h 12288, 96 heads, ffn 49152, seq 2048), GELU, biases;
  vocab 50257 (the scripts use hf_tokenizer("nvidia/megatron-gpt2-345m"), GPT-2 BPE; as llm.jsonl); dropout
  true (Megatron-core's default hidden/attention dropout 0.1, not overridden).
- Llama 3 70B: the official config (80 L, h 8192, 64 heads, 8 KV, ffn 28672, SwiGLU, vocab 128256), as
  megatron_bridge.jsonl.
- Nemotron-3 8B / 22B: Nemotron3Config8B / Nemotron3Config22B (nemotron.py @c341fb38: 32 L, h 4096, 32 heads,
  ffn 16384 / 40 L, h 6144, 48 heads, ffn 24576; num_query_groups None = MHA); Nemotron-4 15B / 340B:
  Nemotron4Config15B / 340B (32 L, h 6144, 48 heads, 8 KV, ffn 24576 / 96 L, h 18432, 96 heads, 8 KV, ffn
  73728); all squared-ReLU MLPs (2 matrices) written as ffn_act "gelu" (same GEMM shapes); vocab 256000 (the
  scripts' NullTokenizer vocab_size=256000, pretrain_nemotron4_15b.py @01f2b133; the TFLOP/s column fits it,
  not GPT-2's 50257).
- Mixtral 8x7B / 8x22B: MixtralConfig8x7B / 8x22B (mixtral.py @02f25a80) = HF config.json of
  mistralai/Mixtral-8x7B-v0.1 and Mixtral-8x22B-v0.1 (32 L, h 4096, 32 heads, 8 KV, 8 experts of 14336, top-2
  / 56 L, h 6144, 48 heads, 8 KV, 8 experts of 16384, top-2; vocab 32000, the scripts' hf_tokenizer of the
  v0.1 models); every layer MoE, ffn_hidden = the expert size. Router aux-loss balanced (not modelled:
  dse's moe_load_imbalance 1).
- Llama 4 Scout (LLAMA4-Scout-LLM, the text model): Llama4Experts16Config (llama.py: 48 L, h 5120, 40 heads,
  8 KV, head_dim 128, 16 experts of 8192, top-1, 1 shared expert of 8192, every layer MoE, vocab_size
  25256 x 8 = 202048 preset in the config (it overrides the script's NullTokenizer size), attention_chunk_size
  8192 with every 4th layer (nope_layer_interval 4) full attention -> attention_window 8192 chunked,
  full_attention_every 4 (a no-op at 8192-token sequences); = HF Llama-4-Scout-17B-16E text config. Not
  modelled: the sigmoid router, QK L2 norm.
"""
import os

from case_files import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nemo_perf_summary.jsonl")

#: the stored page each version's table was read from (see the docstring)
PAGES = {
    "24.09": ("NVIDIA NeMo Framework User Guide 24.09, Performance Summary, 'Pretraining' FP8 table "
              "[https://docs.nvidia.com/nemo-framework/user-guide/24.09/performance/performance_summary.html; "
              "container 24.09 and system DGX-H100 inferred]"),
    "25.02": ("NVIDIA NeMo Framework User Guide, Performance Summary, 'Pretraining' FP8 table, Container NeMo "
              "25.02, System DGX-{system} [stored copy of https://docs.nvidia.com/nemo-framework/user-guide/latest/"
              "performance/performance_summary.html]"),
    "25.04": ("NVIDIA NeMo Framework User Guide, Performance Summary, 'Pre-Training Performance' FP8 table, "
              "Container NeMo 25.04, System DGX-{system} [https://docs.nvidia.com/nemo-framework/user-guide/latest/"
              "performance/archive/25.04-performance-summary.html; same rows in the stored 25.04 copy of "
              ".../latest/performance/performance_summary.html]"),
    "25.07": ("NVIDIA NeMo Framework User Guide, Performance Summary, 'Pre-Training Performance' FP8 table, "
              "Container NeMo 25.07, System DGX-{system} [stored copy of https://docs.nvidia.com/nemo-framework/"
              "user-guide/latest/performance/performance-summary.html]"),
}
CSV = {
    "GB200": "scripts/performance/recommended_model_configs/model_configs_gb200.csv @06c0e700",
    "B200": "scripts/performance/recommended_model_configs/model_configs_b200.csv @026c682e",
}

MODELS = {
    "gpt3_175b": {"name": "GPT3-175B (NeMo)", "family": "dense", "layers": 96, "hidden": 12288, "heads": 96,
                  "kv_heads": 96, "head_dim": None, "ffn_hidden": 49152, "ffn_act": "gelu", "vocab": 50257,
                  "moe": None, "dropout": True},
    "llama3_70b": {"name": "Llama 3 70B", "family": "dense", "layers": 80, "hidden": 8192, "heads": 64,
                   "kv_heads": 8, "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 128256,
                   "moe": None},
    "nemotron3_8b": {"name": "Nemotron-3 8B (NeMo)", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32,
                     "kv_heads": 32, "head_dim": None, "ffn_hidden": 16384, "ffn_act": "gelu", "vocab": 256000,
                     "moe": None},
    "nemotron3_22b": {"name": "Nemotron-3 22B (NeMo)", "family": "dense", "layers": 40, "hidden": 6144,
                      "heads": 48, "kv_heads": 48, "head_dim": None, "ffn_hidden": 24576, "ffn_act": "gelu",
                      "vocab": 256000, "moe": None},
    "nemotron4_15b": {"name": "Nemotron-4 15B", "family": "dense", "layers": 32, "hidden": 6144, "heads": 48,
                      "kv_heads": 8, "head_dim": None, "ffn_hidden": 24576, "ffn_act": "gelu", "vocab": 256000,
                      "moe": None},
    "nemotron4_340b": {"name": "Nemotron-4 340B", "family": "dense", "layers": 96, "hidden": 18432, "heads": 96,
                       "kv_heads": 8, "head_dim": None, "ffn_hidden": 73728, "ffn_act": "gelu", "vocab": 256000,
                       "moe": None},
    "mixtral_8x7b": {"name": "Mixtral 8x7B", "family": "moe", "layers": 32, "hidden": 4096, "heads": 32,
                     "kv_heads": 8, "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 32000,
                     "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 14336, "shared_experts": 0,
                             "dense_layers": 0}},
    "mixtral_8x22b": {"name": "Mixtral 8x22B", "family": "moe", "layers": 56, "hidden": 6144, "heads": 48,
                      "kv_heads": 8, "head_dim": None, "ffn_hidden": 16384, "ffn_act": "swiglu", "vocab": 32000,
                      "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 16384, "shared_experts": 0,
                              "dense_layers": 0}},
    "llama4_scout": {"name": "Llama 4 Scout (17B-16E, text)", "family": "moe", "layers": 48, "hidden": 5120,
                     "heads": 40, "kv_heads": 8, "head_dim": None, "ffn_hidden": 8192, "ffn_act": "swiglu",
                     "vocab": 202048,
                     "moe": {"experts": 16, "top_k": 1, "expert_ffn_hidden": 8192, "shared_experts": 1,
                             "dense_layers": 0},
                     "attention_window": 8192, "attention_window_kind": "chunked", "full_attention_every": 4},
}
ARCH = {
    "gpt3_175b": ("NeMo GPTConfig175B (96 L, h12288, 96 heads, ffn 49152, GELU); vocab 50257 (GPT-2 BPE of the "
                  "scripts' megatron-gpt2-345m tokenizer); dropout 0.1 (Megatron-core default)"),
    "llama3_70b": "official Llama 3 70B config (80 L, h8192, 64 heads, 8 KV, ffn 28672, vocab 128256)",
    "nemotron3_8b": ("NeMo Nemotron3Config8B (32 L, h4096, 32 heads MHA, ffn 16384, squared ReLU -> 'gelu' "
                     "2-matrix MLP); vocab 256000 (NullTokenizer of the NeMo performance scripts)"),
    "nemotron3_22b": ("NeMo Nemotron3Config22B (40 L, h6144, 48 heads MHA, ffn 24576, squared ReLU -> 'gelu' "
                      "2-matrix MLP); vocab 256000 (NullTokenizer of the NeMo performance scripts)"),
    "nemotron4_15b": ("NeMo Nemotron4Config15B (32 L, h6144, 48 heads, 8 KV, ffn 24576, squared ReLU -> 'gelu' "
                      "2-matrix MLP); vocab 256000"),
    "nemotron4_340b": ("NeMo Nemotron4Config340B (96 L, h18432, 96 heads, 8 KV, ffn 73728, squared ReLU -> 'gelu' "
                       "2-matrix MLP); vocab 256000"),
    "mixtral_8x7b": ("NeMo MixtralConfig8x7B = HF mistralai/Mixtral-8x7B-v0.1 (32 L, h4096, 32 heads, 8 KV, 8 "
                     "experts x 14336 SwiGLU, top-2, vocab 32000)"),
    "mixtral_8x22b": ("NeMo MixtralConfig8x22B = HF Mixtral-8x22B-v0.1 (56 L, h6144, 48 heads, 8 KV, 8 experts x "
                      "16384 SwiGLU, top-2, vocab 32000)"),
    "llama4_scout": ("NeMo Llama4Experts16Config (48 L, h5120, 40 heads x 128, 8 KV, 16 routed experts x 8192 "
                     "top-1 + 1 shared expert x 8192 in every layer, vocab 202048; chunked attention over 8192 "
                     "tokens with every 4th layer NoPE full attention). Not modelled: sigmoid router, QK L2 norm"),
}
#: (system name in the table, dse GPU preset, GPUs per node)
SYSTEMS = {"GB200": ("GB200", 4), "B200": ("B200-180GB", 8), "H100": ("H100-SXM-80GB", 8)}
PREC = {"fp8": "FP8 (scaling recipe not stated; the scripts of the time: delayed scaling)",
        "fp8cs": "FP8 with per-tensor current scaling (stated above the table)",
        "fp8mx": "MXFP8 (parenthesized run; INFERRED, the page's footnote is not in the stored copy)"}

# (version, system, model, label, prec slug, GPUs, GBS, MBS, seq, FSDP (None: no column), TP, PP, CP, VP,
#  EP (None: no column), etp, GA printed (None: no column), tokens/s/GPU, model TFLOP/s/GPU (None: not read),
#  reliability, extra inferred fields, note) -- as the tables print them ("a (b)" cells split into two runs)
RUNS = [
    ("24.09", "H100", "nemotron3_8b", "Nemotron-8B", "fp8", 64, 256, 4, 4096, None, 2, 1, 1, 1, None, None, None,
     12507, 643, "B", [],
     "The 24.07 table printed the same plan at 12701 tokens/s (not in llm.jsonl). Est. days (10T tokens, 1K GPUs): 9."),
    ("24.09", "H100", "nemotron3_22b", "Nemotron-22B", "fp8", 64, 256, 2, 4096, None, 2, 4, 1, 10, None, None, None,
     4312, 562, "B", [],
     "40 layers = pp 4 x vp 10 x 1. The 24.07 table printed the same plan at 4256 tokens/s (not in llm.jsonl). "
     "Est. days (10T tokens, 1K GPUs): 26."),
    ("25.02", "B200", "gpt3_175b", "GPT3-175B", "fp8", 512, 2048, 2, 2048, None, 4, 4, 1, 6, 1, None, 32,
     1600, 1722, "A", [],
     "TFLOP/s cell empty in one stored rendering, 1722 in the other. 96 layers = pp 4 x vp 6 x 4. The B200 CSV "
     "lists this plan (fp8, 512 GPUs) with no recompute or offloading."),
    ("25.02", "B200", "llama3_70b", "LLAMA3-70B", "fp8", 64, 128, 1, 8192, None, 2, 4, 2, 5, 1, None, 32,
     3062, 1474, "A", [], "The B200 CSV lists this plan with no recompute or offloading (cuda_graphs 1)."),
    ("25.02", "B200", "nemotron4_15b", "Nemotron-15B", "fp8", 64, 256, 2, 4096, None, 1, 1, 1, 1, 1, None, 2,
     14760, 1387, "A", [], "The B200 CSV lists this plan with no recompute or offloading (cuda_graphs 1)."),
    ("25.02", "B200", "nemotron4_340b", "Nemotron-340B", "fp8", 128, 32, 1, 4096, None, 8, 4, 1, 12, 1, None, 8,
     602, 1268, "A", [], "96 layers = pp 4 x vp 12 x 2. The B200 CSV lists this plan with no recompute or offloading."),
    ("25.02", "B200", "mixtral_8x7b", "Mixtral-8x7B", "fp8", 64, 256, 2, 4096, None, 1, 1, 1, 1, 8, None, 2,
     15457, 1282, "A", [],
     "EP 8 carved out of dp 64; expert TP = tp = 1. The B200 CSV lists this plan with no recompute or offloading."),
    ("25.02", "B200", "mixtral_8x22b", "Mixtral-8x22B", "fp8", 256, 64, 1, 65536, None, 2, 4, 8, 14, 8, 1, 16,
     2232, 824, "B", ["parallel.microbatch", "parallel.global_batch"],
     "The row prints GBS 1, MBS 64: read as GBS 64, MBS 1 (GA 16 = 64 / (1 x dp 4); the B200 CSV: mbs 1, gbs 64). "
     "56 layers = pp 4 x vp 14 x 1. Experts: EP 8 with expert TP 1 over the tp 2 x dp 4 x cp 8 = 64 GPUs of a "
     "stage (parallel.etp 1, the CSV's etp_size; MoE parallel folding). 65,536-token sequences split 8 ways "
     "(CP 8)."),
    ("25.04", "GB200", "gpt3_175b", "GPT3-175B", "fp8cs", 128, 256, 2, 2048, 0, 4, 4, 1, 12, 1, None, 16,
     1804, 1942, "A", [],
     "TFLOP/s cell empty in the compact rendering, 1942 in the other. 96 layers = pp 4 x vp 12 x 2. The GB200 CSV "
     "lists this plan (cuda_graphs 1) with no recompute or offloading."),
    ("25.04", "GB200", "nemotron4_15b", "Nemotron-15B", "fp8cs", 64, 256, 2, 4096, 0, 1, 1, 1, 1, 1, None, 2,
     17809, 1674, "A", [], "The GB200 CSV lists this plan (cuda_graphs 1) with no recompute or offloading."),
    ("25.04", "GB200", "nemotron4_340b", "Nemotron-340B", "fp8cs", 128, 32, 1, 4096, 0, 8, 4, 1, 12, 1, None, 8,
     737, 1551, "A", [],
     "96 layers = pp 4 x vp 12 x 2. The GB200 CSV lists this plan (fp8, cuda_graphs 1) with no recompute or "
     "offloading."),
    ("25.04", "GB200", "mixtral_8x7b", "Mixtral-8x7B", "fp8cs", 64, 256, 2, 4096, 0, 1, 1, 1, 1, 8, None, 2,
     19275, 1598, "A", [],
     "EP 8 carved out of dp 64; expert TP = tp = 1. The GB200 CSV lists this plan (cuda_graphs 1) with no recompute "
     "or offloading."),
    ("25.04", "GB200", "mixtral_8x22b", "Mixtral-8x22B", "fp8cs", 256, 64, 1, 65536, 0, 2, 4, 8, 14, 8, 1, 16,
     2731, None, "B", ["parallel.microbatch", "parallel.global_batch"],
     "The row prints GBS 1, MBS 64: read as GBS 64, MBS 1 (GA 16 = 64 / (1 x dp 4)). The TFLOP/s cell is cut "
     "after '10' in every stored copy (NeMo's count, 369 GFLOP a token, gives 1008). 56 layers = pp 4 x vp 14 x 1. "
     "Experts: EP 8 with expert TP 1 (parallel.etp 1, taken from the B200 CSV's row of the same plan; the GB200 CSV "
     "does not list Mixtral-8x22B)."),
    ("25.07", "GB200", "llama3_70b", "LLAMA3-70B", "fp8cs", 64, 128, 1, 8192, 1, 1, 1, 1, 1, 1, None, 2,
     4066, 1957, "A", [],
     "First run of the row '4066 (2605)'. FSDP 1: Megatron FSDP (optim_grads_params) -> zero 3; the GB200 CSV "
     "(fp8: use_mcore_fsdp 1, cuda_graphs 0, recompute_layers 0, activation_offload_layers 0). The 25.04 table "
     "printed the same plan at 4035 tokens/s, 1943 TFLOP/s (left out as a repeat)."),
    ("25.07", "GB200", "llama3_70b", "LLAMA3-70B", "fp8mx", 64, 128, 1, 8192, 0, 2, 4, 2, 5, 1, None, 32,
     2605, 1254, "B", ["precision"],
     "Parenthesized run of the row (FSDP 0, TP 2, PP 4, CP 2, VP 5, GA 32). 80 layers = pp 4 x vp 5 x 4. Not in "
     "the CSV (its fp8 row is the FSDP plan): no recompute assumed."),
    ("25.07", "GB200", "llama4_scout", "LLAMA4-Scout-LLM", "fp8cs", 64, 1024, 1, 8192, 0, 1, 1, 1, 1, 16, None, 16,
     13783, 1501, "A", [],
     "First run of the row '13783 (10717)'; the parenthesized run (MXFP8, inferred; 10717 tokens/s, 1167 "
     "TFLOP/s) has the same plan and dse inputs and is kept here only. EP 16 carved out of dp 64, expert TP 1 = tp "
     "(the GB200 CSV: etp_size 1, cuda_graphs 1, no recompute or offloading). Text model only."),
]

#: the rows read and not written, with the row that makes each a repeat or the reason
LEFT_OUT = [
    ("24.09 H100 GPT3-5B 64g GBS 2048 MBS 4 TP1", "23406", "llm.jsonl nemo2407_train_GPT3-5B_64g_gbs2048 (22521)"),
    ("24.09 H100 GPT3-20B 64g GBS 256 MBS 2 TP2", "5851", "llm.jsonl nemo2407_train_GPT3-20B_64g_gbs256 (5851)"),
    ("24.09 H100 GPT3-175B 128g TP4 PP8 VP6 MBS 1", "716", "llm.jsonl nemo2407_train_GPT3-175B_128g_gbs256 (726)"),
    ("24.09 H100 GPT3-175B 512g TP4 PP8 VP6 MBS 2", "825", "llm.jsonl nemo2407_train_GPT3-175B_512g_gbs2048 (782)"),
    ("24.09 H100 LLAMA2-7B 8g", "16934", "llm.jsonl nemo2407_train_LLAMA2-7B_8g_gbs128 (16847)"),
    ("24.09 H100 LLAMA2-13B 16g PP4 VP10", "8715", "llm.jsonl nemo2407_train_LLAMA2-13B_16g_gbs128 (8646)"),
    ("24.09 H100 LLAMA2-70B 64g TP4 PP4 VP20", "1728", "llm.jsonl nemo2407_train_LLAMA2-70B_64g_gbs128 (1707)"),
    ("24.09 H100 Nemotron-340B 128g TP8 PP8 VP12", "326", "llm.jsonl nemo2407_train_Nemotron-340B_128g_gbs32 (322)"),
    ("24.09 H100 LLAMA3-8B 8g CP2", "12273", "llm.jsonl nemo2407_train_LLAMA3-8B_8g_gbs128 (12036)"),
    ("24.09 H100 LLAMA3-70B 64g TP4 PP4 CP2 VP5", "1524", "llm.jsonl nemo2407_train_LLAMA3-70B_64g_gbs128 (1533)"),
    ("25.02 H100 GPT3-175B 512g TP4 PP8 VP6 MBS 2", "866", "llm.jsonl nemo2407_train_GPT3-175B_512g_gbs2048 (782)"),
    ("25.02 B200 LLAMA3-8B 8g MBS 2 GBS 128", "26006", "mbridge2511_b200_llama3_8b_fp8cs_... (30624)"),
    ("25.02 B200 LLAMA3-405B 128g TP4 PP8 CP2 VP8", "625", "mbridge2511_b200_llama3p1_405b_fp8cs_... (661)"),
    ("25.04 GB200 LLAMA3-8B 8g MBS 2 GBS 128", "33099", "mbridge2511_gb200_llama3_8b_fp8cs_... (31508)"),
    ("25.04 GB200 LLAMA3-70B 64g FSDP MBS 1", "4035", "nemo2507_gb200_llama3_70b_fp8cs_... (4066), newer container"),
    ("25.04 GB200 LLAMA3-405B 128g TP4 PP8 CP2 VP8", "665", "mbridge2509_gb200_llama3p1_405b_fp8mx_... (578)"),
    ("25.07 GB200 LLAMA3-8B 8g MBS 2 GBS 128", "31737 (30341)", "mbridge2511_gb200_llama3_8b_fp8cs_... (31508)"),
    ("25.07 GB200 LLAMA3.1-405B FSDP TP2 / TP4 PP8 CP2 VP8", "706 (638)",
     "mbridge2509_gb200_llama3p1_405b_fp8cs_..._fsdp (729) / _fp8mx_... (578)"),
    ("25.07 GB200 LLAMA4-Scout-LLM MXFP8", "10717", "same plan as the kept FP8-CS run (notes)"),
    ("25.07 GB200 LLAMA4-Maverick-LLM 128g PP2 VP12 EP64", "cut off", "figures beyond every stored excerpt"),
]


def cases():
    for (version, system, model, label, prec, gpus, gbs, mbs, seq, fsdp, tp, pp, cp, vp, ep, etp, ga, tps, tflops,
         reliability, extra_inferred, note) in RUNS:
        gpu, per_node = SYSTEMS[system]
        assert gpus % (tp * pp * cp) == 0, (version, system, model)
        dp = gpus // (tp * pp * cp)
        assert tp * pp * dp * cp == gpus
        assert gbs % (mbs * dp) == 0, (version, system, model, "GBS")
        ga_calc = gbs // (mbs * dp)
        assert ga is None or ga == ga_calc, (version, system, model, "GA")
        ep_val = ep or 1
        assert (dp * cp * tp) % (ep_val * (etp or tp)) == 0, (version, system, model, "ep x etp must tile tp dp cp")
        spec = MODELS[model]
        assert spec["layers"] % (pp * vp) == 0 or vp == 1, (version, system, model, "layers per chunk")
        parallel = {"tp": tp, "pp": pp, "dp": dp, "cp": cp, "ep": ep_val, **({"etp": etp} if etp else {}),
                    "sp": tp > 1, "vpp": vp, "zero": 3 if fsdp else 1, "recompute": "none", "microbatch": mbs,
                    "global_batch": gbs}
        inferred = ["cluster.gpus_per_node", "parallel.dp", "parallel.sp", "parallel.recompute",
                    *(f"model.{k}" for k in ("ffn_act", "ffn_hidden", "head_dim", "heads", "hidden", "kv_heads",
                                             "layers", "vocab")), *extra_inferred]
        if spec["family"] == "moe":
            inferred.append("model.moe")
        if "attention_window" in spec:
            inferred += ["model.attention_window", "model.attention_window_kind", "model.full_attention_every"]
        if "dropout" in spec:
            inferred.append("model.dropout")
        if not fsdp:
            inferred.append("parallel.zero")
        if ep is None:
            inferred.append("parallel.ep")
        if etp:
            inferred.append("parallel.etp")
        if version == "24.09":
            inferred.append("cluster.gpu")
        ga_text = (f"grad accumulation = {ga_calc} (matches GA column)" if ga is not None
                   else f"grad accumulation = {ga_calc} (no GA column)")
        if fsdp is None:
            fsdp_text = "No FSDP column -> zero 1 (NeMo's distributed optimizer; not stated)"
        elif fsdp:
            fsdp_text = "FSDP=1 -> Megatron FSDP full sharding over the data-parallel group (zero 3)"
        else:
            fsdp_text = "FSDP=0 (DDP) -> zero 1 (NeMo's distributed optimizer; not stated)"
        ep_text = " No EP column -> ep 1." if ep is None else ""
        csv = CSV.get(system)
        csv_text = (f" Recompute/offloading: {csv} (NVIDIA/NeMo; not release-pinned)." if csv else
                    " Recompute: none stated -> 'none' (NeMo default).")
        system_text = (" DGX-GB200 = NVL72 rack system: 4 GPUs per compute tray (gpus_per_node=4), NVLink domain "
                       "spans up to 72 GPUs." if system == "GB200" else "")
        container_text = ("NeMo 24.09 (inferred from the documentation version), DGX-H100 (inferred)"
                          if version == "24.09" else f"NeMo {version}, DGX-{system}")
        notes = (f"NeMo Framework performance summary, {container_text}, '{label}', {PREC[prec]}. {fsdp_text}. "
                 f"dp = GPUs/(tp*pp*cp) = {dp}; {ga_text}. sp = (tp>1), as the performance scripts set it."
                 f"{ep_text} {note}{csv_text}{system_text} Architecture: {ARCH[model]}.")
        ep_part = f"ep{ep_val}" + (f"etp{etp}" if etp else "")
        run_id = (f"nemo{version.replace('.', '')}_{system.lower()}_{model}_{prec}_{gpus}g_tp{tp}pp{pp}cp{cp}vp{vp}"
                  f"{ep_part}" + ("_fsdp" if fsdp else "") + f"_mbs{mbs}_gbs{gbs}")
        yield {
            "id": run_id,
            "source": PAGES[version].format(system=system),
            "reliability": reliability,
            "workload": "train",
            "precision": "fp8",
            "model": {**spec, "seq_len": seq},
            "cluster": {"gpu": gpu, "num_gpus": gpus, "gpus_per_node": per_node},
            "parallel": parallel,
            "inference": None,
            "target": {"metric": "tokens_per_s_per_gpu", "value": float(tps)},
            "also": {"model_tflops_per_gpu": float(tflops)} if tflops is not None else {},
            "inferred": sorted(set(inferred)),
            "notes": notes,
        }


def main():
    write_cases(list(cases()), OUT)


if __name__ == "__main__":
    main()
