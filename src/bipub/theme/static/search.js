/* bipub default theme: the search page (issue 19). Served at /assets/search.js.
 * The index is Pagefind's (/<lang>/pagefind/<n>/ shards listed in shards.json, built by
 * `bipub build`: render/search.py, render/search_shards.py). Korean
 * pages are indexed with Kiwi's stems after each word between ⟦ and ⟧; they are removed from the
 * excerpts here. A Korean index comes with a lexicon (render/search_words.py: shards.json
 * "words", split by first syllable): each Korean query word is read with it as the index read
 * the word (`readWord`: 올랐다 → 오르다, 재사용했습니다 → 재사용), and a word it cannot read is
 * not asked of Pagefind, which would match the longest indexed word it starts with (재); so is
 * a Latin run, alone or with particles (GPU를 → gpu; k8s의, kubernetes: not asked). The English
 * index has a lexicon too (its Latin words); there a run no indexed word starts with is asked if
 * Pagefind's exact search for it finds a page (`readStemmed`: quantize, by its stem). A word left
 * out, because it cannot be read or because Pagefind finds nothing for it (`unmatched`: Pagefind
 * itself drops such a term from a query without a word), is named under the count.
 * The particles and endings a word is read with are not written here: each build writes them
 * into shards.json as `table` (render/search_words.py PARTICLES, ENDINGS: their one source), and
 * every function below that needs them is given that table (an index without it does not load). */
const HANGUL = /^[\uac00-\ud7a3]+$/;
const MIXED = /^([A-Za-z0-9]+)[\uac00-\ud7a3]+$/;  /* a Latin run and Hangul after it: GPU가 */
const LATIN = /^[A-Za-z0-9]+$/;  /* a Latin run alone: k8s, GPU, 2024 */
const EDGES = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;  /* punctuation and symbols around a word */
const WORDLIKE = /[\p{L}\p{N}]/u;  /* a letter or digit: what Pagefind indexes (not "-", "&") */

/* shards.json's `table` ({particles, endings}, longest first), checked: without it a query word
 * cannot be read as the index was, and the page says the index could not be loaded */
export function checkTable(table) {
  const list = (x) => Array.isArray(x) && x.length > 0 && x.every((e) => typeof e === "string" && e);
  if (!table || !list(table.particles) || !list(table.endings)) {
    throw new Error("shards.json: no table of particles and endings (build the site again)");
  }
  return table;
}

export function stripParticle(word, table) {
  for (const p of checkTable(table).particles) {
    if (word.length > p.length && word.endsWith(p)) return word.slice(0, -p.length);
  }
  return word;
}

/* A word of ASCII letters or digits and particles after it (GPU가, Redis를, API에서는, k8s의):
 * that run (GPU, Redis, API, k8s); else "". Pagefind holds such a word whole (gpu가), so asked as
 * typed it found only the pages with that very particle, or none (redis를), or the pages of a
 * shorter indexed word it starts with (k8s의 found the letter k). */
export function latinStem(word, table) {
  const run = MIXED.exec(word);
  if (!run) return "";
  let rest = word;
  while (rest.length > run[1].length) {
    const bare = stripParticle(rest, table);
    if (bare === rest) return "";  /* not a particle (GPU당, 3월): the word is asked as it is */
    rest = bare;
  }
  return rest === run[1] ? rest : "";
}

/* A query word that is a Latin run, alone or with particles (GPU, caching, GPU가; the punctuation
 * around it left out): on the Korean page, Pagefind matches it as typed, by the start of a word
 * (its index is not stemmed as English: caching does not find cache), and the page says so. */
export function isLatin(word, table) {
  const core = word.replace(EDGES, "");
  return LATIN.test(core) || latinStem(core, table) !== "";
}

/* A query word on a page without a lexicon (an index of no page): a Korean word without its particle, a Latin run
 * without its particles (GPU가 → GPU), another word as it is. */
export function normalizeWord(word, table) {
  if (HANGUL.test(word)) return stripParticle(word, table);
  return latinStem(word.replace(EDGES, ""), table) || word;
}

export function normalize(query, table) {
  return query.trim().split(/\s+/).map((word) => normalizeWord(word, table)).join(" ");
}

/* the word without its longest ending that leaves a syllable ("" if none), and without the
 * final ㅂ of ㅂ니다 or ㄴ of ㄴ다 (오릅니다, 오른다 → 오르) */
export function base(word, table) {
  for (const e of checkTable(table).endings) {
    if (word.length > e.length && word.endsWith(e)) {
      const found = word.slice(0, -e.length);
      const last = found.charCodeAt(found.length - 1) - 0xac00;
      const final = last >= 0 && last < 11172 ? last % 28 : 0;
      if ((final === 17 && (e === "니다" || e === "니까")) || (final === 4 && e === "다")) {
        return found.slice(0, -1) + String.fromCharCode(0xac00 + last - final);
      }
      return found;
    }
  }
  return "";
}

/* which lexicon file holds a word's entry, of n (render/search_words.py: by first syllable; a
 * Latin run's by its first character's code) */
export function shardOf(word, n) {
  const code = word.codePointAt(0);
  return (code >= 0xac00 && code <= 0xd7a3 ? Math.floor((code - 0xac00) / 28) : code) % n;
}

/* What to ask Pagefind for a Korean query word, by its lexicon file `lex` ({w, b, n}); null if
 * the word cannot be read: it is no indexed word, reaches none by its particle or ending, and
 * starts no indexed word (asked as it is, Pagefind would match its longest indexed prefix). */
export function readWord(word, lex, table) {
  const found = readForm(word, lex, table);
  /* a noun of one syllable reached by taking a particle or ending off (책이 → 책): asked as that
   * word only (Pagefind's quotes), not as the start of every word (책임, 책상) */
  return found && found.length === 1 && found !== word ? `"${found}"` : found;
}

function readForm(word, lex, table) {
  /* a form found by taking a particle or ending off: one syllable only if a noun stem (책) */
  const long = (t) => t.length > 1 || lex.n.includes(t);
  const bare = stripParticle(word, table);
  const twice = stripParticle(bare, table);  /* two particles (캐시로는, 캐시와의): tried last */
  const forms = [...new Set([word, bare, base(word, table), base(bare, table), twice])].filter(Boolean);
  for (const f of forms) {  /* a word (or stem) of the index */
    const t = Object.hasOwn(lex.w, f) ? lex.w[f] || f : "";
    if (t && (f === word || long(t))) return t;
  }
  for (const f of [word, bare]) {  /* the base of words of the index */
    const b = base(f, table);
    if (b && Object.hasOwn(lex.b, b) && long(lex.b[b])) return lex.b[b];
  }
  const keys = Object.keys(lex.w);
  for (const f of forms) {  /* the start of words of the index */
    if ((f === word || f.length > 1) && keys.some((k) => k.startsWith(f))) return f;
  }
  return null;
}

/* What to ask for a Latin run (`latinStem`, in lower case: as Pagefind indexes it) by its
 * lexicon file: the run, if an indexed word starts with it (`l`); else null: asked, Pagefind
 * would match the longest indexed word it starts with (k8s → k). */
export function readLatin(run, lex) {
  const low = run.toLowerCase();
  return lex.l.some((k) => k.startsWith(low)) ? low : null;
}

/* The same, on a page whose index Pagefind stems (shards.json `stemmed`: English): a run no
 * indexed word starts with is asked if Pagefind's exact search for it (`"quantize"`: its stem,
 * quantiz, is a word of the index, and no shorter word is taken for it) finds a page, `exact(run)`
 * resolving to whether it does; else null (kubernetes → kubernet: no word of the index; asked,
 * Pagefind matched k). `exact` null (an index Pagefind does not stem): the lexicon only. */
export async function readStemmed(run, lex, exact) {
  const found = readLatin(run, lex);
  if (found !== null || !exact) return found;
  const low = run.toLowerCase();
  return (await exact(low)) ? low : null;
}

/* What Pagefind is asked for a query on a page with a lexicon, {text, unread}: `text`, each
 * Korean word read (`readWord`, with the lexicon file `lexiconOf(word)` resolves to; the
 * punctuation around it left out: 올랐다. → 오르다), a Latin run with particles as its run
 * (`readLatin`: GPU가 → gpu), and so is a Latin run alone (k8s: Pagefind matched k for it), the
 * other words (all-reduce) as they are (on a page whose index Pagefind stems, a run no indexed
 * word starts with is asked if its stem is a word of the index: `readStemmed`, with `exact`);
 * `unread`, the words that cannot be
 * read (as typed, without the punctuation around them), left out of `text`: no page has them,
 * and asked, Pagefind would match a part of them. The page says which they are. */
export async function readQuery(query, lexiconOf, table, exact = null) {
  const words = query.trim().split(/\s+/).filter(Boolean);
  const read = await Promise.all(words.map(async (word) => {
    const core = word.replace(EDGES, "");
    if (HANGUL.test(core)) return readWord(core, await lexiconOf(core), table);
    const run = (LATIN.test(core) ? core : latinStem(core, table)).toLowerCase();
    return run ? readStemmed(run, await lexiconOf(run), exact) : word;
  }));
  const unread = words.filter((_, i) => read[i] === null).map((w) => w.replace(EDGES, ""));
  return {
    text: read.filter((r) => r !== null).join(" "),
    unread: [...new Set(unread)],
    asked: words.map((w, i) => [w, read[i]]).filter(([, r]) => r !== null),  /* [typed, asked] */
  };
}

/* The typed words of `asked` ([typed, asked] pairs) that Pagefind finds no page for, each asked
 * on its own (`count(term)`: how many pages it finds) when there are several: Pagefind leaves a
 * term it holds no word for out of a query without a word (`caching zzqx` found what `caching`
 * finds), so the page says them. One term alone is not asked again: its search is the query's. */
export async function unmatched(asked, count) {
  const words = asked.filter(([typed]) => WORDLIKE.test(typed));  /* (Pagefind ignores a "-") */
  if (words.length < 2) return [];
  const found = await Promise.all(words.map(([, term]) => count(term)));
  return [...new Set(words.filter((_, i) => found[i] === 0).map(([typed]) => typed))];
}

/* The terms to ask Pagefind for a query: a query in quotes (`"prefix caching"`: Pagefind's
 * phrase, its test) keeps them around its terms, which are read without them (`readQuery`). */
export function phrase(query, terms) {
  const text = terms.join(" ").trim();
  return text && /^\s*".+"\s*$/.test(query) ? `"${text.replace(/^"|"$/g, "")}"` : text;
}

export function clean(excerpt) {
  return excerpt
    .replace(/([^\s<>]+)\s?⟦([^⟧]*)⟧/g, (all, word, stems) =>
      stems.includes("<mark>") && !word.includes("mark") ? `<mark>${word}</mark>` : word)
    .replace(/\s?⟦[^⟧]*⟧/g, "")
    .replace(/^[^⟦]*⟧/, "")
    .replace(/\s?⟦[^⟧]*$/, "")
    .replace(/\s?<mark>\s*<\/mark>/g, "");
}

async function main() {
  const form = document.querySelector(".search-form");
  if (!form) return;
  const input = form.querySelector("input[name=q]");
  const status = document.querySelector(".search-status");
  const list = document.querySelector(".search-results");
  /* session 34: the query words left out (no page has them), said under the status */
  const unreadNote = document.querySelector(".search-unread");
  function sayUnread(words) {
    if (!unreadNote) return;
    unreadNote.textContent = words.length ? unreadNote.dataset.text.replace("{words}", words.join(", ")) : "";
    unreadNote.hidden = !words.length;
  }
  /* session 34: a Latin word on a page whose index is not stemmed (the Korean page's): said */
  const latinNote = document.querySelector(".search-latin");
  function sayLatin(show) {
    if (latinNote) latinNote.hidden = !show;
  }
  /* session 30: no results: the same query on the other languages' search pages */
  const other = document.querySelector(".search-other");
  const otherLinks = other ? [...other.querySelectorAll("a")] : [];
  const bases = otherLinks.map((a) => a.getAttribute("href"));
  function offerOthers(query) {
    if (!other) return;
    otherLinks.forEach((a, i) => { a.href = bases[i] + "?q=" + encodeURIComponent(query.trim()); });
    other.hidden = !query.trim();
  }
  /* the index loads in the background; the form works at once (a query typed before it is
   * ready waits for it instead of submitting the page again) */
  const ready = (async () => {
    /* the index is in shards (render/search_shards.py): open the first, merge the others */
    const shards = await fetch(form.dataset.bundle + "shards.json").then((r) => {
      if (!r.ok) throw new Error(`shards.json: HTTP ${r.status}`);
      return r.json();
    });
    const table = checkTable(shards.table);
    if (!shards.bundles.length) {  /* no page of this language is indexed */
      return { pagefind: { search: async () => ({ results: [] }) }, words: null, table, stemmed: shards.stemmed === true };
    }
    /* every index comes with its lexicon, and says whether Pagefind stems it (session 34):
     * without them a query word would be asked as typed, and matched to a shorter word */
    if (!Array.isArray(shards.words) || !shards.words.length || typeof shards.stemmed !== "boolean") {
      throw new Error("shards.json: no lexicon (build the site again)");
    }
    const pagefind = await import(form.dataset.bundle + shards.bundles[0] + "pagefind.js");
    await pagefind.options({ baseUrl: "/" });
    for (const other of shards.bundles.slice(1)) {
      await pagefind.mergeIndex(form.dataset.bundle + other, { baseUrl: "/" });
    }
    return { pagefind, words: shards.words, table, stemmed: shards.stemmed };
  })();
  /* the lexicon's files, fetched once each, when a query word needs one (again after a failure) */
  const lexicons = new Map();
  function lexicon(files, word) {
    const file = files[shardOf(word, files.length)];
    if (!lexicons.has(file)) {
      lexicons.set(file, fetch(form.dataset.bundle + file).then((r) => {
        if (!r.ok) throw new Error(`${file}: HTTP ${r.status}`);
        return r.json();
      }).catch((e) => { lexicons.delete(file); throw e; }));
    }
    return lexicons.get(file);
  }
  /* the words Pagefind is asked ([typed, asked]: `readQuery`) and those left out unread; on a
   * page whose index Pagefind stems, a Latin run no indexed word starts with is asked if
   * Pagefind's exact search for it finds a page (`readStemmed`) */
  async function terms(query, index) {
    if (!index.words) {  /* no page indexed: the particle is taken off only */
      const words = query.trim().split(/\s+/).filter(Boolean);
      return { unread: [], asked: words.map((w) => [w, normalizeWord(w, index.table)]) };
    }
    const exact = index.stemmed
      ? async (run) => (await index.pagefind.search(`"${run}"`)).results.length > 0
      : null;
    return readQuery(query, (word) => lexicon(index.words, word), index.table, exact);
  }
  ready.catch((e) => {
    status.textContent = status.dataset.failed;
    console.error(e);
  });
  let latest = 0;
  async function run(query) {
    const mine = ++latest;
    if (!query.trim()) {
      list.replaceChildren(); status.textContent = ""; sayUnread([]); sayLatin(false); offerOthers("");
      return;
    }
    let index, pagefind, unread, asked;
    try {
      index = await ready;
      pagefind = index.pagefind;
      ({ unread, asked } = await terms(query, index));
    } catch (e) {
      if (mine === latest) { status.textContent = status.dataset.failed; sayUnread([]); sayLatin(false); }
      console.error(e);
      return;  /* (an index that cannot load is said by ready.catch too) */
    }
    /* the words no page has are left out, and said: those the lexicon cannot read (not asked:
     * Pagefind would match a part of them) and those Pagefind finds nothing for (it would leave
     * them out without a word); none left: nothing is asked */
    const missing = await unmatched(asked, async (term) => (await pagefind.search(term)).results.length);
    const text = phrase(query, asked.filter(([typed]) => !missing.includes(typed)).map(([, term]) => term));
    const found = text.trim() ? await pagefind.search(text) : { results: [] };
    const words = asked.filter(([typed]) => WORDLIKE.test(typed));
    if (words.length === 1 && !found.results.length) missing.push(words[0][0]);
    const typedOrder = query.trim().split(/\s+/).map((w) => w.replace(EDGES, ""));
    unread = [...new Set([...unread, ...missing.map((w) => w.replace(EDGES, "") || w)])]
      .sort((a, b) => typedOrder.indexOf(a) - typedOrder.indexOf(b));
    const data = await Promise.all(found.results.slice(0, 20).map((r) => r.data()));
    if (mine !== latest) return;
    const n = found.results.length;
    status.textContent = n === 0 ? status.dataset.none : n === 1 ? status.dataset.one : status.dataset.many.replace("{n}", n);
    sayUnread(unread);
    /* a Latin word asked of an index Pagefind does not stem (the Korean page's) is matched as
     * typed, by the start of a word: said, with the other language's page, which may stem it */
    const latin = !index.stemmed && query.trim().split(/\s+/).some((w) => isLatin(w, index.table));
    sayLatin(latin);
    /* the other language's index may have what this one has not */
    offerOthers(n === 0 || unread.length || latin ? query : "");
    list.replaceChildren(...data.map((d) => {
      const li = document.createElement("li");
      li.className = "search-result";
      const a = document.createElement("a");
      a.href = d.url;
      a.className = "search-result__title";
      a.textContent = clean(d.meta.title || d.url);
      const p = document.createElement("p");
      p.className = "search-result__excerpt";
      p.innerHTML = clean(d.excerpt); /* Pagefind's excerpt: escaped text with <mark> */
      li.append(a, p);
      return li;
    }));
  }
  const params = new URLSearchParams(location.search);
  input.value = params.get("q") || "";
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    history.replaceState(null, "", "?q=" + encodeURIComponent(input.value));
    run(input.value);
  });
  let timer;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => run(input.value), 150);
  });
  if (input.value) run(input.value);
}

if (typeof document !== "undefined") main();  /* (not in tests/unit/test_search_js.py's Node) */
