import { describe, it, expect, jest } from '@jest/globals';

describe('quickstart (README example)', () => {
  it('should print exactly the events the README promises', async () => {
    const spy = jest.spyOn(console, 'log').mockImplementation(() => {});
    const { log } = await import('../../examples/quickstart/main.js');
    spy.mockRestore();
    expect(log).toEqual(['add []', 'update ["10.0.0.1"]', 'update []']);
  });
});
