"""Coverage-guided fuzzing of bipub's loaders with atheris (libFuzzer for Python).

Not part of the test suite and not a dependency: install atheris by hand and run it for as long as
you like. The harness feeds arbitrary bytes through the same steps as a content file —

    decode_text → split_front_matter → load_yaml → FrontMatter / CV validation → diagnostics

— and fails on any exception other than bipub's own errors (TextDecodeError, FrontMatterError,
YamlError; a pydantic ValidationError must turn into diagnostics without raising). The first byte
of each input picks the target: a Markdown post, a cv.yaml, or bare YAML.

Run (from the repository root):

    .venv/bin/pip install atheris            # Linux x86-64/arm64 wheels; elsewhere needs clang
    mkdir -p fuzz/corpus
    .venv/bin/python fuzz/fuzz_loaders.py fuzz/corpus -max_total_time=600
    .venv/bin/python fuzz/fuzz_loaders.py fuzz/corpus -jobs=4 -workers=4   # in parallel

libFuzzer writes a failing input to ./crash-<sha1>; replay it with

    .venv/bin/python fuzz/fuzz_loaders.py crash-<sha1>

and turn it into a regression test (tests/property/test_load_fuzz.py has `@example`s for that).
Useful seeds: the files under content/ and tests/bad_inputs/*/files/ (copy them into the corpus).
Without atheris, `TestOneInput` is a plain function (tests/property/test_fuzz_harness.py runs it on
those seeds so the harness keeps working).
"""

from __future__ import annotations

import sys


def _imports() -> None:
    global FrontMatterError, TextDecodeError, YamlError, CV, FrontMatter, decode_text
    global split_front_matter, load_yaml, validation_diagnostics, ValidationError
    from pydantic import ValidationError

    from bipub.load.front_matter import FrontMatterError, split_front_matter
    from bipub.load.text import TextDecodeError, decode_text
    from bipub.load.yaml_strict import YamlError, load_yaml
    from bipub.model.cv import CV
    from bipub.model.post import FrontMatter
    from bipub.model.validate import validation_diagnostics


def _validate(model: type, data: object, doc: object, rel: str) -> None:
    try:
        model.model_validate(data)  # type: ignore[attr-defined]
    except ValidationError as exc:
        for d in validation_diagnostics(exc, doc, rel, model=model):  # type: ignore[arg-type]
            assert d.file == rel, d
            d.format()


def TestOneInput(data: bytes) -> None:  # the name atheris and libFuzzer expect
    if not data:
        return
    target, payload = data[0] % 3, data[1:]
    try:
        if target == 0:  # a post: front matter + Markdown body
            text = decode_text(payload, "content/ko/posts/fuzz.md")
            split = split_front_matter(text, "content/ko/posts/fuzz.md")
            doc = load_yaml(split.yaml_text, "content/ko/posts/fuzz.md", split.yaml_line - 1)
            if isinstance(doc.data, dict):
                _validate(FrontMatter, doc.data, doc, "content/ko/posts/fuzz.md")
        elif target == 1:  # cv.yaml
            doc = load_yaml(decode_text(payload, "content/en/cv.yaml"), "content/en/cv.yaml")
            if isinstance(doc.data, dict):
                _validate(CV, doc.data, doc, "content/en/cv.yaml")
        else:  # bare YAML, decoded leniently so the parser sees every kind of text
            load_yaml(payload.decode("utf-8", "replace"), "x.yaml")
    except (TextDecodeError, FrontMatterError) as exc:  # bipub's own errors: expected
        assert exc.diagnostic.file and exc.diagnostic.format()
    except YamlError as exc:
        assert exc.diagnostics and all(d.file for d in exc.diagnostics)


def main() -> None:
    import atheris

    with atheris.instrument_imports(include=["bipub", "yaml", "pydantic"]):
        _imports()
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
else:
    _imports()
