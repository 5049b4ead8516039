"""The CV: the shape of the CV JSON API, field for field (names are a public contract).

Each field is declared `Text` (translated) or `Shared` (taken from the source language). `id` on a
list item is bipub's own pairing key and never appears in the JSON API.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import StrictFloat, StrictInt, StrictStr

from bipub.model.fields import ListItem, Shared, SharedBool, SharedInt, Strict, Text

Figure = StrictStr | StrictInt | StrictFloat


class Link(ListItem):
    identity: ClassVar[tuple[str, ...]] = ("url",)
    label: Text
    url: Shared


class Stat(ListItem):
    identity: ClassVar[tuple[str, ...]] = ("url",)
    number: Figure | None = None  # shared figure such as "2.4×" or 157
    label: Text | None = None
    context: Text | None = None
    url: Shared | None = None


class Highlight(ListItem):
    label: Text | None = None
    text: Text | None = None


class Education(ListItem):
    institution: Text | None = None
    location: Text | None = None
    degrees: list[Text] = []
    period: Text | None = None
    gpa: Figure | None = None


class Breakdown(Strict):
    problem: Text | None = None
    cause: Text | None = None
    fix: list[Text] = []
    result: list[Text] = []


class Detail(ListItem):
    title: Text | None = None
    headline: Text | None = None
    breakdown: Breakdown | None = None


class Experience(ListItem):
    identity: ClassVar[tuple[str, ...]] = ("company",)
    company: Shared | None = None
    location: Text | None = None
    position: Text | None = None
    period: Text | None = None
    logo: Shared | None = None
    logoPadding: Shared | SharedInt | None = None
    internship: SharedBool | None = None
    achievements: list[Text] = []
    tags: list[Shared] = []
    details: list[Detail] = []


class Skill(ListItem):
    category: Text | None = None
    icon: Shared | None = None
    items: list[Text] = []


class Award(ListItem):
    title: Text | None = None
    organization: Text | None = None
    year: SharedInt | Shared | None = None
    description: Text | None = None
    image: Shared | None = None


class Contact(Strict):
    email: Shared | None = None
    phone: Shared | None = None
    location: Text | None = None
    linkedin: Shared | None = None
    github: Shared | None = None


class SpotlightEntry(ListItem):
    identity: ClassVar[tuple[str, ...]] = ("url", "ref")
    ref: Shared | None = None
    url: Shared | None = None
    text: Text | None = None


class OpenSourceSpotlight(Strict):
    eyebrow: Text | None = None
    project: Shared | None = None
    projectUrl: Shared | None = None
    role: Text | None = None
    badge: Text | None = None
    lead: Text | None = None
    entries: list[SpotlightEntry] = []
    links: list[Link] = []


class Contribution(ListItem):
    title: Text | None = None
    period: Text | None = None
    refs: list[Shared] = []
    status: Text | None = None
    problem: Text | None = None
    cause: Text | None = None
    fix: list[Text] = []
    result: list[Text] = []
    next: Text | None = None
    links: list[Link] = []


class OpenSource(ListItem):
    identity: ClassVar[tuple[str, ...]] = ("repo", "project")
    project: Shared | None = None
    repo: Shared | None = None
    summary: Text | None = None
    role: Text | None = None
    contributions: list[Contribution] = []


class Project(ListItem):
    identity: ClassVar[tuple[str, ...]] = ("name",)
    name: Shared | None = None
    period: Text | None = None
    summary: Text | None = None
    highlights: list[Text] = []
    stack: list[Shared] = []
    links: list[Link] = []


class CV(Strict):
    name: Shared
    nameKo: Shared | None = None
    title: Text | None = None
    summary: Text | None = None
    stats: list[Stat] = []
    highlights: list[Highlight] = []
    education: list[Education] = []
    certifications: list[Text] = []
    languages: list[Text] = []
    experience: list[Experience] = []
    skills: list[Skill] = []
    awards: list[Award] = []
    contact: Contact | None = None
    openSourceSpotlight: OpenSourceSpotlight | None = None
    openSource: list[OpenSource] = []
    projects: list[Project] = []


# The short CV PDF (issue 18; render/pdf/short.py): the header is always in it; these are the
# names bipub.yaml `pdf.short.sections` may list — the top-level sections, and the case
# studies, which a short edition leaves out unless listed or marked `short: true`.
SHORT_HEADER = ("name", "nameKo", "title", "contact")
SHORT_CASE_STUDIES = ("experience.details", "openSource.contributions")


def short_sections() -> list[str]:
    """Every name `pdf.short.sections` accepts, in the CV's order."""
    return [name for name in CV.model_fields if name not in SHORT_HEADER] + list(SHORT_CASE_STUDIES)
