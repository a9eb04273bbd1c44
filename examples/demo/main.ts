#!/usr/bin/env node
// `npm start`: the demo controller, on the embedded API server or (with --kubeconfig) a real cluster.
import { runCli } from './cli.js';

// Ctrl-C or SIGTERM ends the run gracefully (informers stopped, status writes settled, servers closed,
// summary printed); a second one, or 5 s without an end, exits at once.
const interrupt = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupt.signal.aborted) process.exit(130);
    process.stderr.write(`\n${signal}: stopping…\n`);
    interrupt.abort();
    setTimeout(() => process.exit(130), 5000).unref();
  });
}

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, interrupt: interrupt.signal }).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`demo failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
