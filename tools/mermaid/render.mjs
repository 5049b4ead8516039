// bipub's Mermaid renderer: every diagram of a build in one Chromium (mermaid-cli's API).
// stdin: JSON {"chromium": path, "config": {mermaid config}, "diagrams": [{"key", "source", "id"}]}
// stdout: one JSON line per diagram: {"key", "svg"} or {"key", "error"}; exit 0 unless the
// browser itself could not start (exit 3, message on stderr).
import { renderMermaid } from "@mermaid-js/mermaid-cli";
import puppeteer from "puppeteer";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const job = JSON.parse(Buffer.concat(chunks).toString("utf8"));

let browser;
try {
  browser = await puppeteer.launch({
    executablePath: job.chromium,
    headless: "shell",
    args: ["--no-sandbox", "--disable-gpu", "--font-render-hinting=none"],
  });
} catch (err) {
  process.stderr.write(`cannot start Chromium (${job.chromium}): ${err.message}\n`);
  process.exit(3);
}
// console output of the page goes to stderr, never into the JSON lines
console.warn = (...args) => process.stderr.write(args.join(" ") + "\n");
try {
  for (const d of job.diagrams) {
    try {
      const { data } = await renderMermaid(browser, d.source, "svg", {
        backgroundColor: "transparent",
        mermaidConfig: job.config,
        svgId: d.id,
      });
      process.stdout.write(JSON.stringify({ key: d.key, svg: new TextDecoder().decode(data) }) + "\n");
    } catch (err) {
      const message = String(err && err.message ? err.message : err).split("\n").slice(0, 6).join("\n");
      process.stdout.write(JSON.stringify({ key: d.key, error: message }) + "\n");
    }
  }
} finally {
  await browser.close();
}
