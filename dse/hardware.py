"""Resolve a cluster spec (GPU preset + overrides + family calibration) to SI hardware figures."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .errors import single
from .presets import gpu_calibration, gpu_preset
from .specs import ClusterSpec

GIB = 2.0**30
MIB = 2.0**20


@dataclass(frozen=True)
class Hardware:
    """Per-GPU hardware of a cluster, SI units.

    ``hbm_bytes`` converts the datasheet "GB" figure with 2**30: NVIDIA's capacities are binary
    (an "80 GB" A100 or H100 shows 81,920 MiB; the 141 GB H200 143,771 MiB and the 180 GB B200
    183,359 MiB in MLPerf system descriptions).
    """

    gpu: str
    family: str
    peak_flops: float  # dense matmul peak at the run's precision, FLOP/s
    peak_flops_16: float  # dense bf16/fp16 peak, FLOP/s
    hbm_bytes: float
    hbm_bw: float  # bytes/s
    l2_bytes: float  # on-chip L2 cache, bytes (0: not modelled)
    nvlink_bw: float  # one direction per GPU, bytes/s
    nvlink_domain: int
    nvlink_mesh: float  # 1: the domain's GPUs are linked point to point (full mesh); 0: by switches
    gpus_per_node: int
    scaleout_bw: float  # one direction per GPU, bytes/s
    host_link_bw: float  # GPU <-> host memory, one direction per GPU, bytes/s
    host_memory_bytes: float  # host memory per GPU for offloaded data, bytes (0: not checked)
    exp_rate: float  # exponentials/s of the special-function units (softmax), 1/s
    nvlink_latency: float  # s
    scaleout_latency: float  # s
    memory_reserved: float  # bytes
    eff_matmul: float
    matmul_k_half: float  # elements of the reduction dimension
    eff_attention: float
    attention_flops_per_exp: float  # the calibration GPU's 16-bit tensor FLOPs per exponential
    eff_hbm: float
    eff_nvlink: float
    eff_scaleout: float
    overlap_slowdown: float
    rail_optimized: float
    power_w: float  # board power limit (TDP), W
    power_idle: float  # fraction of the datasheet limit a clocked GPU draws with no work (dse.costmodel.power)
    power_tensor: float  # fraction of the dynamic range drawn at the achieved GEMM rate
    power_hbm: float  # fraction of the dynamic range drawn by HBM-bound kernels
    power_ref_w: float  # the preset's power limit, W: where the timings and the idle floor hold
    power_ref_flops: float  # the preset's peak at the precision, FLOP/s: where power_tensor holds
    power_ref_hbm_bw: float  # the preset's HBM bandwidth, bytes/s: where power_hbm holds
    price_per_gpu_hour: float
    #: the 16-bit GEMM efficiency (calibration ``matmul``), for the GEMMs an FP8/FP4 recipe keeps
    #: 16-bit (the LM head); 0 = eff_matmul
    eff_matmul_16: float = 0.0

    def columns(self) -> dict[str, float]:
        """The cost-model hardware columns."""
        row = asdict(self)
        for key in ("gpu", "family", "gpus_per_node"):
            row.pop(key)
        return row


def matmul_efficiency_key(precision: str) -> str:
    """The calibration / ``cluster.efficiency`` key of a precision's GEMM efficiency."""
    return {"fp8": "matmul_fp8", "fp4": "matmul_fp4"}.get(precision, "matmul")


def idle_power_w(datasheet_w: float, power_idle: float) -> float:
    """What a GPU whose datasheet limit is ``datasheet_w`` (W) draws clocked with no work (W):
    ``power_idle`` of it (:mod:`dse.costmodel.power`); a power limit at or below it runs nothing."""
    return float(power_idle) * float(datasheet_w)


def power_limit_problem(power_w: float, gpu: str, datasheet_w: float, power_idle: float) -> str | None:
    """Why a power limit of ``power_w`` (W) cannot run the ``gpu`` (at or below its idle draw,
    :func:`idle_power_w`), or None when it can."""
    floor = idle_power_w(datasheet_w, power_idle)
    if power_w > floor:
        return None
    return (f"below what the {gpu} draws idle, {floor:.0f} W (power_idle {power_idle:g} of its {datasheet_w:g} W): "
            f"no clock runs under it; allowed: above {floor:.0f} W")


def resolve_hardware(cluster: ClusterSpec, precision: str) -> Hardware:
    """Merge the GPU preset, the family calibration and the scenario's overrides.

    Raises :class:`dse.errors.InputError` for an unknown GPU or a precision the GPU lacks.
    """
    try:
        preset = gpu_preset(cluster.gpu)
    except KeyError:
        from .presets import gpu_table

        raise single(
            "cluster.gpu",
            f"unknown GPU; allowed: {', '.join(gpu_table())}",
            cluster.gpu,
        ) from None
    calib = gpu_calibration(preset["name"])  # the family's, and what this GPU measures apart from it
    if cluster.efficiency is not None:
        calib.update(cluster.efficiency.model_dump(exclude_none=True))
    peaks = dict(preset["peak_tflops"])
    if cluster.peak_tflops is not None:
        peaks.update(cluster.peak_tflops.model_dump(exclude_none=True))

    def peak(fmt: str) -> float | None:
        value = peaks.get(fmt)
        return None if value is None else float(value) * 1e12

    peak16 = peak("bf16") or peak("fp16")
    if peak16 is None:
        raise single("cluster.peak_tflops.bf16", f"{preset['name']} has no bf16/fp16 peak", None)
    fmt_peak = peak(precision)
    if fmt_peak is None:
        supported = [p for p in ("bf16", "fp16", "fp8", "fp4") if peaks.get(p)]
        raise single(
            "precision",
            f"{preset['name']} has no {precision} tensor cores (peak_tflops.{precision} is null); "
            f"allowed: {', '.join(supported)}",
            precision,
        )
    eff_key = matmul_efficiency_key(precision)
    eff_matmul = calib.get(eff_key)
    if eff_matmul is None:
        raise single(
            f"cluster.efficiency.{eff_key}",
            f"no calibrated {precision} matmul efficiency for the {preset['family']} family; "
            "set it in the scenario",
            None,
        )

    def pick(override, default):
        return default if override is None else override

    if cluster.power_w is not None:
        problem = power_limit_problem(cluster.power_w, preset["name"], preset["power_w"], calib["power_idle"])
        if problem:
            raise single("cluster.power_w", problem, cluster.power_w)

    gpus_per_node = pick(cluster.gpus_per_node, preset["gpus_per_node"])
    # NVLink inside a server (HGX): the domain follows a changed gpus_per_node; racks (NVL72)
    # and PCIe parts keep the preset's domain unless it is overridden.
    node_domain = preset["nvlink_domain"] == preset["gpus_per_node"]
    domain = pick(cluster.nvlink_domain, gpus_per_node if node_domain else preset["nvlink_domain"])
    return Hardware(
        gpu=preset["name"],
        family=preset["family"],
        peak_flops=fmt_peak,
        peak_flops_16=peak16,
        hbm_bytes=float(pick(cluster.hbm_gb, preset["hbm_gb"])) * GIB,
        hbm_bw=float(pick(cluster.hbm_tbps, preset["hbm_tbps"])) * 1e12,
        l2_bytes=float(pick(cluster.l2_mb, preset["l2_mb"]) or 0.0) * MIB,
        nvlink_bw=float(pick(cluster.nvlink_gbps, preset["nvlink_gbps"])) * 1e9 / 2.0,
        nvlink_domain=int(domain),
        nvlink_mesh=float(pick(cluster.nvlink_topology, preset.get("nvlink_topology", "switch")) == "mesh"),
        gpus_per_node=int(gpus_per_node),
        scaleout_bw=float(pick(cluster.scaleout_gbitps, preset["scaleout_gbitps"])) * 1e9 / 8.0,
        host_link_bw=float(pick(cluster.host_link_gbps, preset["host_link_gbps"])) * 1e9 / 2.0,
        host_memory_bytes=float(pick(cluster.host_memory_gb, preset["host_memory_gb"]) or 0.0) * GIB,
        exp_rate=float(pick(cluster.exp_tera_per_s, preset["exp_tera_per_s"])) * 1e12,
        nvlink_latency=float(pick(cluster.nvlink_latency_us, calib["nvlink_latency_us"])) * 1e-6,
        scaleout_latency=float(pick(cluster.scaleout_latency_us, calib["scaleout_latency_us"])) * 1e-6,
        memory_reserved=float(pick(cluster.memory_reserved_gb, calib["memory_reserved_gb"])) * GIB,
        eff_matmul=float(eff_matmul),
        eff_matmul_16=float(calib.get("matmul") or eff_matmul),
        matmul_k_half=float(calib["matmul_k_half"]),
        eff_attention=float(calib["attention"]),
        attention_flops_per_exp=float(calib["attention_flops_per_exp"]),
        eff_hbm=float(calib["hbm"]),
        eff_nvlink=float(calib["nvlink"]),
        eff_scaleout=float(calib["scaleout"]),
        overlap_slowdown=float(calib["overlap_slowdown"]),
        rail_optimized=float(cluster.rail_optimized),
        power_w=float(pick(cluster.power_w, preset["power_w"])),
        power_idle=float(calib["power_idle"]),
        power_tensor=float(calib["power_tensor"]),
        power_hbm=float(calib["power_hbm"]),
        # the shares hold at the datasheet GPU's rates (same energy per FLOP and byte beyond them)
        power_ref_w=float(preset["power_w"]),
        power_ref_flops=float(preset["peak_tflops"].get(precision) or 0.0) * 1e12,
        power_ref_hbm_bw=float(preset["hbm_tbps"]) * 1e12,
        price_per_gpu_hour=float(pick(cluster.price_per_gpu_hour, preset["price_per_gpu_hour"]) or 0.0),
    )
