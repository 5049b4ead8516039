"""bipub.yaml: the site configuration, validated with pydantic. Unknown keys are errors."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    PrivateAttr,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from bipub.codes import CODES
from bipub.diagnostics import ConfigError, Diagnostic
from bipub.load.text import TextDecodeError, read_text
from bipub.load.yaml_strict import YamlError, load_yaml
from bipub.model.fields import Strict, slugify
from bipub.model.validate import validation_diagnostics
from bipub.schedule import DEFAULT_ZONE, zone_of

CONFIG_FILE = "bipub.yaml"
_LANG = re.compile(r"^[a-z]{2,3}(?:-[A-Z]{2})?$")


def _lang_code(value: str) -> str:
    if not _LANG.match(value):
        raise ValueError(f"{value!r} is not a language code such as 'ko' or 'en'")
    return value


LangCode = Annotated[StrictStr, AfterValidator(_lang_code)]


def _diagnostic_code(value: str) -> str:
    if value not in CODES:
        close = difflib.get_close_matches(value, list(CODES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else " (`bipub explain` lists them)"
        raise ValueError(f"unknown diagnostic code {value!r}{hint}")
    return value


def _time_zone(value: str) -> str:
    zone_of(value)  # (raises ValueError: said as a config error)
    return value


DiagnosticCode = Annotated[StrictStr, AfterValidator(_diagnostic_code)]
Level = Literal["error", "warning", "off"]


class Language(Strict):
    code: LangCode
    name: StrictStr
    title: StrictStr
    description: StrictStr = ""


class Author(Strict):
    name: StrictStr
    email: StrictStr | None = None
    url: StrictStr | None = None


class SourceLanguages(Strict):
    """Which language each content kind is written in first (its translations derive from it)."""

    cv: LangCode = "en"
    pages: LangCode = "en"
    posts: LangCode = "ko"


class Outputs(Strict):
    untranslated: Literal["show", "omit"] = Field(
        "show",
        description="A post missing in a language: 'show' the source with a notice, or 'omit' it.",
    )
    publish_drafts: StrictBool = Field(
        True,
        description="Show machine drafts with a notice (true) or show the source instead (false).",
    )
    publish_future: StrictBool = Field(  # session 33 (bipub/schedule.py)
        False,
        description="Publish posts dated in the future at once (true), or hold each back until "
        "its date (false: `bipub build --future` publishes them for one build).",
    )
    raw_html: StrictBool = Field(False, description="Allow raw HTML in Markdown.")
    latest_posts: StrictInt = Field(5, ge=0, le=1000, description="Posts listed on the home page.")
    archive: StrictBool = Field(  # session 34 (render/archive.py)
        True,
        description="A page per language listing every post it lists, by year (/<lang>/blog/archive/).",
    )
    search: StrictBool = Field(
        True,
        description="A search page and index per language (Pagefind; Korean stems from Kiwi).",
    )
    side_by_side: StrictBool = Field(  # issue 19 (render/both.py)
        True,
        description="A side-by-side page (and, for PDF posts, a bilingual PDF) for every post "
        "shown in two languages in its own text.",
    )
    search_shard_pages: StrictInt = Field(
        400,
        ge=1,
        le=100_000,
        description="Pages per search-index shard: a build makes again only the shards whose "
        "pages changed.",
    )


def _short_section(name: str) -> str:
    from bipub.model.cv import SHORT_HEADER, short_sections

    if name in SHORT_HEADER:
        raise ValueError(
            f"{name!r} is always in the short CV (its header: {', '.join(SHORT_HEADER)}); "
            "list only the sections after it"
        )
    known = short_sections()
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ValueError(f"{name!r} is not a CV section ({hint}sections: {', '.join(known)})")
    return name


ShortSection = Annotated[StrictStr, AfterValidator(_short_section)]


class ShortCv(Strict):
    """The short CV PDFs, cv-<lang>-short.pdf (issue 18; render/pdf/short.py)."""

    enabled: StrictBool | None = Field(
        None,
        description="Build the short CV PDFs (default: when cv.yaml marks an item `short: "
        "true` or `sections` is given).",
    )
    sections: list[ShortSection] = Field(
        ["summary"],
        description="CV sections shown in full in the short CV (items marked `short: false` "
        "aside); items marked `short: true` are shown wherever they are.",
    )
    pages: StrictInt = Field(
        2, ge=1, le=50, description="The short CV's page budget: more pages is a warning."
    )

    @field_validator("sections")
    @classmethod
    def _sections(cls, value: list[str]) -> list[str]:
        twice = sorted({name for name in value if value.count(name) > 1})
        if twice:
            raise ValueError(f"listed twice: {', '.join(twice)}")
        return value

    def wanted(self, marked: bool) -> bool:
        """Whether the short CV PDFs are built; `marked`: the CV marks an item `short: true`."""
        if self.enabled is not None:
            return self.enabled
        return marked or "sections" in self.model_fields_set


class ImageOptions(Strict):
    """Issue 19: resized variants of the local images (pair/images.py, render/images.py)."""

    widths: list[Annotated[StrictInt, Field(ge=16, le=8192)]] = Field(
        [480, 960, 1440],
        max_length=12,
        description="Widths (px) of the resized variants of a Markdown image (none wider "
        "than the image); [] for none.",
    )
    formats: list[Literal["avif", "webp"]] = Field(
        ["avif", "webp"],
        description="Variant formats, best first (avif only where Pillow can write it).",
    )
    quality: StrictInt = Field(80, ge=1, le=100, description="Encoder quality of the variants.")
    sizes: StrictStr = Field(
        "(max-width: 46rem) 100vw, 46rem",
        description="The `sizes` of a Markdown image's srcset: how wide the theme shows it.",
    )


class PdfOptions(Strict):
    page_size: Literal["A4", "Letter"] = "A4"
    fonts: list[StrictStr] = ["Noto Sans CJK KR", "NanumGothic"]
    # PDF output (issue 5, render/pdf.py): font files, code font, posts as PDF.
    font_file: StrictStr | None = Field(
        None, description="A .ttf/.otf in the project used instead of `fonts`."
    )
    bold_font_file: StrictStr | None = Field(None, description="Its bold face (.ttf/.otf).")
    mono_fonts: list[StrictStr] = ["Noto Sans Mono CJK KR", "DejaVu Sans Mono"]
    posts: StrictBool = Field(
        False, description="Every post also as PDF; front matter `pdf:` overrides per post."
    )
    highlight_untranslated: StrictBool = Field(  # issue 18
        True,
        description="Highlight untranslated CV text in yellow in the PDFs (the notice line "
        "stays either way; the web pages always highlight).",
    )
    short: ShortCv = ShortCv()  # issue 18: the short CV PDFs


class CheckIgnore(Strict):
    """Silence findings of `bipub check` for units matching a key glob or a file glob."""

    code: StrictStr | None = Field(None, description="Finding code to silence (all when omitted).")
    key: StrictStr | None = Field(None, description="Unit key glob, e.g. 'cv:stats*'.")
    file: StrictStr | None = Field(None, description="File glob, e.g. 'content/en/pages/*.md'.")
    reason: StrictStr = Field(min_length=1, description="Why the findings are acceptable.")

    @model_validator(mode="after")
    def _target(self) -> CheckIgnore:
        if self.key is None and self.file is None:
            raise ValueError("an ignore needs 'key' or 'file' (a glob)")
        return self


class CheckOptions(Strict):
    """`bipub check`: per-code severity, ignores, texts allowed to stay untranslated."""

    severity: dict[StrictStr, Level] = {}
    ignore: list[CheckIgnore] = []
    allow_untranslated: list[StrictStr] = []
    _diagnostics: dict[str, Level] = PrivateAttr(default_factory=dict)  # SiteConfig.diagnostics

    @property
    def overrides(self) -> dict[str, Level]:
        """The level of each code for `bipub check`: `diagnostics:`, then `check.severity:`."""
        return {**self._diagnostics, **self.severity}


class TranslateOptions(Strict):
    """`bipub translate`: how machine drafts are requested from DeepL (bipub/translate/)."""

    formality: Literal["default", "more", "less", "prefer_more", "prefer_less"] = Field(
        "default",
        description="DeepL formality. Korean and English have none: more/less are sent as "
        "prefer_more/prefer_less, which DeepL ignores there.",
    )
    context: StrictStr | None = Field(
        None, description="Text that guides every translation (not translated, not billed)."
    )
    model_type: (
        Literal["quality_optimized", "latency_optimized", "prefer_quality_optimized"] | None
    ) = Field(None, description="DeepL model type (default: DeepL's choice).")
    glossary: StrictBool = Field(
        True, description="Sync glossary.yaml to a DeepL glossary and apply it to every request."
    )
    english: Literal["EN-US", "EN-GB"] = Field("EN-US", description="English variant of drafts.")


class Limits(Strict):
    """Bounds on what one input may ask of a build (the work and the size of the site grow
    with them): going over one is an error naming the file and line."""

    tags_per_post: StrictInt = Field(
        30, ge=1, le=100_000, description="Tags one post may have (each has a page of its own)."
    )


class PrivateField(Strict):
    """A CV field kept out of the public outputs (issue 18)."""

    path: StrictStr = Field(description="Dotted CV path, e.g. 'contact.phone'.")
    pdf_only: StrictBool = Field(
        False, description="Keep it in the CV PDFs (it stays out of HTML, JSON and llms.txt)."
    )


def check_cv_path(path: str) -> str:
    """A dotted path of CV fields (`contact.phone`, `experience.location`: a list's field
    means that field of every item)."""
    from bipub.model.cv import CV
    from bipub.model.fields import field_kind

    model: type[BaseModel] | None = CV
    for i, name in enumerate(path.split(".")):
        if model is None or name not in model.model_fields:
            where = ".".join(path.split(".")[:i]) or "the CV"
            known = ", ".join(sorted(model.model_fields)) if model is not None else "none"
            raise ValueError(f"{path!r}: {where} has no field {name!r} (fields: {known})")
        _, model = field_kind(model, name)
    if path == "name":
        raise ValueError("'name' cannot be private (every page shows it)")
    return path


class SiteConfig(Strict):
    languages: list[Language] = Field(min_length=2)
    default_language: LangCode
    base_url: StrictStr
    author: Author
    source_languages: SourceLanguages = SourceLanguages()
    posts_per_page: StrictInt = Field(10, ge=1, le=1000)
    outputs: Outputs = Outputs()
    limits: Limits = Limits()
    pdf: PdfOptions = PdfOptions()
    images: ImageOptions = ImageOptions()
    check: CheckOptions = CheckOptions()
    translate: TranslateOptions = TranslateOptions()
    diagnostics: dict[DiagnosticCode, Level] = Field(
        {},
        description="Per diagnostic code: error, warning or off (bipub/codes.py; `bipub explain`). "
        "Applies to build, serve and check; `check.severity` wins for `bipub check`.",
    )
    # --- issue 18 (real content): tag spellings, home page, private fields, PDF highlight ---
    home: Literal["cv", "blog"] = Field(
        "cv",
        description="The home page: the CV (with the latest posts near its top), or the blog "
        "(the latest posts under a short CV summary; the full CV at /<lang>/cv/).",
    )
    private_fields: list[StrictStr | PrivateField] = Field(
        [],
        description="CV fields kept out of the public outputs (HTML, JSON API, llms.txt; the "
        "PDFs too unless pdf_only). Without this every CV field, phone included, is public.",
    )
    tag_spellings: list[StrictStr] = Field(
        [],
        description="The spelling each listed tag is shown with (`torch.compile` over "
        "`torch-compile`): one entry per tag, matched by its URL slug.",
    )
    time_zone: Annotated[StrictStr, AfterValidator(_time_zone)] = Field(  # session 33
        DEFAULT_ZONE,
        description="The zone a post's plain `date` (YYYY-MM-DD) begins in, for publishing it "
        "on that day: an offset ('+09:00', 'UTC') or an IANA name ('Asia/Seoul').",
    )

    @model_validator(mode="after")
    def _check(self) -> SiteConfig:
        for code, level in self.diagnostics.items():
            if level != "error" and not CODES[code].can_silence:
                raise ValueError(
                    f"diagnostics: {code!r} is always an error; it can not be set to {level}"
                )
        self.check._diagnostics = dict(self.diagnostics)
        codes = [lang.code for lang in self.languages]
        if len(set(codes)) != len(codes):
            raise ValueError(f"languages: duplicate language codes in {codes}")
        for required in ("ko", "en"):
            if required not in codes:
                raise ValueError(f"languages: must include {required!r} (has {codes})")
        if self.default_language not in codes:
            raise ValueError(f"default_language {self.default_language!r} is not in languages")
        for kind, code in self.source_languages.model_dump().items():
            if code not in codes:
                raise ValueError(f"source_languages.{kind}: {code!r} is not in languages")
        if not re.match(r"^https?://[^\s/]+(/.*)?$", self.base_url):
            raise ValueError(f"base_url {self.base_url!r} must be an absolute http(s) URL")
        return self

    @field_validator("private_fields")
    @classmethod
    def _private_fields(cls, value: list[str | PrivateField]) -> list[str | PrivateField]:
        for item in value:
            check_cv_path(item if isinstance(item, str) else item.path)
        return value

    def private_paths(self) -> dict[str, bool]:
        """Each private CV path → whether the PDFs keep it (pdf_only)."""
        return {
            (item if isinstance(item, str) else item.path): (
                not isinstance(item, str) and item.pdf_only
            )
            for item in self.private_fields
        }

    @field_validator("tag_spellings")
    @classmethod
    def _tag_spellings(cls, value: list[str]) -> list[str]:
        seen: dict[str, str] = {}
        for spelling in value:
            slug = slugify(spelling)
            if not slug:
                raise ValueError(f"{spelling!r} is empty")
            if slug in seen:
                raise ValueError(
                    f"{seen[slug]!r} and {spelling!r} are the same tag ('{slug}'); keep one"
                )
            seen[slug] = spelling
        return value

    def preferred_tag(self, slug: str) -> str | None:
        """The spelling bipub.yaml `tag_spellings` names for the tag `slug`, if any."""
        for spelling in self.tag_spellings:
            if slugify(spelling) == slug:
                return spelling
        return None

    @property
    def codes(self) -> list[str]:
        return [lang.code for lang in self.languages]

    def language(self, code: str) -> Language:
        for lang in self.languages:
            if lang.code == code:
                return lang
        raise KeyError(code)

    @property
    def site_url(self) -> str:
        return self.base_url.rstrip("/") + "/"


def load_config(root: Path) -> SiteConfig:
    """Read and validate ROOT/bipub.yaml. Any problem raises ConfigError (exit code 2)."""
    path = root / CONFIG_FILE
    if not path.is_file():
        raise ConfigError(
            [
                Diagnostic(
                    CONFIG_FILE, None, "config", f"no {CONFIG_FILE} in {root} (run 'bipub init')"
                )
            ]
        )
    try:
        doc = load_yaml(read_text(path, CONFIG_FILE), CONFIG_FILE)
    except TextDecodeError as exc:
        raise ConfigError([exc.diagnostic]) from None
    except YamlError as exc:
        raise ConfigError(exc.diagnostics) from None
    if not isinstance(doc.data, dict):
        raise ConfigError([Diagnostic(CONFIG_FILE, 1, "config", "bipub.yaml must be a mapping")])
    try:
        return SiteConfig.model_validate(doc.data)
    except ValidationError as exc:
        raise ConfigError(
            validation_diagnostics(exc, doc, CONFIG_FILE, code="config", model=SiteConfig)
        ) from None
