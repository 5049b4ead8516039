"""render/pdf/links.py `any_pdf`: whether a build has any PDF, asked by every build (a pass over
the posts of each language). It asks `wants_pdf` before the side-by-side partner and skips the
scan of the bilingual PDFs when every language was asked already; its answer is the plain
definition's (a CV, a post's PDF, or with every language a post's bilingual PDF), on the
side_by_side project (one post in both languages that wants a PDF) in every variant below."""

from __future__ import annotations

import itertools
import pickle
import shutil
from pathlib import Path

import pytest

from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load.content import load_content
from bipub.pair import site_pages
from bipub.pair.site import Site, pair_site
from bipub.render.pdf.links import any_pdf, both_pdf_entries, post_pdf_entries, wants_pdf
from tests.conftest import PROJECTS


def _plain(site: Site, langs: list[str], bilingual: bool) -> bool:
    """any_pdf's definition, as it read before it skipped anything."""
    return any(lang in site.cv or post_pdf_entries(site, lang) for lang in langs) or (
        bilingual and bool(both_pdf_entries(site))
    )


def _site(root: Path) -> Site:
    config = load_config(root)
    collector = Collector()
    site = pair_site(root, config, load_content(root, config, collector), collector)
    assert not collector.errors
    return site


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


VARIANTS = ["as-is", "english-draft", "no-pdf", "english-pdf-false"]


def _variant_site(tmp_path: Path, variant: str) -> Site:
    """The side_by_side project with `variant`'s edit, paired."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "side_by_side", root)
    ko, en = (root / f"content/{lang}/posts/paired.md" for lang in ("ko", "en"))
    if variant == "english-draft":  # (its English page is listed nowhere: no post PDF in en)
        _edit(en, "\ntitle: ", "\ndraft: true\ntitle: ")
    elif variant == "no-pdf":
        _edit(ko, "\npdf: true", "\npdf: false")
    elif variant == "english-pdf-false":
        _edit(en, "\ntitle: ", "\npdf: false\ntitle: ")
    return _site(root)


@pytest.mark.parametrize("variant", VARIANTS)
def test_any_pdf_answers_as_its_definition(tmp_path: Path, variant: str) -> None:
    site = _variant_site(tmp_path, variant)
    codes = site.config.codes
    answers = set()
    for n in range(len(codes) + 1):
        for langs in itertools.combinations(codes, n):
            for bilingual in (False, True):
                expected = _plain(site, list(langs), bilingual)
                assert any_pdf(site, list(langs), bilingual=bilingual) is expected, (
                    langs,
                    bilingual,
                )
                answers.add(expected)
    if variant != "no-pdf":
        assert answers == {False, True}  # (the variant asks something: both answers occur)
    if variant == "as-is":  # what only the scan the skip leaves out answers: a bilingual PDF
        assert _plain(site, [], True) and not _plain(site, [], False)


@pytest.mark.parametrize("variant", VARIANTS)
def test_any_pdf_reads_each_posts_languages_worked_out_once(
    tmp_path: Path, variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`wants_pdf` works out an entry's languages with a PDF at its first question and keeps
    them with the entry (pair/site_pages.py `pdf_langs`, pickled with it in the entries file):
    asked again, of the entry or of a copy read back from a pickle, it answers the same
    without looking at the entry's documents again."""
    site = _variant_site(tmp_path, variant)
    codes = site.config.codes
    entries = [entry for entry in site.entries if entry.kind == "posts"]
    first = {(lang, e.key): wants_pdf(site, e, lang) for lang in codes for e in entries}
    asked = [(lang, bilingual) for lang in codes for bilingual in (False, True)]
    answers = [any_pdf(site, [lang], bilingual=bilingual) for lang, bilingual in asked]
    paired = {
        "as-is": ("ko", "en"),
        "english-draft": ("ko",),
        "no-pdf": (),
        "english-pdf-false": ("ko", "en"),  # (the source's `pdf` is the post's)
    }[variant]
    assert {e.key: e.__dict__[site_pages.PDF_LANGS] for e in entries} == {
        "newer": (),
        "older": (),
        "paired": paired,
        "unlisted": (),  # (a draft: no PDF)
    }

    def not_again(*args: object) -> bool:
        raise AssertionError("wants_pdf looked at an entry's documents again")

    monkeypatch.setattr(site_pages, "_wants_pdf", not_again)
    assert [any_pdf(site, [lang], bilingual=bilingual) for lang, bilingual in asked] == answers
    assert {(lang, e.key): wants_pdf(site, e, lang) for lang in codes for e in entries} == first
    for entry in entries:  # (as the entries file keeps it: restore.py)
        again = pickle.loads(pickle.dumps(entry))
        assert [wants_pdf(site, again, lang) for lang in codes] == [
            wants_pdf(site, entry, lang) for lang in codes
        ]
