#!/usr/bin/env python3
"""Write validation/mlperf_lora.jsonl: MLPerf Training ``llama2_70b_lora`` results (rounds v4.0-v5.1) as LoRA
fine-tuning cases: NVIDIA NeMo submissions (NVIDIA, Dell, HPE) and, in v5.1, AMD Instinct submissions (AMD's
own MI300X/MI325X/MI350X/MI355X nodes and Krai's MI300X node).

Usage: python validation/build_mlperf_lora.py   (no network: every number below was read from the public
result logs and configs named in each row and is kept here as a literal).

Case format: ../shared/validation/README.md (LLM schema) with dse's scenario keys: ``workload: finetune``, a
top-level ``finetune`` block (LoRA rank and targets) and, where the config states it, a ``training`` block.

The benchmark (same in every round): Llama-2-70B (80 layers, hidden 8192, 64 heads, 8 KV heads, SwiGLU FFN
28672, vocab 32000, NeMo pads it to 32256), LoRA rank 16 (alpha 32, dropout 0.1 "pre") on the attention
projections only -- NeMo ``target_modules: ['attention']`` (v4.x yaml) = ``['linear_qkv', 'linear_proj']``
(v5.0 train.py) = the fused QKV and the attention output projection; every base weight, the embeddings and
the output head included, is frozen (the Dell v4.0 log prints 11.1M trainable parameters per TP-4 rank =
80 x 16 x [(8192+10240) + (8192+8192)] / 4, the adapters alone). GovReport (SCROLLS) samples are pre-packed
to 8192 tokens (``packed_sequence: True``, ``max_seq_length 8192``, no cu_seqlens: the attention runs over
the full 8192-token causal window), so one sample = one 8192-token sequence. FP8 (Transformer Engine,
``fp8_hybrid``, ``fp8_params``: weights kept in FP8) in every round; v5.1's 8-GPU configs are ``*_fp4``.
No activation recompute (``activations_checkpoint_granularity: null``), ``cpu_offloading: False`` (v4.x yaml;
v5.0 yaml default ``CPU_OFFLOADING=False``, its config_common is not stored).

AMD (v5.1, ROCm container rocm/amd-mlperf:llama2_70b_training_5.1): the same NeMo-1 peft recipe ported to ROCm
(Transformer Engine with hipBLASLt GEMMs and CK fused attention), one 8-GPU node, TP 1 / CP 1 / DP 8, MBS 1,
MINIBS 1 -> GBS 8, every GPU holding the whole FP8 model (``FP8=True`` sets both fp8 and fp8_params in AMD's
yaml), FP8 delayed scaling (amax most_recent, history 4, no amax reduction), ``FP8_DPA=0`` (BF16 attention),
``FP8_ACTIVATION=True`` (-> training.fp8_activation_cache), fused_adam (the yaml switches to the distributed
optimizer only for num_nodes > 1 -> zero 0). AMD's own directories store no ``config_*.sh``: the MI300X and
MI350X configs are read from the copies Krai and Dell submitted (both say MLPERF_SUBMISSION_ORG="AMD"); the MI325X
and MI355X ones are stored nowhere and their plan is taken from those two (reliability B). AMD logs are bare
MLLOG: the first evaluation is at 1536 samples (SKIP_EVALS=3), then every 384; ``tracked_stats.throughput`` is
GBS x steps / summed step time of the block. Left out: MangoBoost's MI300X/MI325X submissions (1- and 2-node,
configs stored) -- their result files are full ~1 MB stdout logs, not read; Dell XE9785L MI355X (its stored
config is config_MI350X_1x8x1.sh, the MI355X one is not stored; AMD's own MI355X row covers the recipe);
v5.0 AMD MI300X/MI325X (results stored only in the prishajain1 fork, configs not stored).

Target (``tokens_per_s_per_gpu``) = training-only throughput from the MLLOG timestamps: for every pair of
consecutive evaluations, the samples trained between them (384, or 378 at GBS 18; the eval_start
``samples_count``) divided by the time from one ``eval_stop`` to the next ``eval_start`` (evaluation excluded).
The interval after the first evaluation is skipped (warm-up); where only a later part of a log was read its
first interval is already past that point. Median over the intervals of a run, then median over the runs
read (3 per submission); x 8192 tokens / GPUs. v5.1's FP4 runs slow down 1.5-2.3x (train step and
evaluation alike) from step ~340 on in every run (a precision switch late in the run, presumably): that
last block is left out so the target is the FP4 phase. ``also.logged_throughput_samples_per_s`` = median of
the logs' own training-only figure (v4.x/v5.0 ``tracked_stats.throughput`` = GBS x steps / summed step time
of a block; v5.1 GBS / ``train_step_time``), which agrees with the target to ~1%.
``also.time_to_train_min`` = median run_stop - run_start over the runs whose both ends were read.
"""
import os

from case_files import median, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlperf_lora.jsonl")
SEQ = 8192

# Repositories and the commits the logs and configs were read at.
V40 = ("mlcommons/training_results_v4.0", "62f111b7")
V41 = ("swsok/training_results_v4.1", "8821c703")      # fork of mlcommons/training_results_v4.1
V50 = ("prishajain1/training_results_v5.0", "0fdc28f0")  # fork of mlcommons/training_results_v5.0
V51 = ("mlcommons/training_results_v5.1", "4da2d1cd")
NV = "NVIDIA/benchmarks/llama2_70b_lora/implementations"
YAML40 = f"{V40[0]} @{V40[1]}: {NV}/nemo/conf/megatron_gpt_peft_tuning_config.yaml + {NV}/nemo/configs/config_common.sh"
YAML41 = f"{V41[0]} @{V41[1]}: {NV}/b200_preview_nemo/conf/megatron_gpt_peft_tuning_config.yaml + configs/config_common.sh"
YAML50 = (f"{V50[0]} @{V50[1]}: {NV}/nyx_n1_ngc25.04_nemo/conf/megatron_gpt_peft_tuning_config.yaml and "
          f"{NV}/tyche_ngpu144_ngc25.04_nemo/train.py")

AMD_IMPL = "AMD/benchmarks/llama2_70b_lora/implementations"
YAML51_AMD = (f"{V51[0]} @{V51[1]}: {AMD_IMPL}/MI325X_EPYC_9575F_pytorch_llama2_70b/src/conf/"
              "megatron_gpt_peft_tuning_config.yaml (AMD's NeMo-1 peft yaml: fp8_params = FP8, LoRA dim 16 on "
              "'attention', optimizer fused_adam on one node)")
KRAI_CFG = "Krai/benchmarks/llama2_70b_lora/implementations/PowerEdge-XE9680-MI300X-192GB_n1_v5.1"
DELL_CFG = "Dell/benchmarks/llama2_70b_lora/implementations/AMD"

MODEL = {
    "name": "Llama-2-70B (MLPerf llama2_70b_lora)", "family": "dense", "layers": 80, "hidden": 8192,
    "heads": 64, "kv_heads": 8, "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 32000,
    "seq_len": SEQ, "moe": None,
}
FINETUNE = {"frozen_layers": 0, "freeze_embeddings": True, "lora": {"rank": 16, "targets": ["qkv", "out"]}}

# One row per submission. per_run: training-only samples/s of each run read (median over its intervals);
# intervals: inter-eval intervals each run contributed; logged: the log's training-only throughput per run;
# ttt_min: run_stop - run_start of the runs whose both ends were read; cfg: "config" (the named config file
# was read, its name matches nodes x GPUs x batch), "name" (the README names the config but it is not
# stored: TP/CP/MINIBS decoded from its name); zero: 0 = NeMo-1 fused_adam (v4.0), 1 = Megatron-core
# distributed optimizer (v4.1 mcore_distributed_optim, v5.0 use_distributed_optimizer default True).
SUBMISSIONS = [
    dict(key="v4.0-nvidia-dgxh100-1x8", repo=V40, submitter="NVIDIA", system="eos_ngc24.04_nemo",
         gpu="H100-SXM-80GB", nodes=1, gpn=8, tp=4, cp=1, sp=True, gbs=8, precision="fp8", zero=0,
         tp_overlap=True, cfg="config", config=f"{NV}/nemo/config_DGXH100_1x8x4xtp4pp1cp1.sh", yaml=YAML40,
         runs=(0, 1, 2), per_run=[2.155, 2.136, 2.149], intervals=[3, 3, 4], logged=[2.15, 2.14, 2.15],
         ttt_min=[27.151, 27.387, 30.824],
         extra="Config: TP 4, SP, MINIBS 4 (GBS = MINIBS x DP = 8, 4 microbatches of 1 per step), FP8 "
               "(amax max, history 32), FP8 dot-product attention (FP8_DPA=1, NVTE_FP8_DPA_BWD=1), TP comm "
               "overlap (userbuffers, LORA_A2A=1)."),
    dict(key="v4.0-nvidia-hgxh200-1x8", repo=V40, submitter="NVIDIA", system="h200_ngc24.04_nemo",
         gpu="H200-SXM-141GB", nodes=1, gpn=8, tp=2, cp=1, sp=True, gbs=8, precision="fp8", zero=0,
         tp_overlap=True, fp8_act=True, cfg="config", config=f"{NV}/nemo/config_DGXH200_1x8x2xtp2pp1cp1.sh",
         yaml=YAML40, runs=(0, 1, 2), per_run=[2.476, 2.478, 2.47], intervals=[3, 3, 4],
         logged=[2.48, 2.48, 2.47], ttt_min=[23.52, 23.53, 26.681],
         extra="Config: TP 2, SP, MINIBS 2 (GBS 8, DP 4, 2 microbatches), FP8 (amax most_recent, history 4), "
               "FP8_ACTIVATION=True (fp8_activation_input_store: the activation-function inputs kept in FP8 "
               "for backward -> training.fp8_activation_cache), FP8 DPA, TP comm overlap."),
    dict(key="v4.0-nvidia-dgxh100-8x8", repo=V40, submitter="NVIDIA", system="eos_n8_ngc24.04_nemo",
         gpu="H100-SXM-80GB", nodes=8, gpn=8, tp=4, cp=2, sp=True, gbs=8, precision="fp8", zero=0,
         tp_overlap=True, cfg="name", config=f"{NV}/nemo/config_DGXH100_8x8x1xtp4pp1cp2.sh", yaml=YAML40,
         runs=(0, 1, 2), per_run=[12.522, 12.53, 12.511], intervals=[4, 3, 2], logged=[12.54, 12.55, 12.52],
         ttt_min=[5.722, 5.053, 4.43],
         extra="README-eos_n8_ngc24.04_nemo.md names config_DGXH100_8x8x1xtp4pp1cp2.sh, not stored (nor in "
               "v4.1): TP 4, CP 2, MINIBS 1 from its name -> GBS = 1 x 64/4/2 = 8, DP 8, one microbatch; "
               "SP, FP8, FP8 DPA, TP overlap from config_common.sh. Evaluation takes ~8.5 s of every ~39 s."),
    dict(key="v4.0-nvidia-dgxh100-128x8", repo=V40, submitter="NVIDIA", system="eos_n128_ngc24.04_nemo",
         gpu="H100-SXM-80GB", nodes=128, gpn=8, tp=4, cp=2, sp=True, gbs=128, precision="fp8", zero=0,
         tp_overlap=True, cfg="config", config=f"{NV}/nemo/config_DGXH100_128x8x1xtp4pp1cp2.sh", yaml=YAML40,
         runs=(0, 1, 2), per_run=[192.965, 187.97, 192.385], intervals=[9, 8, 9],
         logged=[194.6, 186.56, 190.7], ttt_min=[1.487, 1.423],
         extra="Config: TP 4, CP 2, SP, MINIBS 1 -> GBS 128 (logged), DP 128, one microbatch per step; FP8 "
               "(amax reduced across GPUs), FP8 DPA, TP overlap, SHARP (SBATCH_NETWORK=sharp). Each "
               "inter-eval interval is only 3 steps (~2 s), so per-interval rates scatter 168-198 samples/s "
               "(the first ones after the 7296-sample skip are the slowest)."),
    dict(key="v4.0-dell-xe9680-h100-1x8", repo=V40, submitter="Dell", system="XE9680x8H100-SXM-80GB",
         gpu="H100-SXM-80GB", nodes=1, gpn=8, tp=4, cp=1, sp=True, gbs=8, precision="fp8", zero=0,
         tp_overlap=False, cfg="config",
         config="Dell/benchmarks/llama2_70b_lora/implementations/pytorch/configs/config_XE9680x8H100-SXM-80GB.sh",
         yaml="the experiment configuration printed in the log", runs=(0, 1, 2), per_run=[1.968, 1.972, 1.954],
         intervals=[3, 3, 3], logged=[1.97, 1.97, 1.96], ttt_min=[29.431, 29.542, 29.569],
         extra="NVIDIA's v4.0 NeMo implementation. Config: TP 4, SP, MINIBS 4 (GBS 8, gradient_accumulation_steps "
               "4 logged), FP8 (amax most_recent, history 4), FP8 DPA; its last line sets "
               "TP_COMM_OVERLAP=False ('for troubleshooting') -> training.overlap.tp false. Optimizer "
               "fused_adam (log). Logs are full stdout; only their MLLOG tails were read. 8.5% slower than "
               "NVIDIA's same-plan 1x8 H100 run (2.149 samples/s), which overlapped TP communication."),
    dict(key="v4.0-hpe-xd670-h100-2x8", repo=V40, submitter="HPE",
         system="HPE-Cray-XD670-Gen11-H100-SXM5-80GB_n2_pytorch_24.04", gpu="H100-SXM-80GB", nodes=2, gpn=8,
         tp=4, cp=2, sp=True, gbs=8, precision="fp8", zero=0, tp_overlap=True, cfg="config",
         config="HPE/benchmarks/llama2_70b_lora/implementations/pytorch/configs/config_XD670_2x8x4xtp4pp1cp2.sh",
         yaml="the experiment configuration printed in the log", runs=(1, 2, 3), per_run=[3.013, 2.989, 3.023],
         intervals=[2, 3, 3], logged=[3.02, 3.0, 3.03], ttt_min=[16.583, 19.245, 19.142],
         extra="NVIDIA's v4.0 NeMo implementation. Config: TP 4, CP 2, SP, MINIBS 4 -> GBS 8 (log), DP 2, "
               "4 microbatches; FP8 (amax max, reduced), FP8 DPA (log: fp8_dot_product_attention 1), TP "
               "overlap, SHARP; fused_adam (log). Results are numbered result_1..10; only their MLLOG tails "
               "were read."),
    dict(key="v4.1-nvidia-dgxb200-1x8", repo=V41, submitter="NVIDIA", system="b200_preview_nemo",
         gpu="B200-180GB", nodes=1, gpn=8, tp=1, cp=2, sp=False, gbs=8, precision="fp8", zero=1,
         tp_overlap=None, cfg="config", config=f"{NV}/b200_preview_nemo/config_DGXB200_1x8x2xtp1pp1cp2.sh",
         yaml=YAML41, runs=(0, 1, 2), per_run=[4.695, 4.696, 4.758], intervals=[3, 4, 3],
         logged=[4.7, 4.7, 4.76], ttt_min=[],
         extra="Preview category. Config: TP 1, CP 2, SP 0, MINIBS 2 -> GBS 8, DP 4, 2 microbatches; FP8 (amax "
               "max, reduced, history 4), FP8 DPA, FP8_ACTIVATION=False; per-layer CUDA graphs "
               "(LAYER_CUDA_GRAPH=1); Megatron-core distributed optimizer with overlapped grad/param sync. "
               "run_start was not read (no time to train)."),
    dict(key="v4.1-nvidia-hgxh200-1x8", repo=V41, submitter="NVIDIA", system="h200_ngc24.09_nemo",
         gpu="H200-SXM-141GB", nodes=1, gpn=8, tp=1, cp=2, sp=False, gbs=8, precision="fp8", zero=1,
         tp_overlap=None, cfg="name", config=f"{NV}/h200_ngc24.09_nemo/config_DGXH200_1x8x2xtp1pp1cp2.sh",
         yaml=YAML41, runs=(0, 1, 2), per_run=[2.471, 2.479, 2.472], intervals=[3, 5, 3],
         logged=[2.47, 2.48, 2.47], ttt_min=[],
         extra="README-h200_ngc24.09_nemo.md names config_DGXH200_1x8x2xtp1pp1cp2.sh, not stored: TP 1, CP 2, "
               "MINIBS 2 from its name -> GBS 8, DP 4, 2 microbatches; FP8 and the distributed optimizer "
               "from the v4.1 yaml/config_common. Same speed as the v4.0 TP-2 H200 run (2.476)."),
    dict(key="v5.0-nvidia-gb200-2x4", repo=V50, submitter="NVIDIA", system="tyche_ngpu8_ngc25.04_nemo",
         gpu="GB200", nodes=2, gpn=4, tp=1, cp=1, sp=False, gbs=8, precision="fp8", zero=1, tp_overlap=None,
         cfg="name", config=f"{NV}/tyche_ngpu8_ngc25.04_nemo/config_GB200_2x4x1xtp1pp1cp1.sh", yaml=YAML50,
         runs=(0, 1, 2), per_run=[5.438, 5.377, 5.384], intervals=[1, 3, 3], logged=[5.44, 5.38, 5.38],
         ttt_min=[], max_mem=168.83,
         extra="README-tyche_ngpu8_ngc25.04_nemo.md names config_GB200_2x4x1xtp1pp1cp1.sh, not stored: TP 1, "
               "CP 1, MINIBS 1 from its name -> GBS 8, DP 8, every GPU holds the whole model (FP8 weights). "
               "v5.0 train.py hard-codes fp8='hybrid' with fp8_params; NeMo 2 / Megatron-core; "
               "config_common.sh (CUDA graphs, CPU offloading, FP8 DPA settings) not stored. The log's "
               "tracked_stats report max_memory_usage 168.83 GB (of 186 GB). Two GB200 NVL72 trays of 4 GPUs "
               "(one NVLink domain)."),
    dict(key="v5.0-nvidia-gb200-36x4", repo=V50, submitter="NVIDIA", system="tyche_ngpu144_ngc25.04_nemo",
         gpu="GB200", nodes=36, gpn=4, tp=1, cp=8, sp=False, gbs=18, precision="fp8", zero=1, tp_overlap=None,
         cfg="config", config=f"{NV}/tyche_ngpu144_ngc25.04_nemo/config_GB200_36x4x1xtp1pp1cp8.sh", yaml=YAML50,
         runs=(0, 1, 2), per_run=[73.857, 73.67, 73.67], intervals=[3, 3, 2], logged=[73.87, 73.69, 73.68],
         ttt_min=[], max_mem=82.321,
         extra="Config: TP 1, SP 0, CP 8, MINIBS 1 -> GBS 18 (144/8), DP 18; Megatron-core CUDA graphs "
               "(MCORE_CUDA_GRAPH=1); evaluation every 21 steps = 378 samples. max_memory_usage 82.3 GB "
               "(log). 144 GPUs = two NVL72 racks (NVLink domain 72)."),
    dict(key="v5.0-nvidia-gb200-128x4", repo=V50, submitter="NVIDIA", system="tyche_ngpu512_ngc25.04_nemo",
         gpu="GB200", nodes=128, gpn=4, tp=1, cp=8, sp=False, gbs=64, precision="fp8", zero=1, tp_overlap=None,
         cfg="config", config=f"{NV}/tyche_ngpu512_ngc25.04_nemo/config_GB200_128x4x1xtp1pp1cp8.sh", yaml=YAML50,
         runs=(0, 1, 2), per_run=[247.423, 248.705, 248.544], intervals=[6, 7, 6],
         logged=[247.45, 248.76, 248.63], ttt_min=[], max_mem=82.321,
         extra="Config: TP 1, SP 0, CP 8, MINIBS 1 -> GBS 64, DP 64; Megatron-core CUDA graphs. Each "
               "inter-eval interval is 6 steps (~1.55 s). max_memory_usage 82.3 GB (log). 512 GPUs = 8 "
               "NVL72 racks (NVLink domain 72)."),
    dict(key="v5.1-nvidia-gb300-2x4-fp4", repo=V51, submitter="NVIDIA", system="theia_ngpu8_ngc25.09_nemo",
         gpu="GB300", nodes=2, gpn=4, tp=1, cp=1, sp=False, gbs=8, precision="fp4", zero=1, tp_overlap=None,
         cfg="name", config=f"{NV}/nemo/config_GB300_2x4x1xtp1pp1cp1_fp4.sh", yaml=None, runs=(0, 1, 2),
         per_run=[10.727, 10.73, 10.727], intervals=[2, 2, 2], logged=[10.73, 10.73, 10.73], ttt_min=[5.679],
         drop_last=True,
         extra="README-theia_ngpu8_ngc25.09_nemo.md names config_GB300_2x4x1xtp1pp1cp1_fp4.sh, not stored "
               "(nor v5.1's config_common.sh, yaml or train.py): TP 1, CP 1, MINIBS 1 and FP4 from its name; "
               "GBS 8 logged. The FP4 recipe (NVFP4 GEMMs presumably, the rest BF16/FP8) is not stated. Step "
               "time 0.746 s until step ~340, then 1.12-1.16 s (and evaluation 10.3 s instead of 6.7 s) in all "
               "three runs: the final 3072-sample interval is excluded. Zero, recompute (none) inferred from "
               "v5.0."),
    dict(key="v5.1-nvidia-gb200-2x4-fp4", repo=V51, submitter="NVIDIA", system="tyche_ngpu8_ngc25.09_nemo",
         gpu="GB200", nodes=2, gpn=4, tp=1, cp=2, sp=False, gbs=8, precision="fp4", zero=1, tp_overlap=None,
         cfg="name", config=f"{NV}/nemo/config_GB200_2x4x2xtp1pp1cp2_fp4.sh", yaml=None, runs=(0, 1, 2),
         per_run=[7.773, 7.75, 7.714], intervals=[1, 2, 1], logged=[7.77, 7.75, 7.71], ttt_min=[],
         drop_last=True,
         extra="README-tyche_ngpu8_ngc25.09_nemo.md names config_GB200_2x4x2xtp1pp1cp2_fp4.sh, not stored: TP "
               "1, CP 2, MINIBS 2 and FP4 from its name -> GBS 8 (logged), DP 4, 2 microbatches. Step time "
               "1.03-1.04 s until step ~340, then 1.9-2.4 s (evaluation 19-22 s instead of 9.4 s): the final "
               "interval is excluded. Only the log tails were read (1-2 FP4 intervals per run)."),
    dict(key="v5.1-nvidia-gb300-128x4", repo=V51, submitter="NVIDIA", system="theia_ngpu512_ngc25.09_nemo",
         gpu="GB300", nodes=128, gpn=4, tp=1, cp=8, sp=False, gbs=64, precision="fp8", zero=1, tp_overlap=None,
         cfg="config", config=f"{NV}/nemo/config_GB300_128x4x1xtp1pp1cp8.sh", yaml=None, runs=(0, 1, 2),
         per_run=[348.457, 347.669, 348.616], intervals=[6, 2, 2], logged=[348.55, 347.85, 348.8], ttt_min=[],
         prec_inferred=True,
         extra="Config (stored): CP 8, MINIBS 1, MCORE_CUDA_GRAPH=1, NUM_WORKERS 2, SEGMENT = CP/DGXNGPU; TP 1 "
               "from its name; GBS 64 logged. Precision NOT stated: config_common.sh is not stored and the "
               "name has no _fp4 suffix (the 8-GPU v5.1 configs do), so FP8 as in v5.0 is assumed; it may "
               "have run NVFP4 (it is 1.40x the v5.0 GB200 512-GPU throughput, the same as GB300-FP4 over "
               "GB200-FP4 at 8 GPUs). No slow phase: the run ends at step ~110. Reliability B for that."),
    # ------------------------------------------------------------------ AMD Instinct (v5.1), ROCm
    dict(key="v5.1-amd-mi300x-1x8", repo=V51, submitter="AMD", system="MI300X_EPYC_9575F_pytorch_llama2_70b",
         gpu="MI300X", nodes=1, gpn=8, tp=1, cp=1, sp=False, gbs=8, precision="fp8", zero=0, tp_overlap=None,
         fp8_act=True, recompute="full", recompute_layers=21, cfg="copy", config=f"{KRAI_CFG}/config_MI300X_1x8x1.sh", yaml=YAML51_AMD,
         runs=(0, 1, 2), per_run=[2.115, 2.118, 2.117], intervals=[5, 3, 3], logged=[2.115, 2.118, 2.118],
         ttt_min=[33.931, 26.837, 26.829],
         extra="AMD's own directory stores no config_*.sh; its README says 'source config_MI300X_1x8x1.sh'. The "
               "copy read is Krai's v5.1 MI300X submission's (MLPERF_SUBMISSION_ORG=\"AMD\", PLATFORM \"MI300X\", the "
               "same ROCm container rocm/amd-mlperf:llama2_70b_training_5.1): TP 1, PP 1, CP 1, SP False, MBS 1, "
               "MINIBS 1 -> GBS 8 (logged), DP 8, one microbatch per step, every GPU holds the whole model (FP8 "
               "weights, 192 GB HBM). FP8=True (-> fp8 and fp8_params in the yaml), FP8_AMAX_ALGO most_recent, "
               "history 4, FP8_REDUCE_AMAX False, FP8_DPA=0 (attention in BF16: CK fused attention, "
               "NVTE_FUSED_ATTN_CK=1), FP8_ACTIVATION=True (-> training.fp8_activation_cache), TP_COMM_OVERLAP "
               "False, LORA_A2A=1. Activation recompute ACG=full, ACM=block, ACL=21: full recompute of the first 21 of the "
               "80 layers (training.recompute_num_layers 21). Optimizer fused_adam (yaml: distributed optimizer only when num_nodes > 1). "
               "Transformer Engine on ROCm (hipBLASLt GEMMs). Runs 0-9 stored; 0-2 read."),
    dict(key="v5.1-amd-mi325x-1x8", repo=V51, submitter="AMD", system="MI325X_EPYC_9575F_pytorch_llama2_70b",
         gpu="MI325X", nodes=1, gpn=8, tp=1, cp=1, sp=False, gbs=8, precision="fp8", zero=0, tp_overlap=None,
         fp8_act=True, cfg="sibling", config="config_MI325X_1x8x1.sh", yaml=YAML51_AMD,
         runs=(0, 1, 2), per_run=[2.835, 2.835, 2.834], intervals=[3, 4, 3], logged=[2.836, 2.836, 2.835],
         ttt_min=[20.33, 23.011, 20.326], more_inferred=["precision", "training.fp8_activation_cache"],
         extra="config_MI325X_1x8x1.sh (named by AMD's README) is stored nowhere: the plan is that of AMD's stored "
               "MI300X and MI350X configs (TP 1, CP 1, MBS 1, MINIBS 1 -> GBS 8, logged; DP 8), FP8 with "
               "fp8_params and FP8_ACTIVATION as in both. Recompute: MI300X (192 GB) recomputes 21 layers, MI350X "
               "(288 GB) none; 'none' is assumed for the 256 GB MI325X (the 1.34x speed-up over MI300X is more "
               "than its 1.2-1.3x clock/power gain) and marked inferred. Optimizer fused_adam (single node). "
               "Reliability B."),
    dict(key="v5.1-amd-mi350x-1x8", repo=V51, submitter="AMD", system="MI350X_EPYC_9575F_pytorch",
         gpu="MI350X", nodes=1, gpn=8, tp=1, cp=1, sp=False, gbs=8, precision="fp8", zero=0, tp_overlap=None,
         fp8_act=True, cfg="copy", config=f"{DELL_CFG}/config_MI350X_1x8x1.sh", yaml=YAML51_AMD,
         runs=(0, 1, 2), per_run=[4.812, 4.803, 4.895], intervals=[3, 3, 3], logged=[4.814, 4.805, 4.896],
         ttt_min=[11.938, 11.964, 11.75],
         extra="AMD's MI350X config is stored as Dell's copy (Dell/benchmarks/llama2_70b_lora/implementations/AMD, "
               "MLPERF_SUBMISSION_ORG=\"AMD\", PLATFORM \"MI350X\"): TP 1, PP 1, CP 1, SP False, MBS 1, MINIBS 1 "
               "-> GBS 8 (logged), DP 8; FP8=True (fp8_params), amax most_recent/4, FP8_DPA=0, FP8_ACTIVATION=True, "
               "no activation recompute (no ACG line), TP_COMM_OVERLAP False. Optimizer fused_adam (single node). "
               "Run 2 dates from August 2025 (the others September) and logs from other callback line numbers "
               "(an earlier software build): 1.7% faster than runs 0-1; the median keeps run 0. Reliability B "
               "(the config is a copy stored by another submitter)."),
    dict(key="v5.1-amd-mi355x-1x8", repo=V51, submitter="AMD", system="MI355X_EPYC_9575F_pytorch",
         gpu="MI355X", nodes=1, gpn=8, tp=1, cp=1, sp=False, gbs=8, precision="fp8", zero=0, tp_overlap=None,
         fp8_act=True, cfg="sibling", config="config_MI355X_1x8x1.sh", yaml=YAML51_AMD,
         runs=(0, 1, 2), per_run=[5.873, 5.871, 5.871], intervals=[4, 4, 3], logged=[5.875, 5.874, 5.873],
         ttt_min=[11.113, 11.123, 9.83], more_inferred=["precision", "training.fp8_activation_cache"],
         extra="config_MI355X_1x8x1.sh (named by AMD's README) is stored nowhere: the plan and recipe of AMD's "
               "stored MI350X config (same CDNA4 GPU and 288 GB, higher power) are assumed: TP 1, CP 1, MBS 1, "
               "MINIBS 1 -> GBS 8 (logged), DP 8, FP8 (fp8_params, FP8_ACTIVATION), no recompute. The logs show no "
               "precision switch (step rate flat from the first to the last block, unlike NVIDIA's v5.1 FP4 runs), "
               "so FP8 rather than an FP4 recipe is assumed (not stated). Reliability B."),
    dict(key="v5.1-krai-xe9680-mi300x-1x8", repo=V51, submitter="Krai", system="PowerEdge-XE9680-MI300X-192GB_n1_v5.1",
         gpu="MI300X", nodes=1, gpn=8, tp=1, cp=1, sp=False, gbs=8, precision="fp8", zero=0, tp_overlap=None,
         fp8_act=True, recompute="full", recompute_layers=21, cfg="config", config=f"{KRAI_CFG}/config_MI300X_1x8x1.sh", yaml=YAML51_AMD,
         runs=(0, 1, 2), per_run=[2.083, 2.084, 2.085], intervals=[3, 3, 3], logged=[2.083, 2.085, 2.085],
         ttt_min=[27.321, 27.299, 27.291],
         extra="Dell PowerEdge XE9680 with 8 MI300X, AMD's v5.1 container and config (see the AMD MI300X row: TP 1, "
               "CP 1, DP 8, GBS 8, FP8 + fp8_params + FP8_ACTIVATION, recompute full/block/21 layers -> 'full' with "
               "recompute_num_layers 21, LR 0.00055 logged). 1.6% slower than AMD's own MI300X node (2.117 samples/s). Logs "
               "are the MLLOG stdout with a short header; runs 0-9 stored, 0-2 read."),
]



def case(s):
    n = s["nodes"] * s["gpn"]
    tp, cp = s["tp"], s["cp"]
    dp = n // (tp * cp)
    assert dp * tp * cp == n and s["gbs"] % dp == 0
    sps = float(median(s["per_run"]))
    repo, commit = s["repo"]
    res = f"{s['submitter']}/results/{s['system']}/llama2_70b_lora/result_*.txt"
    if s["cfg"] == "config":
        cfg = f"config {repo} @{commit}: {s['config']} (name matches nodes x GPUs x MINIBS)"
    elif s["cfg"] == "copy":
        cfg = (f"config named by the submission's README, not stored in its directory; AMD's copy read from "
               f"{repo} @{commit}: {s['config']}")
    elif s["cfg"] == "sibling":
        cfg = (f"config named by the submission's README but not stored: {s['config']} (plan from AMD's stored "
               f"MI300X/MI350X configs, {repo} @{commit}: {KRAI_CFG}/config_MI300X_1x8x1.sh, "
               f"{DELL_CFG}/config_MI350X_1x8x1.sh)")
    else:
        cfg = f"config named by the submission's README but not stored: {s['config']} (plan read from its name)"
    if s["yaml"]:
        cfg += f"; model/LoRA/optimizer settings: {s['yaml']}"
    inferred = ["model.ffn_act", "model.ffn_hidden", "model.head_dim", "model.heads", "model.hidden", "model.kv_heads",
                "model.layers", "model.vocab", "parallel.ep", "parallel.vpp"]
    if s["cfg"] == "sibling":
        inferred += ["parallel.tp", "parallel.cp", "parallel.sp", "parallel.microbatch", "parallel.recompute"]
    elif s["cfg"] not in ("config", "copy"):
        inferred += ["parallel.tp", "parallel.cp", "parallel.global_batch"]
    inferred += s.get("more_inferred", [])
    if s["yaml"] is None:
        inferred += ["parallel.zero", "parallel.recompute"]
    if s.get("prec_inferred"):
        inferred.append("precision")
    if not s["sp"] and tp == 1 and s["cfg"] not in ("config", "copy"):
        inferred.append("parallel.sp")
    if s["gpu"] == "B200-180GB":
        inferred.append("cluster.gpu")
    training = {"fp8_params": True}  # fp8_params: the weights held in FP8 only (every round's recipe)
    if s["tp_overlap"] is not None:
        training["overlap"] = {"tp": s["tp_overlap"]}
    if s.get("fp8_act"):
        training["fp8_activation_cache"] = True
    if s.get("recompute_layers"):
        training["recompute_num_layers"] = s["recompute_layers"]
    accum = s["gbs"] // dp
    ttts = s["ttt_min"]
    runs = ",".join(map(str, s["runs"]))
    notes = (
        f"Target = training-only throughput from MLLOG timestamps: samples between consecutive evals / "
        f"(next eval_start - eval_stop), warm-up interval skipped{', final slow-phase interval excluded' if s.get('drop_last') else ''}, "
        f"median over intervals, then over runs (result_{runs}: {'+'.join(map(str, s['intervals']))} intervals, "
        f"per-run medians {', '.join(f'{p:g}' for p in s['per_run'])} samples/s) = {sps:g} samples/s x {SEQ} "
        f"tokens / {n} GPUs. logged_throughput = median of the log's own training-only figure "
        f"({median(s['logged']) / sps:.3f} of the target). "
        f"{s['submitter']} {s['system']}: {s['nodes']} node(s) x {s['gpn']} {s['gpu']}, TP {tp} x CP {cp} x DP {dp}, "
        f"microbatch 1 (MBS=1), global batch {s['gbs']} = {accum} microbatch(es) per DP rank per step. "
        f"{s['extra']} LoRA: rank 16 on fused QKV + attention output projection of all 80 layers (alpha 32, "
        "dropout 0.1 on the adapter input, not modelled), base weights/embeddings/head frozen; packed 8192-token "
        "sequences, loss on answer tokens only (compute is full-sequence). FP8 weight storage (fp8_params) -> "
        "training.fp8_params. Not modelled by dse: LoRA dropout, FP8 attention (FP8 DPA), CUDA graphs; "
        "evaluation time is excluded from the target."
    )
    c = {
        "id": f"mlperf-lora-{s['key']}",
        "source": (f"MLPerf Training {s['key'].split('-')[0]} llama2_70b_lora ({repo} @{commit}): {res} "
                   f"(runs {runs} read); {cfg}"),
        "reliability": "A" if s["cfg"] == "config" and not s.get("prec_inferred") else "B",
        "workload": "finetune",
        "precision": s["precision"],
        "model": MODEL,
        "cluster": {"gpu": s["gpu"], "num_gpus": n, "gpus_per_node": s["gpn"]},
        "parallel": {"tp": tp, "pp": 1, "dp": dp, "cp": cp, "ep": 1, "sp": s["sp"], "vpp": 1, "zero": s["zero"],
                     "recompute": s.get("recompute", "none"), "microbatch": 1, "global_batch": s["gbs"]},
        **({"training": training} if training else {}),
        "finetune": FINETUNE,
        "inference": None,
        "target": {"metric": "tokens_per_s_per_gpu", "value": round(sps * SEQ / n, 1)},
        "also": {"samples_per_s": round(sps, 3), "logged_throughput_samples_per_s": round(median(s["logged"]), 3)},
        "inferred": sorted(set(inferred)),
        "notes": notes,
    }
    if ttts:
        c["also"]["time_to_train_min"] = round(median(ttts), 3)
    if s.get("max_mem"):
        c["also"]["max_memory_gb"] = s["max_mem"]
    return c


def main():
    write_cases([case(s) for s in SUBMISSIONS], OUT)


if __name__ == "__main__":
    main()
