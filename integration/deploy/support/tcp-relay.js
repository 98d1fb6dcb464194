/**
 * `node tcp-relay.js LISTEN_HOST:PORT TARGET_HOST:PORT`: forwards every TCP connection accepted on LISTEN to
 * TARGET, and prints {"port": <port listened on>} once listening (PORT 0 takes a free one). It exits when its
 * standard input closes, that is when the test that started it is gone, however it ended.
 */
'use strict';
const net = require('node:net');

function endpoint(text) {
  const match = /^(.+):(\d+)$/.exec(text ?? '');
  if (!match) throw new Error(`expected host:port, got '${text}'`);
  return { host: match[1], port: Number(match[2]) };
}

const listen = endpoint(process.argv[2]);
const target = endpoint(process.argv[3]);
const server = net.createServer((client) => {
  const upstream = net.connect(target.port, target.host);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const socket of [client, upstream]) {
    socket.on('error', close);
    socket.on('close', close);
  }
  client.pipe(upstream).pipe(client);
});
server.listen(listen.port, listen.host, () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
