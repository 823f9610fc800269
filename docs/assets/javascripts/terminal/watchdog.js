/**
 * The worker watchdog. A command runs synchronously in the worker, so one that computes without end
 * would freeze the terminal. While a line runs, the page asks the worker every PROBE_MS whether it still
 * answers (PING, PONG); any output counts as an answer too. After WATCHDOG_MS (protocol.js) without one,
 * `onStuck` is called: runner.js stops the command by restarting the runtime, and the session is
 * restored from its journal, which the line never reached.
 *
 * A test may make a line hang on purpose: `stalls(line)` is true only for the line that localStorage's
 * TEST_STALL key names, which only tests set; that line is sent as a STALL instead of a RUN.
 */

import { runtime } from "./client.js";
import { Msg, WATCHDOG_MS } from "./protocol.js";

/** How often a running command's worker is asked whether it still answers. */
const PROBE_MS = 1000;
/** localStorage key a test sets to the text of a line that should hang (the test hook). */
export const TEST_STALL = "mdx-terminal:test-stall";
/** How long the test's line hangs: well past WATCHDOG_MS. */
export const STALL_MS = 6 * WATCHDOG_MS;

/** Whether `line` is the test hook's hanging line (never true unless a test set TEST_STALL). */
export function stalls(line) {
  try {
    const wanted = localStorage.getItem(TEST_STALL);
    return wanted !== null && wanted !== "" && wanted === line;
  } catch {
    return false;
  }
}

export class Watchdog {
  constructor(onStuck) {
    this.onStuck = onStuck;
    this.timer = null;
    this.last = 0;
    this.checked = 0;
    this.probing = false;
  }

  start() {
    this.stop();
    this.last = this.checked = performance.now();
    this.timer = setInterval(() => this.check(), PROBE_MS);
  }

  /** The worker answered (output, or a PONG). */
  alive() {
    this.last = performance.now();
  }

  check() {
    const now = performance.now();
    if (now - this.checked > WATCHDOG_MS / 2) {
      // The page itself was asleep (a suspended laptop, a throttled tab): wait for a fresh answer.
      this.last = now;
      this.probing = false;
    }
    this.checked = now;
    if (now - this.last >= WATCHDOG_MS) {
      this.stop();
      this.onStuck();
      return;
    }
    if (this.probing) return;
    this.probing = true;
    const probe = () => {
      this.probing = false;
      this.alive();
    };
    runtime.request({ type: Msg.PING }, { onPong: probe, onError: () => { this.probing = false; } });
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    this.probing = false;
  }
}
