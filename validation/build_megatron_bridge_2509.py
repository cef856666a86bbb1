#!/usr/bin/env python3
"""Write validation/megatron_bridge_2509.jsonl: the pre-training rows of Megatron-Bridge's
``docs/performance-summary.md`` section "25.09 NeMo Container" that ``megatron_bridge.jsonl`` (26.04 and
25.11) does not already hold.

Usage: python validation/build_megatron_bridge_2509.py   (no network: every number below was read from
the files named in SOURCE and PRESETS and is kept here as a literal).

The page. The 25.09 section is the oldest on the page: no stored version of it, nor of
``docs/performance-summary-archive.md``, has a 25.07/25.04/25.02 NeMo-container section. Its numbers are
the same in every stored copy: the first (fork pablo-garay/Megatron-Bridge @ea299063), the upstream one
that also holds 25.11 (NVIDIA-NeMo/Megatron-Bridge @df0289c1, whose 25.09 rows add "(tokendrop)" /
"(dropless)" to the MoE model names) and the archive (@0a25f911, which prints FSDP as the sharding
size 64 instead of 1). Three tables (DGX-GB200, DGX-B200, DGX-H100), with no Precision column: a number
"a (b)" gives two runs, and the footnote says the parenthesized ones use other quantization
granularities (32x32 blocks, i.e. MXFP8, on GB200/B200; 128x128 weight and 1x128 activation blocks on
H100). The unparenthesized runs are FP8 with per-tensor current scaling (FP8-CS): the 25.11 section
labels the same rows "FP8-CS (FP8-MX)", and the presets of the time (PRESETS) give the GB200 Llama plans
by precision key (fp8_cs: FSDP, TP 1-2, PP 1; fp8_mx: TP 2-4, PP 4-8, VP 5-8). So precision is
INFERRED (fp8) in every row, reliability B. Where a plan column is printed "a (b)", the parenthesized
run takes (b); the one MBS the GB200 Llama 3 70B row prints (2) holds only for its FSDP run: the MXFP8
run's GA 16 = 128 / (MBS x dp 8) gives MBS 1, as the preset (fp8_mx: micro_batch_size 1) does.

Left out (LEFT_OUT below, with the values), as repeats: a 25.09 run whose model, system, plan (GPUs, TP,
PP, CP, VP, EP, FSDP, MBS, GBS) and dse precision (FP8-CS and MXFP8 are both ``fp8``, as in
megatron_bridge.jsonl) equal a 25.11 or 26.04 row there -- all five DGX-B200 rows, the H100 Llama 3
8B/70B and Llama 3.1 405B rows, and the GB200 Llama 3 8B row (same plan as 25.11); the GB200 and H100
Qwen3-30B-A3B and the B200 Qwen3-30B-A3B, -235B-A22B and DeepSeek-V3 rows (25.09 ran them token-drop,
25.11/26.04 token-dropless; the dse inputs are the same). Left out as impossible as printed: the GB200
DeepSeek-V3 MXFP8 run (PP 8 leaves dp = 32 GPUs per stage, fewer than its EP 64 with TP 1). A run
whose second figure shares the plan of the first (GB200 Qwen3-235B-A22B MXFP8; the H100 DeepSeek-V3
blockwise-FP8 TFLOP/s, with no token figure) is kept in the first run's notes only, as
megatron_bridge.jsonl does.

Expert parallelism folded over tensor and data ranks. The GB200 Qwen3-235B-A22B (TP 2, EP 64 over
dp 32) and the H100 Qwen3-235B-A22B (TP 2, EP 32 over dp 16) runs need ep x etp to tile tp x dp x cp
with etp 1: written with ``parallel.etp: 1`` (dse's MoE parallel folding; the presets set
expert_tensor_parallel_size 1), a key that ../shared/validation/README.md's format does not have
(megatron_bridge.jsonl left the 25.11 H100 Qwen3-235B-A22B run out before dse had it). The H100
DeepSeek-V3 run (TP 2, EP 64, dp 64) fits without it but states etp 1 as its recipe does.

Filled where the page is silent, as megatron_bridge.jsonl does (each case's ``inferred``): gpus_per_node
(4 on GB200 trays, 8 on DGX-H100), FSDP 0 -> zero 1 (distributed optimizer), FSDP 1 -> zero 3,
sp = tp > 1 (the performance scripts set it so), dp = GPUs / (tp pp cp), the model blocks (the same as
megatron_bridge.jsonl's), recompute and CPU activation offloading from the presets (PRESETS: fork
commits of the time, not release-pinned), BF16 Adam moments for DeepSeek-V3 (its recipe's
precision-aware optimizer). Token-drop runs (Megatron-Bridge's apply_moe_token_drop: capacity factor
1.0, expert inputs padded to capacity, alltoall dispatcher) keep dse's defaults: moe_load_imbalance 1
(= the capacity factor) and the alltoall dispatcher.
"""
import os

from case_files import LLAMA31, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "megatron_bridge_2509.jsonl")

SOURCE = ("Megatron-Bridge docs/performance-summary.md, 25.09 NeMo container, DGX-{system} pre-training "
          "[NVIDIA-NeMo/Megatron-Bridge @df0289c180dd20ff26933455c7a0a11084f6a36f; same numbers in fork "
          "pablo-garay/Megatron-Bridge @ea29906309181eeb508a1dd66dd076e87af1a376]")
#: the performance presets read (scripts/performance/configs/<model>/*_llm_pretrain.yaml, fork
#: pablo-garay/Megatron-Bridge), by model
PRESETS = {
    "llama3_70b": "scripts/performance/configs/llama3/llama3_70b_llm_pretrain.yaml @9d6ead18",
    "llama3p1_405b": "scripts/performance/configs/llama31/llama31_405b_llm_pretrain.yaml @05a73d21",
    "deepseek_v3": ("scripts/performance/configs/deepseek/deepseek_v3_llm_pretrain.yaml @1f6fff82 and "
                    "src/megatron/bridge/recipes/deepseek/deepseek_v3.py @1ce0e17a"),
    "qwen3_235b_a22b": "scripts/performance/configs/qwen3/qwen3_235b_a22b_llm_pretrain.yaml @93885d85",
}

#: the model blocks of megatron_bridge.jsonl (seq_len is the case's own)
LLAMA3_70B = {"name": "Llama 3 70B", "family": "dense", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
              "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 128256, "moe": None}
QWEN3_235B = {"name": "Qwen3-235B-A22B", "family": "moe", "layers": 94, "hidden": 4096, "heads": 64, "kv_heads": 4,
              "head_dim": 128, "ffn_hidden": 1536, "ffn_act": "swiglu", "vocab": 151936,
              "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 1536, "shared_experts": 0, "dense_layers": 0}}
DEEPSEEK_V3 = {"name": "DeepSeek-V3", "family": "moe", "layers": 61, "hidden": 7168, "heads": 128, "kv_heads": 128,
               "head_dim": None, "ffn_hidden": 18432, "ffn_act": "swiglu", "vocab": 129280,
               "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1, "dense_layers": 3},
               "mla": {"kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                       "v_head_dim": 128}}
MODELS = {"llama3_70b": LLAMA3_70B, "llama3p1_405b": LLAMA31["405B"], "qwen3_235b_a22b": QWEN3_235B,
          "deepseek_v3": DEEPSEEK_V3}
ARCH = {
    "llama3_70b": "official Llama 3 70B config (80 L, h8192, 64 heads, 8 KV, ffn 28672, vocab 128256)",
    "llama3p1_405b": ("official Llama 3.1 405B config (126 L, h16384, 128 heads, 8 KV, ffn 53248, vocab 128256)"),
    "qwen3_235b_a22b": ("Qwen3-235B-A22B HF config.json (94 L, h4096, 64 heads x head_dim 128, 4 KV, 128 experts "
                        "top-8, moe_intermediate 1536, no shared expert, every layer MoE, vocab 151936; QK-norm not "
                        "modelled)"),
    "deepseek_v3": ("deepseek-ai/DeepSeek-V3 HF config.json (61 L, h7168, 128 heads; MLA: q_lora_rank 1536, "
                    "kv_lora_rank 512, qk_nope/rope/v head dims 128/64/128 -> mla block, kv_heads = heads, head_dim "
                    "null; first 3 layers dense with intermediate 18432, the other 58 MoE with 256 routed experts "
                    "top-8, moe_intermediate 2048, 1 shared expert; vocab 129280). Not modelled: the group-limited "
                    "sigmoid router and its bias"),
}
SYSTEMS = {"GB200": ("GB200", 4), "H100": ("H100-SXM-80GB", 8)}

# (system, model, label, page precision as inferred, GPUs, GBS, MBS, seq, FSDP, TP, PP, CP, VP, EP, etp,
#  GA printed, tokens/s/GPU, model TFLOP/s/GPU, training block, recompute, note) -- as the 25.09 tables
#  print them ("a (b)" cells split into two runs)
RUNS = [
    ("GB200", "llama3_70b", "LLAMA3_70B", "FP8-CS", 64, 128, 2, 8192, 1, 1, 1, 1, 1, 1, None, 1, 3986, 1791,
     {"offload_activation_layers": 40}, "none",
     "First run of the row '3986 (3546)'. Preset fp8_cs on gb200: use_megatron_fsdp, TP 1, PP 1, MBS 2, "
     "cpu_offloading_num_layers 40 (of 80) -> training.offload_activation_layers 40; no recompute."),
    ("GB200", "llama3_70b", "LLAMA3_70B", "FP8-MX", 64, 128, 1, 8192, 0, 2, 4, 1, 5, 1, None, 16, 3546, 1593,
     None, "none",
     "Parenthesized run of the row (FSDP 0, TP 2, PP 4, VP 5, GA 16). The row prints one MBS (2); GA 16 = "
     "128 / (MBS x dp 8) gives MBS 1, as the preset's fp8_mx on gb200 sets (micro_batch_size 1; no recompute "
     "or offloading)."),
    ("GB200", "llama3p1_405b", "LLAMA3.1_405B", "FP8-CS", 128, 64, 1, 8192, 1, 2, 1, 1, 1, 1, None, 1, 729, 1840,
     {"offload_activation_layers": 80}, "none",
     "First run of the row '729 (578)'. Preset fp8_cs on gb200: use_megatron_fsdp, TP 2, PP 1, CP 1, "
     "cpu_offloading_num_layers 80 (of 126) -> training.offload_activation_layers 80; no recompute."),
    ("GB200", "llama3p1_405b", "LLAMA3.1_405B", "FP8-MX", 128, 64, 1, 8192, 0, 4, 8, 2, 8, 1, None, 32, 578, 1458,
     None, "none",
     "Parenthesized run of the row (FSDP 0, TP 4, PP 8, CP 2, VP 8, GA 32), as the preset's fp8_mx on gb200. "
     "126 layers + embedding + loss = 128 = 2 x pp x vp (Megatron-Bridge counts both as pipeline layers)."),
    ("GB200", "deepseek_v3", "DeepSeekV3 (tokendrop)", "FP8-CS", 256, 2048, 1, 4096, 0, 1, 4, 1, 4, 64, None, 32,
     3454, 899, {"optimizer_moments": "bf16"}, "none",
     "First run of the row '3454 (2835)'; the MXFP8 run (PP 8, VP 2, EP 64, GA 64) is left out: dp = 32 "
     "GPUs per stage cannot hold EP 64 with TP 1. Token-drop (capacity factor 1.0, padded). Preset gb200 "
     "num_gpus_256: PP 4, VP 4, EP 64, etp 1, GBS 2048, recompute_granularity null -> 'none'. Pipeline: the "
     "recipe's layout for (pp 4, vp 4) puts embedding + 4 layers in the first chunk, 4 in each of the next 14 "
     "and 1 + MTP + loss in the last; dse splits 61 layers floor/ceil over pp 4. MTP: the recipe trains one "
     "MTP layer by default (mtp_num_layers 1); the page does not say; not modelled."),
    ("GB200", "qwen3_235b_a22b", "Qwen3_235B_a22B (tokendrop)", "FP8-CS", 64, 1024, 1, 4096, 0, 2, 1, 1, 1, 64, 1,
     32, 4452, 659, None, "none",
     "Same row also reports the FP8-MX (MXFP8) variant of this plan: 4416 tokens/s/GPU, 654 model "
     "TFLOP/s/GPU (not written as a separate case: schema-identical inputs). Token-drop (capacity factor "
     "1.0, padded). EP 64 over dp 32 with TP 2: experts folded over the TP and DP ranks, etp 1 "
     "(parallel.etp; the preset sets etp 1). The preset at the cited commit gives gb200 num_gpus_64 another "
     "plan (TP 1, PP 8, EP 8, cuda_graphs true); the table's plan is kept. recompute_granularity null -> "
     "'none'."),
    ("H100", "deepseek_v3", "DeepSeekV3 (dropless)", "FP8-CS", 1024, 8192, 1, 4096, 0, 2, 8, 1, 4, 64, 1, 128, 1297,
     338, {"optimizer_moments": "bf16"}, "none",
     "Token-dropless, token distribution force-balanced (footnote). The TFLOP/s cell '338 (330)' gives 330 for "
     "the blockwise-FP8 run (128x128 weights, 1x128 activations), with no token figure: kept here only. "
     "Preset h100 num_gpus_1024: TP 2, PP 8, VP 4, EP 64, etp 1 (parallel.etp 1, the recipe's "
     "expert_tensor_parallel_size), recompute_granularity null -> 'none'. dse splits 61 layers floor/ceil "
     "over pp 8. MTP: recipe default one layer, page silent; not modelled."),
    ("H100", "qwen3_235b_a22b", "Qwen3_235B_a22B (tokendrop)", "FP8-CS", 256, 2048, 1, 4096, 0, 2, 8, 1, 4, 32, 1,
     128, 1204, 178, None, "none",
     "Token-drop (capacity factor 1.0, padded). EP 32 over dp 16 with TP 2: experts folded over the TP and DP "
     "ranks, etp 1 (parallel.etp; the preset h100 num_gpus_256 sets TP 2, PP 8, VP 4, EP 32, etp 1, "
     "recompute_granularity null -> 'none'). 94 layers + embedding + loss = 96 = 3 x pp x vp. 25.11 lists the "
     "same plan token-dropless at 1575 tokens/s/GPU (left out of megatron_bridge.jsonl: no etp then)."),
]

#: the 25.09 runs not written, with the row that makes each a repeat or the reason
LEFT_OUT = [
    ("GB200 LLAMA3_8B 8g MBS 2 GBS 128 TP1 PP1", "31357 (MX 29925)", "mbridge2511_gb200_llama3_8b_fp8cs_... (31508)"),
    ("GB200 Qwen3_30B_a3B tokendrop 8g MBS 4 GBS 512 EP 8", "22775 (MX 23723)",
     "mbridge2604_gb200_qwen3_30b_a3b_mxfp8_... (26032); 25.11 not in the file under this plan"),
    ("GB200 DeepSeekV3 MXFP8 PP 8 VP 2 EP 64", "2835", "impossible plan as printed (EP 64 > dp 32, TP 1)"),
    ("B200 LLAMA3_8B", "29994 (MX 29388)", "mbridge2511_b200_llama3_8b_fp8cs_... (30624)"),
    ("B200 LLAMA3.1_405B 128g TP4 PP8 CP2 VP8", "664 (MX 622)", "mbridge2511_b200_llama3p1_405b_fp8cs_... (661)"),
    ("B200 DeepSeekV3 tokendrop PP 16 EP 8 GBS 2048", "2265 (MX 2159)", "mbridge2511_b200_deepseek_v3_fp8mx_... (2139)"),
    ("B200 Qwen3_30B_a3B tokendrop MBS 1", "18066", "mbridge2511_b200_qwen3_30b_a3b_fp8mx_... (9299, OUTLIER)"),
    ("B200 Qwen3_235B_a22B tokendrop 64g PP 8 VP 2 EP 8", "4104 (MX 4275)",
     "mbridge2511_b200_qwen3_235b_a22b_fp8mx_... (3269)"),
    ("H100 LLAMA3_8B FSDP", "14079", "mbridge2511_h100_llama3_8b_fp8cs_... (14451)"),
    ("H100 LLAMA3_70B TP4 PP8 VP5", "1619", "mbridge2511_h100_llama3_70b_fp8cs_... (1602)"),
    ("H100 LLAMA3.1_405B 1024g", "302", "mbridge2511_h100_llama3p1_405b_fp8cs_... (292)"),
    ("H100 Qwen3_30B_a3B tokendrop PP 2 VP 24 EP 8", "10494", "mbridge2511_h100_qwen3_30b_a3b_fp8cs_... (5275, OUTLIER)"),
]


def cases():
    for (system, model, label, prec, gpus, gbs, mbs, seq, fsdp, tp, pp, cp, vp, ep, etp, ga, tps, tflops, training,
         recompute, note) in RUNS:
        gpu, per_node = SYSTEMS[system]
        assert gpus % (tp * pp * cp) == 0, (system, model)
        dp = gpus // (tp * pp * cp)
        assert gbs % (mbs * dp) == 0 and gbs // (mbs * dp) == ga, (system, model, "GA")
        assert (dp * cp * tp) % (ep * (etp or tp)) == 0, (system, model, "ep x etp must tile tp x dp x cp")
        family = MODELS[model]["family"]
        parallel = {"tp": tp, "pp": pp, "dp": dp, "cp": cp, "ep": ep, **({"etp": etp} if etp else {}), "sp": tp > 1,
                    "vpp": vp, "zero": 3 if fsdp else 1, "recompute": recompute, "microbatch": mbs,
                    "global_batch": gbs}
        inferred = ["precision", "cluster.gpus_per_node", "parallel.dp", "parallel.sp", "parallel.recompute",
                    *(f"model.{k}" for k in ("ffn_act", "ffn_hidden", "head_dim", "heads", "hidden", "kv_heads",
                                             "layers", "vocab"))]
        if family == "moe":
            inferred.append("model.moe")
        if "mla" in MODELS[model]:
            inferred.append("model.mla")
        if not fsdp:
            inferred.append("parallel.zero")
        if ep == 1:
            inferred.append("parallel.ep")
        if etp:
            inferred.append("parallel.etp")
        if model == "llama3_70b" and prec == "FP8-MX":
            inferred.append("parallel.microbatch")
        if training:
            inferred += [f"training.{k}" for k in training]
        preset = PRESETS[model]
        prec_text = {"FP8-CS": "FP8-CS (per-tensor current scaling; inferred: the table has no precision column)",
                     "FP8-MX": "FP8-MX / MXFP8 (block-scaled FP8; inferred from the footnote's 32x32 granularity)"}[prec]
        fsdp_text = ("FSDP=1 -> Megatron-FSDP full sharding over the data-parallel group (zero 3)" if fsdp else
                     "FSDP=0 (DDP) -> zero 1 (distributed optimizer, Megatron-Bridge default; not stated)")
        moe_text = (" MoE: EP carved out of the TP x DP ranks of a stage (ep x etp divides tp x dp x cp)." if etp else
                    " MoE: EP carved out of dp*cp; expert tensor parallelism 1 = tp." if family == "moe" else "")
        system_text = (" DGX-GB200 = NVL72 rack system: 4 GPUs per compute tray (gpus_per_node=4), NVLink domain "
                       "spans up to 72 GPUs." if system == "GB200" else "")
        notes = (f"Megatron-Bridge 25.09 performance table, DGX-{system}, '{label}', {prec_text}. {fsdp_text}. "
                 f"dp = GPUs/(tp*pp*cp) = {dp}; grad accumulation = {ga} (matches GA column). sp = (tp>1), as the "
                 f"performance scripts set it. {note} Presets: {preset} (fork pablo-garay/Megatron-Bridge, not "
                 f"release-pinned).{moe_text}{system_text} Architecture: {ARCH[model]}.")
        slug = "fp8cs" if prec == "FP8-CS" else "fp8mx"
        ep_part = f"ep{ep}" + (f"etp{etp}" if etp else "")
        run_id = (f"mbridge2509_{system.lower()}_{model}_{slug}_{gpus}g_tp{tp}pp{pp}cp{cp}vp{vp}{ep_part}"
                  + ("_fsdp" if fsdp else "") + f"_mbs{mbs}_gbs{gbs}")
        yield {
            "id": run_id,
            "source": SOURCE.format(system=system),
            "reliability": "B",
            "workload": "train",
            "precision": "fp8",
            "model": {**MODELS[model], "seq_len": seq},
            "cluster": {"gpu": gpu, "num_gpus": gpus, "gpus_per_node": per_node},
            "parallel": parallel,
            **({"training": training} if training else {}),
            "inference": None,
            "target": {"metric": "tokens_per_s_per_gpu", "value": float(tps)},
            "also": {"model_tflops_per_gpu": float(tflops)},
            "inferred": sorted(inferred),
            "notes": notes,
        }


def main():
    write_cases(list(cases()), OUT)


if __name__ == "__main__":
    main()
