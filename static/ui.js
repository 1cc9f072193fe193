// Lodestone browsing pages: enhancements only. Every page works without this script.
// - type-ahead on search boxes (inputs with data-autocomplete, and the header's search box);
// - Ctrl+Enter runs the query in the SPARQL editor.
"use strict";

(function () {
  const DELAY_MS = 120;
  const LIMIT = 8;

  function setUpTypeAhead(input, list) {
    const source = input.dataset.autocomplete || "/api/autocomplete";
    // The combobox pattern (ARIA 1.2): only meaningful once this script drives the list.
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-expanded", "false");
    let timer = null;
    let controller = null;
    let active = -1;

    function options() {
      return Array.from(list.querySelectorAll("[role=option]"));
    }

    function close() {
      list.hidden = true;
      list.replaceChildren();
      active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }

    function highlight(index) {
      const items = options();
      items.forEach((item, i) => item.setAttribute("aria-selected", String(i === index)));
      active = index;
      if (index >= 0 && items[index]) {
        input.setAttribute("aria-activedescendant", items[index].id);
      }
    }

    function render(results) {
      list.replaceChildren();
      results.forEach((hit, i) => {
        const item = document.createElement("li");
        item.setAttribute("role", "option");
        item.id = list.id + "-" + i;
        const link = document.createElement("a");
        link.href = "/describe?uri=" + encodeURIComponent(hit.uri);
        link.textContent = hit.label || hit.uri;
        link.title = hit.uri;
        item.appendChild(link);
        if (hit.classes && hit.classes.length) {
          const kinds = document.createElement("span");
          kinds.className = "note";
          kinds.textContent = " " + hit.classes.slice(0, 2).map(shortName).join(", ");
          item.appendChild(kinds);
        }
        list.appendChild(item);
      });
      list.hidden = results.length === 0;
      input.setAttribute("aria-expanded", String(results.length > 0));
      active = -1;
    }

    async function suggest() {
      const text = input.value.trim();
      if (text.length < 2) {
        close();
        return;
      }
      if (controller) controller.abort();
      controller = new AbortController();
      try {
        const url = source + "?limit=" + LIMIT + "&q=" + encodeURIComponent(text);
        const response = await fetch(url, {
          headers: { Accept: "application/json" },
          signal: controller.signal,
        });
        if (!response.ok) {
          close();
          return;
        }
        const body = await response.json();
        if (input.value.trim() === text) render(body.results || []);
      } catch (error) {
        if (error.name !== "AbortError") close();
      }
    }

    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(suggest, DELAY_MS);
    });
    input.addEventListener("keydown", (event) => {
      const items = options();
      if (event.key === "ArrowDown" && items.length) {
        event.preventDefault();
        highlight((active + 1) % items.length);
      } else if (event.key === "ArrowUp" && items.length) {
        event.preventDefault();
        highlight((active - 1 + items.length) % items.length);
      } else if (event.key === "Enter" && active >= 0 && items[active]) {
        event.preventDefault();
        window.location.assign(items[active].querySelector("a").href);
      } else if (event.key === "Escape") {
        close();
      }
    });
    input.addEventListener("blur", () => setTimeout(close, 200));
  }

  function shortName(iri) {
    const cut = Math.max(iri.lastIndexOf("/"), iri.lastIndexOf("#"));
    return cut >= 0 && cut < iri.length - 1 ? iri.slice(cut + 1) : iri;
  }

  function listFor(input) {
    const existing = input.getAttribute("aria-controls");
    if (existing && document.getElementById(existing)) {
      return document.getElementById(existing);
    }
    const list = document.createElement("ul");
    list.id = input.id + "-suggestions";
    list.className = "ui-suggestions";
    list.setAttribute("role", "listbox");
    list.hidden = true;
    input.setAttribute("aria-controls", list.id);
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("autocomplete", "off");
    input.form.appendChild(list);
    return list;
  }

  function setUpEditor(textarea) {
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        textarea.form.requestSubmit();
      }
    });
  }

  document.querySelectorAll("input[data-autocomplete], #site-search").forEach((input) => {
    if (input.form) setUpTypeAhead(input, listFor(input));
  });
  document.querySelectorAll("textarea[data-sparql-editor]").forEach(setUpEditor);
})();
