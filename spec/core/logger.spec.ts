import { describe, it, expect, afterEach, jest } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { newCollection, newStaticCollection, setLogger } from '../../src/index.js';
import { consoleLogger, log } from '../../src/core/logger.js';

interface Order {
  id: string;
  qty: number;
}
const byId = (o: { id: string }): string => o.id;

/** A pino logger writing JSON lines into an array. */
function pinoInto(lines: Array<Record<string, unknown>>, level = 'debug') {
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level }, stream);
}

describe('logging', () => {
  afterEach(() => {
    setLogger();
    jest.restoreAllMocks();
  });

  it('should take a pino logger as it is and log a failing transform with its collection, key and error as fields', () => {
    const lines: Array<Record<string, unknown>> = [];
    setLogger(pinoInto(lines));
    const orders = newStaticCollection<Order>([], { name: 'PinoOrders', key: byId });
    newCollection(
      orders,
      (_ctx, o) => {
        if (o.qty <= 0) throw new Error(`quantity must be positive, got ${o.qty}`);
        return o;
      },
      { name: 'PinoInvoices', key: byId },
    );
    orders.updateObject({ id: 'o2', qty: 0 });
    const error = lines.find((l) => l.level === 50);
    expect(error).toMatchObject({
      collection: 'PinoInvoices',
      key: 'o2',
      err: { message: 'quantity must be positive, got 0' },
      msg: expect.stringContaining('collection "PinoInvoices" key "o2"') as unknown,
    });
    expect(lines.filter((l) => l.level === 20).map((l) => l.collection)).toContain('PinoInvoices');
  });

  it('should call each level in both conventions, and drop the levels a partial logger lacks', () => {
    const seen: unknown[][] = [];
    setLogger({ warn: (...args: unknown[]) => void seen.push(['warn', ...args]) });
    log().warn({ collection: 'C' }, 'with fields');
    log().warn('message only');
    log().debug('dropped');
    log().info({ x: 1 }, 'dropped');
    log().error('dropped');
    expect(seen).toEqual([
      ['warn', { collection: 'C' }, 'with fields'],
      ['warn', 'message only'],
    ]);
  });

  it('should print from the chosen level up on the console, fields after the message', () => {
    const info = jest.spyOn(console, 'info').mockImplementation(() => {});
    const debug = jest.spyOn(console, 'debug').mockImplementation(() => {});
    setLogger(consoleLogger('info'));
    log().debug('hidden');
    log().info({ resource: 'v1/Pod' }, 'listed');
    expect(debug).not.toHaveBeenCalled();
    expect(info).toHaveBeenCalledWith('[rxkrt] listed', { resource: 'v1/Pod' });
    setLogger(consoleLogger('debug'));
    log().debug('shown');
    expect(debug).toHaveBeenCalledWith('[rxkrt] shown');
  });
});
