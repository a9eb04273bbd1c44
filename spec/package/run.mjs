// Child processes for the packaging test: a promise per command, with its output, exit code and duration.
import { spawn } from 'node:child_process';

/**
 * The environment a fresh project's npm and node should see: this one without `npm run`'s npm_* variables,
 * which would point the inner npm at the repository (npm_config_local_prefix) or its settings.
 */
export function cleanEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_PATH' && k !== 'INIT_CWD'));
  return { ...env, ...extra };
}

/** Runs `cmd args` in `cwd`; resolves (never rejects) with { ok, code, stdout, stderr, ms }. */
export function run(cmd, args, { cwd, env = cleanEnv(), timeoutMs = 300_000 } = {}) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    const done = (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, code, stdout, stderr, ms: performance.now() - started });
    };
    child.on('error', (e) => {
      stderr += String(e);
      done(-1);
    });
    child.on('close', done);
  });
}

/** The last `n` lines of a command's output, for a failure report. */
export function tail(text, n = 15) {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}
