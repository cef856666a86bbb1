"""dse's serving GEMM time against DeepGEMM's published H800 kernel timings (FP8, fine-grained scales).

    python scripts/check_deepgemm_kernels.py

Each row of DeepGEMM's README tables (deepseek-ai/DeepGEMM, README.md as of 2025-04: "Normal GEMMs for
dense models" at M = 64 and 128 tokens, "Grouped GEMMs for MoE models (masked layout)") gives a
shape and the memory bandwidth the kernel reached on an H800 SXM5; the kernel's time is its bytes
(FP8 weights and inputs, BF16 outputs) over that bandwidth. dse's time is the roofline of
``dse.costmodel.inference`` (the ``gemm`` closure of ``_evaluate``: FLOPs at the Hopper FP8 GEMM
efficiency x the serving factor x the depth factor K / (K + k_half), against the bytes at the
serving HBM fraction, smoothed by :func:`dse.costmodel.inference.roof`). The H800 has the H100 SXM's
FP8 peak and HBM bandwidth (1,979 TFLOP/s, 3.35 TB/s). Nothing here is fitted: the script shows
whether block-scaled FP8 GEMMs at decode sizes run at the rate dse assumes for Hopper.
"""

from __future__ import annotations

from dse.costmodel.inference import roof
from dse.presets import calibration_table, gpu_preset

#: (groups, M per group, N, K, GB/s measured) from DeepGEMM's README tables (H800 SXM5)
DEEPGEMM_H800 = [
    (1, 64, 2112, 7168, 1688), (1, 64, 24576, 1536, 2455), (1, 64, 32768, 512, 2143),
    (1, 64, 7168, 16384, 2668), (1, 64, 4096, 7168, 2320), (1, 64, 7168, 2048, 2470),
    (1, 128, 2112, 7168, 1509), (1, 128, 24576, 1536, 2448), (1, 128, 32768, 512, 2103),
    (1, 128, 7168, 16384, 2604), (1, 128, 4096, 7168, 2221), (1, 128, 7168, 2048, 2277),
    # masked layout (decode): groups = experts, M = tokens per expert
    (1, 1024, 4096, 7168, 924), (1, 1024, 7168, 2048, 968), (2, 512, 4096, 7168, 1288),
    (2, 512, 7168, 2048, 1405), (4, 256, 4096, 7168, 2064), (4, 256, 7168, 2048, 2047),
]


def main() -> None:
    gpu = gpu_preset("H100-SXM-80GB")
    cal = calibration_table()["hopper"]
    rate = gpu["peak_tflops"]["fp8"] * 1e12 * cal["matmul_fp8"] * cal["infer_matmul"]
    hbm = gpu["hbm_tbps"] * 1e12 * cal["infer_hbm"]
    print(f"{'groups':>6} {'M':>5} {'N':>6} {'K':>6} {'measured us':>12} {'dse us':>8} {'measured/dse':>13}")
    ratios = []
    for groups, m, n, k, gbps in DEEPGEMM_H800:
        nbytes = groups * (n * k + m * k + 2 * m * n)  # FP8 weights and inputs, BF16 outputs
        measured = nbytes / (gbps * 1e9)
        flops = 2.0 * groups * m * n * k
        dse_time = float(roof(flops / (rate * k / (k + cal["matmul_k_half"])), nbytes / hbm))
        ratios.append(measured / dse_time)
        print(f"{groups:>6} {m:>5} {n:>6} {k:>6} {measured * 1e6:>12.1f} {dse_time * 1e6:>8.1f} {ratios[-1]:>13.2f}")
    filled = [r for (g, m, n, k, _), r in zip(DEEPGEMM_H800, ratios) if n != 2112]
    print(f"measured/dse: {min(ratios):.2f}-{max(ratios):.2f} over all {len(ratios)} shapes; "
          f"{min(filled):.2f}-{max(filled):.2f} without N = 2112 (17 column tiles of 128 leave most of "
          "the 132 SMs idle at M <= 128)")


if __name__ == "__main__":
    main()
