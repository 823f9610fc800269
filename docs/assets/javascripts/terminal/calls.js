/**
 * The emulator worker's answers to the page's requests: each calls
 * `emulator.web`, which holds every session of the visit, and posts the
 * reply protocol.js gives for it.
 *
 * A RUN is driven chunk by chunk: `step` until done, posting each chunk,
 * sleeping between chunks with setTimeout so an INTERRUPT is handled in
 * between (no SharedArrayBuffer needed).
 */

import { Msg, MAX_PAUSE_MS } from "./protocol.js";
import { post } from "./port.js";
import { visit, warmWhenQuiet } from "./background.js";
import { labOfPage } from "./loader.js";

/** `emulator.web` once the runtime has loaded, else null. */
let web = null;

export function attach(module) {
  web = module;
  warmWhenQuiet(() => call("warm_next"));
}

/** Call emulator.web.NAME and give back plain JavaScript values. */
function call(name, ...args) {
  const value = web[name](...args);
  if (value && typeof value.toJs === "function") {
    const plain = value.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
    value.destroy();
    return plain;
  }
  return value;
}

/** Like call, for functions answering with an object (sent as JSON or as a dict). */
function callObject(name, ...args) {
  const value = call(name, ...args);
  return typeof value === "string" ? JSON.parse(value) : value;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request id of the line each session is running; a newer line takes over the session. */
const running = new Map();

async function run(id, sid, line, columns, solves) {
  if (typeof web.incomplete === "function" && callObject("incomplete", line)) {
    // An open quote, a trailing | or a `for` without `done`: the page asks for another line.
    post({ type: Msg.DONE, id, status: null, prompt: null, state: null, more: true });
    return;
  }
  running.set(sid, id);
  call("start", sid, line, Number(columns) || null, solves ? JSON.stringify(solves) : null);
  for (;;) {
    if (running.get(sid) !== id) return; // superseded by a newer line (the page moved on)
    const step = callObject("step", sid);
    if (step.out && step.out.length) {
      post({ type: Msg.OUTPUT, id, chunks: step.out });
    }
    if (step.done) {
      running.delete(sid);
      post({ type: Msg.DONE, id, status: step.status, prompt: step.prompt, state: null,
             lab: step.lab, seed: step.seed, title: step.title, goal: step.goal, solved: step.solved ?? null,
             objectives: step.objectives ?? [], request: step.request ?? null });
      return;
    }
    await sleep(Math.min(Math.max(Number(step.pause) || 0, 0) * 1000, MAX_PAUSE_MS));
  }
}

function ready(id, opened) {
  post({ type: Msg.READY, id, ...opened });
}

/** One handler per request type; each runs once the runtime has loaded. */
export const handlers = {
  [Msg.OPEN]: (m) => {
    visit(m.lab, m.seed);
    ready(m.id, callObject("open_session", m.lab, m.seed, m.state ?? null, m.student || null));
  },
  [Msg.PREPARE]: (m) => {
    const lab = labOfPage(m.path);
    if (lab) call("prepare", lab[0], lab[1]);
  },
  [Msg.RESET]: (m) => ready(m.id, callObject("reset", m.sid, m.student || null)),
  [Msg.RUN]: (m) => run(m.id, m.sid, m.line, m.columns, m.solves),
  [Msg.COMPLETE]: (m) => post({ type: Msg.COMPLETION, id: m.id, ...callObject("complete", m.sid, m.line) }),
  [Msg.SNAPSHOT]: (m) => {
    const state = call("snapshot", m.sid);
    post({ type: Msg.DONE, id: m.id, status: 0, prompt: null, state: typeof state === "string" ? state : JSON.stringify(state) });
  },
  [Msg.VERIFY]: (m) => {
    post({ type: Msg.DONE, id: m.id, status: 0, prompt: null, state: call("verify", JSON.stringify(m.codes), m.workshop ?? null) });
  },
};

/** INTERRUPT: stop the line `sid` is running, at once; before the runtime has loaded there is none. */
export function interrupt(sid) {
  if (web) call("interrupt", sid);
}
