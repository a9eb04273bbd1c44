// CONNECT requests (authority-form targets) answered with a 400 Status on the raw socket.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { badRequest } from '../apimachinery/statusError.js';

/**
 * Answers a `CONNECT` (node hands it to the server's `'connect'` event, not to the request handler) with
 * `400 BadRequest` and closes the connection: the server is no proxy. Without a listener node would drop the
 * socket without a word; a client deserves to know why.
 */
export function refuseConnect(req: IncomingMessage, socket: Duplex): void {
  const target = (req.url ?? '').slice(0, 200);
  const body = JSON.stringify(badRequest(`invalid request target ${JSON.stringify(target)}: CONNECT is not served`).toStatus());
  socket.on('error', () => socket.destroy());
  socket.end(
    [
      'HTTP/1.1 400 Bad Request',
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
