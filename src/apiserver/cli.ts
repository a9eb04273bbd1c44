#!/usr/bin/env node
// Standalone embedded API server: prints (or writes) a kubeconfig and serves until SIGINT/SIGTERM.
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseIpv4Cidr } from './apimachinery/ipv4Range.js';
import { startApiServer, type ApiServer } from './startApiServer.js';

/** Parsed command line. */
export interface CliArgs {
  port: number;
  /** Write the kubeconfig here instead of printing it. */
  kubeconfig?: string;
  /** Require this bearer token; `auto` makes a random one. */
  token?: string;
  /** Serve HTTPS with a certificate made at start (absent: plain HTTP). */
  tls?: boolean;
  /** The IPv4 CIDR Service cluster IPs come from (absent: the server's default, 10.96.0.0/12). */
  serviceClusterIpRange?: string;
  help: boolean;
}

/** Where the CLI writes: stdout gets only the kubeconfig (so it can be redirected), stderr the chatter. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Usage text for `--help`. */
export const USAGE = `Usage: rxkrt-apiserver [--port N] [--kubeconfig PATH] [--token TOKEN|auto] [--tls]
                       [--service-cluster-ip-range CIDR]

Runs rxkrt's in-memory Kubernetes API server on 127.0.0.1 until SIGINT or SIGTERM.
  --port N             TCP port (default 0: any free port)
  --kubeconfig PATH    write the kubeconfig to PATH (mode 0600) instead of printing it to stdout
  --token TOKEN|auto   require "Authorization: Bearer TOKEN" on every request; auto makes a random
                       token. The kubeconfig carries it.
  --tls                serve HTTPS with a self-signed certificate made at start; the kubeconfig
                       trusts exactly that certificate
  --service-cluster-ip-range CIDR
                       the IPv4 range Service cluster IPs come from (default 10.96.0.0/12)
  -h, --help           show this help
`;

/**
 * Parses `--port N`, `--kubeconfig PATH`, `--token TOKEN|auto`, `--service-cluster-ip-range CIDR` (also as
 * `--opt=value`), `--tls` and `--help`.
 *
 * @throws Error naming the bad argument.
 */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  const args: CliArgs = { port: 0, help: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] =
      argv[i]!.startsWith('--') && argv[i]!.includes('=')
        ? [argv[i]!.slice(0, argv[i]!.indexOf('=')), argv[i]!.slice(argv[i]!.indexOf('=') + 1)]
        : [argv[i]!, undefined];
    const value = (): string => {
      const v = inline ?? argv.at(++i);
      if (v === undefined || v === '') throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '-h' || flag === '--help') args.help = true;
    else if (flag === '--port') {
      const text = value();
      const port = Number(text);
      if (!/^\d+$/.test(text) || port > 65535) throw new Error(`--port: not a port number: ${text}`);
      args.port = port;
    } else if (flag === '--kubeconfig') args.kubeconfig = value();
    else if (flag === '--token') {
      const token = value();
      if (/\s/.test(token)) throw new Error('--token: a token cannot contain spaces');
      args.token = token;
    } else if (flag === '--tls') args.tls = true;
    else if (flag === '--service-cluster-ip-range') {
      const cidr = value();
      try {
        parseIpv4Cidr(cidr);
      } catch (e) {
        throw new Error(`--service-cluster-ip-range: ${(e as Error).message}`, { cause: e });
      }
      args.serviceClusterIpRange = cidr;
    } else throw new Error(`unknown argument: ${argv[i]}`);
  }
  return args;
}

/**
 * Starts the server as the command line asks and reports where it is. Returns the running server
 * (the caller decides when to close it), or `undefined` after printing `--help`.
 *
 * @throws Error for bad arguments or a port that cannot be bound.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ApiServer | undefined> {
  const args = parseCliArgs(argv);
  if (args.help) {
    io.stdout(USAGE);
    return undefined;
  }
  // 32 random bytes: as strong as a kube service-account token, and base64url needs no quoting anywhere.
  const token = args.token === 'auto' ? randomBytes(32).toString('base64url') : args.token;
  const server = await startApiServer({ port: args.port, token, tls: args.tls, serviceClusterIpRange: args.serviceClusterIpRange });
  try {
    if (args.kubeconfig) {
      await writeFile(args.kubeconfig, server.kubeconfigYaml(), { mode: 0o600 });
      io.stderr(`rxkrt-apiserver: listening on ${server.url}; kubeconfig written to ${args.kubeconfig}\n`);
      io.stderr(`  try: kubectl --kubeconfig ${args.kubeconfig} get namespaces\n`);
      if (token) io.stderr(`  requests need its bearer token (in the kubeconfig)\n`);
    } else {
      io.stderr(`rxkrt-apiserver: listening on ${server.url}; kubeconfig follows on stdout\n`);
      io.stdout(server.kubeconfigYaml());
    }
  } catch (e) {
    await server.close();
    throw e;
  }
  return server;
}

async function main(): Promise<void> {
  const io: CliIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };
  let server: ApiServer | undefined;
  try {
    parseCliArgs(process.argv.slice(2));
  } catch (e) {
    io.stderr(`rxkrt-apiserver: ${(e as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  try {
    server = await runCli(process.argv.slice(2), io);
  } catch (e) {
    io.stderr(`rxkrt-apiserver: ${(e as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  if (!server) return;
  const running = server;
  const stop = (signal: string): void => {
    io.stderr(`rxkrt-apiserver: ${signal}, shutting down\n`);
    // Once closed nothing holds the event loop, so the process exits by itself.
    void running.close();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

// Run only as the entry point (also through an npm bin symlink), never when imported by tests.
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) void main();
