"""Every diagnostic code bipub can report, declared once: default severity, stage, one-line meaning.

Each `Diagnostic` (bipub/diagnostics.py) and `Finding` (check/findings.py) carries one of these
codes. The CLI prints it after the message (`... [tag-spellings]`), `bipub explain CODE` prints the
line below, and `bipub.yaml` can change how a code is reported:

    diagnostics:                 # build, serve and check
      tag-spellings: off         # off | warning | error
      code-language: error

An error stays an error: only the *warnings* of a code can be silenced (`off`) or kept as warnings;
any code can be made an error. Declaring a new code is one line in `_TABLE`
(tests/unit/test_codes.py fails when src/bipub uses a code that is not declared here).

Severities: E = an error (the run fails, nothing is written); W = a warning; Q = a QA finding of a
translation, an error on reviewed or human text and a warning on an unreviewed machine draft.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Default = Literal["error", "warning", "qa"]
E: Final = "error"
W: Final = "warning"
Q: Final = "qa"


@dataclass(frozen=True)
class Code:
    name: str
    default: Default  # "qa": an error on reviewed text, a warning on a machine draft
    stage: str  # where it is found: config, load, pair, check, render, pdf, write, translate, ...
    summary: str  # one line: what it means and what to do

    @property
    def can_silence(self) -> bool:
        """Only a code that is reported as a warning (by default or on drafts) can be `off`."""
        return self.default != E


# one line per code
# fmt: off
_TABLE: tuple[tuple[str, Default, str, str], ...] = (
    # --- invocation, configuration and the output folder
    ("usage", E, "cli", "A command-line option names something that does not exist (a language, a site folder)."),
    ("config", E, "config", "bipub.yaml is missing, not a mapping, or has an unknown or invalid key."),
    ("busy", E, "write", "Another bipub process is writing the same output folder; run again when it is done."),
    ("output-clash", E, "write", "Two sources would write the same output file; rename one of them."),
    ("output-folder", E, "write", "The output folder is not bipub's (no marker), is the project root, or holds or is inside an input; pick another --out."),
    ("write-failed", E, "write", "The output could not be written (disk full, permissions); the output folder is as it was."),
    ("report-not-written", E, "write", "The report file named with -o/--output could not be written (no such folder, no permission, disk full); the check itself ran, and nothing else changed."),
    ("lock-taken-over", W, "write", "The output lock was held by a process that no longer exists; bipub took it over."),
    ("cache-not-saved", W, "write", "A cache or record could not be saved (the site or the check's result is complete and correct); the next build or check does that work again. The message names the file and the error."),
    ("tag-limit", E, "pair", "A post has more tags than limits.tags_per_post in bipub.yaml allows."),
    # --- reading files
    ("encoding", E, "load", "A file is not valid UTF-8; save it as UTF-8."),
    ("yaml", E, "load", "A YAML file cannot be parsed or uses a refused feature (duplicate keys, aliases, tags, too deep)."),
    ("front-matter", E, "load", "A post or page has no front matter, or it is not a YAML mapping between '---' lines."),
    ("schema", E, "load", "A field of the CV or the front matter is unknown, missing or of the wrong type."),
    ("content", E, "load", "content/ is missing or holds a folder that is not a language of bipub.yaml."),
    ("symlink", E, "load", "A symbolic link inside content/ (bipub does not follow links)."),
    ("ignored-file", W, "load", "A file in content/<lang>/posts or pages that is not .md is ignored."),
    ("status", E, "load", "A status/<lang>.yaml record is invalid, or names a unit that does not exist."),
    ("catalog", E, "load", "A gettext catalog (.po/.pot) is missing or cannot be read."),
    # --- pairing source and translations
    ("duplicate", E, "pair", "Two files of one language share a pair key (front matter `key` or file name)."),
    ("missing-source", E, "pair", "A translation has no source-language version to pair with."),
    ("source-lang", E, "pair", "Versions of a post disagree on `source_lang`, or it names no language of the site."),
    ("shared-differs", W, "pair", "A shared (untranslated) field differs from the source; the source value is used."),
    ("list-length", W, "pair", "A CV list has a different number of items than the source; items pair by position."),
    ("sections-out-of-step", W, "pair", "A translation's body sections no longer pair by position with its source's (a section inserted, removed or moved)."),
    ("pairing", W, "pair", "CV list items are paired by position; add the identifying field so reordering cannot mismatch them."),
    ("slug", E, "pair", "A slug is not a single safe path segment, or is one of the site's own names (index.html, feed.xml, blog, ...)."),
    ("url-clash", E, "pair", "Two pages map to the same URL (an alias of a post or page counts as a page: front matter `aliases`)."),
    ("alias", E, "pair", "An alias (front matter `aliases`) of a post or page is not under a language folder of its file's pages: a Korean file's aliases are /ko/ URLs (the source's may also be those of a language without a file of the post, whose page shows the source, or outside the language folders, but not in /api/, /assets/, /pdf/ or /_img/)."),
    ("url-removed", W, "write", "A page that the last build into this output folder published is gone in this build and no alias covers it: old links to it break. A post's or page's page (file renamed, slug changed, post deleted or held back): the message names the `aliases:` line to add, and where, when the post still exists under a new URL, or the renamed file when it can tell (the one new post, or the one that is the old file moved), else that it cannot. A tag's page (its last post retagged or gone: said at that post), a tag's or the blog's page past the new last one, a series' page (renamed: its new URL), a post's side-by-side page (said with its post when that goes too), a redirect page whose alias was taken out: what removed it; bipub writes no redirect for a tag's, series' or list page (a host's redirect rule can keep it). Said by the build that removes the URL, not repeated by the builds after it."),
    ("series-names", W, "pair", "A post names its series otherwise than the name the series shows in that language (its first part's); that name is shown nowhere."),
    ("series-clash", W, "pair", "Two series' names make the same URL in a language; the one begun later (its earliest post) gets a numbered one (series/<slug>-2/), so an older series' URL never moves."),
    ("tag", E, "pair", "A tag of a post is empty (or becomes empty as a URL)."),
    ("tag-spellings", W, "pair", "Several spellings of a tag become one page; the most used spelling is shown."),
    ("title-prefix", W, "pair", "The bracketed title prefixes of a language's posts differ only in case ([vllm] / [vLLM]); the message names the posts that differ from most."),
    ("missing-asset", E, "pair", "A CV logo or award image, or a Markdown image, names a local file that does not exist (an error since issue 19)."),
    ("image-unreadable", E, "pair", "A CV or Markdown image names a local file that cannot be read as an image (corrupt, truncated, not an image); fix or replace the file."),
    ("image-format", W, "pair", "bipub.yaml images.formats names a format this Pillow cannot write (AVIF needs Pillow with libavif); those variants are not made."),
    ("scheduled-link", W, "build", "A published post or page links to a post (or a page) dated after the build's \"now\" (scheduled: not published until a build runs after its date). The page keeps the link, which leads nowhere until then; the warning names the file and line that write it, the post and when it is published. Said by build, serve, `bipub check` and `bipub check --links` (instead of a broken `link`)."),
    ("translation-state", W, "build", "Pages shown with a notice because their translation is missing, a draft or stale."),
    # --- rendering
    ("template", E, "render", "A Jinja2 template has a syntax error, is missing, or failed while rendering."),
    ("code-language", W, "render", "A code block names a language Pygments does not know; it is shown unhighlighted."),
    ("code-info", W, "render", "A code block's info string names something bipub ignores after the language: an unknown attribute (`linenums=\"1\"`: no line numbers are shown), a malformed line range, a line past the block's end, a second title. Accepted: `title=\"app.py\"`, `{1,3-5}`, `hl_lines=\"1 3-5\"`."),
    ("html-text", W, "render", "With raw HTML off (outputs.raw_html: false), a body shows an HTML tag as text (`<details>`, a `<br>` in a table cell): write it in Markdown, put it in code, or turn raw HTML on."),
    ("emphasis-text", W, "render", "A body shows `**` or `~~` as text: emphasis that does not open or close (a space just inside its markers, or punctuation just inside them with a letter just outside, as in `**'인용'**를`: write `'**인용**'를`)."),
    ("alert-unknown", W, "render", "A quote starts with a line written as a GitHub alert marker that names no alert kind (`> [!NOTICE]`, `> [!WARN]`): it is shown as text in a quote, as GitHub shows it. The kinds: NOTE, TIP, IMPORTANT, WARNING, CAUTION."),
    ("url-particle", W, "render", "A bare URL ends in Hangul that may be a Korean particle glued to it (`https://ko.wikipedia.org/wiki/트랜스포머를`): it is linked whole, as GitHub links it. If the particle is not part of the URL, write `<https://…>` or a space before the particle (a URL followed by exactly a particle, `…/latest/에서`, ends before it without a warning)."),
    ("heading-id", W, "render", "A heading's trailing `{#…}` or `{.…}` that bipub does not read as its id (`{#결론}`, `{.class}`, `{#a .b}`: an id is `{#id}`, a letter then letters, digits, `-` or `_`), shown as text; or an explicit id used by two headings, or one that another heading's own id (`h-…`) would be. Write `{#conclusion}`, or give the headings different ids."),
    ("footnote-unused", W, "render", "A footnote definition ([^x]: …) that no [^x] in the text references: it is not shown on the page nor sent for translation."),
    ("search-index", E, "render", "Pagefind returned an incomplete search index (a missing or empty file) three times in a row; nothing is published. Build again; if it persists, report it with `bipub -v build`."),
    ("search-record", W, "render", "The search index's record (.bipub-cache/search-<hash>.pickle) could not be saved (disk full, no permission): the site is complete, but the next build makes every search shard again. Free space or fix .bipub-cache/'s permissions."),
    ("math", E, "render", "A $…$ or $$…$$ formula cannot be typeset (unknown command, unbalanced braces, bad syntax); fix the LaTeX at the line named."),
    ("diagram", E, "render", "A ```mermaid diagram cannot be drawn (a syntax error, or mermaid-cli, node or Chromium missing: run scripts/bootstrap.sh); fix it at the fence's line."),
    ("card-glyph", W, "render", "A post title has a character the social card's font (pdf.fonts) lacks; the card shows a box for it. Give the post an image: or another font."),
    ("unsafe-link", W, "render", "A link target with a refused scheme (javascript:, data:, ...) was dropped."),
    ("fuzzy", W, "render", "Fuzzy entries of a .po catalog are not published; review them and drop the fuzzy flag."),
    ("ui-untranslated", W, "render", "UI strings without a translation show in the template's language."),
    ("markup", Q, "check", "A translation lost or added Markdown or HTML markup of its source (or a catalog's markup)."),
    ("placeholders", Q, "check", "A translation's {placeholders} differ from its source's."),
    # --- PDF
    ("pdf-font", E, "pdf", "No font for the PDFs: install fontconfig and a CJK font, or set pdf.fonts."),
    ("pdf-glyph", E, "pdf", "A character of the PDF is in none of its fonts and would print as a box."),
    ("pdf-subsetting", W, "pdf", "Fast font subsetting is unavailable (install libharfbuzz-subset0): PDFs take many times longer."),
    ("pdf-fetch", E, "pdf", "The PDF refers to a resource bipub does not load (network, outside the project, attachment)."),
    ("pdf-link", E, "pdf", "A PDF links to something other than an http(s), mailto: or tel: URL (site pages are linked under base_url)."),
    ("pdf-css", E, "pdf", "WeasyPrint ignored a CSS property the PDF layout depends on."),
    ("pdf-overflow", W, "pdf", "A table in a PDF is wider than the page: what passes its right edge is cut off."),
    ("pdf-weasyprint", W, "pdf", "WeasyPrint reported a problem (an error when bipub called it wrongly); the message says which."),
    ("pdf-bound", E, "pdf", "PDF rendering exceeded its time or memory bound, or its worker process died, and was stopped."),
    ("short-cv-overflow", W, "pdf", "The short CV PDF has more pages than its budget (bipub.yaml pdf.short.pages, 2 by default)."),
    # --- bipub check: QA of translations
    ("numbers", Q, "check", "A number of the source (its minus sign too, unless a word of decrease or improvement stands beside it: \"down 3.5%\", \"5% faster\"; its unit of time or data size too: 0.5초 / 0.5 ms, 80GB / 80 GiB, 10–20 GB / 10–20 MB; a number word before a counter or unit: 두 시간 / 3 hours) is missing or different in the translation."),
    ("links", Q, "check", "A link target of the source is missing or different in the translation; an in-page link names no heading of the translation (the heading at its place is named); a warning (reviewed text too) for a link to the other language's URL of a page the translation's language has (a post, a page, or another of the site's: the home, the blog, a tag's page in its spelling there, a series, the feeds…), to a heading a page of the site does not have, or to a post's (or another page's) URL in a language the site does not have it in."),
    ("code", Q, "check", "A code span or block changed in the translation (code is never translated)."),
    ("refs", Q, "check", "A footnote or reference of the source is missing in the translation."),
    ("glossary", Q, "check", "A glossary term is not translated as glossary.yaml says (or glossary.yaml is invalid: an error)."),
    ("prefix", Q, "check", "A title's series prefix or numbering differs from the source's."),
    # --- bipub check: translation state
    ("missing", W, "check", "A source unit has no translation in this language."),
    ("orphan", W, "check", "A translation (or status record) has no source any more."),
    ("untranslated", W, "check", "A translation is identical to its source, or keeps a heading or paragraph (a footnote too) as the source has it."),
    ("stale", W, "check", "The source changed after the translation was reviewed; the diff shows how."),
    ("draft", W, "check", "A machine draft is waiting for review (`bipub review`)."),
    ("edited", W, "check", "A reviewed translation was changed after its review: review it again."),
    ("key-collision", W, "check", "Two unit keys are the same after Unicode NFC normalization; rename one."),
    ("ignore", W, "check", "A `bipub-ignore:` marker names an unknown code or has no reason, so it is not applied."),
    # --- review and translate
    ("review", E, "review", "A review command names an unknown unit, or the unit cannot be approved as asked."),
    ("not-written", E, "translate", "A machine draft could not be written into its file; nothing of it was kept."),
    ("rejected", W, "translate", "A unit's draft is the very text a reviewer rejected for the same source (the status file's `rejected`): it is not written again (a new file gets the source text in its place, as a draft to redo). Translate it by hand, or run `bipub translate --redraft-rejected`. The rejection holds for the source text it was made for, also when the source changes and comes back to it."),
    ("mismatch", W, "translate", "A drafted segment's numbers, code spans or length differ from its source's (e.g. an engine swapped two answers); review it. Kept in the status record and shown by check and review until the draft is reviewed or rejected."),
    ("structure", W, "translate", "A drafted segment would have changed the block structure (a heading, list or table shape); it keeps its source text. Kept in the status record and shown by check and review until the draft is reviewed or rejected."),
    # --- bipub check --links
    ("link", E, "links", "A link of the built site points to a page or file that does not exist; reported at the source file and line that write it (else at the built page)."),
    ("anchor", E, "links", "A link's #anchor does not exist on its target page (a heading's id starts with h-: #h-intro); reported at the source file and line that write it."),
)
# fmt: on

CODES: Final[dict[str, Code]] = {row[0]: Code(*row) for row in _TABLE}
if len(CODES) != len(_TABLE):  # pragma: no cover - a code declared twice
    raise AssertionError("a diagnostic code is declared twice in bipub/codes.py")


def explain(name: str) -> Code | None:
    return CODES.get(name)
