"""Step 5's exercises: a batch's memory bill against a GPU (on paper), and the largest batch
that fits (on the page).

What an exercise is, and how the step and the sheet show it: steps/ui/exercises.py."""
from __future__ import annotations

from functools import lru_cache

from explainer import costs, presets
from explainer.format import bytes_bin

from ..ui import counts
from ..ui.exercises import PAPER, TASK, Exercise
from .model import bill_of


@lru_cache(maxsize=None)
def _n5() -> dict:
    m, g, T, B = presets.ALL_MODELS["qwen2.5-72b"], presets.GPUS["h200"], 32768, 16
    bill = costs.memory_bill(m, T, B, g, "fp16", binary_capacity=True)
    return dict(name=m.name, gpu=g.name, L=m.n_layers, H=m.n_kv_heads, d=m.head_dim,
                params=m.n_params, T=T, B=B, per=bill.kv_per_token,
                seq=costs.kv_cache_bytes(m, T, 1, "fp16"), kv=bill.kv_bytes,
                weights=bill.weight_bytes, total=bill.total, mem=bill.gpu_mem_bytes,
                fits=bill.fits_selected, room=bill.max_sequences,
                b=presets.PRECISIONS["fp16"].bits // 8, wb=presets.WEIGHT_BYTES_PER_PARAM)


def _p5(tr, x):
    return " ".join((
        tr._("{model}: {layers}, {heads}, head_dim {d}, {params}, weights and cache in fp16.",
             model=x["name"], layers=counts.layers(x["L"], tr),
             heads=counts.kv_heads(x["H"], tr), d=tr.int(x["d"]),
             params=counts.billions(x["params"], 1, tr)),
        tr.n_("How big is the cache of {B} sequence with a context length of {T}?",
              "How big is the cache of a batch of {B} sequences with a context length of {T}?",
              x["B"], B=tr.int(x["B"]), T=tr.int(x["T"])),
        tr._("Does it fit on an {gpu} next to the weights?", gpu=x["gpu"])))


def _a5(tr, x):
    lines = [
        tr._("Per token: 2 × {L} × {H} × {d} × {b} B = {per}.", b=tr.int(x["b"]),
             L=tr.int(x["L"]),
             H=tr.int(x["H"]), d=tr.int(x["d"]), per=bytes_bin(x["per"], tr)),
        tr._("Per sequence: {T} × {per} = {seq}; the batch: {B} × {seq} = {kv}.",
             T=tr.int(x["T"]), per=bytes_bin(x["per"], tr), seq=bytes_bin(x["seq"], tr),
             B=tr.int(x["B"]), kv=bytes_bin(x["kv"], tr)),
        tr.n_("Weights: {N} billion × {wb} B = {gb} = {weights}. Weights and cache: {total}.",
              "Weights: {N} billion × {wb} B = {gb} = {weights}. Weights and cache: {total}.",
              tr.shown(x["params"] / 1e9, 1), wb=tr.int(x["wb"]),
              N=tr.num(x["params"] / 1e9, 1), gb=tr.bytes(x["weights"], "GB", 1),
              weights=bytes_bin(x["weights"], tr), total=bytes_bin(x["total"], tr)),
    ]
    if x["fits"]:                                  # pragma: no cover - not with these presets
        lines.append(tr._("The {gpu} holds {mem}: it fits.", gpu=x["gpu"],
                          mem=bytes_bin(x["mem"], tr)))
    elif x["room"] == 0:
        lines.append(tr.n_("The {gpu} holds {mem}: it does not fit. Next to the weights there "
                           "is no room for even one sequence of {T} token.",
                           "The {gpu} holds {mem}: it does not fit. Next to the weights there "
                           "is no room for even one sequence of {T} tokens.", x["T"],
                           gpu=x["gpu"], mem=bytes_bin(x["mem"], tr), T=tr.int(x["T"])))
    else:                                          # pragma: no cover - not with these presets
        lines.append(tr.n_("The {gpu} holds {mem}: it does not fit. Next to the weights there "
                           "is room for {n} such sequence.",
                           "The {gpu} holds {mem}: it does not fit. Next to the weights there "
                           "is room for {n} such sequences.", x["room"], gpu=x["gpu"],
                           mem=bytes_bin(x["mem"], tr), n=tr.int(x["room"])))
    return lines


@lru_cache(maxsize=None)
def _t5_numbers() -> dict:
    model, context, gpu = "llama3.1-8b", 8192, "a100-40"
    n = bill_of(model, context, 1, gpu).max_sequences
    return dict(model=model, name=presets.ALL_MODELS[model].name, context=context, gpu=gpu,
                gpu_name=presets.GPUS[gpu].name, batch=n,
                total=bill_of(model, context, n, gpu).total,
                more=bill_of(model, context, n + 1, gpu).total,
                mem=presets.GPUS[gpu].capacity_bytes(binary=True))


def _t5(tr, x):
    return " ".join((
        tr.n_("{model} on an {gpu}, sequences of {T} token: find the largest batch that "
              "fits.", "{model} on an {gpu}, sequences of {T} tokens: find the largest batch "
              "that fits.", x["context"], model=x["name"], T=tr.int(x["context"]),
              gpu=x["gpu_name"]),
        tr._("The GPU is chosen in part B, “Plan a server”, the batch in part A.")))


def _t5_check(m) -> bool:
    x = _t5_numbers()
    return (m.model == x["model"] and m.context == x["context"] and m.gpu == x["gpu"]
            and m.bill.fits_selected and m.batch == m.bill.max_sequences)


def _t5_answer(tr, x):
    return [tr._("A batch of {B}: weights and cache take {total} of the {mem}; one sequence "
                 "more would make it {more}.", B=tr.int(x["batch"]),
                 total=tr.bytes(x["total"], "GiB", 2), mem=bytes_bin(x["mem"], tr),
                 more=tr.bytes(x["more"], "GiB", 2)),
            # truth3 N20: the little left over is not room a server has
            tr._("That counts only the weights and the cache: activations, the CUDA context "
                 "and the engine's buffers need memory too, so a real server fits fewer "
                 "sequences (part B's planner counts them).")]


EXERCISES: tuple[Exercise, ...] = (
    Exercise(5, 1, PAPER, _n5, _p5, _a5),
    Exercise(5, 2, TASK, _t5_numbers, _t5, _t5_answer, _t5_check,
             lambda m: {k: _t5_numbers()[k] for k in ("model", "context", "gpu", "batch")}),
)
"""In order; steps.registry.exercises finds them."""
