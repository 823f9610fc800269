/**
 * The emulator worker's voice: posting a message to the page (its shape is
 * the one protocol.js gives) and putting an error into one line for it.
 */

import { Msg } from "./protocol.js";

export function post(message) {
  self.postMessage(message);
}

/** When the worker did something, in ms since the epoch (the page's clock differs): a TRACE's marks. */
export function now() {
  return performance.timeOrigin + performance.now();
}

/** Tell the page when `what` was received (optional), began and ended, as performance marks. */
export function trace(what, began, ended, received = null) {
  const marks = [[`worker-${what}-start`, began], [`worker-${what}-end`, ended]];
  if (received !== null) marks.unshift([`worker-${what}-received`, received]);
  post({ type: Msg.TRACE, marks });
}

export function describe(error) {
  const text = String(error && error.message ? error.message : error);
  // A Python exception's message ends with the traceback's last line: keep that.
  const lines = text.trim().split("\n");
  return lines[lines.length - 1];
}
