// Reads Prometheus's text format back into samples, so tests check what a scraper would see.

/** One sample line: metric name, labels and value. */
export interface ScrapedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (comments skipped); throws on a line that is not a sample. */
export function parseScrape(text: string): ScrapedSample[] {
  const out: ScrapedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const l of ((m[2] as string | undefined) ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample with this name and (at least) these labels; undefined when there is none. */
export function valueOf(samples: readonly ScrapedSample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
