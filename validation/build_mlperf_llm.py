#!/usr/bin/env python3
"""Write validation/mlperf_llm.jsonl: MLPerf Training LLM pre-training results as LLM training cases.

Benchmarks: ``gpt3`` (GPT-3 175B, rounds v3.0-v4.1) and ``llama31_405b`` (Llama 3.1 405B, v5.0-v5.1), all
NVIDIA NeMo/Megatron submissions (the only ones whose configs are stored next to their logs).

Usage: python validation/build_mlperf_llm.py   (no network: every number below was read from the public
result logs and configs named in each row and is kept here as a literal).

Case format: ../shared/validation/README.md (LLM cases), plus dse's optional ``training`` block
(``overlap.tp`` where the config sets TP_COMM_OVERLAP=True; ``recompute_modules`` with selective recompute).

Target (``tokens_per_s_per_gpu``) = training-only throughput from the MLLOG timestamps: for a pair of
consecutive evaluations, the sequences trained between them divided by the time from that eval's ``eval_stop``
to the next ``eval_start`` (eval time excluded), times the sequence length, divided by the GPUs. Sequences per
interval come from the log: GPT-3 logs count tokens (``epoch_num`` / ``block_start.epoch_count``; 24,576 to
26,880 sequences of 2,048 tokens, i.e. ceil(24576/GBS) steps), Llama logs count sequences (``samples_count``;
46,080 in v5.0, 18,432-19,200 in v5.1, of 8,192 tokens). The interval after the first eval is never used (only
intervals late in each run were read). Median over the intervals of one run, then median over the runs read
(all three stored runs of every submission). Only the last part of each log was read (one page of the stored
copy), so a run contributes 1-13 intervals; they agree to within ~1% inside a run.
For two v5.0 Llama H100 runs (n1024, runs 1 and 2) only the log tail was read: their interval is
46080 / the block ``throughput`` the log prints at ``block_stop`` (mlperf_common: samples of the block / block
time); on every run where both were read the two agree to <0.01%.

``also.samples_per_s`` = sequences/s (the same median). ``also.time_to_train_min`` = run_stop - run_start of
the one run whose run_start was read (Llama v5.0 n64 run 0); elsewhere not read.
"""
import os

from case_files import median, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlperf_llm.jsonl")

# Repositories and the commits the logs and configs were read at.
V30 = ("mlcommons/training_results_v3.0", "9f08e30c")
V31 = ("mlcommons/training_results_v3.1", "f33f9444")
V40 = ("mlcommons/training_results_v4.0", "62f111b7")
V41 = ("swsok/training_results_v4.1", "8821c703")      # fork of mlcommons/training_results_v4.1
V50 = ("prishajain1/training_results_v5.0", "0fdc28f0")  # fork of mlcommons/training_results_v5.0
V51 = ("mlcommons/training_results_v5.1", "4da2d1cd")

GPT3_MODEL = {
    "name": "GPT-3 175B (MLPerf Training gpt3, NeMo)", "family": "dense", "layers": 96, "hidden": 12288,
    "heads": 96, "kv_heads": 96, "head_dim": None, "ffn_hidden": 49152, "ffn_act": "gelu",
    # SentencePiece C4 tokenizer of the benchmark (50,257 entries) padded by NeMo to a multiple of
    # make_vocab_size_divisible_by (128) x TP (4) = 512 -> 50,688
    "vocab": 50688, "seq_len": 2048, "moe": None,
}
LLAMA_MODEL = {
    "name": "Llama 3.1 405B (MLPerf Training llama31_405b, NeMo)", "family": "dense", "layers": 126,
    "hidden": 16384, "heads": 128, "kv_heads": 8, "head_dim": None, "ffn_hidden": 53248, "ffn_act": "swiglu",
    "vocab": 128256, "seq_len": 8192, "moe": None,
}
GPT3_MODEL_SRC = ("GPT-3 architecture from the NeMo config (v3.0 conf/megatron_gpt_config.yaml: 96 layers, "
                  "hidden 12288, 96 heads, multihead attention, ffn 4h, gelu, seq 2048, "
                  "make_vocab_size_divisible_by 128, shared input/output embedding; v3.1+ conf/custom.yaml "
                  "defaults NUM_LAYERS 96, HIDDEN_SIZE 12288, NUM_ATTENTION_HEADS 96, ffn 4h, seq 2048)")
LLAMA_MODEL_SRC = ("Llama 3.1 405B: conf/custom.yaml (base_config 405b, num_layers 126, encoder_seq_length 8192); "
                   "other dimensions the official Llama 3.1 405B ones (hidden 16384, 128 heads, 8 KV heads, "
                   "ffn 53248 SwiGLU, vocab 128256)")

# One row per submission. runs: {result index: [interval seconds, ...]} (eval_stop -> next eval_start);
# seq_per_interval: sequences trained in one such interval (from the log). cfg_state: "own" (config stored
# in the submission's directory, name matches nodes x GPUs x batch), "readme" (named by the submission's README,
# stored in another submission's directory of the same round), "absent" (named, not stored).
SUBMISSIONS = [
    # ------------------------------------------------------------------ GPT-3 175B
    dict(key="v3.0-nvidia-dgxh100-512gpu-gpt3", bench="gpt3", rnd="v3.0", repo=V30, system="dgxh100_n64_nemo",
         gpu="H100-SXM-80GB", nodes=64, gpn=8, tp=4, pp=8, cp=1, vpp=12, mbs=1, gbs=2048,
         precision="fp8", recompute="selective", tp_overlap=True, seq_per_interval=24576,
         config="NVIDIA/benchmarks/gpt3/implementations/pytorch/config_DGXH100_64x8x128x4x8_mbs1.sh",
         config_repo=V30, cfg_state="absent", reliability="B",
         runs={0: [145.315, 145.565], 1: [145.164, 145.239], 2: [145.473, 145.235]},
         inferred=["parallel.vpp", "parallel.recompute", "parallel.microbatch", "precision", "training.overlap.tp"],
         extra="The README names config_DGXH100_64x8x128x4x8_mbs1.sh (64 nodes x 8 GPUs x MINIBS 128 x TP4 x "
               "PP8), not stored: TP/PP/MINIBS/MBS from its name, GBS = 128 x DP 16 = 2048 (the log's step "
               "increment, 4,194,304 tokens, agrees). Not stated: INTERLEAVED_PIPELINE (set in the missing "
               "config_common.sh; 12, the v3.1 default, assumed), recompute (run_and_time.sh defaults "
               "ACT_CKPT_GRANULARITY=selective, uniform, 1 -> selective core-attention recompute), FP8 (the "
               "configs source config_fp8.sh, whose v3.1 copy sets FP8=True, FP8_HYBRID=True), TP comm "
               "overlap (config_tp_h100.sh sets TP_COMM_OVERLAP=True for the stored v3.0 configs). Step time "
               "~12.08 s; 12 steps of GBS 2048 between evals."),
    dict(key="v3.0-nvidia-dgxh100-768gpu-gpt3", bench="gpt3", rnd="v3.0", repo=V30, system="dgxh100_n96_nemo",
         gpu="H100-SXM-80GB", nodes=96, gpn=8, tp=4, pp=8, cp=1, vpp=12, mbs=1, gbs=3072,
         precision="fp8", recompute="selective", tp_overlap=True, seq_per_interval=24576,
         config="NVIDIA/benchmarks/gpt3/implementations/pytorch/config_DGXH100_96x8x128x4x8_mbs1.sh",
         config_repo=V30, cfg_state="own", reliability="A",
         runs={0: [97.170, 97.198, 97.176], 1: [97.294, 97.300, 97.295, 97.534],
               2: [97.226, 97.260, 97.181, 97.210]},
         inferred=["parallel.vpp", "parallel.recompute", "precision"],
         extra="Config: MINIBS=128, TP4, PP8, MICRO_BATCH_SIZE=1, sources config_fp8.sh (not stored in v3.0; "
               "the v3.1 copy sets FP8=True, FP8_HYBRID=True) and config_tp_h100.sh (TP_COMM_OVERLAP=True). "
               "GBS = 128 x DP 24 = 3072 (log step increment 6,291,456 tokens). INTERLEAVED_PIPELINE is set in "
               "the missing config_common.sh (12, the v3.1 default, assumed); recompute = run_and_time.sh "
               "default ACT_CKPT_GRANULARITY=selective. Step time ~12.12 s; 8 steps between evals."),
    dict(key="v3.1-nvidia-eos-4096gpu-gpt3", bench="gpt3", rnd="v3.1", repo=V31, system="eos-dfw_n512_ngc23.09_nemo",
         gpu="H100-SXM-80GB", nodes=512, gpn=8, tp=4, pp=8, cp=1, vpp=12, mbs=1, gbs=2048,
         precision="fp8", recompute="none", tp_overlap=True, seq_per_interval=24576,
         config="NVIDIA/benchmarks/gpt3/implementations/pytorch/config_DGXH100_512x8x16x4x8_mbs1.sh",
         config_repo=V31, cfg_state="own", reliability="A",
         runs={0: [19.498, 19.531], 1: [19.533, 19.534], 2: [19.562, 19.564]},
         inferred=["parallel.vpp", "parallel.recompute", "parallel.zero"],
         extra="Config: MINIBS=16, TP4, PP8, MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=True, config_fp8.sh (FP8=True, "
               "FP8_HYBRID=True). GBS = 16 x DP 128 = 2048 (log block epoch_count 50,331,648 tokens = 12 "
               "steps). config_common.sh is not stored: VPP = conf/custom.yaml default INTERLEAVED_PIPELINE 12, "
               "recompute = custom.yaml default ACT_CKPT_GRANULARITY null (none), distributed optimizer assumed. "
               "Step time ~1.61 s."),
    dict(key="v3.1-nvidia-eos-10752gpu-gpt3", bench="gpt3", rnd="v3.1", repo=V31,
         system="eos-dfw_n1344_ngc23.09_nemo", gpu="H100-SXM-80GB", nodes=1344, gpn=8, tp=4, pp=8, cp=1, vpp=12,
         mbs=1, gbs=2688, precision="fp8", recompute="none", tp_overlap=True, seq_per_interval=26880,
         config="NVIDIA/benchmarks/gpt3/implementations/pytorch/config_DGXH100_1344x8x8x4x8_mbs1.sh",
         config_repo=V31, cfg_state="own", reliability="A",
         runs={0: [9.526, 9.495, 9.720], 1: [9.493, 9.479, 9.516], 2: [9.509, 9.480, 9.496]},
         inferred=["parallel.vpp", "parallel.recompute", "parallel.zero"],
         extra="Config: MINIBS=8, TP4, PP8, MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=True, config_fp8.sh. GBS = 8 x "
               "DP 336 = 2688; evals every ceil(24576/2688) = 10 steps = 26,880 sequences (log epoch_count "
               "55,050,240 tokens). config_common.sh not stored: VPP 12 and no recompute are custom.yaml "
               "defaults. Step time ~0.93 s, so 8 micro-batches per pipeline (PP 8 x VPP 12)."),
    dict(key="v4.0-nvidia-eos-11616gpu-gpt3", bench="gpt3", rnd="v4.0", repo=V40,
         system="eos-dfw_n1452_ngc24.04_nemo", gpu="H100-SXM-80GB", nodes=1452, gpn=8, tp=4, pp=6, cp=1, vpp=8,
         mbs=1, gbs=2904, precision="fp8", recompute="none", tp_overlap=True, seq_per_interval=26136,
         config="NVIDIA/benchmarks/gpt3/implementations/nemo/config_DGXH100_1452x8x6x4x6_mbs1_cg.sh",
         config_repo=V40, cfg_state="own", reliability="A",
         runs={0: [8.305, 8.300, 8.314, 8.300, 8.303, 8.306, 8.297, 8.307, 8.307, 8.301, 8.302, 8.308],
               1: [8.290, 8.292, 8.292, 8.295, 8.293, 8.296, 8.297, 8.301, 8.294, 8.306, 8.301, 8.297, 8.298],
               2: [8.287, 8.292, 8.302, 8.295, 8.295, 8.293, 8.294, 8.292, 8.293, 8.291, 8.296, 8.295, 8.297]},
         inferred=["parallel.recompute", "parallel.zero", "precision"],
         extra="Config: MINIBS=6, TP4, PP6 (16 layers a stage), INTERLEAVED_PIPELINE=8 (2 layers a chunk), "
               "MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=True, LAYER_CUDA_GRAPH=1, LOG_METRICS=OFF; sources "
               "config_fp8.sh and config_common.sh, neither stored in v4.0 (FP8 per the v3.1/v4.1 copies; no "
               "recompute, distributed optimizer assumed). GBS = 6 x DP 484 = 2904; evals every "
               "ceil(24576/2904) = 9 steps = 26,136 sequences (log epoch_count 53,526,528 tokens). 11,616 GPUs, "
               "the largest MLPerf GPT-3 submission."),
    dict(key="v4.1-nvidia-eos-256gpu-gpt3", bench="gpt3", rnd="v4.1", repo=V41, system="eos_n32_ngc24.09_nemo",
         gpu="H100-SXM-80GB", nodes=32, gpn=8, tp=4, pp=8, cp=1, vpp=6, mbs=2, gbs=2048,
         precision="fp8", recompute="none", tp_overlap=True, seq_per_interval=24576,
         config="NVIDIA/benchmarks/gpt3/implementations/eos_n32_ngc24.09_nemo/config_DGXH100_32x8x256x4x8_mbs2.sh",
         config_repo=V41, cfg_state="own", reliability="A",
         runs={0: [220.891, 220.841], 1: [220.905, 220.897], 2: [221.471, 221.493]},
         inferred=["parallel.recompute", "parallel.zero", "precision"],
         extra="Config: MINIBS=256, TP4, PP8, INTERLEAVED_PIPELINE=6 (2 layers a chunk), MICRO_BATCH_SIZE=2, "
               "TP_COMM_OVERLAP=True, DEFER_EMBEDDING_WGRAD_COMPUTE=True; GBS = 256 x DP 8 = 2048, 12 steps "
               "between evals (step ~18.4 s). Sources config_common.sh and config_fp8.sh, not stored in this "
               "directory: the v4.1 config_common.sh of the B200 submission sets USE_DIST_OPTIMIZER=True, "
               "FP8_PARAMS=True and no recompute; FP8 assumed. Runs 0 and 1 ran concurrently on separate "
               "32-node partitions."),
    dict(key="v4.1-nvidia-dgxb200-64gpu-gpt3", bench="gpt3", rnd="v4.1", repo=V41, system="b200_n8_preview_nemo",
         gpu="B200-180GB", nodes=8, gpn=8, tp=4, pp=8, cp=1, vpp=6, mbs=2, gbs=2048,
         precision="fp8", recompute="none", tp_overlap=True, seq_per_interval=24576,
         config="NVIDIA/benchmarks/gpt3/implementations/b200_n8_preview_nemo/config_DGXB200_8x8x1024x4x8_mbs2_cg.sh",
         config_repo=V41, cfg_state="own", reliability="A",
         runs={0: [432.724, 432.758], 1: [435.115, 435.058, 435.025], 2: [435.442, 435.443, 435.462]},
         inferred=["parallel.recompute", "precision", "cluster.gpu"],
         extra="Preview category, DGX B200 (B200 180 GB assumed). Config: MINIBS=1024, TP4, PP8, "
               "INTERLEAVED_PIPELINE=6, MICRO_BATCH_SIZE=2, TP_COMM_OVERLAP=True, LAYER_CUDA_GRAPH=1, "
               "NVTE_FUSED_ATTN=1; GBS = 1024 x DP 2 = 2048, 12 steps between evals (step ~36.1 s). "
               "config_common.sh (stored): USE_DIST_OPTIMIZER=True, FP8_PARAMS=True, no recompute settings; "
               "config_common_blackwell.sh and config_fp8.sh not stored (FP8 assumed)."),
    # ------------------------------------------------------------------ Llama 3.1 405B
    dict(key="v5.0-nvidia-eos-512gpu-llama405b", bench="llama31_405b", rnd="v5.0", repo=V50,
         system="eos-dfw_n64_ngc25.01_nemo", gpu="H100-SXM-80GB", nodes=64, gpn=8, tp=8, pp=8, cp=2, vpp=8,
         mbs=1, gbs=1152, precision="fp8", recompute="none", tp_overlap=True, seq_per_interval=46080,
         config="NVIDIA/benchmarks/llama31_405b/implementations/eos-dfw_n64_ngc25.01_nemo/config_DGXH100_64x8x288xtp8pp8cp2.sh",
         config_repo=V50, cfg_state="own", reliability="A",
         runs={0: [2209.515], 1: [2212.070], 2: [2210.632]}, ttt_min=[230.617],
         inferred=["parallel.zero", "parallel.recompute", "precision"],
         extra="Config: MINIBS=288 (gradient-accumulation steps), TP8, PP8, INTERLEAVED_PIPELINE=8, "
               "CONTEXT_PARALLEL=2, MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=True, ASYM_PP_EMBED/ASYM_PP_LOSS=True "
               "(embedding and loss counted as pipeline layers: 126+2 layers over 64 chunks, 2 each). Log "
               "header: global_batch_size 1152, gradient_accumulation_steps 288, max_sequence_length 8192, "
               "'64xNVIDIA HGX H100'. config_common.sh of this round's H100 submissions (stored under "
               "eos-dfw_n304_ngc25.01_nemo): FP8=True, FP8_PARAMS=True, USE_DIST_OPTIMIZER=True, "
               "overlapped grad-reduce/param-gather, no recompute. Evals every 40 steps (46,080 sequences, "
               "step ~55.2 s); each run read at its last interval (samples 230,400 -> 276,480; runs stop after "
               "6 evals)."),
    dict(key="v5.0-nvidia-eos-8192gpu-llama405b", bench="llama31_405b", rnd="v5.0", repo=V50,
         system="eos-dfw_n1024_ngc25.01_nemo", gpu="H100-SXM-80GB", nodes=1024, gpn=8, tp=8, pp=8, cp=2, vpp=8,
         mbs=1, gbs=1536, precision="fp8", recompute="none", tp_overlap=True, seq_per_interval=46080,
         config="NVIDIA/benchmarks/llama31_405b/implementations/eos-dfw_n1024_ngc25.01_nemo/config_DGXH100_1024x8x24xtp8pp8cp2.sh",
         config_repo=V50, cfg_state="own", reliability="A",
         runs={0: [158.182], 1: [46080 / 291.1974045564716], 2: [46080 / 292.19217214026554]},
         inferred=["parallel.zero", "parallel.recompute", "precision"],
         extra="Config: MINIBS=24, TP8, PP8, INTERLEAVED_PIPELINE=8, CONTEXT_PARALLEL=2, MICRO_BATCH_SIZE=1, "
               "TP_COMM_OVERLAP=True, ASYM_PP_EMBED/LOSS; 'global batch size will be DGXNNODES*MINIBS/16' = "
               "1536 (log step increment 1536). FP8, distributed optimizer and no recompute from the round's "
               "H100 config_common.sh (eos-dfw_n304 directory). Evals every 30 steps = 46,080 sequences (step "
               "~5.2 s). Run 0 interval from timestamps (samples 276,480 -> 322,560); runs 1 and 2 from the "
               "block throughput the log prints (291.20, 292.19 sequences/s)."),
    dict(key="v5.1-nvidia-gb200-2560gpu-llama405b", bench="llama31_405b", rnd="v5.1", repo=V51,
         system="hsg_ngpu2560_ngc25.09_nemo", gpu="GB200", nodes=640, gpn=4, tp=4, pp=8, cp=2, vpp=8,
         mbs=1, gbs=960, precision="fp4", recompute="none", tp_overlap=False, seq_per_interval=19200,
         config="NVIDIA/benchmarks/llama31_405b/implementations/hsg_ngpu2560_ngc25.09_nemo/config_GB200_640x4x24xtp4pp8cp2_cg_fp4.sh",
         config_repo=V51, cfg_state="own", reliability="A",
         runs={0: [66.476], 1: [67.871], 2: [65.914]},
         inferred=["precision", "parallel.zero", "parallel.recompute"],
         extra="GB200 NVL72 (640 compute trays x 4 GPUs). Config (named by the README): MINIBS=24, TP4, PP8, "
               "INTERLEAVED_PIPELINE=8, CONTEXT_PARALLEL=2, MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=False, "
               "ASYM_PP_EMBED/LOSS, CUDA graphs; GBS = 24 x DP 40 = 960 (log samples_count +960 a step). "
               "Precision: the config sources config_common_fp4.sh (not stored) and is suffixed _fp4 -> fp4 "
               "(NVFP4 GEMMs assumed; the round's config_common.sh also sets FP8=True, FP8_RECIPE tensorwise, "
               "FP8_PARAM_GATHER); config_common_405b.sh not stored (no recompute, distributed optimizer "
               "assumed). v5.1 evaluates every 19,200 sequences = 20 steps (step ~3.2 s); last interval of "
               "each run read (samples 307,200 -> 326,400). Run 1 has one 4.7 s step."),
    dict(key="v5.1-nvidia-gb200-5120gpu-llama405b", bench="llama31_405b", rnd="v5.1", repo=V51,
         system="hsg_ngpu5120_ngc25.09_nemo", gpu="GB200", nodes=1280, gpn=4, tp=4, pp=8, cp=2, vpp=8,
         mbs=1, gbs=1280, precision="fp4", recompute="none", tp_overlap=False, seq_per_interval=19200,
         config="NVIDIA/benchmarks/llama31_405b/implementations/hsg_ngpu5120_ngc25.09_nemo/config_GB200_1280x4x16xtp4pp8cp2_cg_fp4.sh",
         config_repo=V51, cfg_state="own", reliability="A",
         runs={0: [38.721], 1: [38.767], 2: [39.038]},
         inferred=["precision", "parallel.zero", "parallel.recompute"],
         extra="GB200 NVL72 (1280 trays x 4 GPUs). Config: MINIBS=16, TP4, PP8, INTERLEAVED_PIPELINE=8, CP2, "
               "MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=False, ASYM_PP_EMBED/LOSS, CUDA graphs, _fp4 (see the 2560-"
               "GPU row); config_common_fp8attn.sh (stored) adds FP8 dot-product attention. GBS = 16 x DP 80 = "
               "1280; evals every 15 steps = 19,200 sequences. The logged per-step times (~2.22 s) sum to "
               "~33.4 s of each ~38.8 s interval: ~5.4 s pass between the last step and block_stop; the "
               "interval as defined keeps it."),
    dict(key="v5.1-nvidia-gb300-512gpu-llama405b", bench="llama31_405b", rnd="v5.1", repo=V51,
         system="theia_ngpu512_ngc25.09_nemo", gpu="GB300", nodes=128, gpn=4, tp=2, pp=8, cp=2, vpp=8,
         mbs=1, gbs=1152, precision="fp4", recompute="none", tp_overlap=False, seq_per_interval=18432,
         config="NVIDIA/benchmarks/llama31_405b/implementations/hsg_ngpu2560_ngc25.09_nemo/config_GB300_128x4x72xtp2pp8cp2_cg_fp4.sh",
         config_repo=V51, cfg_state="readme", reliability="B",
         runs={0: [210.569], 1: [210.890], 2: [210.711]},
         inferred=["precision", "parallel.zero", "parallel.recompute", "training.overlap.tp"],
         extra="GB300 NVL72 (128 trays x 4 GPUs). The submission's README names "
               "config_GB300_128x4x72xtp2pp8cp2_cg_fp4.sh, stored only in the hsg_ngpu2560 directory: MINIBS=72, "
               "TP2, PP8, INTERLEAVED_PIPELINE=8, CP2, MICRO_BATCH_SIZE=1, ASYM_PP_EMBED/LOSS, _fp4; "
               "TP_COMM_OVERLAP not set there (left off). The theia config_common.sh (stored): FP8=True, "
               "FP8_RECIPE tensorwise, USE_DIST_OPTIMIZER=True, overlapped grad-reduce/param-gather, no "
               "recompute. GBS = 72 x DP 16 = 1152; evals every 16 steps = 18,432 sequences (step ~13.15 s)."),
]

SKIPPED = ("Left out: v5.0 GB200 Llama runs (tyche_ngpu256/512, ngc25.04): their final evaluations log no "
           "eval_start and a block_stop after eval_stop, so the interval ends are ambiguous; v5.1 "
           "tyche_ngpu512 (config 32x4 does not match 512 GPUs).")



def case(s):
    n = s["nodes"] * s["gpn"]
    mp = s["tp"] * s["pp"] * s["cp"]
    assert n % mp == 0
    dp = n // mp
    assert s["gbs"] % (dp * s["mbs"]) == 0, s["key"]
    seq = 2048 if s["bench"] == "gpt3" else 8192
    per_run_sps = {r: s["seq_per_interval"] / median(iv) for r, iv in s["runs"].items()}
    sps = median(list(per_run_sps.values()))
    tok = sps * seq / n
    repo, commit = s["repo"]
    crepo, ccommit = s["config_repo"]
    res = f"NVIDIA/results/{s['system']}/{s['bench']}/result_{{0,1,2}}.txt"
    if s["cfg_state"] == "own":
        cfg = f"config {crepo} @{ccommit}: {s['config']}"
    elif s["cfg_state"] == "readme":
        cfg = f"config named by the submission's README, read from {crepo} @{ccommit}: {s['config']}"
    else:
        cfg = f"config named by the submission's README but not stored: {s['config']}"
    msrc = GPT3_MODEL_SRC if s["bench"] == "gpt3" else LLAMA_MODEL_SRC
    inferred = list(s["inferred"])
    inferred += (["model.vocab", "model.kv_heads"] if s["bench"] == "gpt3"
                 else ["model.hidden", "model.heads", "model.kv_heads", "model.ffn_hidden", "model.ffn_act",
                       "model.vocab"])
    runs_txt = "; ".join(f"result_{r}: {len(iv)} interval(s), median {median(iv):.3f} s -> "
                         f"{per_run_sps[r]:.2f} seq/s" for r, iv in sorted(s["runs"].items()))
    notes = (f"MLPerf Training {s['rnd']} {s['bench']}, NVIDIA {s['system']}: {s['nodes']} x {s['gpn']} "
             f"{s['gpu']} = {n} GPUs; TP {s['tp']}, PP {s['pp']}, CP {s['cp']}, DP {dp}, VPP {s['vpp']}, "
             f"micro-batch {s['mbs']}, GBS {s['gbs']} ({s['gbs'] // (dp * s['mbs'])} micro-batches a step). "
             f"Target: {s['seq_per_interval']} sequences between evals / (next eval_start - eval_stop); {runs_txt}; "
             f"median {sps:.3f} seq/s x {seq} tokens / {n} GPUs. {s['extra']} "
             f"Sequence parallelism on (NeMo SEQ_PARALLEL default True); NeMo distributed optimizer = zero 1.")
    if s["bench"] == "gpt3":
        notes += " NeMo shares the input and output embedding (not expressible in the case format)."
    c = {
        "id": f"mlperf-llm-{s['key']}",
        "source": (f"MLPerf Training {s['rnd']} ({repo} @{commit}): {res} (MLLOG eval_stop/eval_start "
                   f"timestamps); {cfg}; {msrc}"),
        "reliability": s["reliability"],
        "workload": "train",
        "precision": s["precision"],
        "model": dict(GPT3_MODEL if s["bench"] == "gpt3" else LLAMA_MODEL),
        "cluster": {"gpu": s["gpu"], "num_gpus": n, "gpus_per_node": s["gpn"]},
        "parallel": {"tp": s["tp"], "pp": s["pp"], "dp": dp, "cp": s["cp"], "ep": 1, "sp": s["tp"] > 1,
                     "vpp": s["vpp"], "zero": 1, "recompute": s["recompute"], "microbatch": s["mbs"],
                     "global_batch": s["gbs"]},
        "inference": None,
        "target": {"metric": "tokens_per_s_per_gpu", "value": round(tok, 2)},
        "also": {"samples_per_s": round(sps, 3)},
        "inferred": sorted(set(inferred)),
        "notes": notes,
    }
    training = {}
    if s["tp_overlap"]:
        training["overlap"] = {"tp": True}
    if s["recompute"] == "selective":
        training["recompute_modules"] = ["core_attn"]
    if training:
        c["training"] = training
    if s.get("ttt_min"):
        c["also"]["time_to_train_min"] = round(median(s["ttt_min"]), 2)
    return c


def main():
    write_cases([case(s) for s in SUBMISSIONS], OUT)
    print(SKIPPED)


if __name__ == "__main__":
    main()
