// Closing a connection whose client is still sending (an early 413, a 408 mid-body, a malformed
// chunk). Closing at once, with the client's bytes unread, makes the kernel send a TCP reset; a
// client still writing then fails its write and drops the socket before it reads the answer, which
// was already in its receive buffer (RFC 9112 §9.6 describes the problem). So the close is done in
// stages: FIN after the answer, then the client's bytes are read and dropped until the client
// closes its side, or for at most LINGER_MS.
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long a connection answered early may keep sending before it is closed anyway. */
export const LINGER_MS = 5_000;

const drop = (): void => {};

/** Ends `socket` (FIN once what was written is sent), reads and drops what the client still sends, closes when it is done. */
export function closeInStages(socket: Duplex, lingerMs = LINGER_MS): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.on('data', drop);
  socket.end();
  socket.resume();
}

/** Makes Node's own close after a `connection: close` answer (its `destroySoon`) close `socket` in stages. */
export function closeInStagesAfterAnswer(socket: Socket, lingerMs = LINGER_MS): void {
  // A 'data' listener added while Node's HTTP parser still owns the socket makes the parser read
  // through the stream (not the handle directly), so the stream can go on reading once it is done
  socket.on('data', drop);
  socket.destroySoon = () => closeInStages(socket, lingerMs);
}
