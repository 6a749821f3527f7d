// One status line per scenario phase: rewritten in place on a terminal, printed once when finished
// otherwise (CI logs would fill up with carriage-return noise).
export class Progress {
  private readonly tty = Boolean(process.stdout.isTTY);
  private current = '';

  update(text: string): void {
    this.current = text;
    if (this.tty) process.stdout.write(`\r\x1b[K${text}`);
  }

  done(text: string): void {
    if (this.tty) process.stdout.write(`\r\x1b[K${text}\n`);
    else process.stdout.write(`${text}\n`);
    this.current = '';
  }

  /** Prints a message without losing the line being updated. */
  note(text: string): void {
    if (this.tty && this.current) process.stdout.write(`\r\x1b[K${text}\n${this.current}`);
    else process.stdout.write(`${text}\n`);
  }
}
