#!/usr/bin/env python3
"""Write validation/mlperf_dcnv2.jsonl: MLPerf Training DLRM-DCNv2 results (rounds v3.0-v5.0) as DLRM cases.

Usage: python validation/build_mlperf_dcnv2.py   (no network: every number below was read from the public
result logs and configs named in each row and is kept here as a literal).

Case format: ../shared/validation/DLRM_VIT.md (family "dlrm", interaction "dcnv2").

Target (``samples_per_s``) = training-only throughput from the MLLOG timestamps, the convention of the shipped
MLPerf DLRM cases: for every pair of consecutive evaluations, samples trained between them
(delta ``epoch_num`` x ``train_samples`` = 4,195,197,692; DCNv2 evaluates every 1/20 epoch, 1551 steps of
135,168 or 3,793 steps of 55,296 or 7,492 steps of 28,000 samples) divided by the time from that eval's
``eval_stop`` to the next ``eval_start`` (eval time excluded). The interval that follows the first eval is
skipped (warm-up). Median over the intervals of one run, then median over the runs read (3 per submission).
For the long logs of some runs only the last part of the file was read, so their medians rest on the last
1-6 intervals; the intervals of one run agree to within ~1%, the runs of one submission within ~2%.

``also.logged_throughput_samples_per_s`` = median of MLLOG ``tracked_stats.throughput`` over the runs read
(samples / time from run_start, eval included). ``also.time_to_train_min`` = median of run_stop - run_start
over the runs whose run_start was read (Dell HugeCTR stdout logs: the 'Hit target accuracy ... in X s'
line), not the olympic mean over all runs.
"""
import os

from case_files import median, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlperf_dcnv2.jsonl")

# Repositories and the commits the logs and configs were read at.
V30 = ("mlcommons/training_results_v3.0", "9f08e30c")
V31 = ("mlcommons/training_results_v3.1", "f33f9444")
V40 = ("mlcommons/training_results_v4.0", "62f111b7")
V41 = ("swsok/training_results_v4.1", "8821c703")      # fork of mlcommons/training_results_v4.1
V50 = ("prishajain1/training_results_v5.0", "0fdc28f0")  # fork of mlcommons/training_results_v5.0
REF = "mlcommons/training recommendation_v2/torchrec_dlrm/README.MD @3e2f7317"
NV_README_V30 = "NVIDIA/benchmarks/dlrm_dcnv2/implementations/hugectr/README.md"

# MLPerf DLRM-DCNv2: 26 tables (40M-row cap), dim 128, fixed multi-hot sizes (uniform synthetic multi-hot).
ROWS = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10, 2209, 11938,
        155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36]
HOTNESS = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]
assert len(ROWS) == len(HOTNESS) == 26 and sum(HOTNESS) == 214

MODEL = {
    "name": "DLRM-DCNv2 (MLPerf Training v3.0+ benchmark, Criteo 1TB synthetic multi-hot, 40M-row cap)",
    "family": "dlrm",
    "dense_features": 13,
    "tables": [{"rows": r, "dim": 128, "pooling": float(h)} for r, h in zip(ROWS, HOTNESS)],
    "bottom_mlp": [512, 256, 128],
    "top_mlp": [1024, 1024, 512, 256, 1],
    "interaction": "dcnv2",
    "cross_layers": 3,
    "cross_rank": 512,
}
MODEL_SRC = (f"model from {REF} (embedding_dim 128, dense_arch 512,256,128, over_arch 1024,1024,512,256,1, "
             "dcn_num_layers 3, dcn_low_rank_dim 512, num_embeddings_per_feature, multi_hot_sizes; the same "
             f"tables and sizes in {NV_README_V30} @{V30[1]})")

# One row per submission. per_run: training-only samples/s of each run read (median over its intervals);
# intervals: how many inter-eval intervals each run contributed; logged: tracked_stats.throughput of each run;
# ttt_min: run_stop - run_start per run (None: run_start not read).
SUBMISSIONS = [
    dict(key="v3.0-dell-xe9680-a100", ttt_src="hit", repo=V30, submitter="Dell", system="XE9680x8A100-SXM-80GB",
         gpu="A100-SXM-80GB", nodes=1, gpn=8, batch=55296, sharding="auto", sharding_src="config",
         config="Dell/benchmarks/dlrm_dcnv2/implementations/hugectr/config_XE9680x8A100-SXM-80GB.sh",
         config_repo=V30, reliability="A", runs=(0, 1, 2),
         per_run=[7730456, 7725331, 7752745], intervals=[3, 3, 1],
         logged=[6383830, 6387681, 6398046], ttt_min=[8.761, 9.85, 8.195],
         extra="Log is HugeCTR stdout; its planner put all 26 tables model-parallel on 8 GPUs (table 20 split "
               "over 4)."),
    dict(key="v3.0-dell-xe9680-h100", ttt_src="hit", repo=V30, submitter="Dell", system="XE9680x8H100-SXM-80GB",
         gpu="H100-SXM-80GB", nodes=1, gpn=8, batch=55296, sharding="auto", sharding_src="config",
         config="Dell/benchmarks/dlrm_dcnv2/implementations/hugectr/config_XE9680x8H100-SXM-80GB.sh",
         config_repo=V30, reliability="A", runs=(0, 1, 2),
         per_run=[14525591, 14552803, 14540696], intervals=[1, 1, 1],
         logged=[12492979, 12519612, 12504538], ttt_min=[4.197, 4.188, 4.473],
         extra="Log is HugeCTR stdout (only its tail read)."),
    dict(key="v3.0-dell-xe8640-4xh100", ttt_src="hit", repo=V30, submitter="Dell", system="XE8640x4H100-SXM-80GB",
         gpu="H100-SXM-80GB", nodes=1, gpn=4, batch=28000, sharding="auto", sharding_src="config",
         config="Dell/benchmarks/dlrm_dcnv2/implementations/hugectr/config_XE8640x4H100-SXM-80GB.sh",
         config_repo=V30, reliability="A", runs=(0, 2, 3),
         per_run=[7332283, 7339210, 7330489], intervals=[1, 1, 1],
         logged=[6100812, 6098246, 6093408], ttt_min=[8.022, 8.025, 8.032],
         extra="Global batch 28000 (config; the log's 'with batchsize 28000'). result_1 was read but its "
               "tail held no complete inter-eval interval, so result_3 was used."),
    dict(key="v3.0-nvidia-dgxh100-n8", repo=V30, submitter="NVIDIA", system="dgxh100_n8_ngc23.04_merlin_hugectr",
         gpu="H100-SXM-80GB", nodes=8, gpn=8, batch=135168, sharding="hier_auto", sharding_src="config",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/hugectr/config_DGXH100_8x8x2112.sh",
         config_repo=V30, reliability="A", runs=(0, 1, 2),
         per_run=[45934486, 45574998, 45324324], intervals=[17, 5, 4],
         logged=[37789978, 37522193, 37375828], ttt_min=[1.757, None, None],
         extra="Config: SHARDING_PLAN=hier_auto, MEM_COMM_BW_RATIO=67, SHARP (NCCL CollNet)."),
    dict(key="v3.0-nvidia-dgxh100-n16", repo=V30, submitter="NVIDIA", system="dgxh100_n16_ngc23.04_merlin_hugectr",
         gpu="H100-SXM-80GB", nodes=16, gpn=8, batch=135168, sharding="hier_auto", sharding_src="second",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/merlin_hugectr/config_DGXH100_16x8x1056.sh",
         config_repo=V40, reliability="B", runs=(0, 1, 2),
         per_run=[45974788, 46218032, 46402170], intervals=[18, 17, 16],
         logged=[40080714, 40126873, 40375077], ttt_min=[1.741, 1.653, 1.556],
         extra=f"The v3.0 README ({NV_README_V30}) names config_DGXH100_16x8x1056.sh but the v3.0 copy is "
               "not stored; sharding and precision are read from the same-named v4.0 config "
               "(SHARDING_PLAN=hier_auto). Global batch 135168 is logged. The 8- and 16-node v3.0 results "
               "train equally fast (45.6M vs 46.2M samples/s)."),
    dict(key="v3.1-dell-2xxe8640-4xh100", repo=V31, submitter="Dell", system="2xXE8640x4H100-SXM-80GB",
         gpu="H100-SXM-80GB", nodes=2, gpn=4, batch=55296, sharding="auto", sharding_src="config",
         config="Dell/benchmarks/dlrm_dcnv2/implementations/hugectr/config_2xXE8640x4H100-SXM-80GB.sh",
         config_repo=V31, reliability="A", runs=(0, 1, 2),
         per_run=[11687006, 11696456, 11688308], intervals=[13, 4, 4],
         logged=[8937397, 8946998, 8938747], ttt_min=[5.867, None, None],
         extra="Two 4-GPU nodes (DGXNNODES=2, DGXNGPU=4); SHARDING_PLAN=auto over all 8 GPUs, "
               "DP_SHARDING_THRESHOLD=0.008. Eval takes 5.5 s of every ~23 s."),
    dict(key="v4.0-nvidia-dgxh100-n1", repo=V40, submitter="NVIDIA", system="eos_ngc24.04_merlin_hugectr",
         gpu="H100-SXM-80GB", nodes=1, gpn=8, batch=55296, sharding=None, sharding_src="none",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/merlin_hugectr/config_DGXH100_1x8x6912.sh",
         config_repo=V40, reliability="B", runs=(0, 1, 2),
         per_run=[15667650, 15663555, 15681122], intervals=[14, 3, 2],
         logged=[13744579, 13755978], ttt_min=[4.052, None, None],
         extra="README-eos_ngc24.04_merlin_hugectr.md names config_DGXH100_1x8x6912.sh, which is not stored, "
               "so sharding is not known (the sibling single-node configs DGXH200_1x8x6912 and "
               "DGXB200_1x8x6912 use SHARDING_PLAN=auto). Platform logged as '1xNVIDIA DGX H100'. result_0's "
               "tracked_stats line was not read."),
    dict(key="v4.0-nvidia-dgxh100-n8", repo=V40, submitter="NVIDIA", system="eos_n8_ngc24.04_merlin_hugectr",
         gpu="H100-SXM-80GB", nodes=8, gpn=8, batch=135168, sharding="hier_auto", sharding_src="second",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/eos_n8_ngc24.06_merlin_hugectr/config_DGXH100_8x8x2112.sh",
         config_repo=V41, reliability="B", runs=(0, 1, 2),
         per_run=[56039827, 56002763, 56280535], intervals=[17, 4, 3],
         logged=[47927529, 47726236, 48009124], ttt_min=[1.384, None, None],
         extra="No v4.0 copy of config_DGXH100_8x8x2112.sh is stored; sharding and precision from the "
               "v4.1 (and v3.0) config of that name (SHARDING_PLAN=hier_auto). Batch 135168 from the "
               "logged epoch grid (1551 steps per eval)."),
    dict(key="v4.0-nvidia-dgxh100-n16", repo=V40, submitter="NVIDIA", system="eos_n16_ngc24.04_merlin_hugectr",
         gpu="H100-SXM-80GB", nodes=16, gpn=8, batch=135168, sharding="hier_auto", sharding_src="config",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/merlin_hugectr/config_DGXH100_16x8x1056.sh",
         config_repo=V40, reliability="A", runs=(0, 1, 2),
         per_run=[73948851, 74713112, 74819807], intervals=[17, 5, 4],
         logged=[65020853, 65593941, 66070708], ttt_min=[1.019, None, None],
         extra="Config: SHARDING_PLAN=hier_auto, DP_SHARDING_THRESHOLD=0.0125, MEM_COMM_BW_RATIO=67, SHARP. "
               "62% faster than the same 16 nodes in v3.0 (software)."),
    dict(key="v4.0-nvidia-hgxh200-n1", repo=V40, submitter="NVIDIA", system="h200_ngc24.04_merlin_hugectr",
         gpu="H200-SXM-141GB", nodes=1, gpn=8, batch=55296, sharding="auto", sharding_src="config",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/merlin_hugectr/config_DGXH200_1x8x6912.sh",
         config_repo=V40, reliability="A", runs=(0, 1, 2),
         per_run=[16914113, 16942807, 16949653], intervals=[13, 5, 5],
         logged=[15041521, 15134114, 15147237], ttt_min=[3.486, None, None],
         extra="Platform logged as '1xNVIDIA HGX H200'. Config: SHARDING_PLAN=auto, "
               "DP_SHARDING_THRESHOLD=0.008, MEM_COMM_BW_RATIO=11."),
    dict(key="v4.1-nvidia-dgxb200-n1", repo=V41, submitter="NVIDIA", system="b200_preview_merlin_hugectr",
         gpu="B200-180GB", nodes=1, gpn=8, batch=55296, sharding="auto", sharding_src="config",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/b200_preview_merlin_hugectr/config_DGXB200_1x8x6912.sh",
         config_repo=V41, reliability="A", runs=(0, 1, 2),
         per_run=[25336434, 25521418, 25342557], intervals=[13, 2, 3],
         logged=[22504983, 22705416, 22515974], ttt_min=[2.33, None, None],
         extra="Preview (not yet available) category. Config: SHARDING_PLAN=auto, MEM_COMM_BW_RATIO=7."),
    dict(key="v4.1-nvidia-dgxh100-n8", repo=V41, submitter="NVIDIA", system="eos_n8_ngc24.06_merlin_hugectr",
         gpu="H100-SXM-80GB", nodes=8, gpn=8, batch=135168, sharding="hier_auto", sharding_src="config",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/eos_n8_ngc24.06_merlin_hugectr/config_DGXH100_8x8x2112.sh",
         config_repo=V41, reliability="A", runs=(0, 1, 2),
         per_run=[57436984, 57642290, 57389814], intervals=[16, 4, 6],
         logged=[49089020, 49219209, 49098444], ttt_min=[1.28, None, None],
         extra="Config: SHARDING_PLAN=hier_auto, DP_SHARDING_THRESHOLD=0.0125, SHARP."),
    dict(key="v5.0-nvidia-dgxb200-n1", repo=V50, submitter="NVIDIA", system="nyx_n1_ngc25.03_hugectr",
         gpu="B200-180GB", nodes=1, gpn=8, batch=55296, sharding="auto", sharding_src="config",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/hugectr/config_DGXB200_1x8x6912.sh",
         config_repo=V50, reliability="A", runs=(0, 1, 2),
         per_run=[25721732, 25701244, 25674501], intervals=[12, 4, 6],
         logged=[22887721, 22859162, 22844170], ttt_min=[2.138, None, None],
         extra="Config: SHARDING_PLAN=auto, DP_SHARDING_THRESHOLD=0.008, MEM_COMM_BW_RATIO=9."),
    dict(key="v5.0-nvidia-gb200-8gpu", repo=V50, submitter="NVIDIA", system="tyche_ngpu8_ngc25.03_hugectr",
         gpu="GB200", nodes=2, gpn=4, batch=55296, sharding="auto", sharding_src="config",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/hugectr/config_GB200_2x4x6912.sh",
         config_repo=V50, reliability="A", runs=(0, 1, 2),
         per_run=[26358552, 26692450, 26897724], intervals=[12, 4, 4],
         logged=[23597215, 23810288, 23926390], ttt_min=[2.073, None, None],
         extra="Two GB200 NVL72 compute trays of 4 GPUs (one NVLink domain; gpus_per_node 4 by the case "
               "convention). Config: SHARDING_PLAN=auto over the 8 GPUs, MEM_COMM_BW_RATIO=9."),
    dict(key="v5.0-nvidia-gb200-64gpu", repo=V50, submitter="NVIDIA", system="tyche_ngpu64_ngc25.03_hugectr",
         gpu="GB200", nodes=16, gpn=4, batch=135168, sharding=None, sharding_src="none",
         config="NVIDIA/benchmarks/dlrm_dcnv2/implementations/hugectr/config_GB200_16x4x2112.sh",
         config_repo=V50, reliability="B", runs=(0, 1, 2),
         per_run=[94222468, 94180140, 94477238], intervals=[17, 16, 3],
         logged=[83845405, 83791594, 84013037], ttt_min=[None, 0.749, None],
         extra="README-tyche_ngpu64_ngc25.03_hugectr.md names config_GB200_16x4x2112.sh (16 trays x 4 GPUs x "
               "2112), which is not stored: sharding not known (the multi-node H100 configs use hier_auto, "
               "but all 64 GPUs share one NVLink domain). Batch 135168 from the logged epoch grid."),
]

EVAL_NOTE = ("Target = training-only throughput from MLLOG timestamps: for consecutive evals (every 1/20 epoch), "
             "delta epoch_num x train_samples (4,195,197,692) / (next eval_start - eval_stop), interval after "
             "the first eval skipped, median over the intervals of a run, then median over the runs read "
             "(result_{runs}; {intervals} intervals; per-run medians {per_run} M samples/s). "
             "logged_throughput = median MLLOG tracked_stats.throughput over those runs (samples / time since "
             "run_start, eval included; {ratio:.2f} of the target). time_to_train_min = {ttt_how}.")



def case(s):
    n = s["nodes"] * s["gpn"]
    assert s["batch"] % n == 0
    target = float(median(s["per_run"]))
    logged = float(median(s["logged"]))
    ttts = [t for t in s["ttt_min"] if t is not None]
    repo, commit = s["repo"]
    crepo, ccommit = s["config_repo"]
    res = f"{s['submitter']}/results/{s['system']}/dlrm_dcnv2/result_*.txt"
    if s["sharding_src"] == "config":
        cfg = f"config {crepo} @{ccommit}: {s['config']} (name matches nodes x GPUs x batch)"
    elif s["sharding_src"] == "second":
        cfg = (f"config named by the submission, content read from {crepo} @{ccommit}: {s['config']} "
               "(same name, another round)")
    else:
        cfg = f"config named by the submission but not stored: {s['config']} (sharding unknown)"
    inferred = ["parallel.microbatch", "precision"]
    if s["sharding_src"] != "config":
        inferred.append("parallel.emb_sharding")
    if s["gpu"] == "B200-180GB":
        inferred.append("cluster.gpu")
    if s.get("ttt_src") == "hit":
        ttt_how = "median of the log's 'Hit target accuracy ... in X s' over the runs read"
    else:
        ttt_how = f"median run_stop - run_start of the {len(ttts)} run(s) whose run_start was read"
    notes = EVAL_NOTE.format(runs=",".join(map(str, s["runs"])), intervals="+".join(map(str, s["intervals"])),
                             per_run=", ".join(f"{p / 1e6:.2f}" for p in s["per_run"]), ratio=logged / target,
                             ttt_how=ttt_how)
    shard_txt = ("HugeCTR SHARDING_PLAN=%s from the config" % s["sharding"] if s["sharding"] else
                 "embedding sharding not known (null: dse picks the fastest feasible plan)")
    if s["sharding"] == "hier_auto":
        shard_txt += (" (in HugeCTR's MLPerf planner, hier_auto plans over nodes, a node's memory being its "
                      "GPUs', and gives every GPU of a node that node's tables: tables split across nodes, "
                      "shared by the GPUs inside a node)")
    notes += (f" {s['submitter']} {s['system']}: {s['nodes']} node(s) x {s['gpn']} {s['gpu']}, HugeCTR "
              f"(Merlin), global batch {s['batch']} (HugeCTR BATCHSIZE is global; microbatch = global/GPUs), "
              f"USE_MIXED_PRECISION=true = fp16 with loss scaling; {shard_txt}; dense layers data-parallel. "
              f"Optimizer Adagrad. {s['extra']}")
    c = {
        "id": f"mlperf-dcnv2-{s['key']}",
        "source": (f"MLPerf Training {s['key'].split('-')[0]} ({repo} @{commit}): {res} (runs "
                   f"{','.join(map(str, s['runs']))} read); {cfg}; {MODEL_SRC}"),
        "reliability": s["reliability"],
        "workload": "train",
        "precision": "fp16",
        "model": MODEL,
        "cluster": {"gpu": s["gpu"], "num_gpus": n, "gpus_per_node": s["gpn"]},
        "parallel": {"dp": n, "emb_sharding": s["sharding"], "microbatch": s["batch"] // n,
                     "global_batch": s["batch"]},
        "inference": None,
        "target": {"metric": "samples_per_s", "value": round(target, 1)},
        "also": {"logged_throughput_samples_per_s": round(logged, 1)},
        "inferred": inferred,
        "notes": notes,
    }
    if ttts:
        c["also"]["time_to_train_min"] = round(median(ttts), 3)
    return c


def main():
    write_cases([case(s) for s in SUBMISSIONS], OUT)


if __name__ == "__main__":
    main()
