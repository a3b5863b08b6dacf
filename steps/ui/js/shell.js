// The page around the step: the title and the language, the numbered steps, the heading and
// notices, Previous/Next, the FAQ; embedded, a one-line bar instead. It keeps <html lang>,
// the document title and the address bar in step with the state (replaceState: no reload,
// no history entry per slider move) and, embedded in a course page, tells the parent frame
// the content's height.

import { h } from "./dom.js";

export function createShell(send) {
  const top = h("div", "title-bar no-print");
  const title = h("div", "app-title", top);
  const h1 = h("h1", "", title);
  const langBox = h("div", "controls lang-choice", top);
  const langLabel = h("label", "ctl-label", langBox);
  const langSelect = h("select", "ctl-input", langBox);
  langSelect.id = "kv-lang";
  langLabel.setAttribute("for", "kv-lang");
  langSelect.addEventListener("change", () => send({ lang: langSelect.value }));
  const nav = h("nav", "stepnav no-print");
  const ol = h("ol", "", nav);
  const embedBar = h("div", "embed-bar");
  const heading = h("div", "step-heading");
  const notices = h("div", "notices", heading);
  const head = h("div", "", heading);
  const prevnext = h("div", "prevnext no-print");
  const navButton = (cls, arrow, d) => {
    const b = h("button", "player-btn nav-btn " + cls, prevnext);
    b.type = "button";
    const a = h("span", "", null, arrow, { "aria-hidden": "true" });
    const t = h("span", "");
    b.append(...(d < 0 ? [a, t] : [t, a]));
    b.addEventListener("click", () => send({ nav: d }));
    return [b, t];
  };
  const [prev, prevText] = navButton("nav-prev", "\u2190", -1);
  const [next, nextText] = navButton("nav-next primary", "\u2192", 1);
  const faq = h("div", "faq no-print");
  let last = null, headingHtml = null, faqHtml = null;

  const update = (s) => {
    if (!s) return;
    document.documentElement.lang = s.lang;
    if (s.title) document.title = s.title;
    top.hidden = nav.hidden = prevnext.hidden = s.embed;
    embedBar.hidden = !s.embed || !s.embed_bar;
    if (s.embed_bar) {
      embedBar.replaceChildren();
      const p = h("p", "embed-line", embedBar);
      h("span", "", p, s.embed_bar.line);
      p.append(document.createTextNode(" "));
      const a = h("a", "full-link", p, s.embed_bar.open);
      a.target = "_blank";
      a.rel = "noopener";
    }
    h1.textContent = s.app_title;
    langLabel.textContent = s.language.label;
    if (JSON.stringify(s.language.options) !== last) {
      last = JSON.stringify(s.language.options);
      langSelect.replaceChildren();
      for (const [code, name] of s.language.options) {
        const o = h("option", "", langSelect, name);
        o.value = code;
      }
    }
    langSelect.value = s.language.value;
    nav.setAttribute("aria-label", s.nav.label);
    ol.replaceChildren();
    s.nav.items.forEach((t, k) => {
      const b = h("button", "", h("li", "", ol));
      b.type = "button";
      if (k === s.nav.active) b.setAttribute("aria-current", "step");
      h("span", "stepnav-num", b, String(k + 1)).setAttribute("aria-hidden", "true");
      h("span", "stepnav-title", b, t);
      b.addEventListener("click", () => { if (k !== s.nav.active) send({ goto: k + 1 }); });
    });
    notices.replaceChildren();
    for (const n of s.notices || []) h("p", "notice", notices, n).setAttribute("role", "status");
    if (s.heading !== headingHtml) { headingHtml = s.heading; head.innerHTML = s.heading; }
    prevText.textContent = s.prev;
    nextText.textContent = s.next;
    prev.disabled = s.at_start;
    next.disabled = s.at_end;
    faq.hidden = !s.faq;
    if (s.faq !== faqHtml) { faqHtml = s.faq; faq.innerHTML = s.faq || ""; }
  };
  // the address bar follows the state; the embed bar links to the same view, not embedded
  const follow = (query) => {
    if (query && query !== window.location.search)
      window.history.replaceState(null, "", window.location.pathname + query + window.location.hash);
    const link = embedBar.querySelector("a.full-link");
    if (link) {
      const params = new URLSearchParams(query || "");
      params.delete("embed");
      link.setAttribute("href", "?" + params.toString());
    }
  };
  return { top, nav, embedBar, heading, prevnext, faq, update, follow };
}

// embedded in a course page: tell the parent our height whenever it changes
export function postHeight(root) {
  if (window.parent === window || typeof ResizeObserver === "undefined") return () => {};
  let last = 0;
  const post = () => {
    const box = root.getBoundingClientRect();
    const hgt = Math.ceil(box.top + window.scrollY + root.scrollHeight + 16);
    if (hgt && hgt !== last) {
      last = hgt;
      window.parent.postMessage({ type: "kv-explainer:height", height: hgt }, "*");
    }
  };
  const ro = new ResizeObserver(post);
  ro.observe(root);
  post();
  return () => ro.disconnect();
}
