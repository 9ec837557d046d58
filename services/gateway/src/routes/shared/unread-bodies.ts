import { errorCodes, type FastifyInstance } from 'fastify';

/** Methods whose routes read no body here. */
const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * A body sent with a GET or HEAD, which no route reads, is read and dropped before the
 * answer goes out. Left unread it stays in the socket, and when the answer ends the
 * connection (`Connection: close`) the kernel resets it instead of closing it: a client
 * still reading a large answer, such as the 190 KB OpenAPI document, loses it (found by
 * the fuzzer, docs/fuzzing.md). At most `limitBytes` are read; a larger body is refused
 * as any too-large body is (400 VALIDATION400_BAD_REQUEST).
 */
export function drainUnreadBodies(app: FastifyInstance, limitBytes: number): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!BODYLESS.has(request.method)) return done();
    const declared = Number(request.headers['content-length'] ?? 0);
    const chunked = request.headers['transfer-encoding'] !== undefined;
    if (!(declared > 0) && !chunked) return done();
    if (declared > limitBytes) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    const raw = request.raw;
    let read = 0;
    let finished = false;
    const finish = (error?: Error) => {
      if (finished) return;
      finished = true;
      raw.off('data', onData).off('end', onEnd).off('error', finish);
      done(error);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limitBytes) finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    };
    const onEnd = () => finish();
    raw.on('data', onData).on('end', onEnd).on('error', finish);
    raw.resume();
  });
}
