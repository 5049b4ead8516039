"""A generated Korean blog for drafting tests: posts with headings, nested lists, tables, code
blocks, inline code, links, emphasis, footnotes and block quotes. Deterministic per seed.

    write_corpus(root, 100)   # content/ko/posts/post-000.md … post-099.md and bipub.yaml
"""

from __future__ import annotations

import random
from pathlib import Path

CONFIG = """\
languages:
  - {code: ko, name: 한국어, title: 테스트}
  - {code: en, name: English, title: Test}
default_language: ko
base_url: https://t.example.org/
author: {name: T}
"""

WORDS = [
    "커널",
    "캐시",
    "스케줄러",
    "메모리",
    "블록",
    "요청",
    "디코딩",
    "프리필",
    "어텐션",
    "배치",
    "처리",
    "구현",
    "분석",
    "구조",
    "토큰",
    "모델",
    "가중치",
    "양자화",
    "텐서",
    "병렬화",
    "서빙",
    "지연",
    "처리량",
    "파이프라인",
    "엔진",
    "실행",
    "루프",
    "설정",
    "기본값",
    "최적화",
    "성능",
]
IDENT = [
    "batch_size",
    "block_table",
    "kv_cache",
    "seq_len",
    "num_heads",
    "max_tokens",
    "page_size",
    "rank",
]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _inline(rng: random.Random) -> str:
    """A sentence with some inline markup (code, link, emphasis, number)."""
    parts = [_words(rng, rng.randint(2, 5))]
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["code", "link", "strong", "em", "number", "plain"])
        if kind == "code":
            parts.append(f"`{rng.choice(IDENT)}`를")
        elif kind == "link":
            title = f' "{_words(rng, 2)}"' if rng.random() < 0.3 else ""
            url = f"https://docs.example.org/{rng.randint(1, 999)}"
            parts.append(f"[{_words(rng, 2)}]({url}{title})")
        elif kind == "strong":
            parts.append(f"**{_words(rng, 2)}**")
        elif kind == "em":
            parts.append(f"*{_words(rng, 1)}*")
        elif kind == "number":
            parts.append(f"{rng.randint(2, 9999)}개")
        parts.append(_words(rng, rng.randint(1, 3)))
    return " ".join(parts) + "."


def _code(rng: random.Random) -> str:
    name = rng.choice(IDENT)
    return (
        "```python\n"
        f"def step({name}, n={rng.randint(1, 4096)}):  # 주석 {rng.randint(1, 99)}\n"
        f"    return {name} * n\n"
        "```"
    )


def _table(rng: random.Random) -> str:
    cols = rng.randint(2, 3)
    head = "| " + " | ".join(_words(rng, 1) for _ in range(cols)) + " |"
    delim = "|" + "---|" * cols
    rows = [
        "| "
        + " | ".join(
            rng.choice([_words(rng, 2), f"`{rng.choice(IDENT)}`", f"{rng.randint(1, 999)} ms"])
            for _ in range(cols)
        )
        + " |"
        for _ in range(rng.randint(1, 3))
    ]
    return "\n".join([head, delim, *rows])


def _list(rng: random.Random) -> str:
    lines = [f"- {_inline(rng)}", f"  - {_inline(rng)}", f"  - {_words(rng, 3)}"]
    lines += [f"{n}. {_inline(rng)}" for n in range(1, rng.randint(2, 3) + 1)]
    return "- " + _inline(rng) + "\n" + "\n".join(lines[1:3]) + "\n\n" + "\n".join(lines[3:])


def post(i: int) -> str:
    rng = random.Random(i)
    blocks = [_inline(rng) + f" 각주[^{i}] 참고."]
    for s in range(1, 4):
        blocks.append(f"## {_words(rng, 2)} {s}")
        choice = rng.sample(["para", "list", "table", "code", "quote"], 3)
        for kind in choice:
            if kind == "para":
                blocks.append(_inline(rng) + "\n" + _inline(rng))
            elif kind == "list":
                blocks.append(_list(rng))
            elif kind == "table":
                blocks.append(_table(rng))
            elif kind == "code":
                blocks.append(_code(rng))
            else:
                blocks.append("> " + _inline(rng))
    blocks.append(f"[^{i}]: {_inline(rng)}")
    title = f"[vLLM] {_words(rng, 3)} {i}"
    date = f"2026-01-{i % 28 + 1:02d}"
    front = f'---\ntitle: "{title}"\ndate: {date}\ndescription: {_words(rng, 6)}\n---\n'
    return front + "\n" + "\n\n".join(blocks) + "\n"


def write_corpus(root: Path, posts: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "bipub.yaml").write_text(CONFIG, encoding="utf-8")
    folder = root / "content/ko/posts"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(posts):
        (folder / f"post-{i:03d}.md").write_text(post(i), encoding="utf-8")
    return root
