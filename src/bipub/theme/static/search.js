/* bipub default theme: the search page (issue 19). Served at /assets/search.js.
 * The index is Pagefind's (/<lang>/pagefind/<n>/ shards listed in shards.json, built by
 * `bipub build`: render/search.py, render/search_shards.py). Korean
 * pages are indexed with Kiwi's stems after each word between ⟦ and ⟧; they are removed from the
 * excerpts here. A Korean query word loses a trailing particle (캐시를 → 캐시), so that it meets
 * the stems whichever particle the post used. */
const PARTICLES = [
  "에서부터", "으로부터", "이라고", "에게서", "한테서", "으로서", "으로써",
  "께서", "에서", "에게", "한테", "으로", "까지", "부터", "처럼", "보다", "이나", "이랑",
  "마다", "조차", "밖에", "라고", "로서", "로써", "이다", "입니다",
  "은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과", "도", "만",
];
const HANGUL = /^[\uac00-\ud7a3]+$/;

export function normalize(query) {
  return query.trim().split(/\s+/).map((word) => {
    if (!HANGUL.test(word)) return word;
    for (const p of PARTICLES) {
      if (word.length > p.length && word.endsWith(p)) return word.slice(0, -p.length);
    }
    return word;
  }).join(" ");
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
    if (!shards.bundles.length) {  /* no page of this language is indexed */
      return { search: async () => ({ results: [] }) };
    }
    const pagefind = await import(form.dataset.bundle + shards.bundles[0] + "pagefind.js");
    await pagefind.options({ baseUrl: "/" });
    for (const other of shards.bundles.slice(1)) {
      await pagefind.mergeIndex(form.dataset.bundle + other, { baseUrl: "/" });
    }
    return pagefind;
  })();
  ready.catch((e) => {
    status.textContent = status.dataset.failed;
    console.error(e);
  });
  let latest = 0;
  async function run(query) {
    const mine = ++latest;
    const text = normalize(query);
    if (!text) { list.replaceChildren(); status.textContent = ""; offerOthers(""); return; }
    let pagefind;
    try {
      pagefind = await ready;
    } catch (e) {
      return;  /* said in the status line (ready.catch) */
    }
    const found = await pagefind.search(text);
    const data = await Promise.all(found.results.slice(0, 20).map((r) => r.data()));
    if (mine !== latest) return;
    const n = found.results.length;
    status.textContent = n === 0 ? status.dataset.none : n === 1 ? status.dataset.one : status.dataset.many.replace("{n}", n);
    offerOthers(n === 0 ? query : "");
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

main();
