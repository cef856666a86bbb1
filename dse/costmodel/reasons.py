"""Render ``infeasible_mask`` bits as sentences with the arithmetic of the failing check."""

from __future__ import annotations

from collections.abc import Mapping

from . import training as tr

GIB = 2.0**30

#: A few words per ``infeasible_mask`` bit of a training plan (LLM and ViT): what a search's
#: infeasible configurations are counted by; :func:`describe` gives one plan's arithmetic.
LABELS = {
    tr.DEGREES_PRODUCT: "tp*pp*dp*cp is not the GPU count",
    tr.HEADS_TP: "heads or KV heads do not split over tp",
    tr.FFN_TP: "FFN width not divisible by tp",
    tr.LAYERS_PP: "fewer layers than pipeline chunks",
    tr.BATCH_DP: "global batch not divisible by dp*microbatch",
    tr.SEQ_CP: "seq_len not divisible by cp",
    tr.EXPERTS_EP: "ep does not divide the experts or the ranks",
    tr.EXPERT_TP: "the experts' tensor split (etp, sp) does not fit",
    tr.EP_DENSE: "ep > 1 on a model without experts",
    tr.INTERLEAVE: "vpp > 1 needs pp > 1 and microbatches divisible by pp",
    tr.SHARD_GROUP: "shard_group does not divide dp*cp",
    tr.OUT_OF_MEMORY: "out of memory",
    tr.HOST_MEMORY: "out of host memory (offloaded activations)",
}


def _i(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def describe(mask: int, row: Mapping[str, float]) -> str:
    """The reasons a configuration is infeasible, '' when ``mask`` is 0.

    ``row`` holds the cost-model columns and outputs of that configuration.
    """
    r = {k: float(v) for k, v in row.items() if isinstance(v, (int, float))}
    g = lambda k, default=0.0: r.get(k, default)  # noqa: E731
    reasons = []
    tp, pp, dp, cp = g("tp", 1), g("pp", 1), g("dp", 1), g("cp", 1)
    if mask & tr.DEGREES_PRODUCT:
        reasons.append(
            f"tp*pp*dp*cp = {_i(tp)}*{_i(pp)}*{_i(dp)}*{_i(cp)} = {_i(tp * pp * dp * cp)} "
            f"!= num_gpus {_i(g('num_gpus'))}"
        )
    if mask & tr.HEADS_TP:
        heads, kv = g("heads"), g("kv_heads", 1)
        if heads % tp:
            reasons.append(f"heads {_i(heads)} must be divisible by tp {_i(tp)}")
        if not tr.kv_heads_fit(kv, tp):
            reasons.append(f"kv_heads {_i(kv)} must divide or be a multiple of tp {_i(tp)}")
    if mask & tr.FFN_TP:
        f, fe = g("ffn_hidden"), g("expert_ffn_hidden")
        if f % tp:
            reasons.append(f"ffn_hidden {_i(f)} must be divisible by tp {_i(tp)}")
        if g("experts") > 0 and fe % tp:
            reasons.append(f"expert_ffn_hidden {_i(fe)} must be divisible by tp {_i(tp)}")
    if mask & tr.LAYERS_PP:
        reasons.append(
            f"layers {_i(g('layers'))} + 2 fewer than pp*vpp = {_i(pp)}*{_i(g('vpp', 1))} = {_i(pp * g('vpp', 1))} "
            "(every pipeline chunk needs a layer; the embedding and the loss may take one each)"
        )
    if mask & tr.BATCH_DP:
        mb = g("microbatch", 1)
        reasons.append(
            f"global_batch {_i(g('global_batch'))} not divisible by dp*microbatch = {_i(dp)}*{_i(mb)} = {_i(dp * mb)}"
        )
    if mask & tr.SEQ_CP:
        reasons.append(f"seq_len {_i(g('seq_len'))} not divisible by cp {_i(cp)}")
    if mask & tr.EXPERTS_EP:
        etp = g("etp") or tp
        if etp == tp:
            reasons.append(
                f"ep {_i(g('ep', 1))} must divide experts {_i(g('experts'))} and dp*cp = {_i(dp * cp)}"
            )
        else:
            reasons.append(
                f"ep {_i(g('ep', 1))} must divide experts {_i(g('experts'))}, and etp*ep = {_i(etp)}*{_i(g('ep', 1))} "
                f"= {_i(etp * g('ep', 1))} must divide tp*dp*cp = {_i(tp)}*{_i(dp)}*{_i(cp)} = {_i(tp * dp * cp)}"
            )
    if mask & tr.EXPERT_TP:
        etp, fe = g("etp") or tp, g("expert_ffn_hidden")
        if g("experts") <= 0:
            reasons.append(f"etp {_i(etp)} set but the model has no experts")
        else:
            if fe % etp:
                reasons.append(f"expert_ffn_hidden {_i(fe)} must be divisible by etp {_i(etp)}")
            if tp > 1 and not g("sp"):
                reasons.append(f"a MoE model with tp {_i(tp)} > 1 needs sequence parallelism (sp: true): "
                               "Megatron-core's dispatchers take the routed tokens from sequence shards")
    if mask & tr.EP_DENSE:
        reasons.append(f"ep {_i(g('ep', 1))} > 1 but the model has no experts")
    if mask & tr.INTERLEAVE:
        reasons.append(
            f"vpp {_i(g('vpp', 1))} > 1 needs pp > 1 and microbatches {_i(g('microbatches'))} divisible by pp {_i(pp)}"
        )
    if mask & tr.SHARD_GROUP:
        reasons.append(f"shard_group {_i(g('shard_group'))} must divide dp*cp = {_i(dp)}*{_i(cp)} = {_i(dp * cp)}")
    if mask & tr.OUT_OF_MEMORY:
        need, have = g("memory_per_gpu_bytes"), g("hbm_bytes")
        reasons.append(
            f"out of memory: needs {need / GIB:.1f} GiB per GPU > {have / GIB:.1f} GiB HBM "
            f"(weights {g('memory_weights_bytes') / GIB:.1f}, grads {g('memory_grads_bytes') / GIB:.1f}, "
            f"optimizer {g('memory_optimizer_bytes') / GIB:.1f}, activations "
            f"{g('memory_activations_bytes') / GIB:.1f}, logits {g('memory_logits_bytes', 0.0) / GIB:.1f}, "
            f"buffers {g('memory_buffers_bytes') / GIB:.1f}, "
            f"reserved {g('memory_reserved_bytes') / GIB:.1f} GiB)"
        )
    if mask & tr.HOST_MEMORY:
        reasons.append(
            f"out of host memory: the offloaded activations of {_i(g('offload_layers'))} layers need "
            f"{g('host_memory_offload_bytes') / GIB:.1f} GiB per GPU > {g('host_memory_bytes') / GIB:.1f} GiB of "
            "host memory per GPU (offload fewer layers, or set cluster.host_memory_gb)")
    return "; ".join(reasons)
