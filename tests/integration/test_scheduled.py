"""Session 33: a post dated after the build's "now" is scheduled — published in no language
(no page, list, tag, series, feed, sitemap, JSON API, llms.txt or search entry) until a build
runs after its date — unless `--future` or bipub.yaml `outputs.publish_future: true` asks for
it (bipub/schedule.py). "Now" is SOURCE_DATE_EPOCH (set by every test here, never the real
date), else the clock. A plain date begins in bipub.yaml `time_zone` (+09:00 by default).

Once "now" passes a scheduled post's date, the next build publishes it though no file changed
(not "up to date"), and its output equals a clean build's at that time: read back from
.bipub-cache/ (`bipub build`), kept in memory (`bipub serve`), and on the clock alone."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bipub import schedule
from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from tests.conftest import PROJECTS, tree_snapshot

KINDS = {"html", "json", "feeds", "llms", "search"}
SLUG = "yeyak-post"
TITLE = "예약된 글"
DATE = "2026-06-01"  # (after every post of the minimal project: beta is of May 1)


def _epoch(text: str) -> str:
    """SOURCE_DATE_EPOCH of an ISO date-time with offset."""
    return str(int(datetime.fromisoformat(text).timestamp()))


def _project(tmp_path: Path, date: str, config: str = "") -> Path:
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    (root / "content" / "ko" / "posts" / f"{SLUG}.md").write_text(
        f"---\ntitle: {TITLE}\ndate: {date}\ntags: [vllm]\nseries: 캐시 연재\n---\n\n"
        "## 소개\n\n곧 공개됩니다.\n",
        encoding="utf-8",
    )
    if config:
        path = root / "bipub.yaml"
        path.write_text(path.read_text(encoding="utf-8") + config, encoding="utf-8")
    return root


def _texts(site: Path) -> dict[str, str]:
    """Every text file of the output (the search index's fragments are compressed: its page
    count is in the build's note)."""
    out = {}
    for rel, data in tree_snapshot(site).items():
        if rel.endswith((".html", ".xml", ".json", ".txt")) and not rel.startswith("pagefind"):
            out[rel] = data.decode("utf-8", "replace")
    return out


def _published(site: Path) -> bool:
    """Whether the post is anywhere in the output; asserts it is everywhere or nowhere."""
    texts = _texts(site)
    naming = sorted(rel for rel, text in texts.items() if SLUG in text or TITLE in text)
    if not naming:
        assert not (site / "ko" / "blog" / SLUG).exists()
        return False
    for must in (
        f"ko/blog/{SLUG}/index.html",
        f"en/blog/{SLUG}/index.html",  # (shown untranslated, with a notice)
        "ko/blog/index.html",
        "ko/tags/vllm/index.html",
        "ko/feed.xml",
        "sitemap.xml",
        "api/ko/posts.json",
        "llms.txt",
    ):
        assert must in naming, (must, naming)
    return True


def _status_units(site: Path) -> list[str]:
    data = json.loads((site / "api" / "en" / "status.json").read_text(encoding="utf-8"))
    return [json.dumps(data)] if SLUG in json.dumps(data) else []


def _clean(root: Path, tmp_path: Path) -> dict[str, bytes]:
    out = tmp_path / "clean"
    build(root, out, use_cache=False, only=KINDS)
    return tree_snapshot(out)


def _same(a: dict[str, bytes], b: dict[str, bytes]) -> None:
    assert sorted(a) == sorted(b)
    assert [p for p in a if a[p] != b[p]] == []


# ---------------------------------------------------------------- the publish instant


@pytest.mark.parametrize(
    ("config", "before", "at"),
    [
        # the default zone, +09:00: June 1 begins at 15:00 UTC on May 31
        ("", "2026-05-31T14:59:59Z", "2026-05-31T15:00:00Z"),
        ("time_zone: UTC\n", "2026-05-31T23:59:59Z", "2026-06-01T00:00:00Z"),
        ("time_zone: America/New_York\n", "2026-06-01T03:59:59Z", "2026-06-01T04:00:00Z"),
    ],
)
def test_a_plain_date_is_published_from_the_start_of_its_day_in_time_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, before: str, at: str
) -> None:
    root = _project(tmp_path, DATE, config)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch(before))
    result = build(root, use_cache=False, only=KINDS)
    assert not _published(root / "site")
    assert _status_units(root / "site") == []  # (status.json does not count it)
    assert [ref for _, ref in result.scheduled] == [f"posts/{SLUG}"]  # (beta: May 1)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch(at))
    result = build(root, use_cache=False, only=KINDS)
    assert _published(root / "site")
    assert result.scheduled == []


def test_a_date_time_is_published_at_its_instant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, "2026-06-01T09:00:00-05:00")  # (its own offset, not time_zone)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-06-01T13:59:59Z"))
    result = build(root, use_cache=False, only=KINDS)
    assert not _published(root / "site")
    assert result.scheduled == [("2026-06-01 23:00 +09:00", f"posts/{SLUG}")]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-06-01T14:00:00Z"))
    build(root, use_cache=False, only=KINDS)
    assert _published(root / "site")


def test_future_publishes_it_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, DATE)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-04-01T00:00:00Z"))
    result = build(root, only=KINDS, future=True)
    assert _published(root / "site") and result.scheduled == []
    # (another option: not the up-to-date answer of the build with --future)
    result = build(root, only=KINDS)
    assert not result.up_to_date and not _published(root / "site")


def test_publish_future_in_bipub_yaml_publishes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, DATE, "outputs:\n  publish_future: true\n")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-04-01T00:00:00Z"))
    build(root, use_cache=False, only=KINDS)
    assert _published(root / "site")


def test_a_time_zone_that_is_none_is_a_config_error(tmp_path: Path) -> None:
    from bipub.diagnostics import ConfigError

    root = _project(tmp_path, DATE, "time_zone: Seoul/Korea\n")
    with pytest.raises(ConfigError, match="is not a time zone"):
        build(root, use_cache=False, only=KINDS)


# ---------------------------------------------------------------- nothing silent


def test_the_build_says_what_waits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from bipub.cli import main

    root = _project(tmp_path, DATE)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-05-15T00:00:00Z"))  # (after beta)
    runner = CliRunner()
    args = ["-C", str(root), "-v", "build", "--only", "html"]
    for _ in range(2):  # (built, then up to date: said again)
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        assert (
            "Scheduled: 1 post dated in the future, not published yet "
            f"(next: posts/{SLUG} at 2026-06-01 00:00 +09:00" in result.output
        )
        assert f"scheduled: posts/{SLUG} at 2026-06-01 00:00 +09:00" in result.output
    assert "Up to date" in result.output
    result = runner.invoke(main, ["-C", str(root), "build", "--only", "html", "--future"])
    assert result.exit_code == 0 and "Scheduled" not in result.output
    assert (root / "site" / "ko" / "blog" / SLUG / "index.html").is_file()


def test_check_still_checks_a_scheduled_post(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from bipub.cli import main

    root = _project(tmp_path, DATE)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-04-01T00:00:00Z"))
    result = CliRunner().invoke(main, ["-C", str(root), "check", "--format", "json"])
    assert f"posts/{SLUG}" in result.output  # (its missing translation)


# ---------------------------------------------------------------- incremental = clean


@pytest.mark.parametrize("resident", [False, True])
def test_a_build_after_the_date_publishes_it_as_a_clean_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resident: bool
) -> None:
    root = _project(tmp_path, DATE)
    kept = Kept(BuildCache()) if resident else None  # (`bipub serve`'s; else read back)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-05-30T12:00:00Z"))
    build(root, only=KINDS, kept=kept)
    assert not _published(root / "site")
    _same(tree_snapshot(root / "site"), _clean(root, tmp_path))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-06-02T00:00:00Z"))
    result = build(root, only=KINDS, kept=kept)
    assert not result.up_to_date
    assert "1 of 4 entries paired again" in result.cache_note or resident
    assert _published(root / "site")
    _same(tree_snapshot(root / "site"), _clean(root, tmp_path))
    # and back (SOURCE_DATE_EPOCH set earlier again): held back again, as a clean build
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-05-30T12:00:00Z"))
    build(root, only=KINDS, kept=kept)
    assert not _published(root / "site")
    _same(tree_snapshot(root / "site"), _clean(root, tmp_path))


@pytest.mark.parametrize("resident", [False, True])
def test_on_the_clock_the_output_is_up_to_date_only_until_the_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resident: bool
) -> None:
    """No SOURCE_DATE_EPOCH: "now" is the clock (here a fake one), which is no input file:
    the up-to-date record keeps the instant its answer holds until."""
    root = _project(tmp_path, "2026-06-01T09:00:00+09:00")
    kept = Kept(BuildCache()) if resident else None
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    clock = [datetime(2026, 6, 1, 0, 0, tzinfo=UTC).timestamp() - 1]
    monkeypatch.setattr(schedule.time, "time", lambda: clock[0])
    build(root, only=KINDS, kept=kept)
    assert not _published(root / "site")
    assert build(root, only=KINDS, kept=kept).up_to_date  # (a second before: nothing to do)
    clock[0] += 1  # 09:00 in Seoul
    result = build(root, only=KINDS, kept=kept)
    assert not result.up_to_date and _published(root / "site")
    assert "the clock passed a scheduled post" in result.cache_note  # (-v)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(clock[0])))
    _same(tree_snapshot(root / "site"), _clean(root, tmp_path))
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    clock[0] += 3600
    assert build(root, only=KINDS, kept=kept).up_to_date  # (nothing scheduled any more)


class _Ui:
    def __init__(self) -> None:
        self.said: list[str] = []

    def info(self, message: str) -> None:
        self.said.append(message)

    debug = info


def test_serve_rebuilds_when_the_clock_passes_a_scheduled_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bipub serve` rebuilds on saves; at a quiet moment after a scheduled post's date it
    rebuilds too (serve_watch.Follower asks ServeBuilds.due), once."""
    from bipub.serve_builds import ServeBuilds
    from bipub.serve_watch import Follower

    root = _project(tmp_path, "2026-06-01T09:00:00+09:00")
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    clock = [datetime(2026, 6, 1, 0, 0, tzinfo=UTC).timestamp() - 1]
    monkeypatch.setattr(schedule.time, "time", lambda: clock[0])
    site = tmp_path / "served"
    built = ServeBuilds(root, site, Kept(BuildCache()), build, None)
    ui = built.ui = _Ui()
    built(KINDS, None)
    assert not _published(site)
    assert ui.said[0].startswith(
        f"Scheduled: 1 post dated in the future, not published yet (next: posts/{SLUG} at 2026-06-01 09:00 +09:00"
    )
    built(KINDS, None)  # (up to date: not said again)
    assert len([m for m in ui.said if m.startswith("Scheduled")]) == 1
    results = []

    def rebuild(changed: frozenset[str] | None) -> bool:
        results.append(built(KINDS, changed))
        return True

    follow = Follower(ui, rebuild, lambda: [], None, built.due)
    follow([])  # (a quiet moment: nothing due)
    assert results == []
    clock[0] += 1
    follow([])
    assert len(results) == 1 and not results[0].up_to_date and _published(site)
    assert "the clock passed the date of a scheduled post: rebuilding" in ui.said
    clock[0] += 60
    follow([])
    assert len(results) == 1  # (nothing more due)


def test_translate_still_drafts_a_scheduled_post(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from bipub.cli import main

    root = _project(tmp_path, DATE)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _epoch("2026-04-01T00:00:00Z"))
    args = ["-C", str(root), "translate", "--to", "en", "--dry-run", "--only", f"posts/{SLUG}"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"content/ko/posts/{SLUG}.md → content/en/posts/{SLUG}.md" in result.output
    assert "DEEPL_AUTH_KEY is not set" in result.output  # (no key: nothing asked of DeepL)
