// The stage: a step's figure and its player. The frames of the current inputs arrive
// together; Play / Pause / Step back / Step forward / Reset and the keys (Space, “.” and “,”;
// PageDown/PageUp in presenter mode) move through them here, with no server round trip per
// frame. Each frame brings its cards, caption, text twin and the figure's data, which the
// step's renderer (js/figures.js) draws.
//
// The stage tells the renderer the page's mode and the box it lays the figure out for
// (`ctx.mode`, `ctx.box`: `figureBox`), measured before every drawing, and draws the figure
// again when that box changes (one ResizeObserver, here): a renderer reads neither the page's
// classes nor its holder's size on its own.
//
// What the figure needs in a mode is the layout table's (layout.js): `row.figures[renderer]`
// lists its screens, each the parts it draws (`ctx.parts`; null: every part), and
// `row.stage` the stage's pieces the mode shows. With more than one screen the stage shows
// where it stands among them (“Chart 1 of 2”, with buttons) and, projected, PageDown/PageUp
// move to the next or previous screen once the player has no frame left that way.

import { h, icon, markPoints } from "./dom.js";
import { drawCards, drawTable } from "./blocks.js";
import { createPlayer, browserClock } from "./player.js";
import { FIGURES } from "./figures.js";
import { fitCards, fitChartText, fitPlayer } from "./present.js";

// the frames: one JSON text (steps/ui/frames.py), parsed once per change by the page (or
// here, given the text); none is []
export function parseFrames(frames) {
  const F = typeof frames === "string" ? JSON.parse(frames || "[]") : frames;
  return Array.isArray(F) ? F : [];
}

// The page's mode (page.js passes it to `update`; the modes are layout.js's rows): presenting,
// on the projected page ("present") and in the speaker view ("speaker", which shows the
// projected figure beside the notes), chart text is made at least 18 px on screen (present.js
// fitChartText) and PageDown/PageUp move the player; projected, figures are laid out for the
// whole box the page gives them, its height too. Any other mode lays figures out for their width.
export const PRESENTING = ["present", "speaker"];

// The box a figure is laid out for: its holder's size in whole CSS pixels (0 while the page
// does not show it yet), and whether it is `projected`: the projected page gives the holder a
// height of its own (at least 120 px each way), and the renderer lays the figure out for the
// whole box at scale 1, its text at the size the stylesheet gives it (dom.js projectedBox).
export function figureBox(holder, mode) {
  const r = holder.getBoundingClientRect();
  return { width: Math.floor(r.width), height: Math.floor(r.height),
           projected: mode === "present" && r.width >= 120 && r.height >= 120 };
}

// Draw `fig` with the renderer `r` in `holder` for the box the holder has now. A projected box
// is noted on the holder (`data-box`): present.js fitChartText asks for the figure again when
// the holder's box is no longer the one the figure was laid out for.
//
// Then the figure's parts the answer talks about (`ctx.points`, the question's `points`) are
// marked (dom.js markPoints: the elements the renderer named with `data-point`), pulsing when
// `ctx.fresh` (the answer has just come out).
export function drawFigure(r, holder, fig, ctx, mode) {
  const box = figureBox(holder, mode);
  if (box.projected) holder.dataset.box = `${box.width}x${box.height}`;
  r.draw(holder, fig || {}, { ...ctx, mode, box });
  markPoints(holder, ctx.points, ctx.fresh);
}

// a figure wider than its column scrolls sideways (its text keeps its size): then it takes
// the keyboard's focus, so that the arrow keys scroll it too
export function scrollable(figure) {
  if (figure.scrollWidth > figure.clientWidth + 1) figure.setAttribute("tabindex", "0");
  else figure.removeAttribute("tabindex");
}

export function createStage(send, options) {
  const clock = (options && options.clock) || browserClock;
  const onframe = (options && options.onframe) || (() => {});     // presenter mode's sync
  const root = h("div", "stage");
  const bar = h("div", "player", root);
  const button = (cls, name) => {
    const b = h("button", "player-btn", h("span", cls, bar));
    b.type = "button";
    b.appendChild(icon(name));
    return [b, h("span", "player-label", b)];
  };
  const [bReset, lReset] = button("player-reset", "reset");
  const [bBack, lBack] = button("player-back", "back");
  const [bPlay, lPlay] = button("player-play", "play");
  const [bNext, lNext] = button("player-next", "next");
  bPlay.classList.add("primary");
  const pos = h("span", "player-pos", bar);
  const cards = h("div", "metrics stage-cards", root, null, { role: "group" });
  const figure = h("figure", "stage-figure", root);
  const holder = h("div", "stage-svg", figure, null, { role: "img" });
  const caption = h("p", "stage-caption", root);
  const extraBox = h("div", "stage-extra", root);
  const more = h("details", "more-numbers", root);
  const moreSummary = h("summary", "", more);
  const moreCards = h("div", "metrics", more, null, { role: "group" });
  const twin = h("details", "twin", root);
  const twinSummary = h("summary", "", twin);
  const twinTable = h("table", "kv", twin);
  const twinMore = h("div", "twin-more", twin);     // a frame's further tables (f.tables)
  const say = h("p", "sr-only stage-say", root, null, { role: "status", "aria-live": "polite" });
  // the figure's screens (the layout table's `figures`): where the stage stands among them
  const screensBar = h("div", "stage-screens", null);
  const [sPrev, sPos, sNext] = ["button", "span", "button"].map((t, k) =>
    h(t, ["screen-btn", "screen-pos", "screen-btn"][k], screensBar));
  sPrev.type = sNext.type = "button";
  sPrev.textContent = "◀";
  sNext.textContent = "▶";
  root.insertBefore(screensBar, figure);
  let screens = [null], screenAt = 0, pieces = null;
  const reduced = !!(window.matchMedia &&
                     window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  if (reduced) root.classList.add("reduced-motion");

  let S = null, F = [], framesSeen = null, concealed = false, mode = "normal";
  // the figure's parts the answer talks about; they pulse in the drawings of the first seconds
  // after the answer came out (the figure may be drawn again as it moves to the answer's state)
  let points = [], pulsed = "[]", pulsedAt = 0;
  const PULSE_MS = 2400;
  const pulse = () => {
    const k = JSON.stringify(points);
    if (k !== pulsed) { pulsed = k; pulsedAt = Date.now(); }
    return points.length > 0 && Date.now() - pulsedAt < PULSE_MS;
  };
  const presenting = () => PRESENTING.includes(mode);
  let pendingDraw = false;
  const renderer = () => (S && FIGURES[S.figure]) || null;

  // what the renderer and the cards are told (the renderer also `mode` and `box`: drawFigure)
  const context = (i) => {
    const text = (S && S.text) || {};
    return { text, index: i, count: F.length, reduced, badges: text.badges,
             parts: screens[screenAt] || null, points, fresh: pulse() };
  };
  // whether the mode shows a piece of the stage (row.stage; all when it names none)
  const shows = (piece) => !pieces || pieces.includes(piece);
  // move to screen `k` of the figure (the speaker view's copy follows the projected page's)
  const setScreen = (k) => {
    const to = Math.max(0, Math.min(screens.length - 1, k | 0));
    if (to === screenAt) return;
    screenAt = to;
    show();
  };
  const show = () => {
    const text = (S && S.text) || {};
    const playing = player.playing;
    lReset.textContent = text.reset || "";
    lBack.textContent = text.back || "";
    lNext.textContent = text.next || "";
    lPlay.textContent = playing ? (text.pause || "") : (text.play || "");
    bPlay.querySelector(".player-icon").replaceWith(icon(playing ? "pause" : "play"));
    bPlay.setAttribute("aria-pressed", playing ? "true" : "false");
    twinSummary.textContent = text.table || "";
    moreSummary.textContent = text.more || "";
    root.classList.toggle("concealed", concealed);
    const i = player.index, f = F[i];
    if (!f) return;
    bBack.disabled = i <= 0;
    bNext.disabled = i >= F.length - 1;
    pos.textContent = f.pos || "";
    const all = f.cards || [];
    const ctx = context(i);
    drawCards(cards, all.filter((c) => !c.more), ctx);
    drawCards(moreCards, all.filter((c) => c.more), ctx);
    cards.hidden = !cards.children.length;
    more.hidden = !moreCards.children.length || !shows("more");
    cards.hidden = cards.hidden || !shows("cards");
    screensBar.hidden = screens.length < 2;
    sPos.textContent = (text.screen || "").replace("{i}", String(screenAt + 1))
      .replace("{n}", String(screens.length));
    sPrev.disabled = screenAt <= 0;
    sNext.disabled = screenAt >= screens.length - 1;
    sPrev.setAttribute("aria-label", text.prev_screen || "");
    sNext.setAttribute("aria-label", text.next_screen || "");
    caption.textContent = f.caption || "";
    caption.hidden = !f.caption || !shows("caption");
    holder.setAttribute("aria-label", (text.figure ? text.figure + ": " : "") + (f.desc || ""));
    twin.hidden = !f.table || !shows("twin");
    if (f.table) drawTable(twinTable, f.table);
    twinMore.replaceChildren();
    for (const t of f.tables || []) drawTable(h("table", "kv", twinMore), t);
    const r = renderer();
    // figures measure their text to lay it out: draw again once the page shows the stage
    if (!holder.isConnected && !pendingDraw) {
      pendingDraw = true;
      requestAnimationFrame(() => { pendingDraw = false; if (holder.isConnected) show(); });
    }
    paint(r, f, ctx);
    extraBox.hidden = !(r && r.extra) || !shows("extra");
    try { if (r && r.extra) r.extra(extraBox, f, ctx); } catch (err) { console.warn("extra failed", err); }
    scrollable(figure);
    fitPlayer(bar, mode); fitCards(cards, mode);
    onframe(i);
  };
  // the figure, laid out for its box; presenting, with chart text at least 18 px on screen:
  // drawn again at that size (its labels are placed by size)
  const paint = (r, f, ctx) => {
    if (!r) return;
    try {
      drawFigure(r, holder, f.fig, ctx, mode);
      if (presenting() && holder.isConnected && fitChartText(holder)) drawFigure(r, holder, f.fig, ctx, mode);
    } catch (err) { console.warn("figure failed", err); }
  };
  // the figure's box changed (a window's resize, a column that the words widen or narrow,
  // the projected page's controls or cards taking more or less height): a new width lays the
  // figure out again (the latest frame); presenting, a new box asks fitChartText again
  let widthSeen = 0, boxSeen = "";
  const refit = () => {
    const b = holder.getBoundingClientRect(), seen = `${Math.round(b.width)}x${Math.round(b.height)}`;
    scrollable(figure);
    fitPlayer(bar, mode); fitCards(cards, mode);
    const f = F[player.index], r = renderer();
    if (!S || !f || !r || !holder.isConnected) return;
    const w = Math.round(b.width);
    if (w && Math.abs(w - widthSeen) > 4) {
      widthSeen = w;
      boxSeen = seen;
      paint(r, f, context(player.index));
    } else if (presenting() && seen !== boxSeen) {
      boxSeen = seen;
      if (fitChartText(holder)) show();
    }
  };
  if (typeof ResizeObserver !== "undefined")
    new ResizeObserver(() => requestAnimationFrame(refit)).observe(holder);
  // what the live region says when the frame on screen changes (Step, Pause, a control that
  // brings new frames): the frame's position and its sentence; a still figure (no player:
  // steps 4 and 5) says what it shows now
  const announce = () => {
    const f = F[player.index];
    if (f) say.textContent = [f.pos, f.say || f.desc].filter(Boolean).join(". ");
  };
  // the frames the page has told the server it stopped at, oldest first, until the server's
  // state says each back: a learner who clicks Step forward faster than the round trip has
  // moved on by the time the server's `frame` of an earlier click arrives, and that echo must
  // not move the player back (a click would be lost)
  let told = [];
  const player = createPlayer({
    count: 0, index: 0, interval: 900, show,
    every: (ms, fn) => clock((S && S.interval) || ms, fn),
    settle: (i) => { announce(); told = [...told.slice(-63), i]; send({ frame: i }); },
  });

  bReset.addEventListener("click", () => player.reset());
  bBack.addEventListener("click", () => player.step(-1));
  bNext.addEventListener("click", () => player.step(1));
  bPlay.addEventListener("click", () => player.toggle());
  sPrev.addEventListener("click", () => setScreen(screenAt - 1));
  sNext.addEventListener("click", () => setScreen(screenAt + 1));

  // keys: Space plays/pauses, “.”/“,” step; when presenting, PageDown/PageUp step and go
  // on to the next/previous step at either end (returns true when the key was used)
  const key = (e) => {
    if (!S || !root.isConnected) return false;
    if (S.player) {
      if (e.key === " ") { player.toggle(); return true; }
      if (e.key === ".") { player.step(1); return true; }
      if (e.key === ",") { player.step(-1); return true; }
      if (presenting() && e.key === "PageDown" && player.index < F.length - 1) { player.step(1); return true; }
      if (presenting() && e.key === "PageUp" && player.index > 0) { player.step(-1); return true; }
    }
    if (presenting() && e.key === "PageDown" && screenAt < screens.length - 1) { setScreen(screenAt + 1); return true; }
    if (presenting() && e.key === "PageUp" && screenAt > 0) { setScreen(screenAt - 1); return true; }
    return false;
  };

  // a new state from the server: the frames (only when their text changed), where
  // playback stands, the labels, whether answers are hidden, and the page's mode (layout.js
  // modeOf). The figure is drawn once, and only when something it shows changed: the server's
  // echo of a frame the player already shows (after Step or Pause) draws nothing.
  let drawnKey = null;
  const update = (stage, frames, frame, isConcealed, pageMode, row, answerPoints) => {
    S = stage;
    points = Array.isArray(answerPoints) ? answerPoints : [];
    concealed = !!isConcealed;
    mode = pageMode || "normal";
    const need = stage && row && row.figures ? row.figures[stage.figure] : null;
    const was = JSON.stringify(screens);
    screens = Array.isArray(need) && need.length ? need : [null];
    if (JSON.stringify(screens) !== was) screenAt = 0;       // another figure, or mode
    screenAt = Math.min(screenAt, screens.length - 1);
    pieces = row && Array.isArray(row.stage) ? row.stage : null;
    root.hidden = !stage;
    if (!stage) { player.stop(); drawnKey = null; return; }
    bar.hidden = !stage.player;
    let moved = false;
    if (frames !== framesSeen) {
      framesSeen = frames;
      F = parseFrames(frames);
      player.setCount(F.length);
      moved = true;
      told = [];                            // new frames: where the server puts the player holds
    }
    const key = JSON.stringify([stage, concealed, mode, screens, pieces, points]);
    const changed = moved || key !== drawnKey;
    drawnKey = key;
    // the server's frame: one the page told it (its echo: the player may have moved on since)
    // is dropped with those told before it; any other is the server's move (a link, a reset)
    const echo = told.indexOf(frame);
    if (echo >= 0) told = told.slice(echo + 1);
    if (echo < 0 && !player.playing && frame !== player.index) { player.moveTo(frame); moved = true; }
    else if (changed) show();
    if (moved && !player.playing) announce();
  };
  const redraw = () => show();
  const stop = () => player.stop();
  const screen = () => screenAt;
  // the figure's parts the screen on show draws (the layout table's `figures`; null: all)
  const drawnParts = () => screens[screenAt];
  return { el: root, update, key, redraw, stop, player, screen, setScreen, drawnParts };
}
