"""Latency-bandwidth (alpha-beta) cost of collectives on a two-level network.

Conventions (nccl-tests PERFORMANCE.md; Thakur et al. 2005 for ring algorithms): ``size`` is the
full buffer in bytes (the gathered size for all-gather, the input for reduce-scatter), ``n`` the
group size, ``bw`` the achieved one-direction bandwidth per GPU (bytes/s), ``alpha`` the
per-step latency (s). Ring all-reduce moves 2(n-1)/n of the buffer through every GPU's link;
all-gather and reduce-scatter (n-1)/n; all-to-all (n-1)/n.

Placement: a parallel group whose members are ``stride`` ranks apart (the product of the degrees
laid out inside it; tp is innermost) has ``k = clip(domain / stride, 1, n)`` members in each
NVLink domain. ``k == n``: the whole group is on NVLink. ``k == 1``: every member sits in a
different domain, so the group runs on the scale-out network. Otherwise it pays the
hierarchical cost: reduce-scatter inside the domain, the cross-domain collective on 1/k of the
buffer (each GPU drives its own NIC, rail-optimised), all-gather inside the domain.

Topology inside a domain: behind a switch (NVSwitch) every GPU drives its whole bandwidth into any
group. In a full mesh (AMD Infinity Fabric: each of the D GPUs of a domain has one direct link to
each of the other D - 1) a GPU reaches the other k - 1 members of its group over k - 1 of its
links only, (k - 1)/(D - 1) of its bandwidth (:func:`domain_bw`): a pair of GPUs shares one link,
eight of eight use all seven.

All functions are elementwise over numpy arrays.
"""

from __future__ import annotations

import numpy as np


def ring_allreduce_time(size, n, bw, alpha):
    """All-reduce of ``size`` bytes over ``n >= 1`` ranks, s.

    Bandwidth term of the ring, 2(n-1)/n*size/bw; latency of the better of the ring
    (2(n-1) steps) and NCCL's double binary tree (2*log2(n) steps), since NCCL picks the tree
    when rings get long.
    """
    steps = np.minimum(n - 1.0, np.log2(np.maximum(n, 1.0)))
    return 2.0 * (n - 1.0) / n * size / bw + 2.0 * steps * alpha


def ring_allgather_time(size, n, bw, alpha):
    """All-gather (or reduce-scatter) of a ``size``-byte full buffer over ``n`` ranks, s.

    NCCL runs these as rings only, so the latency term is (n-1) steps.
    """
    return (n - 1.0) / n * size / bw + (n - 1.0) * alpha


def alltoall_time(size, n, bw, alpha):
    """All-to-all where each rank holds ``size`` bytes and keeps 1/n of it, s."""
    return (n - 1.0) / n * size / bw + np.where(n > 1, alpha, 0.0)


def domain_bw(net, k):
    """One-direction bytes/s a GPU drives to the other ``k`` - 1 members of its group inside its
    domain: all of ``net.nvl_bw`` behind a switch; (k - 1)/(D - 1) of it in a full mesh of D GPUs
    (``net.mesh`` > 0), whose GPUs have one direct link to each other GPU."""
    if not np.any(np.asarray(net.mesh) > 0):
        return net.nvl_bw
    # a group of one moves nothing: any bandwidth (one link's) keeps its zero time finite
    share = np.clip(np.maximum(k - 1.0, 1.0) / np.maximum(net.domain - 1.0, 1.0), 0.0, 1.0)
    return net.nvl_bw * np.where(net.mesh > 0, share, 1.0)


def members_per_domain(n, stride, domain):
    """Members of a group (size n, ranks ``stride`` apart) that share one NVLink domain."""
    k = np.floor(np.maximum(domain, 1.0) / np.maximum(stride, 1.0))
    return np.clip(k, 1.0, np.maximum(n, 1.0))


def allreduce_time(size, n, stride, net):
    """All-reduce of ``size`` bytes over a group placed on the two-level network, s.

    ``net`` is a :class:`Network`. A group that spans domains runs hierarchically on a
    rail-optimised network (``net.rails`` = 1); otherwise one flat ring whose every step is
    limited by the scale-out link.
    """
    k = members_per_domain(n, stride, net.domain)
    outer = n / k
    bw = domain_bw(net, k)
    inner = ring_allgather_time(size, k, bw, net.nvl_alpha)  # reduce-scatter
    cross = ring_allreduce_time(size / k, outer, net.so_bw, net.so_alpha)
    # inside one domain: a plain ring (with the tree's latency), not reduce-scatter + all-gather
    hierarchical = np.where(k >= n, ring_allreduce_time(size, n, bw, net.nvl_alpha), 2.0 * inner + cross)
    if not np.all(net.rails > 0):
        flat = ring_allreduce_time(size, n, net.so_bw, net.so_alpha)
        hierarchical = np.where((net.rails > 0) | (k >= n), hierarchical, flat)
    return np.where(size > 0, hierarchical, 0.0)  # no bytes (a dense model's experts): no call


def allgather_time(size, n, stride, net):
    """All-gather (or reduce-scatter) of a ``size``-byte full buffer on the network, s.

    Bandwidth as :func:`allreduce_time` places it; latency of NCCL's single ring over all n
    ranks, (n-1) steps, at the scale-out latency once the group leaves the domain.
    """
    k = members_per_domain(n, stride, net.domain)
    spans = k < n
    inner = (k - 1.0) / k * size / domain_bw(net, k)
    outer = n / k
    cross = (outer - 1.0) / outer * (size / k) / net.so_bw  # zero when the group fits a domain
    latency = np.where(size > 0, (n - 1.0) * np.where(spans, net.so_alpha, net.nvl_alpha), 0.0)  # no bytes: no call
    if np.all(net.rails > 0):
        return inner + cross + latency
    flat = (n - 1.0) / n * size / net.so_bw
    return np.where(spans & (net.rails <= 0), flat, inner + cross) + latency


def all_to_all_time(size, n, stride, net):
    """All-to-all of ``size`` bytes per rank: the NVLink and scale-out shares run in parallel."""
    n = np.asarray(n, dtype=np.float64)
    k = members_per_domain(n, stride, net.domain)
    intra = (k - 1.0) / np.maximum(n, 1.0) * size / domain_bw(net, k)
    inter = (n - k) / np.maximum(n, 1.0) * size / net.so_bw
    alpha = np.where(k < n, net.so_alpha, net.nvl_alpha)
    return np.where((n > 1) & (size > 0), np.maximum(intra, inter) + alpha, 0.0)


def dedup_dispatch_time(token_bytes, top_k, n, stride, net, groups=0.0, top_groups=0.0):
    """Dispatch (or combine) of routed tokens that cross the network once per destination NVLink
    domain and move once per destination GPU (DeepEP's all-to-all), s.

    ``token_bytes`` is the bytes of one rank's tokens (each token once), sent to ``top_k`` experts
    spread uniformly over an expert-parallel group of ``n`` ranks ``stride`` apart, which spans
    D = n / (members per domain) NVLink domains. When routing is group-limited (``groups`` equal
    groups laid over the ranks in order, ``top_groups`` of them chosen per token) a token's experts
    lie on the ranks its groups cover: top_groups n / groups of them, or, with several groups a
    rank, the ranks holding at least one chosen group, n (1 - (1 - top_groups/groups)^(groups/n)).
    Over R such ranks (R = n without a limit) its k experts hit R (1 - (1 - 1/R)^k) distinct
    ranks and occupy D (1 - (1 - 1/D)^k) domains, at most top_groups groups' worth; (D - 1)/D of
    the domains are remote and each gets one copy over the scale-out network. Each GPU hit gets
    one copy (its experts' copies are made there), over NVLink unless the token is already on it:
    (m - 1)/m of the hits for m GPUs of the group per domain. The two run in parallel.
    """
    n = np.asarray(n, dtype=np.float64)
    k_dom = members_per_domain(n, stride, net.domain)
    D = np.maximum(n / k_dom, 1.0)
    limited = (groups > 0) & (top_groups > 0) & (top_groups < groups)
    g = np.maximum(groups, 1.0)
    share = np.clip(top_groups / g, 0.0, 1.0)
    covered = np.where(n >= g, share * n, n * (1.0 - np.power(1.0 - share, g / np.maximum(n, 1.0))))
    R = np.maximum(np.where(limited, covered, n), 1.0)
    ranks = R * (1.0 - np.power(1.0 - 1.0 / R, top_k))
    cap = np.where(limited, top_groups * np.maximum(D / g, 1.0), D)
    domains = np.minimum(D * (1.0 - np.power(1.0 - 1.0 / D, top_k)), cap)
    inter = token_bytes * domains * (D - 1.0) / D / net.so_bw
    intra = token_bytes * ranks * (k_dom - 1.0) / k_dom / domain_bw(net, k_dom)
    alpha = np.where(k_dom < n, net.so_alpha, net.nvl_alpha)
    return np.where((n > 1) & (token_bytes > 0), np.maximum(intra, inter) + alpha, 0.0)


def p2p_time(size, same_domain, net):
    """Point-to-point send of ``size`` bytes; over NVLink when ``same_domain`` (one link of a
    mesh), else scale-out."""
    bw = np.where(same_domain, domain_bw(net, 2.0), net.so_bw)
    alpha = np.where(same_domain, net.nvl_alpha, net.so_alpha)
    return size / bw + alpha


class Network:
    """Achieved bandwidths and latencies of the two network levels (arrays or scalars).

    nvl_bw / so_bw: achieved one-direction bytes/s per GPU (peak x efficiency);
    nvl_alpha / so_alpha: per-step latency, s; domain: GPUs per NVLink domain; rails: 1 when
    every GPU of a domain has its own NIC on its own rail, so that a collective spanning domains
    splits its cross-domain traffic over all of them (NCCL's multi-channel rings; measured busbw
    across DGX nodes is the node's aggregate NIC bandwidth), 0 when it cannot; mesh: 1 when a
    domain's GPUs are linked point to point (:func:`domain_bw`), 0 behind a switch.
    """

    __slots__ = ("nvl_bw", "so_bw", "nvl_alpha", "so_alpha", "domain", "rails", "mesh")

    def __init__(self, nvl_bw, so_bw, nvl_alpha, so_alpha, domain, rails=1.0, mesh=0.0):
        self.nvl_bw = nvl_bw
        self.so_bw = so_bw
        self.nvl_alpha = nvl_alpha
        self.so_alpha = so_alpha
        self.domain = domain
        self.rails = rails
        self.mesh = mesh
