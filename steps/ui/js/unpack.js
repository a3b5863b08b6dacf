// Frames arrive packed (steps/ui/frames.py `pack`): strings and lists that repeat are sent
// once, in tables at the head of the list. This undoes it.
//   "§<i>"            the i-th (base 36) string of $strings
//   "¶<i>"            the i-th list or dict of $objects (unpacked once, then shared)
//   ["¦<ref>", item]  the list <ref> plus one item (a grid that gains a row per frame)
//   ["¤<i>", v...]    a dict with the keys $keys[i] and these values

export function unpack(packed) {
  if (!packed || !packed.length || !packed[0] || !packed[0]["$strings"]) return packed || [];
  const S = packed[0]["$strings"], O = packed[0]["$objects"] || [];
  const K = packed[0]["$keys"] || [], memo = [];
  const sub = (x) => {
    if (typeof x === "string") {
      if (x.startsWith("\u00a7")) return S[parseInt(x.slice(1), 36)];
      if (x.startsWith("\u00b6")) {
        const k = parseInt(x.slice(1), 36);
        if (memo[k] === undefined) memo[k] = sub(O[k]);
        return memo[k];
      }
      return x;
    }
    if (Array.isArray(x)) {
      const mark = x.length && typeof x[0] === "string" ? x[0].charAt(0) : "";
      if (mark === "\u00a6") return sub(x[0].slice(1)).concat([sub(x[1])]);
      if (mark === "\u00a4") {
        const o = {};
        K[parseInt(x[0].slice(1), 36)].forEach((k, j) => { o[k] = sub(x[j + 1]); });
        return o;
      }
      return x.map(sub);
    }
    if (x && typeof x === "object") { const o = {}; for (const k in x) o[k] = sub(x[k]); return o; }
    return x;
  };
  return packed.slice(1).map(sub);
}

export function parseFrames(text) {
  return unpack(JSON.parse(text || "[]"));
}
