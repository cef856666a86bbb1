"""Full recompute of some of the layers (training.recompute_num_layers: Megatron-core's block
method): between no recompute and a full one in time and memory, the full one when it covers every
layer of a model chunk, and only with parallel.recompute: full."""

import pytest

from dse.api import evaluate, full_recompute_fraction
from dse.errors import InputError


def scenario(recompute="full", layers=None, pp=2, vpp=1):
    training = {} if layers is None else {"recompute_num_layers": layers}
    return {
        "name": "rc", "workload": "train", "precision": "bf16", "model": "llama3.1-8b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
        "parallel": {"tp": 2, "pp": pp, "vpp": vpp, "recompute": recompute, "microbatch": 2, "global_batch": 64},
        "training": training,
    }


def one(s):
    row = evaluate(s, explain=False).iloc[0]
    return float(row["iteration_time_s"]), float(row["memory_per_gpu_bytes"])


def test_the_share_of_layers_is_per_model_chunk():
    # Llama-3.1-8B: 32 layers; pp 2 x vpp 2 = 4 chunks of 8 layers
    assert full_recompute_fraction(None, 32, 4) == 1.0
    assert full_recompute_fraction(2, 32, 4) == 0.25
    assert full_recompute_fraction(20, 32, 4) == 1.0


def test_every_layer_of_a_chunk_is_the_full_recompute():
    assert one(scenario(layers=16)) == one(scenario())  # 16 layers per stage at pp 2
    assert one(scenario(layers=99)) == one(scenario())


@pytest.mark.parametrize("vpp", [1, 2])
def test_more_recomputed_layers_take_more_time_and_less_memory(vpp):
    none_t, none_m = one(scenario("none", pp=2, vpp=vpp))
    points = [one(scenario(layers=n, pp=2, vpp=vpp)) for n in (1, 2, 4, 8)]
    full_t, full_m = one(scenario(pp=2, vpp=vpp))
    times = [none_t] + [t for t, _ in points] + [full_t]
    memory = [none_m] + [m for _, m in points] + [full_m]
    assert times == sorted(times) and times[0] < times[-1]
    assert memory == sorted(memory, reverse=True) and memory[0] > memory[-1]


def test_recompute_num_layers_needs_a_full_recompute():
    with pytest.raises(InputError, match="training.recompute_num_layers"):
        evaluate(scenario("selective", layers=4), explain=False)
