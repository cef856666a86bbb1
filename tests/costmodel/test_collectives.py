"""Hand-computed checks of dse/costmodel/collectives.py (alpha-beta collectives, two levels).

Ring conventions (nccl-tests PERFORMANCE.md; Thakur et al. 2005): over p ranks, buffer S,
bandwidth B, per-step latency alpha:
  all-reduce            2(p-1)/p * S/B + 2*min(p-1, log2 p)*alpha  (ring bandwidth; the
                        better of ring and double-binary-tree latency)
  all-gather / red.-sc. (p-1)/p * S/B + (p-1)*alpha                 (NCCL: rings only)
  all-to-all            (p-1)/p * S/B + alpha
"""

import numpy as np
import pytest

from dse.costmodel import collectives as coll

REL = 1e-12
S = 1e9  # bytes
NVL_BW, SO_BW = 400e9, 40e9  # achieved bytes/s
NVL_A, SO_A = 2e-6, 10e-6  # s


def net(nvl_bw=NVL_BW, so_bw=SO_BW, nvl_a=NVL_A, so_a=SO_A, domain=8.0, rails=1.0):
    return coll.Network(nvl_bw, so_bw, nvl_a, so_a, domain, rails)


# ---------------------------------------------------------------------------- flat rings
def test_ring_allreduce_bandwidth_and_latency():
    # p = 4: 2*3/4*1e9/400e9 = 1.5e9/400e9 = 3.75e-3 s; steps = min(3, log2 4 = 2) = 2
    # latency 2*2*2e-6 = 8e-6 -> 3.758e-3 s
    assert coll.ring_allreduce_time(S, 4.0, NVL_BW, NVL_A) == pytest.approx(3.758e-3, rel=REL)
    # p = 8: 2*7/8*1e9/400e9 = 4.375e-3; steps = min(7, log2 8 = 3) = 3 (tree latency)
    # latency 2*3*2e-6 = 12e-6 -> 4.387e-3
    assert coll.ring_allreduce_time(S, 8.0, NVL_BW, NVL_A) == pytest.approx(4.387e-3, rel=REL)
    # p = 2: 2*1/2*2.5e-3 = 2.5e-3; steps min(1, 1) = 1 -> 4e-6 -> 2.504e-3
    assert coll.ring_allreduce_time(S, 2.0, NVL_BW, NVL_A) == pytest.approx(2.504e-3, rel=REL)
    # p = 1: nothing to reduce
    assert coll.ring_allreduce_time(S, 1.0, NVL_BW, NVL_A) == 0.0


def test_ring_allreduce_latency_only():
    # S = 0, p = 64: steps = min(63, log2 64 = 6) = 6 -> 2*6*10e-6 = 120e-6
    assert coll.ring_allreduce_time(0.0, 64.0, SO_BW, SO_A) == pytest.approx(120e-6, rel=REL)


def test_ring_allgather():
    # p = 4: 3/4*1e9/400e9 = 1.875e-3; steps 3 -> 3*2e-6 = 6e-6 -> 1.881e-3 s
    assert coll.ring_allgather_time(S, 4.0, NVL_BW, NVL_A) == pytest.approx(1.881e-3, rel=REL)
    # p = 2: 1/2*1e9/40e9 = 12.5e-3; steps min(1, 2) = 1 -> 10e-6 -> 12.51e-3
    assert coll.ring_allgather_time(S, 2.0, SO_BW, SO_A) == pytest.approx(12.51e-3, rel=REL)
    assert coll.ring_allgather_time(S, 1.0, SO_BW, SO_A) == 0.0


def test_alltoall_flat():
    # p = 8: 7/8*1e9/400e9 = 2.1875e-3 + one alpha 2e-6 = 2.1895e-3
    assert coll.alltoall_time(S, 8.0, NVL_BW, NVL_A) == pytest.approx(2.1895e-3, rel=REL)
    assert coll.alltoall_time(S, 1.0, NVL_BW, NVL_A) == 0.0


def test_members_per_domain():
    # domain 8: stride 1 -> 8 (clipped to n), stride 2 -> 4, stride 8 -> 1, stride 16 -> 1
    assert coll.members_per_domain(32.0, 1.0, 8.0) == 8.0
    assert coll.members_per_domain(4.0, 1.0, 8.0) == 4.0  # clipped to the group size
    assert coll.members_per_domain(32.0, 2.0, 8.0) == 4.0
    assert coll.members_per_domain(32.0, 8.0, 8.0) == 1.0
    assert coll.members_per_domain(32.0, 16.0, 8.0) == 1.0


# ---------------------------------------------------------------------------- two levels
def test_hierarchical_allreduce_8_per_domain_4_domains():
    # n = 32, stride 1, domain 8 -> k = 8 per domain, 4 domains.
    # reduce-scatter in node (ring): 7/8*1e9/400e9 = 2.1875e-3 + 7 steps*2e-6 = 14e-6
    #   -> 2.2015e-3
    # all-reduce of S/8 = 125e6 across 4 domains on scale-out: 2*3/4*125e6/40e9 = 4.6875e-3
    #   + 2*min(3, log2 4 = 2)*10e-6 = 40e-6 -> 4.7275e-3
    # all-gather in node: same as the reduce-scatter, 2.2015e-3
    # total 2.2015e-3 + 4.7275e-3 + 2.2015e-3 = 9.1305e-3
    rs_in = 7 / 8 * S / NVL_BW + 7 * NVL_A
    ar_out = 2 * 3 / 4 * (S / 8) / SO_BW + 2 * 2 * SO_A
    assert rs_in == pytest.approx(2.2015e-3, rel=REL)
    assert ar_out == pytest.approx(4.7275e-3, rel=REL)
    assert coll.allreduce_time(S, 32.0, 1.0, net()) == pytest.approx(9.1305e-3, rel=REL)


def test_group_inside_domain_uses_only_nvlink():
    # n = 8, stride 1, domain 8 -> k = 8: the whole group on NVLink,
    # one ring inside the domain: 2*7/8*1e9/400e9 + 2*min(7, log2 8 = 3)*2e-6 = 4.375e-3 + 12e-6
    # = 4.387e-3 s (tree latency, as for any all-reduce), and no cross-domain step;
    # scale-out figures absurd to prove they are unused.
    bad = net(so_bw=1.0, so_a=1e3)
    assert coll.allreduce_time(S, 8.0, 1.0, bad) == pytest.approx(4.387e-3, rel=REL)
    # n = 4 at stride 2 (e.g. dp over tp = 2) also fits in 8: 2*3/4*2.5e-3 + 2*min(3, 2)*2e-6
    # = 3.75e-3 + 8e-6 = 3.758e-3 s
    assert coll.allreduce_time(S, 4.0, 2.0, bad) == pytest.approx(3.758e-3, rel=REL)
    # all-gather n = 4, stride 2: 1.881e-3 s
    assert coll.allgather_time(S, 4.0, 2.0, bad) == pytest.approx(1.881e-3, rel=REL)
    # the same calls with sane scale-out figures give the same times
    assert coll.allreduce_time(S, 8.0, 1.0, net()) == pytest.approx(4.387e-3, rel=REL)


def test_group_with_stride_at_least_domain_uses_only_scaleout():
    # n = 4 ranks 8 apart (dp over tp = 8): every member in its own domain -> scale-out
    # all-reduce 2*3/4*1e9/40e9 = 37.5e-3 + 2*min(3, 2)*10e-6 = 40e-6 -> 37.54e-3 s;
    # NVLink figures absurd to prove they are unused.
    bad = net(nvl_bw=1.0, nvl_a=1e3)
    assert coll.allreduce_time(S, 4.0, 8.0, bad) == pytest.approx(37.54e-3, rel=REL)
    assert coll.allreduce_time(S, 4.0, 16.0, bad) == pytest.approx(37.54e-3, rel=REL)
    # all-gather: 3/4*1e9/40e9 = 18.75e-3 + 3*10e-6 -> 18.78e-3
    assert coll.allgather_time(S, 4.0, 8.0, bad) == pytest.approx(18.78e-3, rel=REL)


def test_hierarchical_allgather():
    # rail-optimised, n = 16 at stride 2, domain 8 -> k = 4 per domain, 4 domains
    # in domain: 3/4*1e9/400e9 = 1.875e-3
    # across: S/4 = 250e6 over 4 rails: 3/4*250e6/40e9 = 4.6875e-3
    # latency: one NCCL ring over all 16 ranks at scale-out latency, 15*10e-6 = 150e-6
    # total 1.875e-3 + 4.6875e-3 + 0.15e-3 = 6.7125e-3
    assert coll.allgather_time(S, 16.0, 2.0, net()) == pytest.approx(6.7125e-3, rel=REL)
    # n = 32 at stride 1 (8 per domain, 4 domains): 7/8*2.5e-3 = 2.1875e-3 in domain,
    # 3/4*(1e9/8)/40e9 = 2.34375e-3 across, 31*10e-6 = 310e-6 latency -> 4.84125e-3
    assert coll.allgather_time(S, 32.0, 1.0, net()) == pytest.approx(4.84125e-3, rel=REL)


def test_flat_collectives_without_rail_optimisation():
    # rails = 0: a group spanning domains runs one flat ring limited by the scale-out link.
    # all-reduce n = 32: 2*31/32*1e9/40e9 = 48.4375e-3 + 2*min(31, log2 32 = 5)*10e-6 = 100e-6
    #   -> 48.5375e-3
    flat = net(rails=0.0)
    assert coll.allreduce_time(S, 32.0, 1.0, flat) == pytest.approx(48.5375e-3, rel=REL)
    # all-gather n = 32: 31/32*1e9/40e9 = 24.21875e-3 + 31*10e-6 = 310e-6 -> 24.52875e-3
    assert coll.allgather_time(S, 32.0, 1.0, flat) == pytest.approx(24.52875e-3, rel=REL)
    # a group inside one domain is unaffected by rails: 4.387e-3 and 1.881e-3 as above
    assert coll.allreduce_time(S, 8.0, 1.0, flat) == pytest.approx(4.387e-3, rel=REL)
    assert coll.allgather_time(S, 4.0, 2.0, flat) == pytest.approx(1.881e-3, rel=REL)


def test_all_to_all_two_levels():
    # n = 16, stride 1, domain 8 -> k = 8: intra share 7/16*1e9/400e9 = 1.09375e-3,
    # inter share 8/16*1e9/40e9 = 12.5e-3; they run in parallel -> max = 12.5e-3
    # + one scale-out alpha 10e-6 -> 12.51e-3 s
    assert coll.all_to_all_time(S, 16.0, 1.0, net()) == pytest.approx(12.51e-3, rel=REL)
    # inside one domain, n = 8: 7/8*1e9/400e9 = 2.1875e-3 + nvlink alpha 2e-6 = 2.1895e-3
    assert coll.all_to_all_time(S, 8.0, 1.0, net(so_bw=1.0)) == pytest.approx(2.1895e-3, rel=REL)
    # n = 1: no traffic
    assert coll.all_to_all_time(S, 1.0, 1.0, net()) == 0.0


def test_p2p():
    # same domain: 1e9/400e9 = 2.5e-3 + 2e-6 = 2.502e-3; across: 1e9/40e9 = 25e-3 + 10e-6
    assert coll.p2p_time(S, True, net()) == pytest.approx(2.502e-3, rel=REL)
    assert coll.p2p_time(S, False, net()) == pytest.approx(25.01e-3, rel=REL)
    out = coll.p2p_time(S, np.array([True, False]), net())
    np.testing.assert_allclose(out, [2.502e-3, 25.01e-3], rtol=REL)


def test_vectorized_group_sizes():
    # all-reduce over n = 1, 2, 8 (stride 1, NVLink): 0; 2*(1/2*2.5e-3 + 1*2e-6) = 2.504e-3;
    # 4.387e-3 (see test_group_inside_domain_uses_only_nvlink)
    out = coll.allreduce_time(S, np.array([1.0, 2.0, 8.0]), 1.0, net())
    np.testing.assert_allclose(out, [0.0, 2.504e-3, 4.387e-3], rtol=REL, atol=1e-18)


# ---------------------------------------------------------------------------- deduplicated dispatch
def test_dedup_dispatch_deepseek_layout_by_hand():
    """EP 64 over 8 domains of 8, top-8 experts within 4 of 8 groups (one group per domain): a
    token reaches min(8 (1 - (7/8)^8), 4) = 4 domains, 3.5 of them remote, one copy each over the
    scale-out network; its groups cover 32 ranks, of which it hits 32 (1 - (31/32)^8) = 7.15, each
    once, 7/8 of them over NVLink. The network side bounds: 3.5 S / 40e9."""
    t = coll.dedup_dispatch_time(S, 8.0, 64.0, 1.0, net(), 8.0, 4.0)
    ranks = 32 * (1 - (31 / 32) ** 8)
    inter, intra = 3.5 * S / SO_BW, ranks * 7 / 8 * S / NVL_BW
    assert t == pytest.approx(max(inter, intra) + SO_A, rel=REL)
    # without the group limit the 8 experts spread over 8 (1 - (7/8)^8) = 5.25 domains on average
    spread = 8 * (1 - (7 / 8) ** 8)
    assert coll.dedup_dispatch_time(S, 8.0, 64.0, 1.0, net()) == pytest.approx(
        spread * 7 / 8 * S / SO_BW + SO_A, rel=REL)
    # the all-to-all sends every routed copy: 8 S x 56/64 over the network
    assert coll.all_to_all_time(8 * S, 64.0, 1.0, net()) == pytest.approx(7.0 * S / SO_BW + SO_A, rel=REL)


@pytest.mark.parametrize("n", [2.0, 4.0, 8.0])
def test_dedup_dispatch_inside_one_domain_sends_a_token_once_per_gpu(n):
    """Inside one NVLink domain a token goes once to each GPU holding one of its experts (DeepEP's
    intranode kernels), n (1 - (1 - 1/n)^8) of the n GPUs, (n - 1)/n of them remote; the NCCL
    all-to-all sends each of the 8 routed copies: 8 (n - 1)/n."""
    hits = n * (1 - (1 - 1 / n) ** 8)
    assert coll.dedup_dispatch_time(S, 8.0, n, 1.0, net()) == pytest.approx(
        hits * (n - 1) / n * S / NVL_BW + NVL_A, rel=REL)
    assert coll.dedup_dispatch_time(S, 8.0, n, 1.0, net()) < coll.all_to_all_time(8 * S, n, 1.0, net())
    # a group limit that leaves every GPU a chosen group changes nothing; one that does not, fewer
    assert coll.dedup_dispatch_time(S, 8.0, n, 1.0, net(), 8.0, 8.0) == pytest.approx(
        coll.dedup_dispatch_time(S, 8.0, n, 1.0, net()), rel=REL)
    assert coll.dedup_dispatch_time(S, 8.0, 8.0, 1.0, net(), 8.0, 4.0) == pytest.approx(
        4 * (1 - (3 / 4) ** 8) * 7 / 8 * S / NVL_BW + NVL_A, rel=REL)


@pytest.mark.parametrize("n", [16.0, 64.0, 256.0])
def test_a_group_limit_never_slows_the_dedup_dispatch(n):
    free = coll.dedup_dispatch_time(S, 8.0, n, 1.0, net())
    for top in (1.0, 2.0, 4.0, 8.0):
        assert coll.dedup_dispatch_time(S, 8.0, n, 1.0, net(), 8.0, top) <= free * (1 + REL)


@pytest.mark.parametrize("rails", [1.0, 0.0])
def test_a_collective_of_no_bytes_costs_nothing(rails):
    """A dense model's expert-parameter gathers and reductions move 0 bytes: no NCCL call, no
    latency (each of them charged (n - 1) alpha per layer before: 34% of a 256-GPU ZeRO-3 step
    of Llama-2-7B); a single byte still pays the latency."""
    n = np.array([2.0, 8.0, 64.0, 1024.0])
    for fn in (coll.allreduce_time, coll.allgather_time, coll.all_to_all_time):
        assert np.all(fn(0.0, n, 1.0, net(rails=rails)) == 0.0)
        assert np.all(fn(1.0, n, 1.0, net(rails=rails)) > 0.0)
    assert np.all(coll.dedup_dispatch_time(0.0, 8.0, n, 1.0, net(rails=rails)) == 0.0)


# ---------------------------------------------------------------------------- full-mesh domains
def mesh_net(**kw):
    n = net(**kw)
    n.mesh = 1.0
    return n


def test_mesh_pair_uses_one_link_by_hand():
    # 8 GPUs fully meshed, 400e9 B/s per GPU over 7 links: one link 400e9/7 B/s.
    # All-reduce over a pair: 2*1/2*1e9/(400e9/7) = 17.5e-3 s + 2*1*2e-6 latency
    assert coll.allreduce_time(S, 2.0, 1.0, mesh_net()) == pytest.approx(1e9 * 7 / 400e9 + 4e-6, rel=REL)
    # point to point inside the domain: one link
    assert coll.p2p_time(S, True, mesh_net()) == pytest.approx(1e9 * 7 / 400e9 + NVL_A, rel=REL)
    # four GPUs: 3 of 7 links; all-gather (3/4) S / (400e9 * 3/7) + 3 alpha
    assert coll.allgather_time(S, 4.0, 1.0, mesh_net()) == pytest.approx(0.75e9 * 7 / (3 * 400e9) + 3 * NVL_A, rel=REL)


@pytest.mark.parametrize("kind", ["allreduce", "allgather", "alltoall"])
def test_mesh_group_of_the_whole_domain_matches_a_switch(kind):
    f = {"allreduce": coll.allreduce_time, "allgather": coll.allgather_time, "alltoall": coll.all_to_all_time}[kind]
    for n in (8.0, 16.0, 32.0):  # the whole domain, and domains joined over the scale-out network
        assert f(S, n, 1.0, mesh_net()) == pytest.approx(f(S, n, 1.0, net()), rel=REL)


@pytest.mark.parametrize("n", [2.0, 4.0])
def test_mesh_is_never_faster_than_a_switch_and_larger_groups_get_more_links(n):
    for f in (coll.allreduce_time, coll.allgather_time, coll.all_to_all_time):
        assert f(S, n, 1.0, mesh_net()) > f(S, n, 1.0, net())
        # on a mesh a larger group of the domain drives more links: the same buffer goes faster
        assert f(S, 2.0 * n, 1.0, mesh_net()) < f(S, n, 1.0, mesh_net())
    assert coll.dedup_dispatch_time(S, 4.0, n, 1.0, mesh_net()) > coll.dedup_dispatch_time(S, 4.0, n, 1.0, net())
