"""Hardware resolution (dse/hardware.py): GPU preset + family calibration + scenario overrides -> SI.

Datasheet figures are copied from dse/data/gpus.yaml. Calibration figures are read from
dse/data/calibration.yaml with plain yaml (not through dse.presets), because they are refitted
by scripts/calibrate.py and hard-coding them would break on every refit.
"""

from pathlib import Path

import pytest
import yaml

import dse
from dse.errors import InputError
from dse.hardware import resolve_hardware
from dse.specs import ClusterSpec

DATA = Path(dse.__file__).resolve().parent / "data"
GIB = 2**30


def calibration(family):
    return yaml.safe_load((DATA / "calibration.yaml").read_text(encoding="utf-8"))[family]


def gpu_names():
    return list(yaml.safe_load((DATA / "gpus.yaml").read_text(encoding="utf-8")))


def cluster(gpu="H100-SXM-80GB", **overrides):
    return ClusterSpec.model_validate({"gpu": gpu, "num_gpus": 8, **overrides})


# ---------------------------------------------------------------------------- peaks per precision
def test_h100_bf16_peak():
    hw = resolve_hardware(cluster(), "bf16")
    assert hw.gpu == "H100-SXM-80GB"
    assert hw.family == "hopper"
    # gpus.yaml H100-SXM-80GB peak_tflops.bf16 = 989.4 TFLOP/s -> 989.4e12 FLOP/s
    assert hw.peak_flops == pytest.approx(989.4e12, rel=1e-12)
    assert hw.peak_flops_16 == pytest.approx(989.4e12, rel=1e-12)


def test_h100_fp8_peak_and_bf16_reference_peak():
    hw = resolve_hardware(cluster(), "fp8")
    # peak_tflops.fp8 = 1978.9 -> 1978.9e12; peak_flops_16 stays the bf16 figure 989.4e12
    assert hw.peak_flops == pytest.approx(1978.9e12, rel=1e-12)
    assert hw.peak_flops_16 == pytest.approx(989.4e12, rel=1e-12)


def test_fp16_on_a100_uses_fp16_peak():
    hw = resolve_hardware(cluster("A100-SXM-80GB"), "fp16")
    # A100 fp16 = bf16 = 312 TFLOP/s
    assert hw.peak_flops == pytest.approx(312e12, rel=1e-12)
    assert hw.peak_flops_16 == pytest.approx(312e12, rel=1e-12)


def test_alias_resolves_to_canonical_gpu():
    hw = resolve_hardware(cluster("h100"), "bf16")
    assert hw.gpu == "H100-SXM-80GB"


# ---------------------------------------------------------------------------- unit conversions
def test_unit_conversions_h100():
    hw = resolve_hardware(cluster(), "bf16")
    assert hw.hbm_bytes == 80 * GIB  # 80 GB * 2**30 = 85_899_345_920 bytes
    assert hw.hbm_bytes == 85_899_345_920
    assert hw.hbm_bw == pytest.approx(3.35e12, rel=1e-12)  # 3.35 TB/s * 1e12
    assert hw.nvlink_bw == pytest.approx(450e9, rel=1e-12)  # 900 GB/s both directions * 1e9 / 2
    assert hw.scaleout_bw == pytest.approx(50e9, rel=1e-12)  # 400 Gbit/s * 1e9 / 8 bit per byte
    assert hw.nvlink_domain == 8
    assert hw.gpus_per_node == 8
    assert hw.power_w == 700.0
    assert hw.price_per_gpu_hour == pytest.approx(12.29)
    assert hw.rail_optimized == 1.0


def test_latencies_and_reserved_memory_convert_from_calibration_units():
    cal = calibration("hopper")
    hw = resolve_hardware(cluster(), "bf16")
    assert hw.nvlink_latency == pytest.approx(cal["nvlink_latency_us"] * 1e-6, rel=1e-12)  # us -> s
    assert hw.scaleout_latency == pytest.approx(cal["scaleout_latency_us"] * 1e-6, rel=1e-12)
    assert hw.memory_reserved == pytest.approx(cal["memory_reserved_gb"] * GIB, rel=1e-12)  # GB * 2**30


def test_unit_conversions_of_overridden_figures():
    hw = resolve_hardware(
        cluster(hbm_tbps=2.0, nvlink_gbps=600.0, scaleout_gbitps=200.0, nvlink_latency_us=2.5,
                scaleout_latency_us=12.0, memory_reserved_gb=1.5, power_w=650.0, price_per_gpu_hour=3.0),
        "bf16",
    )
    assert hw.hbm_bw == pytest.approx(2.0e12, rel=1e-12)  # 2.0 * 1e12
    assert hw.nvlink_bw == pytest.approx(300e9, rel=1e-12)  # 600 * 1e9 / 2
    assert hw.scaleout_bw == pytest.approx(25e9, rel=1e-12)  # 200 * 1e9 / 8
    assert hw.nvlink_latency == pytest.approx(2.5e-6, rel=1e-12)
    assert hw.scaleout_latency == pytest.approx(12e-6, rel=1e-12)
    assert hw.memory_reserved == pytest.approx(1.5 * GIB, rel=1e-12)  # 1.5 * 2**30 = 1_610_612_736
    assert hw.power_w == 650.0
    assert hw.price_per_gpu_hour == 3.0


def test_missing_price_is_zero():
    # H200 has price_per_gpu_hour: null in gpus.yaml
    assert resolve_hardware(cluster("H200-SXM-141GB"), "bf16").price_per_gpu_hour == 0.0


def test_rail_optimized_false_is_zero():
    assert resolve_hardware(cluster(rail_optimized=False), "bf16").rail_optimized == 0.0


# ---------------------------------------------------------------------------- overrides
def test_hbm_override_wins():
    hw = resolve_hardware(cluster(hbm_gb=96.0), "bf16")
    assert hw.hbm_bytes == 96 * GIB  # 96 * 2**30 = 103_079_215_104
    assert hw.hbm_bytes == 103_079_215_104


def test_nvlink_domain_override_wins():
    assert resolve_hardware(cluster(nvlink_domain=4), "bf16").nvlink_domain == 4


def test_efficiency_matmul_override_wins_and_others_stay_calibrated():
    cal = calibration("hopper")
    hw = resolve_hardware(cluster(efficiency={"matmul": 0.5}), "bf16")
    assert hw.eff_matmul == 0.5
    assert hw.eff_attention == cal["attention"]
    assert hw.eff_hbm == cal["hbm"]


def test_efficiency_matmul_override_does_not_touch_fp8_efficiency():
    cal = calibration("hopper")
    hw = resolve_hardware(cluster(efficiency={"matmul": 0.5}), "fp8")
    assert hw.eff_matmul == cal["matmul_fp8"]


def test_peak_bf16_override_wins_for_both_peaks():
    hw = resolve_hardware(cluster(peak_tflops={"bf16": 500.0}), "bf16")
    assert hw.peak_flops == pytest.approx(500e12, rel=1e-12)  # 500 TFLOP/s * 1e12
    assert hw.peak_flops_16 == pytest.approx(500e12, rel=1e-12)


def test_peak_bf16_override_under_fp8_changes_only_the_16_bit_peak():
    hw = resolve_hardware(cluster(peak_tflops={"bf16": 500.0}), "fp8")
    assert hw.peak_flops == pytest.approx(1978.9e12, rel=1e-12)  # preset fp8 kept
    assert hw.peak_flops_16 == pytest.approx(500e12, rel=1e-12)


def test_fp8_peak_override_on_a100_needs_an_fp8_efficiency():
    with pytest.raises(InputError) as info:
        resolve_hardware(cluster("A100-SXM-80GB", peak_tflops={"fp8": 624.0}), "fp8")
    assert info.value.problems[0].field == "cluster.efficiency.matmul_fp8"
    hw = resolve_hardware(
        cluster("A100-SXM-80GB", peak_tflops={"fp8": 624.0}, efficiency={"matmul_fp8": 0.5}), "fp8")
    assert hw.peak_flops == pytest.approx(624e12, rel=1e-12)
    assert hw.peak_flops_16 == pytest.approx(312e12, rel=1e-12)
    assert hw.eff_matmul == 0.5


# ---------------------------------------------------------------------------- NVLink domain
@pytest.mark.parametrize("gpu", ["H100-SXM-80GB", "A100-SXM-80GB", "B200-180GB"])
def test_hgx_domain_follows_gpus_per_node(gpu):
    hw = resolve_hardware(cluster(gpu, gpus_per_node=4), "bf16")
    # HGX presets have nvlink_domain == gpus_per_node == 8: a 4-GPU server has a 4-GPU domain
    assert hw.gpus_per_node == 4
    assert hw.nvlink_domain == 4


def test_gb200_domain_stays_the_rack():
    default = resolve_hardware(cluster("GB200"), "bf16")
    assert (default.nvlink_domain, default.gpus_per_node) == (72, 4)
    hw = resolve_hardware(cluster("GB200", gpus_per_node=2), "bf16")
    assert hw.gpus_per_node == 2
    assert hw.nvlink_domain == 72  # NVL72 rack, independent of the tray size


def test_pcie_part_domain_stays_one():
    hw = resolve_hardware(cluster("L40S", gpus_per_node=4), "bf16")
    assert hw.nvlink_domain == 1


def test_explicit_domain_beats_changed_gpus_per_node():
    hw = resolve_hardware(cluster(gpus_per_node=4, nvlink_domain=2), "bf16")
    assert (hw.gpus_per_node, hw.nvlink_domain) == (4, 2)


# ---------------------------------------------------------------------------- calibration
@pytest.mark.parametrize(
    ("gpu", "family"),
    [("H100-SXM-80GB", "hopper"), ("A100-SXM-80GB", "ampere"), ("V100-SXM2-32GB", "volta"),
     ("L40S", "ada"), ("B200-180GB", "blackwell")],
)
def test_efficiencies_come_from_the_family_calibration(gpu, family):
    cal = calibration(family)
    hw = resolve_hardware(cluster(gpu), "fp16")
    assert hw.family == family
    assert hw.eff_matmul == cal["matmul"]
    assert hw.matmul_k_half == cal["matmul_k_half"]
    assert hw.eff_attention == cal["attention"]
    assert hw.eff_hbm == cal["hbm"]
    assert hw.eff_nvlink == cal["nvlink"]
    assert hw.eff_scaleout == cal["scaleout"]
    assert hw.overlap_slowdown == cal["overlap_slowdown"]


def test_fp8_uses_fp8_matmul_efficiency():
    assert resolve_hardware(cluster(), "fp8").eff_matmul == calibration("hopper")["matmul_fp8"]


def test_fp4_uses_fp4_matmul_efficiency_on_blackwell():
    hw = resolve_hardware(cluster("B200-180GB"), "fp4")
    assert hw.peak_flops == pytest.approx(9000e12, rel=1e-12)  # peak_tflops.fp4 = 9000
    assert hw.eff_matmul == calibration("blackwell")["matmul_fp4"]


def test_columns_drop_the_non_numeric_fields():
    cols = resolve_hardware(cluster(), "bf16").columns()
    assert "gpu" not in cols and "family" not in cols and "gpus_per_node" not in cols
    assert cols["hbm_bytes"] == 80 * GIB
    assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in cols.values())


# ---------------------------------------------------------------------------- errors
def test_fp8_on_a100_names_precision_and_lists_allowed():
    with pytest.raises(InputError) as info:
        resolve_hardware(cluster("A100-SXM-80GB"), "fp8")
    (problem,) = info.value.problems
    assert problem.field == "precision"
    assert problem.given == "'fp8'"
    assert problem.message.endswith("allowed: bf16, fp16")  # A100: bf16 312, fp16 312, fp8/fp4 null
    assert "precision" in str(info.value)


def test_fp4_on_h100_lists_fp8_as_allowed():
    with pytest.raises(InputError) as info:
        resolve_hardware(cluster(), "fp4")
    assert info.value.problems[0].message.endswith("allowed: bf16, fp16, fp8")


def test_unknown_gpu_lists_allowed_gpus():
    with pytest.raises(InputError) as info:
        resolve_hardware(cluster("Z9000"), "bf16")
    (problem,) = info.value.problems
    assert problem.field == "cluster.gpu"
    assert problem.given == "'Z9000'"
    assert "unknown GPU" in problem.message
    for name in gpu_names():
        assert name in problem.message


def test_a_power_limit_at_or_below_the_idle_draw_is_refused_everywhere(tmp_path):
    """A limit under what the GPU draws clocked with no work (H100: 0.19 x 700 W = 133 W) runs no
    clock at all: evaluate, whatif and search spaces refuse it by name (it was scored as a 909 s
    step drawing 134 W, above its own 100 W limit)."""
    from dse.search.space import space_from_dict
    from dse.whatif import whatif

    assert resolve_hardware(ClusterSpec(gpu="H100-SXM-80GB", num_gpus=8, power_w=140), "bf16").power_w == 140
    with pytest.raises(InputError, match=r"cluster\.power_w.*idle, 133 W"):
        resolve_hardware(ClusterSpec(gpu="H100-SXM-80GB", num_gpus=8, power_w=100), "bf16")
    small = {"name": "s", "model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
             "parallel": {"tp": 1, "global_batch": 64}}
    with pytest.raises(InputError, match=r"vary\.power_w.*idle, 133 W"):
        whatif(small, {"power_w": [100, 700]})
    space = {"scenario": {"model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB"}}, "gpus": [8],
             "global_batch": {"sequences": [64]}, "hardware": {"power_w": {"low": 120, "high": 700}}}
    with pytest.raises(InputError, match=r"hardware\.power_w.*idle, 133 W"):
        space_from_dict(space)
    hair = dse.evaluate({**small, "cluster": {**small["cluster"], "power_w": 133.01}}).iloc[0]
    assert hair["power_per_gpu_w"] <= 133.01 + 1e-6  # a limit a hair above idle holds too


# ---------------------------------------------------------------------------- L2 cache
def test_l2_cache_from_the_preset_or_the_scenario():
    # gpus.yaml: H100-SXM-80GB l2_mb 50 (MiB), B200 126; TPUv4 null (not modelled)
    assert resolve_hardware(cluster(), "bf16").l2_bytes == 50 * 2**20
    assert resolve_hardware(cluster("B200"), "bf16").l2_bytes == 126 * 2**20
    assert resolve_hardware(cluster("TPUv4"), "bf16").l2_bytes == 0.0
    assert resolve_hardware(cluster(l2_mb=0), "bf16").l2_bytes == 0.0
    assert resolve_hardware(cluster(l2_mb=200), "bf16").l2_bytes == 200 * 2**20


def test_the_llm_columns_leave_the_l2_out():
    from dse.costmodel import COLUMNS

    assert "l2_bytes" in resolve_hardware(cluster(), "bf16").columns()
    assert "l2_bytes" not in COLUMNS  # only the DLRM model has an L2 term


# ---------------------------------------------------------------------------- NVLink topology
def test_nvlink_topology_is_a_switch_unless_the_preset_or_the_scenario_says_mesh():
    assert resolve_hardware(cluster(), "bf16").nvlink_mesh == 0.0
    assert resolve_hardware(cluster(nvlink_topology="mesh"), "bf16").nvlink_mesh == 1.0
    with pytest.raises(ValueError, match="nvlink_topology"):
        cluster(nvlink_topology="torus")


def gpu_entry(name):
    return yaml.safe_load((DATA / "gpus.yaml").read_text(encoding="utf-8"))[name]


@pytest.mark.parametrize("gpu", ["MI300X", "MI325X", "MI350X", "MI355X"])
def test_amd_instinct_gpus_are_a_full_mesh_of_eight(gpu):
    hw = resolve_hardware(cluster(gpu), "fp8")
    assert hw.family in ("cdna3", "cdna4")
    assert hw.nvlink_mesh == 1.0 and hw.nvlink_domain == 8
    # gpus.yaml nvlink_gbps is both directions: one direction is half
    assert hw.nvlink_bw == pytest.approx(gpu_entry(gpu)["nvlink_gbps"] * 1e9 / 2.0, rel=1e-12)


def test_a_gpus_own_measured_efficiency_beats_its_familys_and_a_scenarios_beats_both():
    # the MI300X (750 W) and MI325X (1000 W) share a die and a family; the MI300X's deep GEMMs
    # measure lower, and gpus.yaml says so under `efficiency`
    own = gpu_entry("MI300X")["efficiency"]["matmul"]
    assert resolve_hardware(cluster("MI300X"), "bf16").eff_matmul == own
    assert resolve_hardware(cluster("MI325X"), "bf16").eff_matmul == calibration("cdna3")["matmul"] != own
    assert resolve_hardware(cluster("MI300X", efficiency={"matmul": 0.6}), "bf16").eff_matmul == 0.6


def test_cdna3_has_no_fp4():
    with pytest.raises(InputError, match="fp4"):
        resolve_hardware(cluster("MI300X"), "fp4")


def test_export_variants_are_their_parents_with_less_nvlink_or_compute():
    # gpus.yaml: the H800 is the H100 SXM with 400 GB/s of NVLink; the A800 the A100 SXM with 400;
    # the H20 a Hopper at 148 TFLOP/s BF16 with 96 GB at 4.0 TB/s
    h800, h100 = resolve_hardware(cluster("H800"), "fp8"), resolve_hardware(cluster("H100-SXM-80GB"), "fp8")
    assert h800.nvlink_bw == pytest.approx(200e9) and h100.nvlink_bw == pytest.approx(450e9)
    assert (h800.peak_flops, h800.hbm_bw, h800.eff_matmul) == (h100.peak_flops, h100.hbm_bw, h100.eff_matmul)
    a800 = resolve_hardware(cluster("A800"), "bf16")
    a100 = resolve_hardware(cluster("A100-SXM-80GB"), "bf16")
    assert a800.nvlink_bw == pytest.approx(200e9) and a800.peak_flops == a100.peak_flops
    h20 = resolve_hardware(cluster("H20"), "bf16")
    assert h20.peak_flops == pytest.approx(148e12) and h20.hbm_bw == pytest.approx(4.0e12) and h20.family == "hopper"


def test_the_rtx_pro_6000_is_a_pcie_domain_of_eight_with_its_own_family():
    # gpus.yaml: no NVLink; the eight GPUs of a server reach each other by PCIe Gen5 x16 P2P (64 GB/s a
    # direction), dense peaks half the printed sparse ones, GDDR7 at 1.597 TB/s
    hw = resolve_hardware(cluster("RTX PRO 6000 Blackwell Server Edition"), "fp4")
    assert hw.family == "blackwell_rtx" and hw.nvlink_domain == 8 and hw.nvlink_mesh == 0.0
    assert hw.nvlink_bw == pytest.approx(64e9) and hw.hbm_bw == pytest.approx(1.597e12)
    assert hw.peak_flops == pytest.approx(2000e12)
    b200 = resolve_hardware(cluster("B200-180GB"), "fp4")
    assert hw.nvlink_bw < b200.nvlink_bw / 10 and hw.peak_flops < b200.peak_flops
    # measured kernels, not fitted: its GEMMs sit nearer their peak than the tcgen05 family's fitted ones
    assert calibration("blackwell_rtx")["matmul_fp4"] > calibration("blackwell")["matmul_fp4"]
