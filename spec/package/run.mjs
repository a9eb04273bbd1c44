// Child processes for the packaging test: a promise per command, with its output, exit code and duration.
import { spawn } from 'node:child_process';

// What `npm run` adds that would steer an npm or node started here: the repository as the project
// (npm_config_local_prefix, npm_package_*), this Node's headers (npm_config_nodedir) and this script's identity.
// Settings from the user's own npm configuration (cache, registry, cafile) pass through.
const FROM_NPM_RUN =
  /^(npm_package_|npm_lifecycle_|npm_command$|npm_execpath$|npm_node_execpath$|npm_config_(local_prefix|nodedir|call|user_agent|npm_version)$|INIT_CWD$|NODE_PATH$)/i;

/** The environment for a fresh project's npm and node: this one without what `npm run` added. */
export function cleanEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !FROM_NPM_RUN.test(k)));
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
