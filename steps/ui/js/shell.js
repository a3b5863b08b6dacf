// The page around the step: the title and the language, the numbered steps, the heading and
// notices, Previous/Next, the FAQ; embedded, a one-line bar instead. It keeps <html lang>,
// the document title and the address bar in step with the state (replaceState: no reload,
// no history entry per slider move) and, embedded in a course page, tells the parent frame
// the content's height. The copy-link button copies a link that opens the same view (step,
// part, every control, the frame on screen); a course platform that knows Canvas's resize
// message hears that too.

import { h } from "./dom.js";

export function createShell(send, options) {
  const playhead = (options && options.playhead) || (() => null);
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
  // share this view: the button, a polite confirmation, and a field with the link for when
  // the clipboard is out of reach (an iframe without clipboard-write, an old browser)
  const share = h("div", "share no-print");
  const shareBtn = h("button", "player-btn share-btn", share);
  shareBtn.type = "button";
  const shareSay = h("span", "share-say", share, null, { role: "status", "aria-live": "polite" });
  const shareField = h("input", "share-field", share);
  shareField.type = "text";
  shareField.readOnly = true;
  shareField.hidden = true;
  prevnext.insertBefore(share, next);
  let words = null, query = "", sayTimer = null;
  const say = (text) => {
    clearTimeout(sayTimer);
    shareSay.textContent = "";                        // the same words again are announced again
    sayTimer = setTimeout(() => {
      shareSay.textContent = text;
      sayTimer = setTimeout(() => { shareSay.textContent = ""; }, 6000);
    }, 60);
  };
  shareBtn.addEventListener("click", async () => {
    if (!words) return;
    const base = window.location.origin + window.location.pathname;
    const url = shareUrl(base, query, words.frame, playhead(), words.modes);
    const how = await copyText(url, shareField);
    if (how === "copied") { shareField.hidden = true; shareBtn.focus(); }
    say(how === "copied" ? words.done : words.manual);
  });
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
      p.append(share);                                  // embedded: the copy link is in the bar
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
    head.hidden = !!(s.embed && s.figure);              // figure-only: the bar says where
    words = s.link || null;
    share.hidden = !words;
    if (words) {
      shareBtn.textContent = words.label;
      shareField.setAttribute("aria-label", words.field);
    }
    prevText.textContent = s.prev;
    nextText.textContent = s.next;
    prev.disabled = s.at_start;
    next.disabled = s.at_end;
    faq.hidden = !s.faq;
    if (s.faq !== faqHtml) { faqHtml = s.faq; faq.innerHTML = s.faq || ""; }
  };
  // the address bar follows the state; the embed bar links to the same view, not embedded
  const follow = (q) => {
    if ((q || "") !== query) shareField.hidden = true;   // a link shown is of the last view
    query = q || "";
    if (query && query !== window.location.search)
      window.history.replaceState(null, "", window.location.pathname + query + window.location.hash);
    const link = embedBar.querySelector("a.full-link");
    if (link) {
      const params = new URLSearchParams(query || "");
      params.delete("embed");
      params.delete("figure");
      link.setAttribute("href", "?" + params.toString());
    }
  };
  return { top, nav, embedBar, heading, prevnext, faq, share, update, follow };
}

// The link to the view on screen: the page's query (step, language, part, every control, the
// frame where the player last stopped) without the page `modes` (embed, figure, present,
// speaker: the link opens the view as a full page). While the player plays, the server has not
// heard of the frame on screen: `playhead` ({index, frame}: the frame shown, the one the query
// has) moves `frameParam` by the difference (step 2's `tokens` is its frame + 1). Nothing is
// sent to the server.
export function shareUrl(base, query, frameParam, playhead, modes) {
  const params = new URLSearchParams(query || "");
  for (const m of modes || ["embed", "figure"]) params.delete(m);
  if (frameParam && playhead && params.has(frameParam) && playhead.index !== playhead.frame) {
    const at = Number(params.get(frameParam));
    if (Number.isFinite(at)) params.set(frameParam, String(at + playhead.index - playhead.frame));
  }
  const q = params.toString();
  return base + (q ? "?" + q : "");
}

// Copy `text`: with the Clipboard API, else in `field`, shown and selected, with the browser's
// copy command (which may be refused too: the learner then copies the selected link).
// Resolves to "copied" or "selected".
export async function copyText(text, field) {
  try {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      await navigator.clipboard.writeText(text);
      return "copied";
    }
  } catch (e) { /* refused: an insecure origin, a frame without clipboard-write */ }
  field.value = text;
  field.hidden = false;
  field.focus();
  field.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
  return ok ? "copied" : "selected";
}

// embedded in a course page: tell the parent our height whenever it changes, in our own
// message and in Canvas's
export function postHeight(root) {
  if (window.parent === window || typeof ResizeObserver === "undefined") return () => {};
  let last = 0;
  const post = () => {
    const box = root.getBoundingClientRect();
    const hgt = Math.ceil(box.top + window.scrollY + root.scrollHeight + 16);
    if (hgt && hgt !== last) {
      last = hgt;
      window.parent.postMessage({ type: "kv-explainer:height", height: hgt }, "*");
      // Canvas (and LTI tools' hosts that follow it) resize the frame on this one
      window.parent.postMessage({ subject: "lti.frameResize", height: hgt }, "*");
    }
  };
  const ro = new ResizeObserver(post);
  ro.observe(root);
  post();
  return () => ro.disconnect();
}
