/* bipub default theme: what a reader expects, added over a page that works without it
 * (issue 19). Served at /assets/reader.js.
 *  - a Copy button on every code block;
 *  - the light/dark toggle: the OS setting until the reader chooses; the choice is kept in
 *    localStorage ("bipub-theme") and applied at once (this file is loaded in <head>). */
(function () {
  "use strict";
  var root = document.documentElement;
  /* loaded in <head> without `defer`: the reader's choice applies before the page is drawn */
  try {
    var chosen = localStorage.getItem("bipub-theme");
    if (chosen === "light" || chosen === "dark") root.dataset.theme = chosen;
  } catch (e) { /* storage refused: the OS setting applies */ }

  function osDark() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function current() {
    return root.dataset.theme || (osDark() ? "dark" : "light");
  }

  function setupToggle() {
    var button = document.querySelector(".theme-toggle");
    if (!button) return;
    var label = button.querySelector(".visually-hidden");
    function show() {
      var next = current() === "dark" ? "light" : "dark";
      var text = button.dataset[next] || next;
      button.setAttribute("aria-label", text);
      button.title = text;
      if (label) label.textContent = text;
      button.setAttribute("aria-pressed", root.dataset.theme ? "true" : "false");
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      try { localStorage.setItem("bipub-theme", next); } catch (e) { /* private mode: this page only */ }
      show();
    });
    show();
  }

  function setupCopy() {
    var body = document.body;
    var copy = body.dataset.copy || "Copy";
    var copied = body.dataset.copied || "Copied";
    if (!navigator.clipboard) return; /* http:// other than localhost: no clipboard API */
    document.querySelectorAll(".prose pre").forEach(function (pre) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = copy;
      button.addEventListener("click", function () {
        var code = pre.querySelector("code") || pre;
        navigator.clipboard.writeText(code.innerText.replace(/\n$/, "")).then(function () {
          button.textContent = copied;
          setTimeout(function () { button.textContent = copy; }, 1500);
        }, function () {
          button.textContent = copy + " ✗";
        });
      });
      var box = document.createElement("div"); /* the button stays put when the code scrolls */
      box.className = "has-copy";
      pre.parentNode.insertBefore(box, pre);
      box.appendChild(pre);
      box.appendChild(button);
    });
  }

  function start() {
    setupToggle();
    setupCopy();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
