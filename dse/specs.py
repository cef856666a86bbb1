"""Typed, frozen, validated specifications: model, cluster, parallel plan, scenario.

A scenario has the keys of a validation case (``../shared/validation/README.md``) minus
``target``: ``model``, ``cluster``, ``parallel``, ``workload``, ``precision``, ``inference``, plus
the optional ``training`` block (overlap switches and numerics). Units in config files are the
ones in the key names (GB, TB/s, Gbit/s, TFLOP/s, us); :func:`dse.hardware.resolve_hardware`
converts them to SI.

Validation is strict: unknown keys, wrong types (a number given as a string), non-positive
degrees and unknown enum values are errors. Degrees that do not divide are *not* errors here:
they make a configuration infeasible in the cost model, with the reason.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from .errors import FieldValueError

PositiveInt = Annotated[int, Field(strict=True, gt=0)]
NonNegInt = Annotated[int, Field(strict=True, ge=0)]
PositiveFloat = Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
NonNegFloat = Annotated[float, Field(strict=True, ge=0, allow_inf_nan=False)]
Fraction = Annotated[float, Field(strict=True, gt=0, le=1, allow_inf_nan=False)]

PRECISIONS = ("bf16", "fp16", "fp8", "fp4", "tf32", "fp32")
WORKLOADS = ("train", "inference", "finetune")
RECOMPUTE = ("none", "selective", "full")

#: Keys of a validation case that a scenario accepts and ignores.
IGNORED_CASE_KEYS = ("id", "source", "reliability", "target", "also", "inferred", "notes")


class Spec(BaseModel):
    """Base for every spec: frozen, unknown keys rejected, no silent coercion of strings."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class MoESpec(Spec):
    """Mixture-of-experts block of a model."""

    experts: PositiveInt
    top_k: PositiveInt
    expert_ffn_hidden: PositiveInt
    shared_experts: NonNegInt = 0
    dense_layers: NonNegInt = 0
    #: group-limited routing (DeepSeek-V3: 8 groups, top 4): the experts form ``expert_groups``
    #: equal groups and each token's top_k experts lie in at most ``top_groups`` of them
    expert_groups: PositiveInt | None = None
    top_groups: PositiveInt | None = None
    #: spread of the trained router's load over the experts (coefficient of variation of the
    #: routed tokens per expert in a layer, averaged over layers): 0 = uniform routing. With
    #: experts split over ep ranks it sets the busiest rank's expected excess (serving:
    #: dse.costmodel.inference.expected_moe_imbalance). DeepSeek-R1: 2.16 (TensorRT-LLM's EP-32
    #: statistics); not measured for most routers: leave 0 or state the serving imbalance itself.
    #: Serving only: training takes its imbalance as stated (training.moe_load_imbalance)
    router_skew: Annotated[float, Field(ge=0.0, le=16.0, allow_inf_nan=False)] = 0.0

    @model_validator(mode="after")
    def _check(self) -> "MoESpec":
        if self.top_k > self.experts:
            raise ValueError(f"top_k ({self.top_k}) must not exceed experts ({self.experts})")
        if (self.expert_groups is None) != (self.top_groups is None):
            raise ValueError("expert_groups and top_groups go together (group-limited routing); give both or neither")
        if self.expert_groups is not None:
            if self.experts % self.expert_groups:
                raise ValueError(f"expert_groups ({self.expert_groups}) must divide experts ({self.experts}): "
                                 f"{self.experts} % {self.expert_groups} = {self.experts % self.expert_groups}")
            if self.top_groups > self.expert_groups:
                raise ValueError(f"top_groups ({self.top_groups}) must not exceed expert_groups ({self.expert_groups})")
            reach = self.top_groups * self.experts // self.expert_groups
            if self.top_k > reach:
                raise ValueError(f"top_k ({self.top_k}) exceeds the experts of top_groups groups: "
                                 f"{self.top_groups} x {self.experts // self.expert_groups} = {reach}")
        return self


class MLASpec(Spec):
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2): keys and values are rebuilt per head
    from a shared latent of ``kv_lora_rank`` values (cached with one ``qk_rope_head_dim`` rotary
    key per token), queries optionally from a latent of ``q_lora_rank`` (0: a plain projection).
    Query/key heads are ``qk_nope_head_dim + qk_rope_head_dim`` wide, value heads ``v_head_dim``."""

    kv_lora_rank: PositiveInt
    q_lora_rank: NonNegInt = 0
    qk_nope_head_dim: PositiveInt
    qk_rope_head_dim: PositiveInt
    v_head_dim: PositiveInt


class ModelSpec(Spec):
    """A decoder-only transformer (dense or mixture-of-experts).

    Local attention: with ``attention_window`` W (tokens), windowed layers attend to the W most
    recent tokens (``attention_window_kind: sliding``; Mistral 7B v0.1, Gemma, GPT-OSS) or to the
    tokens from the start of the query's W-token chunk (``chunked``; Llama 4). Every
    ``full_attention_every``-th layer attends to the whole context instead (GPT-OSS 2, Llama 4 4,
    Gemma 3 6); 0 windows every layer.

    ``context_len`` is the longest sequence (prompt + output, tokens) the model serves: its trained
    positions (``max_position_embeddings``), which serving engines refuse to exceed. Null leaves it
    unchecked; ``seq_len`` is the training length, often shorter.
    """

    name: str = "custom"
    family: Literal["dense", "moe"] = "dense"
    layers: PositiveInt
    hidden: PositiveInt
    heads: PositiveInt
    kv_heads: PositiveInt | None = None
    head_dim: PositiveInt | None = None
    ffn_hidden: PositiveInt
    ffn_act: Literal["gelu", "swiglu"] = "gelu"
    vocab: PositiveInt
    seq_len: PositiveInt
    context_len: PositiveInt | None = None
    moe: MoESpec | None = None
    tied_embeddings: bool = False
    #: training applies dropout (GPT-3 and BERT as Megatron-LM trains them, p = 0.1): its masks
    #: (1 byte per element) are kept for backward; Llama, Mixtral, DeepSeek, Qwen, Nemotron and
    #: gpt-oss train without
    dropout: bool = False
    attention_window: PositiveInt | None = None
    attention_window_kind: Literal["sliding", "chunked"] = "sliding"
    full_attention_every: NonNegInt = 0
    mla: MLASpec | None = None

    @model_validator(mode="after")
    def _check(self) -> "ModelSpec":
        if self.mla is not None:
            d_qk = self.mla.qk_nope_head_dim + self.mla.qk_rope_head_dim
            if self.kv_heads not in (None, self.heads):
                raise ValueError(f"kv_heads ({self.kv_heads}) must be null or equal heads ({self.heads}) with "
                                 "mla: every head rebuilds its own keys and values from the latent")
            if self.head_dim not in (None, d_qk):
                raise ValueError(f"head_dim ({self.head_dim}) must be null or qk_nope_head_dim + "
                                 f"qk_rope_head_dim = {self.mla.qk_nope_head_dim} + "
                                 f"{self.mla.qk_rope_head_dim} = {d_qk} with mla")
        if self.attention_window is None and (self.full_attention_every or self.attention_window_kind != "sliding"):
            raise ValueError("full_attention_every and attention_window_kind describe windowed layers: "
                             "they need attention_window (tokens), which is null")
        if self.full_attention_every == 1:
            raise ValueError("full_attention_every: 1 makes every layer full attention; use "
                             "attention_window: null (or 0 to window every layer, k >= 2 for every k-th "
                             "layer full)")
        kv = self.kv_heads or self.heads
        if self.heads % kv:
            raise ValueError(
                f"heads ({self.heads}) must be a multiple of kv_heads ({kv}): "
                f"{self.heads} % {kv} = {self.heads % kv}"
            )
        if self.head_dim is None and self.mla is None and self.hidden % self.heads:
            raise ValueError(
                f"hidden ({self.hidden}) must be divisible by heads ({self.heads}) when "
                f"head_dim is null: {self.hidden} % {self.heads} = {self.hidden % self.heads}"
            )
        if self.family == "moe" and self.moe is None:
            raise ValueError("family 'moe' needs a 'moe' block {experts, top_k, expert_ffn_hidden}")
        if self.family == "dense" and self.moe is not None:
            raise ValueError("family 'dense' must have moe: null (use family: moe)")
        if self.moe is not None and self.moe.dense_layers > self.layers:
            raise ValueError(
                f"moe.dense_layers ({self.moe.dense_layers}) exceeds layers ({self.layers})"
            )
        return self

    @property
    def kv(self) -> int:
        """Key/value heads (grouped-query attention); equals heads for multi-head attention."""
        return self.kv_heads or self.heads

    @property
    def dhead(self) -> int:
        """Dimension of one attention (query/key) head."""
        if self.mla is not None:
            return self.mla.qk_nope_head_dim + self.mla.qk_rope_head_dim
        return self.head_dim or self.hidden // self.heads

    @property
    def windowed_layers(self) -> int:
        """Layers with windowed (sliding or chunked) attention; the rest attend to everything."""
        if self.attention_window is None:
            return 0
        k = self.full_attention_every
        return self.layers - (self.layers // k if k else 0)


class TableSpec(Spec):
    """One embedding table: rows, embedding dimension, lookups per sample (pooling)."""

    rows: PositiveInt
    dim: PositiveInt
    pooling: PositiveFloat = 1.0


class DLRMMoESpec(Spec):
    """DLRM-MoE (MAD-Max): experts replace the MLP layers, each sample routed to top_k."""

    experts: PositiveInt
    top_k: PositiveInt = 1


class DLRMTransformerSpec(Spec):
    """DLRM-Transformer (MAD-Max): a transformer over the pooled sparse features."""

    layers: PositiveInt
    heads: PositiveInt
    hidden: PositiveInt
    ffn_hidden: PositiveInt
    seq_len: PositiveInt


class DLRMSpec(Spec):
    """A deep learning recommendation model: bottom MLP over dense features, embedding tables,
    feature interaction (dot, DCN-v2 cross layers, or ``concat``: none, the top MLP takes its
    own first width as MAD-Max's DLRM models do), top MLP (schema of
    ``../shared/validation/DLRM_VIT.md``), with MAD-Max's MoE and Transformer variants.
    ``tables`` is a list, or ``{count, rows, dim, pooling}`` for ``count`` identical tables."""

    name: str = "dlrm"
    family: Literal["dlrm"]
    dense_features: NonNegInt
    tables: Annotated[list[TableSpec], Field(min_length=1)]
    bottom_mlp: Annotated[list[PositiveInt], Field(min_length=1)]
    top_mlp: Annotated[list[PositiveInt], Field(min_length=1)]
    interaction: Literal["dot", "dcnv2", "concat"] = "dot"
    cross_layers: NonNegInt = 0
    cross_rank: PositiveInt | None = None
    moe: DLRMMoESpec | None = None
    transformer: DLRMTransformerSpec | None = None

    @model_validator(mode="before")
    @classmethod
    def _compact_tables(cls, data: Any) -> Any:
        # ``tables: {count: 4096, rows: ..., dim: ..., pooling: ...}``: that many identical tables
        if isinstance(data, dict) and isinstance(data.get("tables"), dict) and "count" in data["tables"]:
            spec = dict(data["tables"])
            count = spec.pop("count")
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise ValueError(f"tables.count must be a positive integer (given {count!r})")
            data = {**data, "tables": [spec] * count}
        return data

    @model_validator(mode="after")
    def _check(self) -> "DLRMSpec":
        if self.interaction == "dcnv2" and self.cross_layers == 0:
            raise ValueError("interaction 'dcnv2' needs cross_layers >= 1")
        if self.moe is not None and self.moe.top_k > self.moe.experts:
            raise ValueError(f"moe.top_k ({self.moe.top_k}) exceeds moe.experts ({self.moe.experts})")
        return self


class ViTSpec(Spec):
    """A vision transformer: patch embedding, encoder layers over (image/patch)^2 + 1 tokens
    (bidirectional attention, 2-matrix GELU MLP), classifier head. Samples are images."""

    name: str = "vit"
    family: Literal["vit"]
    layers: PositiveInt
    hidden: PositiveInt
    heads: PositiveInt
    ffn_hidden: PositiveInt
    patch: PositiveInt
    image_size: PositiveInt
    seq_len: PositiveInt | None = None
    classes: PositiveInt | None = None
    channels: PositiveInt = 3
    #: training applies dropout (the original ViT's 0.1 on ImageNet-21k): its masks are kept for
    #: backward, as for LLMs (model.dropout); big_vision and most large-scale recipes train without
    dropout: bool = False

    @model_validator(mode="after")
    def _check(self) -> "ViTSpec":
        if self.image_size % self.patch:
            raise ValueError(f"image_size ({self.image_size}) must be a multiple of patch ({self.patch})")
        if self.hidden % self.heads:
            raise ValueError(f"hidden ({self.hidden}) must be divisible by heads ({self.heads})")
        tokens = (self.image_size // self.patch) ** 2 + 1
        if self.seq_len is not None and self.seq_len != tokens:
            raise ValueError(f"seq_len ({self.seq_len}) must be (image_size/patch)^2 + 1 = "
                             f"({self.image_size}/{self.patch})^2 + 1 = {tokens}")
        return self

    @property
    def tokens(self) -> int:
        """Tokens per image: one per patch plus the class token."""
        return (self.image_size // self.patch) ** 2 + 1


def _changed_fields(spec: BaseModel, default: BaseModel, prefix: str) -> list[str]:
    """``prefix.field = value`` for every field of ``spec`` (nested specs included) that differs
    from ``default``."""
    out = []
    for name in type(spec).model_fields:
        value, base = getattr(spec, name), getattr(default, name)
        if isinstance(value, BaseModel) and isinstance(base, BaseModel):
            out.extend(_changed_fields(value, base, f"{prefix}.{name}"))
        elif value != base:
            out.append(f"{prefix}.{name} = {value}")
    return out


def _model_kind(value: Any) -> str:
    family = value.get("family") if isinstance(value, dict) else getattr(value, "family", None)
    return family if family in ("dlrm", "vit") else "llm"


class PeakTFLOPS(Spec):
    """Dense tensor-core peaks per number format, TFLOP/s; null where unsupported."""

    fp32: PositiveFloat | None = None
    tf32: PositiveFloat | None = None
    fp16: PositiveFloat | None = None
    bf16: PositiveFloat | None = None
    fp8: PositiveFloat | None = None
    fp4: PositiveFloat | None = None


class EfficiencySpec(Spec):
    """Calibration factors (fractions of peak) and fixed costs; defaults per GPU family live in
    ``dse/data/calibration.yaml`` and are documented there."""

    matmul: Fraction | None = None
    matmul_fp8: Fraction | None = None
    matmul_fp4: Fraction | None = None
    matmul_k_half: NonNegFloat | None = None
    attention: Fraction | None = None
    hbm: Fraction | None = None
    #: DLRM embedding gathers and sparse updates: the fraction of HBM bandwidth random row
    #: accesses reach (None = the family's fitted ``dlrm_gather``)
    gather: Fraction | None = None
    nvlink: Fraction | None = None
    scaleout: Fraction | None = None
    overlap_slowdown: NonNegFloat | None = None
    #: average board power (dse.costmodel.power): the fraction of the power limit a clocked GPU
    #: draws with no work, and the fractions of the rest that tensor-bound and HBM-bound kernels draw
    power_idle: Fraction | None = None
    power_tensor: PositiveFloat | None = None
    power_hbm: PositiveFloat | None = None


class ClusterSpec(Spec):
    """A cluster: a GPU preset, a count, and any hardware figure overridden.

    Every override is optional; missing ones come from the GPU preset and its family's
    calibration. Units are those in the key names.
    """

    gpu: str
    num_gpus: PositiveInt
    gpus_per_node: PositiveInt | None = None
    nvlink_domain: PositiveInt | None = None
    #: how a domain's GPUs are linked: "switch" (NVSwitch: any group gets each GPU's whole
    #: bandwidth) or "mesh" (AMD Infinity Fabric: one direct link to each other GPU, so a group of
    #: k of the domain's D GPUs gets (k - 1)/(D - 1) of it); None = the preset's
    nvlink_topology: Literal["switch", "mesh"] | None = None
    peak_tflops: PeakTFLOPS | None = None
    hbm_gb: PositiveFloat | None = None
    hbm_tbps: PositiveFloat | None = None
    #: L2 cache per GPU, MiB (A100 40, H100 50, B200 126); DLRM embedding lookups it holds skip HBM
    l2_mb: NonNegFloat | None = None
    nvlink_gbps: PositiveFloat | None = None
    scaleout_gbitps: PositiveFloat | None = None
    #: GPU <-> host memory link per GPU, both directions, GB/s (PCIe Gen5 x16: 128; NVLink-C2C: 900)
    host_link_gbps: PositiveFloat | None = None
    #: host (CPU) memory per GPU for offloaded activations, GiB; None = the preset's (null there:
    #: the server decides, not checked)
    host_memory_gb: PositiveFloat | None = None
    #: exponentials per second of the special-function units, 1e12/s (softmax in fused attention;
    #: B200 5, B300 10.7)
    exp_tera_per_s: PositiveFloat | None = None
    nvlink_latency_us: NonNegFloat | None = None
    scaleout_latency_us: NonNegFloat | None = None
    memory_reserved_gb: NonNegFloat | None = None
    rail_optimized: bool = True
    power_w: PositiveFloat | None = None
    price_per_gpu_hour: NonNegFloat | None = None
    efficiency: EfficiencySpec | None = None


class ParallelSpec(Spec):
    """The parallel plan. ``dp`` defaults to num_gpus / (tp·pp·cp); ``sp`` to tp > 1."""

    tp: PositiveInt = 1
    pp: PositiveInt = 1
    dp: PositiveInt | None = None
    cp: PositiveInt = 1
    ep: PositiveInt = 1
    #: training: the ways each routed expert is split tensor-parallel (Megatron-core's
    #: expert_tensor_parallel_size); None = tp. Another value folds the experts into their own
    #: etp x ep layout over the tp*dp*cp GPUs of a stage ("MoE parallel folding"): etp*ep must
    #: divide tp*dp*cp (a MoE model with tp > 1 needs sequence parallelism in any case, as
    #: Megatron-core requires). Serving splits experts
    #: tp/ep ways and ignores it.
    etp: PositiveInt | None = None
    sp: bool | None = None
    vpp: PositiveInt = 1
    zero: Annotated[int, Field(strict=True, ge=0, le=3)] = 0
    #: ranks one ZeRO/FSDP shard group spans (hybrid sharding); None = all dp*cp ranks
    shard_group: PositiveInt | None = None
    recompute: Literal["none", "selective", "full"] = "none"
    microbatch: PositiveInt | None = None
    global_batch: PositiveInt | None = None
    #: DLRM embedding plan (dse.costmodel.dlrm): table-, row-, column-wise over all GPUs;
    #: table_row (tables over nodes, rows over a node's GPUs); hybrid (HugeCTR MLPerf v1);
    #: auto (HugeCTR's planner over all GPUs: small tables replicated, hot ones split);
    #: hier_auto (HugeCTR's hierarchical planner: the same over nodes, rows split inside each);
    #: node_sharded (MAD-Max's 2D plan: sharded inside a node, nodes replicated);
    #: data_parallel (every table replicated); None: the fastest that fits
    emb_sharding: Literal["table", "row", "column", "table_row", "hybrid", "auto", "hier_auto",
                          "node_sharded", "data_parallel"] | None = None


class OverlapSpec(Spec):
    """Which communication may hide behind compute (True) or is exposed (False)."""

    dp: bool = True
    fsdp_prefetch: bool = True
    tp: bool = False
    ep: bool = False
    cp: bool = True
    pp: bool = True


class DLRMTrainingSpec(Spec):
    """What a DLRM training stack does with its embedding tables (ignored by other models).

    ``emb_dtype``: storage dtype of the tables, also the dtype the pooled vectors are exchanged
    in (frameworks cast to the compute dtype after the all-to-all) unless ``exchange_dtype``
    says otherwise (fp32: 4 bytes, fp16/bf16: 2, fp8/int8: 1, quantized inference tables as
    TorchRec's, whose pooled vectors come out dequantized, 16-bit unless ``exchange_dtype``
    says otherwise; a row's scale is not counted); ``emb_placement``: how the
    table-wise planner balances the tables over GPUs (by lookup + all-to-all cost, or by bytes as
    Merlin Distributed Embeddings' ``memory_balanced``; a cost-balanced plan that does not fit is
    re-planned by bytes); ``optimizer``: of the embeddings and the dense layers (null = SGD for a
    dot-interaction DLRM, Adagrad for DCN-v2, as the MLPerf references train them).
    """

    emb_dtype: Literal["fp32", "fp16", "bf16", "fp8", "int8"] = "fp32"
    #: dtype of the pooled vectors and their gradients that the embeddings write, read and
    #: exchange, when it differs from the tables' (HugeCTR's embedding collection under mixed
    #: precision: fp16 vectors of fp32 tables); None = emb_dtype
    exchange_dtype: Literal["fp32", "fp16", "bf16", "fp8", "int8"] | None = None
    emb_placement: Literal["cost_balanced", "memory_balanced"] = "cost_balanced"
    optimizer: Literal["sgd", "adagrad", "rowwise_adagrad", "adam"] | None = None


class TrainingSpec(Spec):
    """Training numerics and overlap switches (all optional)."""

    overlap: OverlapSpec = OverlapSpec()
    dlrm: DLRMTrainingSpec = DLRMTrainingSpec()
    #: how routed tokens cross the network: ``alltoall`` sends every routed copy to its expert's
    #: rank (NCCL all-to-all); ``deepep`` sends a token once to each NVLink domain holding one of
    #: its experts and once to each GPU there that holds one (DeepEP, Megatron-core's flex
    #: dispatcher); with tp > 1 (sequence parallel) either all-gathers the copies a rank receives
    #: over its TP group and reduce-scatters the experts' outputs
    moe_dispatcher: Literal["alltoall", "deepep"] = "alltoall"
    #: routed token copies the busiest expert-parallel rank receives, over the mean (max/mean):
    #: it paces every MoE layer, whose dispatch and expert GEMMs wait for it, and holds the most
    #: routed activations. 1 = balanced routing (Megatron-core's moe_router_force_load_balancing,
    #: as performance benchmarks run); for a trained router, the max/mean its framework logs per
    #: layer; with token dropping at capacity factor c and padding to capacity, c
    moe_load_imbalance: Annotated[float, Field(ge=1.0, le=64.0)] = 1.0
    #: the routed tokens sent into the experts (the forward dispatch, and in backward the output
    #: gradient going back in) quantized to FP8 before the exchange, as DeepSeek-V3 does (its
    #: report, sec. 3.3.2); the exchanges out of the experts stay 16-bit. None: 16-bit both ways
    moe_dispatch_dtype: Literal["fp8"] | None = None
    #: expert all-to-alls of one microbatch hide under the whole layer of another (a forward
    #: paired with a backward: DeepSeek's DualPipe, Megatron-core's
    #: overlap_moe_expert_parallel_comm) rather than under the layer's shared experts (the only
    #: GEMMs of its own that do not wait for the dispatch: none in a model without them); needs
    #: ``overlap.ep``
    ep_overlap_across_microbatches: bool = False
    #: Adam's first and second moments in fp32 (12 optimizer bytes per parameter with the fp32
    #: master weights) or bf16 (8: Megatron-core's precision-aware optimizer, DeepSeek-V3)
    optimizer_moments: Literal["fp32", "bf16"] = "fp32"
    #: keep the FFN up-projection outputs (the SwiGLU inputs) in FP8 for backward (DeepSeek-V3)
    fp8_activation_cache: bool = False
    #: FP8 runs hold the model weights in FP8 only, gathered in FP8 under FSDP (Transformer
    #: Engine's fp8_model_params, NeMo's fp8_params); the 16-bit compute copy is not kept (the
    #: optimizer's fp32 master copy still is, for trainable weights)
    fp8_params: bool = False
    #: what ``parallel.recompute: selective`` re-runs in backward instead of storing its
    #: activations (Megatron-core's recompute_modules): core_attn (the attention scores),
    #: layernorm (the norm outputs that feed the QKV and FFN GEMMs), mla_up_proj (MLA's query,
    #: key and value heads), moe_act (the experts' activation function), mlp (a dense FFN), moe
    #: (the whole MoE block, its all-to-alls included)
    recompute_modules: Annotated[
        list[Literal["core_attn", "layernorm", "mla_up_proj", "moe_act", "mlp", "moe"]], Field(min_length=1)
    ] = ["core_attn"]
    #: with ``parallel.recompute: full``, the transformer layers of each model chunk (a pipeline
    #: stage's layers, over vpp chunks when interleaved) recomputed whole, the chunk's first ones;
    #: the others store their activations (Megatron-core's recompute_method block with
    #: recompute_num_layers). None: every layer
    recompute_num_layers: PositiveInt | None = None
    #: transformer layers whose saved activations are copied to host memory during forward and
    #: back before their backward, on copy engines beside the compute (Megatron-core's
    #: cpu_offloading_num_layers, which needs pp = 1); with pipeline parallelism, layers of each
    #: stage (its first ones)
    offload_activation_layers: NonNegInt = 0
    #: the MoE layers are captured in CUDA graphs (Megatron-core's cuda_graph_scope with the
    #: experts), so the host launches nothing per layer. false (eager, as Megatron-Bridge's
    #: presets run the experts): the host launches every kernel of an MoE layer, Transformer
    #: Engine's grouped GEMMs, casts and bias passes expert by expert, and the dispatcher reads
    #: the routed-token counts on the host every layer (a device-to-host sync), so the host
    #: cannot run ahead of the GPU: the host's time H for a layer, a fixed part plus a part per
    #: local expert (``moe_host_layer_us``, ``moe_host_expert_us`` in calibration.yaml), runs
    #: beside the GPU's time G and the layer takes (G^2 + H^2)^(1/2)
    moe_cuda_graphs: bool = False
    flash_attention: bool = True
    grad_reduce_bytes: Annotated[int, Field(strict=True, ge=1, le=4)] = 2
    fp32_grad_accumulation: bool = False
    #: how the loss is computed over the logits: ``fused``, a fused vocabulary-parallel
    #: cross-entropy that writes the 16-bit logits' gradient in place (Megatron-core): 2 x 2 bytes
    #: a logit; ``fp32``, PyTorch's cross_entropy on the logits cast to fp32 (torchtitan 2024, most
    #: plain PyTorch loops): the fp32 log-probabilities are kept for backward, whose peak holds them,
    #: the dense fp32 gradient of the loss and the fp32 gradient of the logits (12 bytes a logit),
    #: and the passes over the logits move 40 bytes a logit instead of 24
    cross_entropy: Literal["fused", "fp32"] = "fused"
    #: FSDP (zero 3) over several microbatches a step: true keeps the stage's weights gathered and
    #: accumulates its gradients unsharded, in the reduction's precision (grad_reduce_bytes), from
    #: the first microbatch to the last, which reduce-scatters them: one gather and one
    #: reduce-scatter a step, the whole stage's weights and gradients in memory (PyTorch FSDP2
    #: under a pipeline schedule, torchtitan; no_sync gradient accumulation). false gathers and
    #: reduce-scatters each layer every microbatch, holding only a layer or two whole
    fsdp_unsharded_accumulation: bool = False


class LoRASpec(Spec):
    """Low-rank adapters: rank and the matrices they adapt (the base weights stay frozen)."""

    rank: PositiveInt
    targets: Annotated[list[Literal["qkv", "out", "ffn"]], Field(min_length=1)] = ["qkv", "out"]


class FinetuneSpec(Spec):
    """Frozen components for fine-tuning: no weight gradients, optimizer state or gradient
    communication for them; activation gradients still flow where a trainable part is below."""

    frozen_layers: NonNegInt = 0
    freeze_embeddings: bool = False
    freeze_bottom_mlp: bool = False
    freeze_top_mlp: bool = False
    lora: LoRASpec | None = None


class PrefillInstanceSpec(Spec):
    """The prefill instances of a disaggregated deployment (``inference.phase: disaggregated``):
    each runs prompts on tp*pp*dp GPUs and ships their KV cache to the decode instances, whose
    plan is the scenario's ``parallel`` block (dp replicas each, 1 by default)."""

    tp: PositiveInt = 1
    pp: PositiveInt = 1
    dp: PositiveInt = 1
    ep: PositiveInt = 1
    #: how many; None = the split of cluster.num_gpus that serves the most requests
    instances: PositiveInt | None = None
    #: prompt tokens a prefill iteration packs (TensorRT-LLM max_num_tokens); None = the
    #: inference block's max_num_tokens, else the engine default
    max_num_tokens: PositiveInt | None = None
    #: the prefill instances' GPU (a preset name, as cluster.gpu) when it is not the decode
    #: instances' (cluster.gpu, whose overrides apply to the decode GPUs only): each kind runs on
    #: its own hardware, price and power, and the KV cache crosses the scale-out network between
    #: the two kinds of server; None = the cluster's GPU
    gpu: str | None = None
    #: the prefill GPUs' price, USD per GPU-hour; None = the prefill GPU preset's (with ``gpu``)
    #: or the cluster's
    price_per_gpu_hour: NonNegFloat | None = None


class InferenceSpec(Spec):
    """Serving parameters: request lengths (tokens), the batch, concurrency or offered load
    (requests/s), and the engine's storage types, token budget, deployment phase and speculative
    decoding (``dse/workloads/inference.py`` says how each is modelled)."""

    input_len: PositiveInt
    output_len: PositiveInt
    batch: PositiveInt | None = None
    #: the most sequences a replica's engine runs at once (TensorRT-LLM max_batch_size, vLLM
    #: max_num_seqs, SGLang max_running_requests divided by the attention-DP size, MLPerf's gpu_batch_size);
    #: the batch dse picks, and the one an offered load needs, stay within it. None = 4096
    #: (trtllm-bench's cap)
    max_batch: PositiveInt | None = None
    concurrency: PositiveInt | None = None
    mode: Literal["offline_max_throughput", "online"] = "offline_max_throughput"
    #: offered load, requests/s for the whole deployment (online serving); None = offline
    request_rate: PositiveFloat | None = None
    #: requests a run serves (a benchmark's prompt count). Offline, all queued at its start
    #: (trtllm-bench --num_requests): each replica takes its share, runs full waves at its batch
    #: and drains the last, smaller wave at a smaller batch, so a short run serves less than the
    #: steady state (and one whose share fits at once runs at that share). With a concurrency,
    #: a closed loop of that many clients (vLLM/SGLang bench_serving --max-concurrency with
    #: --num-prompts): the first prompts arrive together and queue for their first tokens, which
    #: weighs on the mean TTFT of a short run. None = a run long enough that the steady state is
    #: all of it
    num_requests: PositiveInt | None = None
    #: spread of the requests' output lengths: their coefficient of variation (standard deviation
    #: over mean; ``output_len`` is the mean). 0 = every request the same length (trtllm-bench's
    #: fixed lengths). A steady engine holds a long request longer, so the requests in flight are
    #: length-biased: their output lengths average E[O^2]/E[O] = output_len (1 + cv^2), which sets
    #: the context their decode attention reads and the KV cache they hold, while requests still
    #: finish at the rate of the mean length (a dataset's natural lengths: MLPerf's DeepSeek-R1
    #: outputs run from a few hundred to 20,000 tokens). A closed loop of clients (concurrency)
    #: whose requests all have one length stays in lockstep: its clients' prompts arrive in groups
    #: that go in together, which lengthens the TTFT; any spread (> 0) dissolves the groups
    output_len_cv: Annotated[float, Field(ge=0.0, le=10.0, allow_inf_nan=False)] = 0.0
    #: storage type of the KV cache; None = follows the precision (FP8 for fp8 and fp4 weights)
    kv_cache_dtype: Literal["fp8", "bf16", "fp16", "fp32"] | None = None
    #: what the engine does with a model's local (windowed) attention: ``all`` windows the prompt
    #: attention, the decode KV reads and the KV cache (only the window's tokens kept); ``compute``
    #: windows the attention but sizes the cache for the whole context (TensorRT-LLM when the
    #: layers' windows differ: "the memory allocation for the kv cache still relies on the
    #: buffer's maximum value"); ``prefill`` windows only the prompt attention (TensorRT-LLM's
    #: chunked attention "can only be applied to context requests")
    window_scope: Literal["all", "compute", "prefill"] = "all"
    #: storage type of the linear layers' weights when it differs from the GEMMs' type
    #: (weight-only quantization: ``precision`` sets the GEMM math and activations, e.g. bf16
    #: with mxfp4 weights is W4A16, fp8 with mxfp4 is W4A8); None = the precision's
    weight_dtype: Literal["fp8", "nvfp4", "mxfp4", "int4"] | None = None
    #: which linear layers a quantized checkpoint (fp8, fp4, weight_dtype) stores quantized: ``all``
    #: of them (ModelOpt checkpoints); ``ffn`` only the FFN and expert matrices, the attention
    #: projections staying 16-bit; ``ffn_except_end_layers`` as ``ffn`` with the first and last
    #: transformer layers entirely 16-bit (Meta's Llama 3.1 FP8 checkpoints, "The Llama 3 Herd of
    #: Models" sec. 6.2). 16-bit parts read 16-bit weights and run at the 16-bit tensor rate
    quant_scope: Literal["all", "ffn", "ffn_except_end_layers"] = "all"
    #: how the engine sizes its KV cache: the fraction of the GPU's whole memory it may fill with
    #: weights, workspace and cache (vLLM's gpu_memory_utilization, 0.9 by default there). vLLM
    #: sizes the workspace by a profiling pass over its token budget at start-up (``max_num_tokens``;
    #: not stated: the batch's need, at least 2,048 tokens), so a larger budget leaves a smaller cache. None = TensorRT-LLM's rule: 0.9 of
    #: the memory the weights, workspace and reserve leave
    gpu_memory_utilization: Annotated[float, Field(strict=False, gt=0, le=1, allow_inf_nan=False)] | None = None
    #: SGLang's rule (--mem-fraction-static): the fraction of the GPU's whole memory for the
    #: weights and the KV pool, the workspace (activations, CUDA graphs) living in the rest
    mem_fraction_static: Annotated[float, Field(strict=False, gt=0, le=1, allow_inf_nan=False)] | None = None
    #: when the engine takes a sequence's KV-cache blocks: ``upfront``, for the prompt and every
    #: output token at admission (TensorRT-LLM's GUARANTEED_NO_EVICT scheduler, its default), or
    #: ``on_demand``, as tokens arrive, preempting a sequence when the blocks run out (vLLM,
    #: SGLang, TensorRT-LLM's MAX_UTILIZATION): in a steady state of requests arriving over time
    #: a sequence then holds its prompt and half its output on average, so more sequences fit.
    #: A single wave of requests started together grows in step and needs whole lengths at its
    #: end (preempting and recomputing when they do not fit): keep ``upfront`` for such runs
    kv_allocation: Literal["upfront", "on_demand"] = "upfront"
    #: attention data parallelism (dp replicas whose tokens meet in the experts, ep > tp): whether
    #: the engine schedules prompts on every rank in the same iterations (TensorRT-LLM's
    #: attention_dp_config enable_balance). Without it each rank takes its prompts on its own and
    #: the others wait for it at every MoE layer's dispatch (TensorRT-LLM's default)
    attention_dp_balance: bool = False
    #: routed token copies the busiest expert-parallel rank receives over the mean (max/mean,
    #: >= 1): it paces each MoE layer's expert GEMMs and all-to-alls. None = expected from the
    #: model's ``moe.router_skew`` and the experts per rank (1 with uniform routing); about 1.1
    #: with a load balancer of redundant experts (EPLB; TensorRT-LLM measured 1.12 for DeepSeek-R1
    #: over 36 ranks); the max/mean the engine logs per layer otherwise
    moe_load_imbalance: Annotated[float, Field(ge=1.0, le=64.0, allow_inf_nan=False)] | None = None
    #: one instance of a disaggregated deployment: ``prefill`` runs prompts only (iterations of
    #: max_num_tokens prompt tokens; its KV is shipped to decode instances), ``decode`` runs
    #: decodes only (requests arrive with their prompt's KV); ``both`` serves whole requests;
    #: ``disaggregated`` is a whole deployment over cluster.num_gpus: ``prefill`` instances (the
    #: block below) and decode instances (the ``parallel`` plan), offline
    phase: Literal["both", "prefill", "decode", "disaggregated"] = "both"
    #: the prefill instances of ``phase: disaggregated``
    prefill: PrefillInstanceSpec | None = None
    #: how routed tokens reach their experts when expert parallelism spans replicas (ep > tp):
    #: ``alltoall``, every routed copy crosses the network (TensorRT-LLM's attention-DP paths,
    #: whose workspace holds every rank's tokens); ``deepep``, a token crosses once per
    #: destination NVLink domain and moves once per destination GPU (DeepEP: SGLang's
    #: --enable-deepep-moe, wide-EP deployments), its buffers only the copies a GPU receives
    moe_dispatcher: Literal["alltoall", "deepep"] = "alltoall"
    #: the routed tokens quantized before the dispatch (DeepEP's FP8 dispatch; NVFP4 on
    #: Blackwell); None = at the activations' precision. The combine stays 16-bit
    moe_dispatch_dtype: Literal["fp8", "nvfp4"] | None = None
    #: two-batch overlap (SGLang --enable-two-batch-overlap, DeepSeek's inference system): each
    #: iteration's tokens in two micro-batches, one's expert all-to-alls under the other's work
    two_batch_overlap: bool = False
    #: single-batch overlap (SGLang --enable-single-batch-overlap): each MoE layer's combine
    #: all-to-all streams out under the routed experts' down GEMM and the shared experts of the
    #: same batch; an alternative to two_batch_overlap, not an addition
    single_batch_overlap: bool = False
    #: the engine's token budget per iteration (vLLM max_num_batched_tokens, SGLang
    #: chunked_prefill_size, TensorRT-LLM max_num_tokens): prompts are chunked at what the decodes
    #: leave of it, and a prefill instance packs this many prompt tokens; None = TensorRT-LLM
    #: trtllm-bench's engines (at least 2,048, at most 32,768, as the batch needs)
    max_num_tokens: PositiveInt | None = None
    #: speculative decoding: draft tokens proposed per sequence and iteration (DeepSeek's MTP
    #: with 3 modules, EAGLE or a draft model with k = 3, ...); 0 = none
    speculative_tokens: NonNegInt = 0
    #: probability that a draft token is accepted given the ones before it were (DeepSeek-V3
    #: reports 0.85-0.9 for its MTP module's token); required with speculative_tokens
    draft_acceptance: Annotated[float, Field(strict=True, ge=0, le=1, allow_inf_nan=False)] | None = None
    #: cost of drafting one token, in layers of the target model's shape (an MTP module: 1; a
    #: separate draft model: the equivalent of its layers), plus one LM head
    draft_layers: NonNegFloat = 1.0

    @model_validator(mode="after")
    def _check(self) -> "InferenceSpec":
        if self.speculative_tokens > 0 and self.draft_acceptance is None:
            raise ValueError(f"speculative_tokens {self.speculative_tokens} needs draft_acceptance: the "
                             "probability (0-1) that a draft token is accepted, e.g. 0.8")
        if (self.phase == "disaggregated") != (self.prefill is not None):
            raise ValueError("phase disaggregated needs a prefill block {tp, pp, dp, ep, instances, "
                             "max_num_tokens} (the prefill instances' plan), and only it takes one"
                             if self.prefill is None else
                             f"a prefill block describes the prefill instances of phase disaggregated, "
                             f"not of phase {self.phase}: set phase: disaggregated or leave it out")
        if self.phase == "disaggregated" and self.concurrency is not None and self.request_rate is not None:
            raise ValueError(f"a disaggregated deployment takes concurrency ({self.concurrency}, closed-loop "
                             f"clients, which set the rate) or request_rate ({self.request_rate:g}, an offered "
                             "load), not both: give one of them")
        if self.phase == "prefill":
            given = [k for k in ("batch", "concurrency", "request_rate") if getattr(self, k) is not None]
            if given:
                raise ValueError(f"phase prefill packs max_num_tokens prompt tokens per iteration: {', '.join(given)} "
                                 "does not apply; leave it out (or use phase both or decode)")
        if self.num_requests is not None:
            if self.request_rate is not None or self.phase != "both":
                why = (f"request_rate ({self.request_rate:g}) makes it an open stream of arrivals"
                       if self.request_rate is not None
                       else f"phase {self.phase} is an instance or deployment, not an engine serving whole requests")
                raise ValueError(f"num_requests ({self.num_requests}) is the size of a run of an engine (phase both): "
                                 f"offline, or a closed loop of clients with a concurrency, not an offered "
                                 f"request_rate: {why}; leave num_requests out")
        if self.gpu_memory_utilization is not None and self.mem_fraction_static is not None:
            raise ValueError(f"gpu_memory_utilization ({self.gpu_memory_utilization:g}, vLLM's: weights, workspace "
                             f"and cache) and mem_fraction_static ({self.mem_fraction_static:g}, SGLang's: weights "
                             "and cache, the workspace outside) are two engines' rules: give one of them")
        if self.batch is not None and self.request_rate is not None:
            raise ValueError(f"batch ({self.batch}) and request_rate ({self.request_rate:g}) exclude each "
                             "other: an offered rate sets the batch in flight; give one of them")
        if self.two_batch_overlap and self.single_batch_overlap:
            raise ValueError("two_batch_overlap and single_batch_overlap are alternatives (two micro-batches "
                             "hide each other's exchanges; one batch hides its combine under its own down GEMM): "
                             "set one of them")
        if self.batch is not None and self.max_batch is not None and self.batch > self.max_batch:
            raise ValueError(f"batch ({self.batch}) exceeds max_batch ({self.max_batch}): the engine runs at most "
                             f"max_batch sequences; give a batch <= {self.max_batch} or raise max_batch")
        return self


class Scenario(Spec):
    """One run to evaluate: model, cluster, parallel plan, workload and precision."""

    name: str | None = None
    workload: Literal["train", "inference", "finetune"] = "train"
    precision: Literal["bf16", "fp16", "fp8", "fp4", "tf32", "fp32"] = "bf16"
    model: Annotated[
        Annotated[ModelSpec, Tag("llm")] | Annotated[DLRMSpec, Tag("dlrm")] | Annotated[ViTSpec, Tag("vit")],
        Discriminator(_model_kind),
    ]
    cluster: ClusterSpec
    parallel: ParallelSpec = ParallelSpec()
    training: TrainingSpec = TrainingSpec()
    inference: InferenceSpec | None = None
    finetune: FinetuneSpec | None = None

    @property
    def kind(self) -> str:
        """What the cost model must do: llm_train, llm_inference, dlrm_train, vit_train, ..."""
        family = "llm" if isinstance(self.model, ModelSpec) else self.model.family
        task = "inference" if self.workload == "inference" else "train"
        return f"{family}_{task}"

    @model_validator(mode="before")
    @classmethod
    def _drop_case_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            if data.get("name") is None and isinstance(data.get("id"), str):
                data = {**data, "name": data["id"]}
            data = {k: v for k, v in data.items() if k not in IGNORED_CASE_KEYS}
        return data

    @model_validator(mode="after")
    def _check(self) -> "Scenario":
        offload = self.training.offload_activation_layers
        if offload > 0:
            layers = getattr(self.model, "layers", None)
            if layers is None:
                raise FieldValueError("training.offload_activation_layers",
                                      f"training.offload_activation_layers ({offload}) offloads transformer "
                                      f"layers; a {self.model.family} model has none: leave it 0")
            if offload >= layers:
                raise FieldValueError("training.offload_activation_layers",
                                      f"training.offload_activation_layers ({offload}) must be less than "
                                      f"model.layers ({layers}): allowed 0 to {layers - 1} (the last layer's "
                                      "activations are used as soon as the forward ends)")
        rc_layers = self.training.recompute_num_layers
        if rc_layers is not None and self.parallel.recompute != "full":
            raise FieldValueError("training.recompute_num_layers",
                                  f"training.recompute_num_layers ({rc_layers}) counts the layers a full recompute "
                                  f"re-runs; parallel.recompute is {self.parallel.recompute}: set it to full or "
                                  "leave recompute_num_layers out")
        if self.inference is not None and self.workload != "inference":
            raise FieldValueError("inference", f"an inference block describes serving (workload: inference); "
                                  f"this scenario's workload is {self.workload}: drop the inference block or "
                                  "set workload: inference")
        if self.workload == "inference" and isinstance(self.model, ModelSpec):
            if self.inference is None:
                raise FieldValueError("inference", "an LLM serving scenario (workload: inference) needs an inference "
                                      "block: {input_len, output_len} and optionally batch, concurrency, "
                                      "request_rate, mode")
            self._check_serving_plan()
        if getattr(self.model, "family", None) == "dlrm":
            self._check_dlrm_plan()
        if self.finetune is not None and self.workload != "finetune":
            raise FieldValueError("finetune", f"a finetune block describes fine-tuning (workload: finetune); "
                                  f"this scenario's workload is {self.workload}: drop the finetune block or "
                                  "set workload: finetune")
        quantized = self.training.dlrm.emb_dtype in ("fp8", "int8")
        if quantized and self.workload != "inference" and getattr(self.model, "family", None) == "dlrm":
            raise FieldValueError("training.dlrm.emb_dtype",
                                  f"training.dlrm.emb_dtype {self.training.dlrm.emb_dtype} stores quantized "
                                  f"tables, which serve (workload: inference) but do not train; for "
                                  f"workload {self.workload} allowed: fp32, fp16 or bf16")
        if self.training.fsdp_unsharded_accumulation and self.parallel.zero != 3:
            raise FieldValueError("training.fsdp_unsharded_accumulation",
                                  f"training.fsdp_unsharded_accumulation describes FSDP (parallel.zero 3); "
                                  f"parallel.zero is {self.parallel.zero}: set zero 3 or leave it false")
        return self

    def _check_dlrm_plan(self) -> None:
        """A DLRM's dense layers are data parallel over num_gpus / tp replicas (tensor parallel
        within): a stated dp must be that, and it has no pipeline or context parallelism."""
        plan, n = self.parallel, self.cluster.num_gpus
        for name in ("pp", "cp", "vpp"):
            if getattr(plan, name) != 1:
                raise FieldValueError(f"parallel.{name}", f"parallel.{name} = {getattr(plan, name)}: a DLRM has no "
                                      "pipeline or context parallelism (its plan: emb_sharding, tp, dp, zero, ep, "
                                      "microbatch or global_batch); allowed: 1")
        if plan.dp is not None and plan.dp * plan.tp != n:
            raise FieldValueError("parallel.dp", f"tp*dp = {plan.tp}*{plan.dp} = {plan.tp * plan.dp} != num_gpus {n}: "
                                  f"a DLRM's dense layers run num_gpus / tp replicas; allowed: "
                                  f"{n // plan.tp if n % plan.tp == 0 else 'none at this tp'} (or leave dp out)")

    def _check_serving_plan(self) -> None:
        """An LLM serving scenario names no training option: its model would ignore it (DLRM and
        ViT inference read the batch from the parallel plan)."""
        changed = _changed_fields(self.training, TrainingSpec(), "training")
        plan = self.parallel
        for name, default in (("zero", 0), ("recompute", "none"), ("microbatch", None), ("global_batch", None),
                              ("vpp", 1), ("sp", None)):
            if getattr(plan, name) != default and not (name == "sp" and plan.sp is False):
                changed.append(f"parallel.{name} = {getattr(plan, name)}")
        if changed:
            raise FieldValueError(changed[0].split(" = ")[0],
                                  f"{'; '.join(changed)}: training options, which a serving scenario "
                                  "(workload: inference) does not use; drop them (serving reads parallel tp, pp, "
                                  "dp, ep and the inference block) or set workload: train")
