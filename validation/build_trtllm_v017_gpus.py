#!/usr/bin/env python3
"""Write validation/trtllm_v017_gpus.jsonl: the H200, GH200 and L40S columns of TensorRT-LLM's v0.17
"Throughput Measurements" table (``docs/source/performance/perf-overview.md``), as inference cases (target:
``tokens_per_s`` of the whole TP group). The A100 and H100 columns of the same table are already shipped
in ``../shared/validation/llm.jsonl`` (ids ``trtllm017_tput_*``); the rows below copy those cases'
conventions (model blocks, cluster, parallel, inference block, precision, ``inferred``, notes wording).

Usage: python validation/build_trtllm_v017_gpus.py   (no network: every number below was read from the page
and is kept here as a literal, all five GPU columns of each row, so that the A100/H100 columns can be
compared with llm.jsonl).

Source (FACT): NVIDIA/TensorRT-LLM ``docs/source/performance/perf-overview.md`` at commit
258c7540c03517def55d9a5aadfa9288af474e1b, the version whose table is "generated using version 0.17" and whose
GH200 note names "release v0.17". Its A100-SXM4-80GB and H100 80GB HBM3 columns equal llm.jsonl's 79 A100 and
97 H100 trtllm017_tput cases number for number (checked when this file was written), so it is the page
llm.jsonl was built from.

What the page states (FACT):
  * columns: H200 141GB HBM3 (FP8), H100 80GB HBM3 (FP8), GH200 480GB (FP8), L40S (FP8), A100-SXM4-80GB
    (FP16); rows: model x "Tensor Model Parallel Size" x "Runtime Input/Output Lengths"; unit tokens/s;
  * non-GH200 runs: synthetic dataset of fixed ISL/OSL (stdev 0) with the request counts of REQUESTS,
    ``trtllm-bench build --tp_size --pp_size --quantization FP8`` (FP8 KV cache follows), ``trtllm-bench
    throughput`` (offline, all requests queued at once); KV-cache fraction 0.95 in most cases, 0.90 on OOM;
  * GH200 runs: the engine built with ``trtllm-bench build`` (no --pp_size), then run with the legacy
    ``gptManagerBenchmark`` (IFB, executor API, request rate -1, guaranteed_no_evict scheduler, chunked
    context, KV-cache fraction 0.95, no warm-up), which the page recommends for GH200 in v0.17.

What is inferred (listed in each row's ``inferred``, as llm.jsonl lists it for the same model):
  * pp 1 and dp 1 (the table gives TP only); ep 1 for Mixtral at TP > 1 (TRT-LLM's default MoE tensor
    parallelism);
  * H200 141GB HBM3 -> H200-SXM-141GB (the page does not say SXM; as llm.jsonl infers H100-SXM-80GB);
    GH200 480GB -> GH200-480GB (96 GB HBM3 + 480 GB LPDDR5X), one superchip per node (gpus_per_node 1, as
    ``trtllm_v1.jsonl`` writes GH200); L40S -> L40S (PCIe, no NVLink: the TP collectives cross PCIe), 8 GPUs
    per node; H200 8 per node;
  * the architectures: llm.jsonl's blocks for the same models (vocab 128000 for Llama 3.1, Mistral 7B
    without its v0.1 sliding window); Llama 3.1 405B, which llm.jsonl has not, with the same conventions
    (126 layers, hidden 16384, 128/8 heads, FFN 53248, vocab 128000).

Also on the page (FACT): a known-issue note that multi-GPU runs on AMD-CPU hosts can be slowed by an NCCL 2.23.4
AllReduce problem (workaround NCCL_P2P_LEVEL=SYS); the page does not say which systems had AMD CPUs.

Left out (FACT): empty cells have no case: GH200 has TP1 rows only (and no 70B 20000/2000, no 405B, no 8x22B);
L40S has 8B, Mistral 7B (TP1), 70B and Mixtral 8x7B (TP4, TP8) only. H200 has every row. No model on the
page is one dse cannot express. Other releases of the page add no GPU that the case format knows and this
file lacks: v0.15 (library file id 5939417815; commit not exposed by the index) covers H100 (FP8 and
'Mixed'), A100-SXM4-80GB, A100-PCIE-80GB, L40S and GH200 96GB HBM3 CG1, and A100-PCIe-80GB is not a GPU of
``../shared/validation/check_cases.py``; no v0.16 or v0.18 version was found in the index; the v0.19-v0.21
pages found (PyTorch backend) cover only B200 (FP4), H200 and H100.
"""
import os

from case_files import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "trtllm_v017_gpus.jsonl")

REPO = "NVIDIA/TensorRT-LLM"
PAGE = "docs/source/performance/perf-overview.md"
COMMIT = "258c7540c03517def55d9a5aadfa9288af474e1b"
SOURCE = (f"TensorRT-LLM perf-overview.md (v0.17) Throughput Measurements table ({REPO} {PAGE} at commit "
          f"{COMMIT}; the table states it was generated using version 0.17)")

#: FACT: the page's request count per (ISL, OSL)
REQUESTS = {(128, 128): 30000, (128, 2048): 3000, (128, 4096): 1500, (2048, 128): 3000, (2048, 2048): 1500,
            (5000, 500): 1500, (1000, 1000): 3000, (500, 2000): 3000, (20000, 2000): 1000}

#: the page's GPU columns, in order: (column label, case id label, dse GPU, gpus_per_node, precision)
COLUMNS = [("H200 141GB HBM3", "H200", "H200-SXM-141GB", 8, "fp8"),
           ("H100 80GB HBM3", "H100", "H100-SXM-80GB", 8, "fp8"),
           ("GH200 480GB", "GH200", "GH200-480GB", 1, "fp8"),
           ("L40S", "L40S", "L40S", 8, "fp8"),
           ("A100-SXM4-80GB", "A100-SXM4-80GB", "A100-SXM-80GB", 8, "fp16")]
#: the columns written here (A100 and H100 are llm.jsonl's)
NEW = ("H200", "GH200", "L40S")

# FACT: the table, row by row: (model, TP, ISL, OSL, H200, H100, GH200, L40S, A100); None = empty cell
N = None
ROWS = [
    ("LLaMA v3.1 8B", 1, 128, 128, 29526.04, 28836.77, 29852.96, 9104.61, 6627.27),
    ("LLaMA v3.1 8B", 1, 128, 2048, 25398.86, 21109.38, 21769.55, 5365.81, 5255.99),
    ("LLaMA v3.1 8B", 1, 128, 4096, 17370.8, 13593.65, 14189.89, 3025.92, 3453.79),
    ("LLaMA v3.1 8B", 1, 500, 2000, 21020.81, 16500.69, 17137.29, 4273.75, 4276.58),
    ("LLaMA v3.1 8B", 1, 1000, 1000, 17537.96, 15244.78, 16482.77, 4054.71, 3786.83),
    ("LLaMA v3.1 8B", 1, 2048, 128, 3794.14, 3556.73, 3843.95, 1066.52, 799.61),
    ("LLaMA v3.1 8B", 1, 2048, 2048, 11968.5, 9488.42, 10265.9, 2225.27, 2424.16),
    ("LLaMA v3.1 8B", 1, 5000, 500, 3987.79, 3559.36, 3932.58, 981.2, 825.13),
    ("LLaMA v3.1 8B", 1, 20000, 2000, 1804.1, 1401.31, 1560.2, 327.97, 330.04),
    ("LLaMA v3.1 70B", 1, 128, 128, 4020.75, 3378.03, 3636.91, N, N),
    ("LLaMA v3.1 70B", 1, 128, 2048, 4165.68, 911.62, 2082.74, N, N),
    ("LLaMA v3.1 70B", 1, 128, 4096, 2651.75, 426.32, 1263.98, N, N),
    ("LLaMA v3.1 70B", 1, 500, 2000, 3018.39, 775.57, 1973.86, N, N),
    ("LLaMA v3.1 70B", 1, 1000, 1000, 2823.45, 839.97, 1746.12, N, N),
    ("LLaMA v3.1 70B", 1, 2048, 128, 465.99, 343.29, 424.96, N, N),
    ("LLaMA v3.1 70B", 1, 2048, 2048, 1913.8, N, 1086.93, N, N),
    ("LLaMA v3.1 70B", 1, 5000, 500, 560.16, 245.34, 422.36, N, N),
    ("LLaMA v3.1 70B", 1, 20000, 2000, 279.52, N, N, N, N),
    ("LLaMA v3.1 70B", 2, 128, 128, 6823.01, 6645.12, N, N, 1313.96),
    ("LLaMA v3.1 70B", 2, 128, 2048, 8290.35, 6169.58, N, N, 531.26),
    ("LLaMA v3.1 70B", 2, 128, 4096, 6526.67, 3897.06, N, N, N),
    ("LLaMA v3.1 70B", 2, 500, 2000, 6848.02, 4972.57, N, N, 439.41),
    ("LLaMA v3.1 70B", 2, 1000, 1000, 5164.76, 4390.53, N, N, 472.94),
    ("LLaMA v3.1 70B", 2, 2048, 128, 809.0, 772.66, N, N, 148.96),
    ("LLaMA v3.1 70B", 2, 2048, 2048, 4183.88, 2898.16, N, N, 261.1),
    ("LLaMA v3.1 70B", 2, 5000, 500, 1025.38, 919.73, N, N, 121.47),
    ("LLaMA v3.1 70B", 2, 20000, 2000, 640.62, 443.01, N, N, N),
    ("LLaMA v3.1 70B", 4, 128, 128, 11098.63, 11127.53, N, 1523.52, 2733.48),
    ("LLaMA v3.1 70B", 4, 128, 2048, 14156.0, 11511.93, N, 1942.66, 2811.27),
    ("LLaMA v3.1 70B", 4, 128, 4096, 10574.06, 7439.41, N, 1440.23, 1976.49),
    ("LLaMA v3.1 70B", 4, 500, 2000, 12452.79, 9836.7, N, 1634.72, 2275.79),
    ("LLaMA v3.1 70B", 4, 1000, 1000, 8911.29, 7430.99, N, 1209.25, 1921.77),
    ("LLaMA v3.1 70B", 4, 2048, 128, 1358.06, 1302.6, N, 177.72, 325.15),
    ("LLaMA v3.1 70B", 4, 2048, 2048, 7130.44, 5480.03, N, 969.68, 1393.64),
    ("LLaMA v3.1 70B", 4, 5000, 500, 1811.55, 1602.78, N, 249.52, 392.62),
    ("LLaMA v3.1 70B", 4, 20000, 2000, 1199.68, 920.19, N, 162.25, 212.08),
    ("LLaMA v3.1 70B", 8, 128, 128, 15355.84, 14730.69, N, 1464.03, 4717.62),
    ("LLaMA v3.1 70B", 8, 128, 2048, 21195.88, 17061.82, N, 2303.31, 5241.5),
    ("LLaMA v3.1 70B", 8, 128, 4096, 16941.52, 14171.43, N, 2018.22, 3724.67),
    ("LLaMA v3.1 70B", 8, 500, 2000, 17278.4, 14679.33, N, 1971.96, 4445.37),
    ("LLaMA v3.1 70B", 8, 1000, 1000, 13181.24, 11451.16, N, 1333.62, 3320.41),
    ("LLaMA v3.1 70B", 8, 2048, 128, 1983.03, 1923.41, N, 176.16, 542.38),
    ("LLaMA v3.1 70B", 8, 2048, 2048, 11142.47, 8801.95, N, 1200.16, 2553.71),
    ("LLaMA v3.1 70B", 8, 5000, 500, 2717.83, 2457.42, N, 259.71, 696.34),
    ("LLaMA v3.1 70B", 8, 20000, 2000, 1920.45, 1512.6, N, 209.87, 413.38),
    ("LLaMA v3.1 405B", 8, 128, 128, 3874.19, N, N, N, N),
    ("LLaMA v3.1 405B", 8, 128, 2048, 5938.09, N, N, N, N),
    ("LLaMA v3.1 405B", 8, 128, 4096, 5168.37, N, N, N, N),
    ("LLaMA v3.1 405B", 8, 500, 2000, 5084.29, N, N, N, N),
    ("LLaMA v3.1 405B", 8, 1000, 1000, 3399.69, N, N, N, N),
    ("LLaMA v3.1 405B", 8, 2048, 128, 463.42, N, N, N, N),
    ("LLaMA v3.1 405B", 8, 2048, 2048, 2940.62, N, N, N, N),
    ("LLaMA v3.1 405B", 8, 5000, 500, 669.13, N, N, N, N),
    ("LLaMA v3.1 405B", 8, 20000, 2000, 535.31, N, N, N, N),
    ("Mistral 7B", 1, 128, 128, 31938.12, 31674.49, 32498.47, 9664.13, 6982.53),
    ("Mistral 7B", 1, 128, 2048, 27409.3, 23496.42, 23337.29, 5720.65, 5630.62),
    ("Mistral 7B", 1, 128, 4096, 18505.03, 14350.99, 15017.88, 3136.33, 3591.22),
    ("Mistral 7B", 1, 500, 2000, 22354.67, 18026.27, 18556.0, 4521.77, 4400.48),
    ("Mistral 7B", 1, 1000, 1000, 18426.16, 16035.66, 17252.11, 4177.76, 3896.58),
    ("Mistral 7B", 1, 2048, 128, 3834.43, 3642.48, 3813.13, 1076.74, 808.58),
    ("Mistral 7B", 1, 2048, 2048, 12347.37, 9958.17, 10755.94, 2286.71, 2489.77),
    ("Mistral 7B", 1, 5000, 500, 4041.59, 3591.33, 3949.66, 1001.02, 844.64),
    ("Mistral 7B", 1, 20000, 2000, 1822.69, 1373.24, 1601.28, 337.83, 332.3),
    ("Mixtral 8x7B", 1, 128, 128, 17157.72, 15962.49, 16859.18, N, N),
    ("Mixtral 8x7B", 1, 128, 2048, 15095.21, 8290.13, 11120.16, N, N),
    ("Mixtral 8x7B", 1, 128, 4096, 9534.62, 4784.86, 6610.47, N, N),
    ("Mixtral 8x7B", 1, 500, 2000, 12105.27, 6800.6, 9192.86, N, N),
    ("Mixtral 8x7B", 1, 1000, 1000, 10371.36, 6868.52, 8849.18, N, N),
    ("Mixtral 8x7B", 1, 2048, 128, 2009.67, 1892.81, 1994.31, N, N),
    ("Mixtral 8x7B", 1, 2048, 2048, 6940.32, 3983.1, 5545.46, N, N),
    ("Mixtral 8x7B", 1, 5000, 500, 2309.1, 1764.7, 2078.27, N, N),
    ("Mixtral 8x7B", 1, 20000, 2000, 1151.78, 673.7, 860.68, N, N),
    ("Mixtral 8x7B", 2, 128, 128, 27825.34, 27451.13, N, N, 5541.47),
    ("Mixtral 8x7B", 2, 128, 2048, 29584.05, 22830.08, N, N, 4169.78),
    ("Mixtral 8x7B", 2, 128, 4096, 21564.68, 14237.01, N, N, 2608.05),
    ("Mixtral 8x7B", 2, 500, 2000, 23410.63, 17036.04, N, N, 3446.37),
    ("Mixtral 8x7B", 2, 1000, 1000, 19151.19, 15770.89, N, N, 3154.52),
    ("Mixtral 8x7B", 2, 2048, 128, 3383.16, 3333.68, N, N, 649.0),
    ("Mixtral 8x7B", 2, 2048, 2048, 14007.29, 10685.85, N, N, 2056.58),
    ("Mixtral 8x7B", 2, 5000, 500, 4223.68, 3646.09, N, N, 724.44),
    ("Mixtral 8x7B", 2, 20000, 2000, 2299.21, 1757.45, N, N, 337.51),
    ("Mixtral 8x7B", 4, 128, 128, 42551.59, 41068.23, N, 6921.87, 10324.28),
    ("Mixtral 8x7B", 4, 128, 2048, 52291.78, 41164.73, N, 7996.93, 10911.86),
    ("Mixtral 8x7B", 4, 128, 4096, 39513.73, 27912.48, N, 5736.09, 7666.51),
    ("Mixtral 8x7B", 4, 500, 2000, 43818.99, 34489.34, N, 6914.68, 8456.21),
    ("Mixtral 8x7B", 4, 1000, 1000, 33580.9, 27784.74, N, 5251.49, 7122.84),
    ("Mixtral 8x7B", 4, 2048, 128, 5467.62, 5234.98, N, 827.62, 1237.62),
    ("Mixtral 8x7B", 4, 2048, 2048, 24980.93, 19432.08, N, 3935.32, 5222.98),
    ("Mixtral 8x7B", 4, 5000, 500, 7084.94, 6401.56, N, 1092.88, 1500.55),
    ("Mixtral 8x7B", 4, 20000, 2000, 4236.84, 3303.83, N, 682.48, 829.59),
    ("Mixtral 8x7B", 8, 128, 128, 53212.55, 50849.55, N, 6740.84, 17043.54),
    ("Mixtral 8x7B", 8, 128, 2048, 68608.45, 61607.7, N, 10393.3, 20277.88),
    ("Mixtral 8x7B", 8, 128, 4096, 54827.78, 48280.37, N, 8472.35, 15282.89),
    ("Mixtral 8x7B", 8, 500, 2000, 58706.39, 52583.65, N, 8660.71, 17184.24),
    ("Mixtral 8x7B", 8, 1000, 1000, 44705.48, 40631.71, N, 5947.72, 12851.44),
    ("Mixtral 8x7B", 8, 2048, 128, 7554.38, 6988.18, N, 811.96, 2165.52),
    ("Mixtral 8x7B", 8, 2048, 2048, 36193.64, 30983.35, N, 5136.98, 9809.76),
    ("Mixtral 8x7B", 8, 5000, 500, 10271.8, 9210.11, N, 1153.76, 2761.28),
    ("Mixtral 8x7B", 8, 20000, 2000, 6835.53, 5602.43, N, 918.95, 1592.53),
    ("Mixtral 8x22B", 8, 128, 128, 22948.57, 21876.08, N, N, 6381.95),
    ("Mixtral 8x22B", 8, 128, 2048, 32415.81, 25150.03, N, N, 6685.99),
    ("Mixtral 8x22B", 8, 128, 4096, 25753.14, 18387.4, N, N, 4789.13),
    ("Mixtral 8x22B", 8, 500, 2000, 27429.6, 21421.86, N, N, 5648.46),
    ("Mixtral 8x22B", 8, 1000, 1000, 19712.35, 16573.24, N, N, 4549.46),
    ("Mixtral 8x22B", 8, 2048, 128, 2899.84, 2794.97, N, N, 761.56),
    ("Mixtral 8x22B", 8, 2048, 2048, 15798.59, 12244.93, N, N, 3521.98),
    ("Mixtral 8x22B", 8, 5000, 500, 4031.79, 3645.27, N, N, 959.14),
    ("Mixtral 8x22B", 8, 20000, 2000, 2815.76, 2227.63, N, N, 575.02),
]

_LLAMA_8B = {"name": "Llama 3.1 8B", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
             "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128000}
_LLAMA_70B = {"name": "Llama 3.1 70B", "family": "dense", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
              "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 128000}
_LLAMA_405B = {"name": "Llama 3.1 405B", "family": "dense", "layers": 126, "hidden": 16384, "heads": 128,
               "kv_heads": 8, "head_dim": None, "ffn_hidden": 53248, "ffn_act": "swiglu", "vocab": 128000}
_MISTRAL = {"name": "Mistral 7B", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
            "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 32000}
_MIXTRAL_8X7B = {"name": "Mixtral 8x7B", "family": "moe", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
                 "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 32000}
_MIXTRAL_8X22B = {"name": "Mixtral 8x22B", "family": "moe", "layers": 56, "hidden": 6144, "heads": 48,
                  "kv_heads": 8, "head_dim": None, "ffn_hidden": 16384, "ffn_act": "swiglu", "vocab": 32768}
_ARCH = ["model.ffn_hidden", "model.heads", "model.hidden", "model.kv_heads", "model.layers", "model.vocab"]
_MOE_INF = ["model.moe", "model.moe.dense_layers", "model.moe.shared_experts"]

#: page model name -> (model block without seq_len, MoE block, model-specific ``inferred``, notes suffix)
MODELS = {
    "LLaMA v3.1 8B": (_LLAMA_8B, None, [], ""),
    "LLaMA v3.1 70B": (_LLAMA_70B, None, [], ""),
    "LLaMA v3.1 405B": (_LLAMA_405B, None, [], ""),
    "Mistral 7B": (_MISTRAL, None, _ARCH,
                   " Mistral 7B version not stated (v0.1 uses 4096-token sliding-window attention)."),
    "Mixtral 8x7B": (_MIXTRAL_8X7B, {"experts": 8, "top_k": 2, "expert_ffn_hidden": 14336, "shared_experts": 0,
                                     "dense_layers": 0}, _ARCH + _MOE_INF,
                     " MoE: 8 experts top-2, ffn_hidden = expert size, no shared experts, all layers MoE."),
    "Mixtral 8x22B": (_MIXTRAL_8X22B, {"experts": 8, "top_k": 2, "expert_ffn_hidden": 16384, "shared_experts": 0,
                                       "dense_layers": 0}, _ARCH + _MOE_INF,
                      " MoE: 8 experts top-2, ffn_hidden = expert size, no shared experts, all layers MoE."),
}
EP_NOTE = " ep=1 assumes TRT-LLM v0.17 default MoE tensor-parallel mode (EP not stated)."
PRECISION_NOTE = {"fp8": " Precision FP8 (weights+KV cache FP8 via --quantization FP8).", "fp16": " Precision FP16."}

#: per-GPU notes (what the page says of the system and what was assumed)
GPU_NOTE = {
    "H200": " GPU column 'H200 141GB HBM3': the SXM part (H200-SXM-141GB), 8 per node, assumed.",
    "GH200": (" GPU column 'GH200 480GB' (96 GB HBM3 + 480 GB LPDDR5X): one superchip per node assumed. For GH200"
              " the page builds the engine with trtllm-bench build and runs the legacy gptManagerBenchmark instead"
              " of trtllm-bench throughput (IFB, executor API, request rate -1 = all requests at once,"
              " guaranteed_no_evict, chunked context, KV-cache fraction 0.95)."),
    "L40S": (" GPU column 'L40S' (48 GB GDDR6, PCIe Gen4, no NVLink: TP collectives over PCIe); 8 GPUs per node"
             " assumed."),
}


def run_note(label: str, isl: int, osl: int) -> str:
    """llm.jsonl's opening of the notes, with the GH200 runs' own benchmark named."""
    tool = "gptManagerBenchmark" if label == "GH200" else "trtllm-bench"
    return (f"TensorRT-LLM v0.17 {tool} offline max-throughput (all {REQUESTS[(isl, osl)]} requests queued; "
            "in-flight batching, dynamic batch). Metric printed as 'token throughput (tokens/s)' for the whole TP "
            "group (whether input tokens are counted is not stated; trtllm-bench output-throughput convention "
            "assumed). ISL/OSL fixed (stdev 0); seq_len = ISL+OSL.")


def cases():
    for model, tp, isl, osl, *values in ROWS:
        assert len(values) == len(COLUMNS), (model, tp, isl, osl)
        block, moe, model_inferred, model_note = MODELS[model]
        for (column, label, gpu, per_node, precision), value in zip(COLUMNS, values):
            if label not in NEW or value is None:
                continue
            inferred = ["cluster.gpus_per_node", "model.ffn_act", "model.seq_len", "parallel.dp", "parallel.pp",
                        *model_inferred]
            if label == "H200":
                inferred.append("cluster.gpu")
            ep_note = ""
            if moe is not None and tp > 1:
                inferred.append("parallel.ep")
                ep_note = EP_NOTE
            yield {
                "id": f"trtllm017_tput_{model.replace(' ', '')}_tp{tp}_{label}_{isl}-{osl}",
                "source": SOURCE,
                "reliability": "A",
                "workload": "inference",
                "precision": precision,
                "model": {**block, "seq_len": isl + osl, "moe": moe},
                "cluster": {"gpu": gpu, "num_gpus": tp, "gpus_per_node": per_node},
                "parallel": {"tp": tp, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 0,
                             "recompute": "none", "microbatch": None, "global_batch": None},
                "inference": {"input_len": isl, "output_len": osl, "batch": None, "concurrency": None,
                              "mode": "offline_max_throughput"},
                "target": {"metric": "tokens_per_s", "value": float(value)},
                "also": {},
                "inferred": sorted(inferred),
                "notes": (run_note(label, isl, osl) + PRECISION_NOTE[precision] + model_note + ep_note
                          + GPU_NOTE[label]),
            }


def main():
    write_cases(list(cases()), OUT)


if __name__ == "__main__":
    main()
