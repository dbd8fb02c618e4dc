/**
 * Loaded with `--import` into a Node child forked by `fake-utility-process.ts`: gives the child an
 * Electron-style `process.parentPort` carried by the Node IPC channel, so the engine process runs
 * exactly as in a utility process (it picks the port over `process.send`, reads `{ data }` events,
 * and must exit by itself). As in Electron, messages wait until a 'message' listener is added.
 */
import { EventEmitter } from 'node:events';

const send = process.send?.bind(process);
if (!send) throw new Error('fake-parent-port: the process has no IPC channel to carry the port');

const port = new EventEmitter();
const queued: unknown[] = [];
process.on('message', (data: unknown) => {
  if (port.listenerCount('message') > 0) port.emit('message', { data, ports: [] });
  else queued.push(data);
});
port.on('newListener', (name: string) => {
  if (name !== 'message') return;
  setImmediate(() => {
    for (const data of queued.splice(0)) port.emit('message', { data, ports: [] });
  });
});

Object.defineProperty(process, 'parentPort', {
  enumerable: true,
  writable: false,
  value: Object.assign(port, { postMessage: (message: unknown) => void send(message) }),
});
// A utility process has no Node IPC of its own: hide it, so only the port can be chosen.
Object.defineProperty(process, 'send', { value: undefined, configurable: true });
