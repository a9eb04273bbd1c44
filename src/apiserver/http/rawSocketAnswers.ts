// Answers written straight to the socket, for requests node never hands to the request handler.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { badRequest, StatusError } from '../apimachinery/statusError.js';

/**
 * Answers a `CONNECT` (node hands it to the server's `'connect'` event, not to the request handler) with
 * `400 BadRequest` and closes the connection: the server is no proxy. Without a listener node would drop the
 * socket without a word; a client deserves to know why.
 */
export function refuseConnect(req: IncomingMessage, socket: Duplex): void {
  const target = (req.url ?? '').slice(0, 200);
  writeStatus(socket, badRequest(`invalid request target ${JSON.stringify(target)}: CONNECT is not served`), 'Bad Request');
}

/**
 * Answers what node's HTTP parser refused (the server's `'clientError'` event) with a `Status` body, where node
 * alone would send a bare status line: 431 for oversized headers, 408 for a request that took too long to arrive,
 * 400 for the rest. A connection already reset gets nothing.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    writeStatus(
      socket,
      new StatusError(431, 'RequestHeaderFieldsTooLarge', 'request header fields too large'),
      'Request Header Fields Too Large',
    );
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    writeStatus(socket, new StatusError(408, 'Timeout', 'the request took too long to arrive'), 'Request Timeout');
  } else {
    writeStatus(socket, badRequest(`malformed HTTP request: ${error.message}`), 'Bad Request');
  }
}

function writeStatus(socket: Duplex, error: StatusError, text: string): void {
  const body = JSON.stringify(error.toStatus());
  socket.on('error', () => socket.destroy());
  socket.end(
    [
      `HTTP/1.1 ${error.code} ${text}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
