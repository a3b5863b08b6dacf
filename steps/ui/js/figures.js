// The registry of figure renderers (one file each under draw/): a step's stage names its
// renderer (`Step.figure`). A renderer is {draw(holder, fig, ctx), extra?(box, frame, ctx)}:
// `draw` (re)builds the figure in `holder` from one frame's `fig`; `extra` fills a box under
// the caption. ctx = {text, index, count, reduced, badges, mode, box}. WIDGETS are a step's
// own groups of inputs (`StepState.custom`): widget(send) -> {el, update(custom)}.

import { arcs } from "./draw/arcs.js";
import { grids } from "./draw/grids.js";
import { cache } from "./draw/cache.js";
import { roofline } from "./draw/roofline.js";
import { bill } from "./draw/bill.js";
import { layers } from "./draw/layers.js";
import { pool } from "./draw/pool.js";
import { strip } from "./draw/strip.js";
import { config } from "./draw/config.js";

export const FIGURES = { arcs, grids, cache, roofline, bill, pool, strip };

export const WIDGETS = { config };
