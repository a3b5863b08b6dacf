// Where a step's regions go, one row per page mode: which regions each column holds and in what
// order. A step names its regions (steps/ui/state.py REGIONS); the page (page.js) draws each
// region once and places it by the row of the mode it is in. A mode is a row here, not a set
// of CSS rules over class names: to change what a projected page shows, change its row.
//
// One column (a phone, a whole embed): the question comes before the figure and the cards
// whose “?” it explains (the stage's cards are the figure's), right after the lead.
//
// A row: `columns` (2: words and figure in two boxes, side by side or, figure-only, the one
// above the other; 1: one column, everything in `left`'s box, in order), `left` and
// `right` (region names, and the page's live elements: tabs, question, controls, custom,
// stage, talk, screen, said: the speaker view's answer, under its screen; `answer`: the
// question's revealed answer, on the projected page a callout
// over the figure it talks about, so that an answer never pushes the controls off the screen),
// `tabs` (whether the step's parts are drawn as tabs), `drawer` (regions
// placed at the end of `left` only while the drawer is open: the speaker view's prose and
// exercises, one key away), `stage` (the stage's pieces this mode shows, of player, cards,
// figure, caption, extra, more, twin; all when absent) and `figures` (a figure's needs in this
// mode: {renderer: [the parts each screen draws, …]}; projected, PageDown and PageUp move
// through the screens, step 4's roofline first and its batch charts on a screen of their own;
// absent: one screen with every part). An entry that is a list
// takes the first of its regions that has something in it (projected, a part's title stands
// for the step's lead, and in a figure-only embed: a part's embed leads with its own title, not
// the whole step's lead). `variants` change a row's columns for a step that names one
// (StepState.variant; "cards-first": the cards, then a figure drawn once, as step 6's part C,
// whose figure-only embed is that figure alone, without the cards or “All numbers”;
// "answer-left": projected, the answer under the question and the controls over the figure,
// for a part whose answer is long and whose figure needs the visual column's height: step 6's
// parts B and D; "answer-over": projected, the answer over the figure and the stage's cards
// left out, whose numbers the answer says, for a figure that needs the column's height: step 4
// once answered). A variant may name the stage's pieces too (`stage`).
//
// The object below is strict JSON between the two markers: the Python tests read the same
// table (steps/ui/state.py `layout_table`).

// LAYOUT-JSON-START
export const LAYOUT = {
  "normal": {
    "columns": 2, "tabs": true,
    "left": ["lead", "part", "idea", "question", "answer", "look", "facts", "notices", "deeper",
             "exercises", "body"],
    "right": ["controls", "custom", "stage", "figure", "legend", "cards", "more", "extras"],
    "variants": {
      "cards-first": {"right": ["controls", "cards", "more", "figure"]}
    }
  },
  "narrow": {
    "columns": 1, "tabs": true,
    "left": ["lead", "part", "question", "answer", "controls", "custom", "stage", "figure", "legend",
             "cards", "more", "extras", "idea", "look", "facts", "notices", "deeper",
             "exercises", "body"],
    "right": [],
    "variants": {
      "cards-first": {"left": ["lead", "part", "controls", "question", "answer", "cards", "more", "figure",
                               "idea", "look", "facts", "notices", "deeper", "exercises"]}
    }
  },
  "figure": {
    "columns": 2, "tabs": false,
    "stage": ["player", "figure", "twin"],
    "figures": {"roofline": [["roof"]], "bill": [["curve"]]},
    "left": [["part", "lead"], "controls", "custom"],
    "right": ["stage", "figure", "legend", "body"],
    "variants": {
      "cards-first": {"right": ["figure"]}
    }
  },
  "present": {
    "columns": 2, "tabs": true,
    "figures": {"roofline": [["roof"], ["batch"]], "bill": [["curve"], ["bar"], ["layers"]]},
    "left": [["part", "lead"], "question", "controls", "custom", "notices", "body"],
    "right": ["answer", "stage", "figure", "cards"],
    "variants": {
      "answer-left": {"left": [["part", "lead"], "question", "answer", "notices"],
                      "right": ["controls", "stage", "figure", "cards"]},
      "answer-over": {"right": ["answer", "stage", "figure"],
                      "stage": ["player", "figure", "caption", "extra", "more", "twin"]},
      "cards-first": {"left": [["part", "lead"], "question", "answer", "notices"],
                      "right": ["controls", "cards", "figure"]}
    }
  },
  "speaker": {
    "columns": 2, "tabs": false,
    "left": ["talk"],
    "right": ["screen", "said"],
    "drawer": ["lead", "part", "idea", "look", "facts", "notices", "extras", "more", "deeper",
               "exercises", "body"]
  }
};
// LAYOUT-JSON-END

// The page's mode from the shell's state and the width it has: the speaker view, the projected
// page, a figure-only embed, one column (a phone, or embedded whole in a course page), or the
// two columns of a screen.
export function modeOf(shell, narrow) {
  const s = shell || {};
  if (s.present && !s.embed) return s.speaker ? "speaker" : "present";
  if (s.embed && s.figure) return "figure";
  if (s.embed || narrow) return "narrow";
  return "normal";
}

// The row of `mode` for a step that names `variant` (or none): {columns, tabs, left, right,
// drawer}.
export function rowOf(mode, variant) {
  const row = LAYOUT[mode] || LAYOUT.normal;
  const v = (variant && row.variants && row.variants[variant]) || {};
  return { columns: row.columns, tabs: row.tabs, left: v.left || row.left,
           right: v.right || row.right, drawer: row.drawer || [], stage: v.stage || row.stage || null,
           figures: row.figures || {} };
}

// Whether `row` places `name` anywhere (its drawer included).
export function rowHas(row, name) {
  return [...row.left, ...row.right, ...row.drawer].flat().includes(name);
}

// `filled(name)` says whether a region has something to show; an entry that is a list takes
// its first filled region. Returns the names of the filled regions in each column, {left,
// right, drawer}.
export function placeRegions(row, filled) {
  const pick = (entry) => Array.isArray(entry) ? (entry.find(filled) || null) : entry;
  const side = (names) => (names || []).map(pick).filter((name) => name && filled(name));
  return { left: side(row.left), right: side(row.right), drawer: side(row.drawer) };
}
