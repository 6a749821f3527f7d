// A statistics read repeated in the background (src/db/table-sizes.ts, src/db/fan-outs.ts): the first at
// once, each next one `intervalMs` after the previous one ended (never two at a time); a failed read is
// logged and keeps what the last one found. Unreferenced: it never keeps the process alive.
import { log } from '../log.ts';

export class Poll {
  private timer: NodeJS.Timeout | null = null;

  /** `what` names the figures in the log line of a failed read. */
  constructor(private read: () => Promise<void>, private intervalMs: number, private what: string) {}

  start(): void {
    const poll = () => {
      this.read().catch((e: unknown) => log.debug(`could not read ${this.what} (kept the last ones)`, { error: String(e) }))
        .finally(() => { if (this.timer) { this.timer = setTimeout(poll, this.intervalMs); this.timer.unref(); } });
    };
    this.timer = setTimeout(poll, 0);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
