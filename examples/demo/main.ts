#!/usr/bin/env node
// `npm start`: the demo controller, on the embedded API server or (with --kubeconfig) a real cluster.
import { runCli } from './cli.js';

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`demo failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
