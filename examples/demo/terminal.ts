// Terminal output for the demo: a redrawn block on a TTY, plain lines elsewhere (CI logs, pipes).
import type { DemoOutput } from './demo.js';

/** Redraws the progress block in place on a TTY; on anything else prints it at most every 2 s. */
export function terminalOutput(stream: NodeJS.WriteStream = process.stdout): DemoOutput {
  let drawn = 0;
  let lastPlain = 0;
  return {
    progress(lines) {
      if (stream.isTTY) {
        // Move up over the previous block and clear each line before writing the new one.
        if (drawn > 0) stream.write(`\x1b[${drawn}A`);
        for (const l of lines) stream.write(`\x1b[2K${l}\n`);
        drawn = lines.length;
        return;
      }
      const now = Date.now();
      if (now - lastPlain < 2000) return;
      lastPlain = now;
      stream.write(`${lines.map((l) => l.trim()).join(' | ')}\n`);
    },
    log(line) {
      drawn = 0;
      stream.write(`${line}\n`);
    },
  };
}
