#!/usr/bin/env python3
"""Write validation/mlperf_llama31_8b.jsonl: MLPerf Training ``llama31_8b`` (Llama 3.1 8B pre-training) results as
LLM training cases: round v5.1 (NVIDIA GB200/GB300 NVL72 at 8-512 GPUs, AMD MI355X/MI350X, and partner systems:
HPE H200, Datacrunch/Verda B200, Supermicro B300) and one v6.0 AMD MI355X result of a fork of the v6.0 repository.

Usage: python validation/build_mlperf_llama31_8b.py   (no network: every number below was read from the public
result logs and configs named in each row and is kept here as a literal).

Case format: ../shared/validation/README.md (LLM cases) plus dse's optional ``training`` block, as
build_mlperf_llm.py writes them (``overlap.tp`` where the config sets TP_COMM_OVERLAP=True) and as build_mlperf_lora.py
writes FP8 weight storage (``fp8_params``).

The benchmark (every submission): Llama 3.1 8B trained from scratch on C4 (model block: case_files.LLAMA31['8B'] --
32 layers, hidden 4096, 32 heads, 8 KV heads, SwiGLU FFN 14336, vocab 128256; the logs print max_sequence_length
8192, NeMo's printed config ``num_layers: 32``, ``encoder_seq_length: 8192``), target log perplexity 3.3, evaluation
every 12,288 sequences (= 100M tokens; the step count is ceil(12288 / GBS), so 12,312 sequences at GBS 36) on 1,024
validation sequences. HPE's run evaluated every 256 steps of GBS 32 = 8,192 sequences (its VAL_CHECK_INTERVAL=256).

Target (``tokens_per_s_per_gpu``) = training-only throughput from the MLLOG timestamps, as build_mlperf_llm.py: for a
pair of consecutive evaluations, the sequences trained between them (the two eval_start ``samples_count`` values)
divided by the time from one ``eval_stop`` to the next ``eval_start`` (evaluation excluded), times 8,192 tokens,
over the GPUs; median over the intervals of a run, then over the runs read (three per submission). The interval
after the first evaluation is never used. AMD's logs are bare MLLOG (~30 KB) and were read whole or from their
second half (9-12 intervals a run); the NVIDIA-harness logs (NVIDIA, HPE, Datacrunch, Supermicro; 0.2-0.65 MB of
per-32-step and per-validation-step lines) were read at their last page, which holds one interval a run (the last,
or for two Supermicro runs the one before). Intervals agree within 0.5% inside a run.

Pauses: NeMo's llama31_8b recipe collects Python garbage every 10,000 steps (config_common_8b.sh GC_TRAIN=10000;
``gc_interval_train: 10000`` in the configuration Supermicro's log prints). At GBS 16 (the 8-GPU runs) step 10,000
falls in the 768-step block 9,984 -> 10,752, and the two 8-GPU NVIDIA runs whose last interval is that block show a
~43 s pause right after eval_stop (the first 31 steps take ~54 s instead of ~11-13 s): they are kept, as the interval
is defined, and the median over the three runs takes a run without the pause. No other interval read contains step
10,000.

``also.samples_per_s`` = sequences/s (the same medians). ``also.time_to_train_min`` = run_stop - run_start where both
were read (AMD MI355X v5.1 run 0). ``also.step_time_s`` = the mean train_step_time the NVIDIA-harness logs print at the interval's
block_stop (median over the runs), for reference.
"""
import os

from case_files import LLAMA31, median, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlperf_llama31_8b.jsonl")
SEQ = 8192

# Repositories and the commits the logs and configs were read at.
V51 = ("mlcommons/training_results_v5.1", "4da2d1cd")
V51_VERDA_A = ("mlcommons/training_results_v5.1", "504c3b50")   # Verda = Datacrunch's later name; other commits
V51_VERDA_B = ("mlcommons/training_results_v5.1", "63193483")   # of the same repository store its directory
V60_FORK = ("Richardyu114/training_results_v6.0", "eabf23a0")    # fork of mlcommons/training_results_v6.0

NV_IMPL = "NVIDIA/benchmarks/llama31_8b/implementations"
VERDA_IMPL = "Verda/benchmarks/llama31_8b/implementations/b200_8x8_ngc25.09"
NV_COMMON = (f"{V51[0]} @{V51[1]}: {NV_IMPL}/nemo/config_common.sh (FP8=True, FP8_RECIPE tensorwise, "
             "USE_DIST_OPTIMIZER=True, FP8_PARAM_GATHER=True, OVERLAP_GRAD_REDUCE/OVERLAP_PARAM_GATHER=True, "
             "MICRO_BATCH_SIZE=1 unless overridden)")
NV_8B = (f"{V51_VERDA_B[0]} @{V51_VERDA_B[1]}: {VERDA_IMPL}/config_common_8b.sh (OVERWRITTEN_NUM_LAYERS=32, "
         "FP8_HYBRID=True, USE_TE_OPS=True, GC_TRAIN=10000, MODEL_TFLOP_PER_SAMPLE=421.59; not stored in NVIDIA's "
         "directory: the copy Verda submitted, identical in HPE's HPE/benchmarks/llama3_8b/implementations/nemo-x86_64 "
         "except its NVFP4 switches)")

MODEL = dict(LLAMA31["8B"], name="Llama 3.1 8B (MLPerf Training llama31_8b)", seq_len=SEQ)
MODEL_SRC = ("model block: validation/case_files.py LLAMA31['8B'] (the models' config.json); 32 layers and sequence "
             "8192 confirmed by the configs (OVERWRITTEN_NUM_LAYERS=32) and logs (max_sequence_length 8192)")

# One row per submission. runs: {result file index: [(eval_stop time_ms, next eval_start time_ms), ...]}, every
# pair read from the result log (the samples_count at the eval_stop is in ``first_samples`` / the notes);
# seq_per_interval: sequences trained between the two (the eval_start samples_count difference).
# cfg_state: "own" (config stored in the submitter's own directory, name matching the log or README), "copy"
# (the config named by the README is stored only as another submitter's copy), "name" (named, not stored: the plan
# is the name's and the log's).
SUBMISSIONS = [
    # ------------------------------------------------------------------ AMD (v5.1), NeMo 2 on ROCm
    dict(key="v5.1-amd-mi355x-1x8", rnd="v5.1", repo=V51, submitter="AMD", system="MI355X_EPYC_9575F_pytorch",
         gpu="MI355X", nodes=1, gpn=8, tp=1, pp=1, cp=1, mbs=2, gbs=32, precision="fp8", zero=1, tp_overlap=None,
         fp8_params=True, seq_per_interval=12288, cfg_state="own", reliability="B",
         config=f"{V51[0]} @{V51[1]}: AMD/benchmarks/llama31_8b/implementations/MI355X_EPYC_9575F_pytorch_llama3_8b/"
                "config_MI355X_1x8x1_8b.sh (named by the README there)",
         runs={0: [(1759967035956, 1759967437376), (1759967447254, 1759967848518), (1759967858388, 1759968259642),
                   (1759968269497, 1759968670551), (1759968680406, 1759969081378), (1759969091227, 1759969491983),
                   (1759969501830, 1759969902643), (1759969912496, 1759970313353), (1759970323201, 1759970723972),
                   (1759970733810, 1759971134491), (1759971144322, 1759971544582), (1759971554411, 1759971954839)],
               1: [(1759973696903, 1759974097684), (1759974107549, 1759974508199), (1759974518065, 1759974918579),
                   (1759974928434, 1759975328792), (1759975338651, 1759975738924), (1759975748776, 1759976148976),
                   (1759976158822, 1759976559063), (1759976568906, 1759976969017), (1759976978859, 1759977379024),
                   (1759977388875, 1759977789387), (1759977799239, 1759978199453)],
               2: [(1759980350387, 1759980750364), (1759980760212, 1759981160329), (1759981170179, 1759981570154),
                   (1759981579989, 1759981979863), (1759981989702, 1759982389668), (1759982399508, 1759982799348),
                   (1759982809181, 1759983209057), (1759983218900, 1759983618836), (1759983628684, 1759984028664)]},
         first_samples={0: 24576, 1: 49152, 2: 61440},
         ttt_ms=[(1759966206549, 1759971964686)],
         inferred=["precision", "parallel.zero", "parallel.recompute"],
         extra="Config (AMD's own, MLPERF_SUBMISSION_ORG=\"AMD\", PLATFORM \"MI355X\"): GBS=32, MBS=2, TP=1, PP=1, "
               "CP=1 -> DP 8, two microbatches a step (log: global_batch_size 32, gradient_accumulation_steps 2), "
               "FP8_PARAMS=1 (run_and_time.sh passes --fp8_params: weights held in FP8 -> training.fp8_params), "
               "NVTE_FP8_DPA_BWD=1, CK fused attention (NVTE_FUSED_ATTN_CK=1), TP_COMM_OVERLAP=False, MAX_LR 8e-4, "
               "EVAL_EVERY=12288. Container rocm/amd-mlperf:llama31_8b_training_5.1 (NeMo v2.5.0rc0, ROCm "
               "Megatron-LM and Transformer Engine, Dockerfile of the MI350X directory). The training script "
               "(src/train.py) is not stored, so the FP8 recipe is inferred from --fp8_params (NeMo's fp8_params needs "
               "FP8 compute), the optimizer from NeMo 2's pre-training default (distributed fused Adam -> zero 1) "
               "and recompute as none (288 GB for an 8B model on 8 GPUs). run_start -> run_stop of result_0: "
               "95.97 min (the log prints 95.97). Results 0-9 stored, 0-2 read."),
    dict(key="v5.1-amd-mi350x-1x8", rnd="v5.1", repo=V51, submitter="AMD", system="MI350X_EPYC_9575F_pytorch",
         gpu="MI350X", nodes=1, gpn=8, tp=1, pp=1, cp=1, mbs=2, gbs=32, precision="fp8", zero=1, tp_overlap=None,
         fp8_params=True, seq_per_interval=12288, cfg_state="copy", reliability="B",
         config=f"{V51[0]} @{V51[1]}: Supermicro/benchmarks/llama31_8b/implementations/8xMI355X_2xEPYC_9575F/"
                "config_MI350X_1x8x1_8b.sh (AMD's MI350X config as Supermicro stored it: MLPERF_SUBMISSION_ORG=\"AMD\", "
                "PLATFORM \"MI350X\"; AMD's own MI350X directory stores none)",
         runs={0: [(1759967731490, 1759968223496), (1759968235789, 1759968727990), (1759968740311, 1759969232405),
                   (1759969244715, 1759969736794), (1759969749093, 1759970240895), (1759970253191, 1759970744883),
                   (1759970757139, 1759971248750), (1759971261001, 1759971752438)],
               1: [(1759974886442, 1759975379135), (1759975391453, 1759975884072), (1759975896387, 1759976388881),
                   (1759976401194, 1759976893552), (1759976905883, 1759977397985), (1759977410327, 1759977902517)],
               2: [(1759983064442, 1759983557366), (1759983569681, 1759984062570), (1759984074907, 1759984567615),
                   (1759984579956, 1759985072606), (1759985084932, 1759985577495), (1759985589796, 1759986082236),
                   (1759986094535, 1759986586900), (1759986599190, 1759987091514), (1759987103811, 1759987596086),
                   (1759987608402, 1759988100553), (1759988112872, 1759988605069)]},
         first_samples={0: 24576, 1: 24576, 2: 49152},
         inferred=["precision", "parallel.zero", "parallel.recompute"],
         extra="Config (the copy): GBS=32, MBS=2, TP=1, PP=1, CP=1, MAX_LR 1e-3 (the log's opt_base_learning_rate "
               "0.001 and global_batch_size 32, gradient_accumulation_steps 2 match), FP8_PARAMS=1, CK fused "
               "attention, otherwise as AMD's MI355X config. FP8, zero 1 and no recompute inferred as for the MI355X "
               "row (src/train.py not stored). Results 0-9 stored, 0-2 read."),
    # ------------------------------------------------------------------ NVIDIA (v5.1), NeMo
    dict(key="v5.1-nvidia-gb300-18x4", rnd="v5.1", repo=V51, submitter="NVIDIA", system="theia_ngpu72_ngc25.09_nemo",
         gpu="GB300", nodes=18, gpn=4, tp=1, pp=1, cp=2, mbs=1, gbs=36, precision="fp8", zero=1, tp_overlap=False,
         fp8_params=True, seq_per_interval=12312, cfg_state="own", reliability="A",
         config=f"{V51[0]} @{V51[1]}: {NV_IMPL}/nemo/config_GB300_18x4x1xtp1pp1cp2_8b.sh (named by "
                f"{NV_IMPL}/theia_ngpu72_ngc25.09_nemo/README-theia_ngpu72_ngc25.09_nemo.md); {NV_COMMON}; {NV_8B}",
         runs={0: [(1759904375810, 1759904426404)], 1: [(1759905377172, 1759905427744)],
               2: [(1759906384309, 1759906434915)]},
         first_samples={0: 172368, 1: 172368, 2: 172368}, step_time=0.1479,
         inferred=["parallel.recompute"],
         extra="GB300 NVL72, 18 trays x 4 GPUs (SEGMENT=18: one NVLink domain). Config: MINIBS=1, TP=1, SP False, "
               "PP=1, CP=2 -> DP 36, GBS 36 (log samples_count +36 a step), MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=False, "
               "NVTE_DPA_FP8_RECIPE=F16 (16-bit attention), CUDA graphs (config_common_cg.sh, not stored), "
               "VAL_CHECK_INTERVAL=342 steps = 12,312 sequences. No recompute setting anywhere (none assumed, as "
               "Supermicro's printed config of the same recipe: activations_checkpoint_granularity null). Last "
               "interval of each run (samples 172,368 -> 184,680; step ~0.148 s)."),
    dict(key="v5.1-nvidia-gb300-128x4", rnd="v5.1", repo=V51, submitter="NVIDIA", system="theia_ngpu512_ngc25.09_nemo",
         gpu="GB300", nodes=128, gpn=4, tp=2, pp=1, cp=4, mbs=1, gbs=64, precision="fp8", zero=1, tp_overlap=True,
         fp8_params=True, seq_per_interval=12288, cfg_state="own", reliability="A",
         config=f"{V51[0]} @{V51[1]}: {NV_IMPL}/nemo/config_GB300_128x4x1xtp2pp1cp4_8b.sh (named by "
                f"{NV_IMPL}/theia_ngpu512_ngc25.09_nemo/README-theia_ngpu512_ngc25.09_nemo.md); {NV_COMMON}; {NV_8B}",
         runs={0: [(1759960772947, 1759960789579)], 1: [(1759961384238, 1759961400848)],
               2: [(1759962017430, 1759962034077)]},
         first_samples={0: 208896, 1: 208896, 2: 221184}, step_time=0.0866, nvlink_domain=64,
         inferred=["parallel.recompute"],
         extra="GB300 NVL72, 128 trays x 4 GPUs (SEGMENT=16: 64-GPU NVLink partitions -> cluster.nvlink_domain 64). Config: MINIBS=1, TP=2, "
               "SEQ_PARALLEL=True, PP=1, CP=4 -> DP 64, GBS 64 (log +64 a step), MICRO_BATCH_SIZE=1, "
               "TP_COMM_OVERLAP=True, BUCKET_SIZE 768M, USE_TE_OPS=False, NVTE_DPA_FP8_RECIPE=F16, CUDA graphs, "
               "VAL_CHECK_INTERVAL=192 steps = 12,288 sequences. Last interval of each run (step ~0.086 s; 2.3x less "
               "per GPU than the 72-GPU run: one 8,192-token sequence is split over 8 GPUs)."),
    dict(key="v5.1-nvidia-gb200-18x4", rnd="v5.1", repo=V51, submitter="NVIDIA", system="tyche_ngpu72_ngc25.09_nemo",
         gpu="GB200", nodes=18, gpn=4, tp=1, pp=1, cp=2, mbs=1, gbs=36, precision="fp8", zero=1, tp_overlap=False,
         fp8_params=True, seq_per_interval=12312, cfg_state="copy", reliability="B",
         config=f"{V51_VERDA_A[0]} @{V51_VERDA_A[1]}: {VERDA_IMPL}/config_GB200_18x4x1xtp1pp1cp2_8b.sh (the config "
                f"{NV_IMPL}/tyche_ngpu72_ngc25.09_nemo/README-tyche_ngpu72_ngc25.09_nemo.md names, stored only as "
                f"Verda's copy); {NV_COMMON}; {NV_8B}",
         runs={0: [(1759924533126, 1759924591088)], 1: [(1759925392996, 1759925451705)],
               2: [(1759925342349, 1759925401199)]},
         first_samples={0: 160056, 1: 172368, 2: 160056}, step_time=0.1717,
         inferred=["parallel.recompute"],
         extra="GB200 NVL72, 18 trays x 4 GPUs. Config (copy): MINIBS=1, TP=1, SP False, PP=1, CP=2 -> DP 36, GBS 36 "
               "(log +36 a step), MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=False, config_common_fp8attn.sh (FP8 "
               "dot-product attention, not modelled), CUDA graphs, VAL_CHECK_INTERVAL=342. Last interval of each "
               "run (step ~0.170 s)."),
    dict(key="v5.1-nvidia-gb200-128x4", rnd="v5.1", repo=V51, submitter="NVIDIA", system="tyche_ngpu512_ngc25.09_nemo",
         gpu="GB200", nodes=128, gpn=4, tp=2, pp=1, cp=4, mbs=1, gbs=64, precision="fp8", zero=1, tp_overlap=True,
         fp8_params=True, seq_per_interval=12288, cfg_state="name", reliability="B",
         config=f"config_GB200_128x4x1xtp2pp1cp4_8b.sh, named by {V51[0]} @{V51[1]}: "
                f"{NV_IMPL}/tyche_ngpu512_ngc25.09_nemo/README-tyche_ngpu512_ngc25.09_nemo.md, stored nowhere: plan "
                f"from its name and the log, the rest from the GB300 config of the same name; {NV_COMMON}",
         runs={0: [(1759980798941, 1759980816255)], 1: [(1759981415396, 1759981432731)],
               2: [(1759981993430, 1759982010758)]},
         first_samples={0: 208896, 1: 233472, 2: 208896}, step_time=0.0902,
         inferred=["parallel.recompute", "parallel.sp", "training.overlap.tp"],
         extra="GB200 NVL72, 128 trays x 4 GPUs. TP 2, PP 1, CP 4, MINIBS 1 from the name -> DP 64; GBS 64 (log +64 a "
               "step, 192 steps between evals) -> one microbatch of 1. Sequence parallelism and TP communication "
               "overlap as in the GB300 config of the same name (inferred). Last interval of each run (step "
               "~0.090 s)."),
    dict(key="v5.1-nvidia-gb300-2x4-fp4", rnd="v5.1", repo=V51, submitter="NVIDIA", system="theia_ngpu8_ngc25.09_nemo",
         gpu="GB300", nodes=2, gpn=4, tp=1, pp=1, cp=1, mbs=2, gbs=16, precision="fp4", zero=1, tp_overlap=False,
         fp8_params=False, seq_per_interval=12288, cfg_state="copy", reliability="B",
         config=f"{V51_VERDA_B[0]} @{V51_VERDA_B[1]}: {VERDA_IMPL}/config_GB300_2x4x2xtp1pp1cp1_8b_fp4.sh and "
                f"config_common_fp4.sh (the config {NV_IMPL}/theia_ngpu8_ngc25.09_nemo/README-theia_ngpu8_ngc25.09_"
                f"nemo.md names, stored only as Verda's copy); {NV_COMMON}; {NV_8B}",
         runs={0: [(1759910500029, 1759910765512)], 1: [(1759906202446, 1759906509864)],
               2: [(1759910509922, 1759910774886)]},
         first_samples={0: 172032, 1: 159744, 2: 172032}, step_time=0.3457,
         inferred=["parallel.recompute"],
         extra="Two GB300 trays (one NVL72 rack). Config (copy): MINIBS=2, TP=1, PP=1, CP=1 -> DP 8, "
               "MICRO_BATCH_SIZE=2 -> GBS 16, one microbatch (log global_batch_size 16), FULL_CUDA_GRAPH=0, LR 4e-4, "
               "VAL_CHECK_INTERVAL=768. config_common_fp4.sh: FP4=True, FP8=False, FP4_RECIPE nvfp4 (NVFP4 GEMMs), "
               "FP8_PARAM_GATHER=False (16-bit weights -> fp8_params false), TP_COMM_OVERLAP=False, FP8 attention "
               "(NVTE_DPA_FP8_RECIPE Float8CurrentScaling, config_common_fp8attn.sh; not modelled). The step time is "
               "flat through the run (0.3447 s at step ~6,200, 0.3457 s at the end): no precision switch. result_1's "
               "interval (block 9,984 -> 10,752) holds the ~43 s step-10,000 garbage-collection pause (307.4 s vs "
               "265.0-265.5 s); the median takes result_0."),
    dict(key="v5.1-nvidia-gb200-2x4-fp4", rnd="v5.1", repo=V51, submitter="NVIDIA", system="tyche_ngpu8_ngc25.09_nemo",
         gpu="GB200", nodes=2, gpn=4, tp=1, pp=1, cp=1, mbs=2, gbs=16, precision="fp4", zero=1, tp_overlap=False,
         fp8_params=False, seq_per_interval=12288, cfg_state="name", reliability="B",
         config=f"config_GB200_2x4x2xtp1pp1cp1_8b_fp4.sh, named by {V51[0]} @{V51[1]}: "
                f"{NV_IMPL}/tyche_ngpu8_ngc25.09_nemo/README-tyche_ngpu8_ngc25.09_nemo.md, stored nowhere: plan from "
                f"its name and the log (global_batch_size 16, gradient_accumulation_steps 1.0 -> microbatch 2), FP4 "
                f"recipe from {V51_VERDA_B[0]} @{V51_VERDA_B[1]}: {VERDA_IMPL}/config_common_fp4.sh; {NV_COMMON}",
         runs={0: [(1759912202530, 1759912556180)], 1: [(1759912616994, 1759912931701)],
               2: [(1759912581459, 1759912893581)]},
         first_samples={0: 159744, 1: 172032, 2: 172032}, step_time=0.4098,
         inferred=["parallel.recompute", "parallel.microbatch", "training.fp8_params"],
         extra="Two GB200 trays. TP 1, PP 1, CP 1, MINIBS 2 from the name -> DP 8, GBS 16 (log); the log's "
               "gradient_accumulation_steps 1.0 -> microbatch 2. FP4 (_fp4 suffix; NVFP4 recipe of "
               "config_common_fp4.sh assumed, with its 16-bit weights). result_0's interval (block 9,984 -> 10,752) "
               "holds the ~43 s step-10,000 pause (353.7 s vs 312.1-314.7 s); the median takes result_1."),
    # ------------------------------------------------------------------ partners (v5.1), NVIDIA's NeMo recipe
    dict(key="v5.1-hpe-xd670-h200-8x8", rnd="v5.1", repo=V51, submitter="HPE",
         system="HPE-Cray-XD670-H200-SXM5-141GB_n8_25.09", gpu="H200-SXM-141GB", nodes=8, gpn=8, tp=1, pp=1, cp=2,
         mbs=1, gbs=32, precision="fp8", zero=1, tp_overlap=False, fp8_params=True, seq_per_interval=8192,
         cfg_state="own", reliability="A",
         config=f"{V51[0]} @{V51[1]}: HPE/benchmarks/llama3_8b/implementations/nemo-x86_64/"
                "config_XD670_8x8x1xtp1pp1cp2_8b.sh (the log's DLPAL line names XD670_8x8x1xtp1pp1cp2_8b) and "
                f"config_common_8b.sh there; config_common.sh not in HPE's directory: {NV_COMMON}",
         runs={1: [(1760094018663, 1760094109196)], 2: [(1760096534759, 1760096625337)],
               3: [(1760100042179, 1760100132750)]},
         first_samples={1: 188416, 2: 188416, 3: 188416}, step_time=0.3538,
         inferred=["parallel.recompute"],
         extra="HPE Cray XD670, 8 nodes x 8 H200 (NVLink 900 GB/s in a node, 8 x 400 Gb/s InfiniBand NDR a node). "
               "Config: MINIBS=1, TP=1, SP False, PP=1, CP=2 -> DP 32, GBS 32 (log +1,024 per 32 steps), "
               "MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=False, config_common_fp8attn.sh (FP8 attention, not modelled), "
               "FP8_HYBRID=True, VAL_CHECK_INTERVAL=256 steps = 8,192 sequences between evaluations. Container NGC "
               "25.08. Last interval of each run (samples 188,416 -> 196,608; step ~0.353 s). Results numbered "
               "1-10; 1-3 read."),
    dict(key="v5.1-datacrunch-b200-8x8", rnd="v5.1", repo=V51, submitter="Datacrunch", system="b200_8x8_ngc25.09",
         gpu="B200-180GB", nodes=8, gpn=8, tp=1, pp=1, cp=2, mbs=1, gbs=32, precision="fp8", zero=1,
         tp_overlap=False, fp8_params=True, seq_per_interval=12288, cfg_state="own", reliability="A",
         config=f"{V51_VERDA_B[0]} @{V51_VERDA_B[1]}: {VERDA_IMPL}/config_DGXB200_8x8x1xtp1pp1cp2_8b.sh (the "
                "submitter's directory under its later name Verda; the log's DLPAL line names DGXB200_8x8x1xtp1pp1cp2_8b); "
                f"{NV_COMMON}; {NV_8B}",
         runs={0: [(1760028346343, 1760028420657)], 1: [(1760034977968, 1760035051485)],
               3: [(1760038071897, 1760038145701)]},
         first_samples={0: 172032, 1: 159744, 3: 172032}, step_time=0.1922,
         inferred=["parallel.recompute"],
         extra="Datacrunch Instant Cluster, 8 nodes x 8 B200 (Datacrunch/systems/b200_8x8_ngc25.09.json: 64 GPUs, "
               "InfiniBand). Config: MINIBS=1, TP=1, SP False, PP=1, CP=2 -> DP 32, GBS 32 (log +1,024 per 32 "
               "steps), MICRO_BATCH_SIZE=1, TP_COMM_OVERLAP=False, CUDA graphs, VAL_CHECK_INTERVAL=384. Container "
               "nvcr.io/nvdlfwea/mlperftv51/llama31_8b-amd:20251006. Last interval of each run (step ~0.192 s). "
               "Results 0, 1, 3, 5, 6, 8 stored at this commit (2, 4, 7, 9 under Verda/results at 504c3b50/63193483); "
               "0, 1, 3 read."),
    dict(key="v5.1-supermicro-b300-1x8", rnd="v5.1", repo=V51, submitter="Supermicro", system="AS-8126GS-NB3RT",
         gpu="B300", nodes=1, gpn=8, tp=1, pp=1, cp=1, mbs=2, gbs=16, precision="fp8", zero=1, tp_overlap=False,
         fp8_params=True, seq_per_interval=12288, cfg_state="own", reliability="A",
         config=f"{V51[0]} @{V51[1]}: Supermicro/benchmarks/llama31_8b/implementations/AS-8126GS-NB3RT/"
                "config_DGXB200_1x8x2xtp1pp1cp1_8b.sh and config_common.sh there (the log's DLPAL line names "
                "DGXB200_1x8x2xtp1pp1cp1_8b; the log also prints NeMo's experiment configuration)",
         runs={1: [(1759978374914, 1759978798312)], 2: [(1759984298007, 1759984721285)],
               3: [(1759990219462, 1759990642695)]},
         first_samples={1: 147456, 2: 147456, 3: 147456}, step_time=0.5511,
         inferred=[],
         extra="Supermicro AS-8126GS-NB3RT, one node of 8 B300 (B300-SXM-270GB, NVLink5 + NVSwitch; systems json and "
               "the log's SYSJSON 'NVIDIA B300 SXM6 AC'), run with NVIDIA's DGX B200 1-node config. Printed "
               "configuration: micro_batch_size 2, TP 1, PP 1, CP 1, global_batch_size 16, sequence_parallel false, "
               "fp8 true, fp8_hybrid, fp8_recipe tensorwise, fp8_dot_product_attention false, "
               "activations_checkpoint_granularity null (no recompute), use_distributed_optimizer true, "
               "fp8_param_gather true, enable_cuda_graph 0 (the config sets FULL_CUDA_GRAPH=0, MCORE_CUDA_GRAPH=0), "
               "gc_interval_train 10000, val_check_interval 768. Interval 147,456 -> 159,744 of each run (steps "
               "9,216 -> 9,984; result_3's last interval, 9,984 -> 10,752, holds step 10,000 and was not read; step "
               "~0.551 s). Results 1-10 stored, 1-3 read."),
    # ------------------------------------------------------------------ AMD (v6.0 fork), Primus / Megatron-LM
    dict(key="v6.0-amd-mi355x-1x8-fp4", rnd="v6.0", repo=V60_FORK, submitter="AMD", system="MI355X_EPYC_9575F_primus",
         gpu="MI355X", nodes=1, gpn=8, tp=1, pp=1, cp=1, mbs=2, gbs=32, precision="fp4", zero=1, tp_overlap=None,
         fp8_params=False, seq_per_interval=12288, cfg_state="own", reliability="B",
         config=f"{V60_FORK[0]} @{V60_FORK[1]}: AMD/benchmarks/llama31_8b/implementations/MI355X_EPYC_9575F_primus/"
                "config_MI355X_1x8x1.sh (the log's config_filename) with the Primus experiment "
                "AMD/benchmarks/llama31_8b/implementations/MI350X_EPYC_9575F_primus/conf/llama3.1_8B-pretrain-fp4.yaml "
                "(EXP=/workspace/code/conf/llama3.1_8B-pretrain-fp4.yaml; the MI355X directory stores no conf/)",
         runs={0: [(1778601134355, 1778601470043), (1778601479100, 1778601814340), (1778601823465, 1778602158871),
                   (1778602167998, 1778602503908), (1778602512981, 1778602848887), (1778602858093, 1778603193622),
                   (1778603202765, 1778603538553), (1778603547695, 1778603884700), (1778603893796, 1778604229490),
                   (1778604238645, 1778604574994), (1778604584110, 1778604920507), (1778604929670, 1778605265589),
                   (1778605274796, 1778605610827)],
               1: [(1778607147270, 1778607481423), (1778607490575, 1778607825298), (1778607834479, 1778608169296),
                   (1778608178465, 1778608512302), (1778608521504, 1778608855812), (1778608864979, 1778609199006),
                   (1778609208167, 1778609541543), (1778609550779, 1778609884746), (1778609893867, 1778610228380),
                   (1778610237544, 1778610572008), (1778610581182, 1778610914444)],
               2: [(1778612460794, 1778612796672), (1778612805928, 1778613141964), (1778613151181, 1778613485990),
                   (1778613495157, 1778613829390), (1778613838556, 1778614174082), (1778614183256, 1778614517931),
                   (1778614527110, 1778614862450), (1778614871703, 1778615206333), (1778615215575, 1778615550741),
                   (1778615559998, 1778615894390), (1778615903584, 1778616239077)]},
         first_samples={0: 24576, 1: 49152, 2: 49152},
         inferred=["parallel.recompute"],
         extra="MLPerf Training v6.0 round (not in mlcommons/training_results_v5.1): a fork's copy of AMD's v6.0 "
               "directories, reliability B. Primus (Megatron-LM) on ROCm, one node of 8 MI355X. Config: "
               "PRIMUS_GLOBAL_BATCH_SIZE=32, PRIMUS_MICRO_BATCH_SIZE=2, FP4=true, FP4_RECIPE=mxfp4 (MXFP4 GEMMs), "
               "TP_COMM_OVERLAP=False, EVAL_SAMPLES_INTERVAL=12288; the yaml: TP 1, PP 1, fp4 true, mxfp4, "
               "use_distributed_optimizer true (-> zero 1), grad_reduce_in_bf16, overlap_grad_reduce/param_gather, "
               "no recompute keys (none assumed). The log prints tensor_parallelism 1, pipeline_parallelism 1, "
               "context_parallelism 1, micro_batch_size 2, global_batch_size 32, gradient_accumulation_steps 2, "
               "lowest_numerical_precision_linear mxfp4. Runs last 85.9-86.1 min (logged run_duration). "
               "Results 0-9 stored, 0-2 read."),
]

SKIPPED = (
    "Left out: Lenovo SR680aV3/SR780aV3 (8 B200) and SR680aV4 (8 B300) -- only config_common_8b.sh and a README are "
    "stored, the plan is not; Dell XE9680L 8 B200 and Supermicro's other NVIDIA systems (AS-4126GS-NBR-LCC, "
    "AS-A126GS-TNBR, SYS-822GS-NB3RT, SYS-422GS-NBRT-LCC) -- not read; Supermicro 8xMI355X_2xEPYC_9575F -- its "
    "directory stores AMD's MI350X config, so which config ran on its MI355X node is not stated; Verda results "
    "2/4/7/9 (the Datacrunch system at other commits); the v6.0 fork's MI350X Primus FP4 result and Inventec's "
    "v6.0 work in progress (jkjung-avt/training_results_v6.0: configs, no results) -- not read or not final.")


def case(s):
    n = s["nodes"] * s["gpn"]
    mp = s["tp"] * s["pp"] * s["cp"]
    assert n % mp == 0, s["key"]
    dp = n // mp
    assert s["gbs"] % (dp * s["mbs"]) == 0, s["key"]
    accum = s["gbs"] // (dp * s["mbs"])
    per_run_iv = {r: [(b - a) / 1000.0 for a, b in pairs] for r, pairs in s["runs"].items()}
    for r, iv in per_run_iv.items():
        assert all(x > 0 for x in iv), (s["key"], r)
    per_run_sps = {r: s["seq_per_interval"] / median(iv) for r, iv in per_run_iv.items()}
    sps = median(list(per_run_sps.values()))
    tok = sps * SEQ / n
    repo, commit = s["repo"]
    runs = sorted(s["runs"])
    res = f"{s['submitter']}/results/{s['system']}/llama31_8b/result_{{{','.join(map(str, runs))}}}.txt"
    runs_txt = "; ".join(
        f"result_{r}: {len(per_run_iv[r])} interval(s) from samples {s['first_samples'][r]}, median "
        f"{median(per_run_iv[r]):.3f} s -> {per_run_sps[r]:.3f} seq/s" for r in runs)
    notes = (f"MLPerf Training {s['rnd']} llama31_8b, {s['submitter']} {s['system']}: {s['nodes']} x {s['gpn']} "
             f"{s['gpu']} = {n} GPUs; TP {s['tp']}, PP {s['pp']}, CP {s['cp']}, DP {dp}, micro-batch {s['mbs']}, "
             f"GBS {s['gbs']} ({accum} microbatch(es) a step). Target: {s['seq_per_interval']} sequences between "
             f"evals / (next eval_start - eval_stop); {runs_txt}; median {sps:.3f} seq/s x {SEQ} tokens / {n} GPUs. "
             f"{s['extra']} Not modelled by dse: CUDA graphs, FP8 attention where set, the fused RoPE/QKV and "
             "cross-entropy kernels; evaluation time is excluded from the target.")
    inferred = list(s["inferred"]) + ["model.layers", "model.hidden", "model.heads", "model.kv_heads",
                                      "model.ffn_hidden", "model.ffn_act", "model.vocab"]
    c = {
        "id": f"mlperf-llama31-8b-{s['key']}",
        "source": (f"MLPerf Training {s['rnd']} ({repo} @{commit}): {res} (MLLOG eval_stop/eval_start timestamps); "
                   f"config {s['config']}; {MODEL_SRC}"),
        "reliability": s["reliability"],
        "workload": "train",
        "precision": s["precision"],
        "model": dict(MODEL),
        "cluster": {"gpu": s["gpu"], "num_gpus": n, "gpus_per_node": s["gpn"],
                    **({"nvlink_domain": s["nvlink_domain"]} if s.get("nvlink_domain") else {})},
        "parallel": {"tp": s["tp"], "pp": s["pp"], "dp": dp, "cp": s["cp"], "ep": 1, "sp": s["tp"] > 1, "vpp": 1,
                     "zero": s["zero"], "recompute": "none", "microbatch": s["mbs"], "global_batch": s["gbs"]},
        "inference": None,
        "target": {"metric": "tokens_per_s_per_gpu", "value": round(tok, 1)},
        "also": {"samples_per_s": round(sps, 3)},
        "inferred": sorted(set(inferred)),
        "notes": notes,
    }
    training = {}
    if s["tp_overlap"] is not None and s["tp"] > 1:
        training["overlap"] = {"tp": s["tp_overlap"]}
    if s["fp8_params"]:
        training["fp8_params"] = True
    if training:
        c["training"] = training
    if s.get("step_time"):
        c["also"]["step_time_s"] = s["step_time"]
    if s.get("ttt_ms"):
        c["also"]["time_to_train_min"] = round(median([(b - a) / 60000.0 for a, b in s["ttt_ms"]]), 2)
    return c


def main():
    write_cases([case(s) for s in SUBMISSIONS], OUT)
    print(SKIPPED)


if __name__ == "__main__":
    main()
