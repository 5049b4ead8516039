"""The JSON API: site/api/<lang>/cv.json, posts.json, status.json and site/api/schema/.

`cv.json` is a public contract: exactly the CV field names, in the order the source file gives
them, and nothing else (bipub's own keys are removed: `id`, the pairing key, and `short`, the
short CV PDF's mark).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, Literal

import pydantic
import pydantic_core
from pydantic import BaseModel, ConfigDict

from bipub.pair.model import State
from bipub.pair.site import Entry, Site, tags_of
from bipub.pair.status import StatusFile, StatusRecord
from bipub.pair.units import Unit
from bipub.render import urls
from bipub.render.locale_format import format_iso


def dumps(value: Any) -> str:
    """JSON as `json.dumps(value, ensure_ascii=False, indent=2)` writes it, plus a newline.

    The API files are lists of flat records (tens of thousands on a big site); Python's
    json module indents with its pure-Python encoder, so those lists are written here with the
    C string encoder instead — byte for byte the same output (tests/property/test_json_dumps.py).
    """
    if isinstance(value, list) and value and all(_flat_record(v) for v in value):
        return _dump_records(value) + "\n"
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


_encode_str = json.encoder.encode_basestring  # the C version when available
encode_str = _encode_str


def _flat_record(value: object) -> bool:
    if type(value) is not dict or not value:
        return False
    for k, v in value.items():
        if type(k) is not str:
            return False
        if type(v) is list:
            if not all(type(x) is str for x in v):
                return False
        elif v is not None and type(v) not in (str, int, bool):
            return False
    return True


def _scalar(v: object) -> str:
    if type(v) is str:
        return _encode_str(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    return int.__repr__(v)


def _dump_records(records: list[dict[str, Any]]) -> str:
    return join_records([dump_record(record) for record in records]).removesuffix("\n")


def dump_record(record: dict[str, Any]) -> str:
    """One flat record as it appears in a list written by `dumps` (indented for that list)."""
    if not record:
        return "{\n  }"
    items = []
    for k, v in record.items():
        t = type(v)
        if t is str:
            value = _encode_str(v)
        elif t is list:
            value = "[\n      " + ",\n      ".join(map(_encode_str, v)) + "\n    ]" if v else "[]"
        else:
            value = _scalar(v)
        items.append(f"{_encode_str(k)}: {value}")
    return "{\n    " + ",\n    ".join(items) + "\n  }"


RECORD_SEP = ",\n  "  # between two records of a list written by `dumps`
_SEP = RECORD_SEP.encode()
_LIST = ("[]\n", "[\n  ", "\n]\n")  # (`join_records`: an empty list; a list's start, its end)


def join_records(texts: list[str]) -> str:
    """`dumps` of a list of flat records, from each record's `dump_record` text (or from runs
    of records already joined with RECORD_SEP)."""
    empty, start, end = _LIST
    if not texts:
        return empty
    return start + RECORD_SEP.join(texts) + end


def join_encoded(texts: list[bytes]) -> bytes:
    """`join_records` of records kept encoded (UTF-8: render/parts.py), as the file's bytes:
    a big site's posts.json is megabytes, joined without encoding it again, in one copy (the
    list's start and end joined to its first and last record: not around the joined
    records, a second copy of megabytes and of the fresh memory they fault in)."""
    empty, start, end = (text.encode() for text in _LIST)
    if not texts:
        return empty
    if len(texts) == 1:
        return b"".join((start, texts[0], end))
    return _SEP.join((start + texts[0], *texts[1:-1], texts[-1] + end))


OWN_KEYS = ("id", "short")  # bipub's own keys on CV list items (model/fields.py ListItem)


def strip_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_ids(v) for k, v in value.items() if k not in OWN_KEYS}
    if isinstance(value, list):
        return [strip_ids(v) for v in value]
    return value


def cv_json(site: Site, lang: str) -> str | None:
    merged = site.cv.get(lang)
    if merged is None:
        return None
    return dumps(strip_ids(merged.data))


class PostApiEntry(BaseModel):
    """One item of posts.json (the schema published in api/schema/posts.schema.json)."""

    # built when its schema is made (`made_schemas`), not at import: builds use the shipped ones
    model_config = ConfigDict(extra="forbid", defer_build=True)
    slug: str
    title: str
    description: str
    date: str
    updated: str | None
    tags: list[str]
    series: str | None
    url: str
    lang: str  # the language of `title`, `description` and `series` (a fallback: its source's)
    translation: State  # source | translated | draft | stale | missing (docs/outputs.md)


class StatusApiEntry(BaseModel):
    """One item of status.json: a unit's key and state only — repository paths, lines and
    hashes stay with `bipub check` (issue 18)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    key: str
    state: Literal["missing", "untracked", "stale", "draft", "edited", "reviewed"]
    machine_draft: bool  # the translation is an unreviewed machine draft (posts, pages, CV)


Dump = Callable[[dict[str, Any]], str]  # `dump_record`, or a memo of it (render/outputs.py)


# a post's record text in posts.json: `dump_record` of `post_record`, or one kept by its
# version and `site_key` (render/outputs.py Parts.post_record)
PostText = Callable[[Entry, str, urls.UrlBuilder], str]


def posts_json(
    site: Site,
    lang: str,
    url: urls.UrlBuilder,
    dump: Dump = dump_record,
    text: PostText | None = None,
) -> str:
    return join_records([text for _, text in post_records(site, lang, url, dump, text)])


def post_records(
    site: Site,
    lang: str,
    url: urls.UrlBuilder,
    dump: Dump = dump_record,
    text: PostText | None = None,
) -> list[tuple[str, str]]:
    """posts.json as (entry key, record text) pairs in file order (`join_records` joins them):
    each `text(entry, lang, url)`, else `dump` of its `post_record`."""
    if text is not None:
        return [(entry.key, text(entry, lang, url)) for entry in site.posts(lang)]
    return [(entry.key, dump(post_record(entry, lang, url))) for entry in site.posts(lang)]


def site_key(url: urls.UrlBuilder) -> tuple[object, ...]:
    """Every value of the site `post_record` reads: its URL. The rest is the post's version
    (pair/model.py `version_key`): a record is kept by both (render/outputs.py
    Parts.post_record), worked out without making the record (a third of its cost)."""
    return (url.base_url,)


def post_record(entry: Entry, lang: str, url: urls.UrlBuilder) -> dict[str, Any]:
    """One post's record in posts.json: the fields of PostApiEntry, in its order (tests
    validate the output against it)."""
    version = entry.versions[lang]
    doc = version.doc
    return {
        "slug": entry.slug,
        "title": doc.meta.title,
        "description": doc.meta.description or "",
        "date": format_iso(entry.date) if entry.date else "",
        "updated": format_iso(entry.updated) if entry.updated else None,
        "tags": tags_of(entry, lang),
        "series": doc.meta.series,
        "url": url.absolute(urls.post(lang, entry.slug)),
        "lang": doc.lang,
        "translation": version.state,
    }


def unit_states(site: Site, lang: str) -> list[dict[str, Any]]:
    """The records of status.json: the fields of StatusApiEntry, in its order."""
    status = site.status.get(lang)
    return [unit_record(unit, status) for unit in status_units(site, lang)]


def status_units(site: Site, lang: str) -> list[Unit]:
    """The units status.json of `lang` lists, in its order (by key): not those of a draft
    there (`drafts`)."""
    hidden = drafts(site, [lang])[lang]
    return sorted(
        [u for u in site.units if u.target_lang == lang and not _of(u, hidden)],
        key=attrgetter("key"),
    )


def drafts(site: Site, langs: Iterable[str]) -> dict[str, frozenset[str]]:
    """By language, the entries (`kind/key`) a draft there: not published, so status.json
    does not name their units either (it listed them: the key of every unpublished post)."""
    out: dict[str, frozenset[str]] = {}
    for lang in langs:
        # (what is shown, as the listings have it: Site.posts is kept; an entry's documents'
        # front matter is not looked at again, only an omitted translation's source's)
        shown = {id(e) for e in site.posts(lang)}
        shown.update(id(e) for e in site.pages(lang))
        hidden = [
            f"{e.kind}/{e.key}"
            for e in site.entries
            if id(e) not in shown and (lang in e.versions or e.source.meta.draft)
        ]
        out[lang] = frozenset(hidden)
    return out


def _of(unit: Unit, entries: frozenset[str]) -> bool:
    """Whether `unit` is a unit of one of `entries` (`kind/key`: its key's part before the
    field's name)."""
    return bool(entries) and unit.key.rpartition(":")[0] in entries


def unit_record(unit: Unit, status: StatusFile | None) -> dict[str, Any]:
    """One unit's record in its target language's status.json."""
    rec = status.records.get(unit.key) if status else None
    if unit.translation is None:
        state = "missing"
    elif rec is None:
        state = "untracked"
    elif rec.source_hash != unit.source_hash:
        state = "stale"
    elif _edited(rec, unit):
        state = "edited"
    else:
        state = rec.state
    return {
        "key": unit.key,
        "state": state,
        "machine_draft": unit.translation is not None and rec is not None and rec.state == "draft",
    }


def _edited(rec: StatusRecord, unit: Unit) -> bool:
    """Whether a reviewed translation changed after its review (`bipub check`: `edited`)."""
    return (
        rec.state == "reviewed"
        and rec.translation_hash is not None
        and rec.translation_hash != unit.translation_hash
    )


def _recorded(rec: StatusRecord, unit: Unit) -> tuple[str, str]:
    """The state (as JSON) and `machine_draft` of a translated unit with a record, as
    `unit_record` says them (`status_texts`, `status_texts_of`)."""
    draft = "true" if rec.state == "draft" else "false"
    if rec.source_hash != unit.source_hash:
        return '"stale"', draft
    if _edited(rec, unit):
        return '"edited"', draft
    return _encode_str(rec.state), draft


def status_records(site: Site, lang: str) -> list[tuple[str, str]]:
    """status.json as (unit key, record text) pairs in file order (`status_json` joins them)."""
    return [(record["key"], status_text(record)) for record in unit_states(site, lang)]


def status_text(record: dict[str, Any]) -> str:
    """`dump_record` of a `unit_record`, written as such (a big site's status.json has tens of
    thousands, made again at every build: a third of the time; tests/unit/test_status_text.py
    checks it against dump_record)."""
    draft = "true" if record["machine_draft"] else "false"
    key, state = _encode_str(record["key"]), _encode_str(record["state"])
    return f'{{\n    "key": {key},\n    "state": {state},\n    "machine_draft": {draft}\n  }}'


def status_texts(units: list[Unit], status: StatusFile | None) -> list[str]:
    """`status_text` of each unit's `unit_record`, in one pass without the records (a big
    site has tens of thousands of units, made again at every build: tests/unit/
    test_status_text.py checks it against status_text and unit_record)."""
    records: dict[str, StatusRecord] = status.records if status is not None else {}
    get = records.get
    encode = _encode_str
    out: list[str] = []
    append = out.append
    for unit in units:
        key = unit.key
        if not unit.translated:  # (its text unread: sliced when asked, pair/units.py)
            state, draft = '"missing"', "false"
        else:
            rec = get(key)
            if rec is None:
                state, draft = '"untracked"', "false"
            else:
                state, draft = _recorded(rec, unit)
        append(
            f'{{\n    "key": {encode(key)},\n    "state": {state},\n    "machine_draft": {draft}\n  }}'
        )
    return out


def status_texts_of(
    units: Iterable[Unit],
    status: Mapping[str, StatusFile],
    langs: Iterable[str],
    hidden: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, list[str]]:
    """`status_texts` of each of `langs`' `status_units`, by language, in one pass over the
    site's units (each unit looked at once: ~30,000 units of a big site, made again at every
    build), sorted by key as `status_units` sorts them (tests/unit/test_status_text.py);
    `hidden`: by language, the entries whose units are left out (`drafts`)."""
    found: dict[str, list[tuple[str, str]]] = {lang: [] for lang in langs}
    records = {lang: status[lang].records if lang in status else {} for lang in found}
    left_out = {lang: names for lang, names in (hidden or {}).items() if names}
    encode = _encode_str
    for unit in units:
        out = found.get(unit.target_lang)
        if out is None:
            continue
        key = unit.key
        if left_out and (drafted := left_out.get(unit.target_lang)) and _of(unit, drafted):
            continue
        if not unit.translated:  # (as status_texts)
            state, draft = '"missing"', "false"
        else:
            rec = records[unit.target_lang].get(key)
            if rec is None:
                state, draft = '"untracked"', "false"
            else:
                state, draft = _recorded(rec, unit)
        out.append(
            (
                key,
                f'{{\n    "key": {encode(key)},\n    "state": {state},\n    "machine_draft": {draft}\n  }}',
            )
        )
    by_key = itemgetter(0)
    return {lang: [text for _, text in sorted(out, key=by_key)] for lang, out in found.items()}


def status_json(records: list[tuple[str, str]]) -> str:
    return join_records([text for _, text in records])


def _drop_id(schema: dict[str, Any]) -> dict[str, Any]:
    for definition in schema.get("$defs", {}).values():
        for key in OWN_KEYS:
            definition.get("properties", {}).pop(key, None)
    for key in OWN_KEYS:
        schema.get("properties", {}).pop(key, None)
    return schema


def schemas() -> dict[str, str]:
    """The JSON schemas of the API (worked out once per process: they depend only on the
    models and on pydantic, which takes ~10 ms to make them: `shipped_schemas` first)."""
    return dict(_schemas())


@functools.cache
def _schemas() -> tuple[tuple[str, str], ...]:
    shipped = shipped_schemas()
    return shipped if shipped is not None else made_schemas()


# The schemas as `made_schemas` writes them, with the versions of pydantic that made them
# (tests/unit/test_api_schemas.py checks that they are what pydantic makes of the models now;
# `pytest --update-golden` writes the file again)
SHIPPED_SCHEMAS = Path(__file__).with_name("api_schemas.json")


def pydantic_versions() -> dict[str, str]:
    """The installed pydantic and pydantic-core versions (what makes the schemas)."""
    return {"pydantic": pydantic.VERSION, "pydantic-core": pydantic_core.__version__}


def shipped_schemas(path: Path = SHIPPED_SCHEMAS) -> tuple[tuple[str, str], ...] | None:
    """The schemas bipub ships in `path`, if they were made by the pydantic installed (else
    None: they are made again, `made_schemas`, the same way)."""
    try:
        shipped = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # (a broken install: the schemas are made as without it)
        return None
    if not isinstance(shipped, dict) or shipped.get("made_by") != pydantic_versions():
        return None
    files = shipped.get("files")
    if not isinstance(files, dict) or not all(isinstance(t, str) for t in files.values()):
        return None
    return tuple((str(name), text) for name, text in files.items())


def schemas_note() -> str:
    """For `bipub -v`: that this process made the schemas with pydantic because those bipub
    ships were made by other versions of it (or could not be read), else ""."""
    if _schemas.cache_info().currsize == 0 or shipped_schemas() is not None:
        return ""
    versions = ", ".join(f"{name} {v}" for name, v in pydantic_versions().items())
    return (
        f"the JSON API schemas bipub ships ({SHIPPED_SCHEMAS.name}) were not made by the "
        f"installed {versions}: made again by it (~10 ms)"
    )


def shipped_file(made: tuple[tuple[str, str], ...]) -> str:
    """What `SHIPPED_SCHEMAS` holds for the schemas `made` by the pydantic installed."""
    return dumps({"made_by": pydantic_versions(), "files": dict(made)})


def made_schemas() -> tuple[tuple[str, str], ...]:
    """The schemas as pydantic makes them of the models now."""
    from bipub.model.cv import CV  # (a build without a CV does not load the CV models)

    cv = _drop_id(CV.model_json_schema(mode="serialization"))
    cv["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    posts = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "items": PostApiEntry.model_json_schema(),
    }
    status = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "items": StatusApiEntry.model_json_schema(),
    }
    return (
        ("cv.schema.json", dumps(cv)),
        ("posts.schema.json", dumps(posts)),
        ("status.schema.json", dumps(status)),
    )
