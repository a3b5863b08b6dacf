// The player's state machine: where playback stands among `count` frames, and whether it
// plays. Pure: the clock is passed in (`every(ms, fn)` returns a function that stops it),
// so tests drive it by hand. The page shows a frame on `show` and tells the server where
// playback stopped on `settle` (Pause, Step, Reset and the last frame), never per tick.

export function createPlayer({ count, index, interval, every, show, settle }) {
  let i = 0, n = 0, stopClock = null;
  const clamp = (k) => Math.max(0, Math.min(n - 1, k));
  const p = {
    get index() { return i; },
    get count() { return n; },
    get playing() { return stopClock !== null; },
    setCount(c) { n = Math.max(0, c | 0); i = n ? clamp(i) : 0; },
    stop() { if (stopClock) { stopClock(); stopClock = null; } },
    tick() {
      if (i < n - 1) i += 1;
      if (i >= n - 1) { p.stop(); show(); settle(i); return; }
      show();
    },
    play() {
      if (n < 2) return;
      if (i >= n - 1) i = 0;              // Play at the end starts over
      stopClock = every(interval, p.tick);
      show();
    },
    toggle() {
      if (p.playing) { p.stop(); show(); settle(i); } else p.play();
    },
    step(d) { p.stop(); i = clamp(i + d); show(); settle(i); },
    reset() { p.stop(); i = 0; show(); settle(i); },
    // the server moved playback (a link, a control that reset the frame)
    moveTo(k) { if (!p.playing && k !== i) { i = clamp(k); show(); } },
  };
  p.setCount(count);
  i = clamp(index || 0);
  return p;
}

export function browserClock(ms, fn) {
  const t = setInterval(fn, ms);
  return () => clearInterval(t);
}
