// The interpreter as a device. Its memory is one HostMemory (DeviceArrays live there); its
// streams are InterpretQueues, so a launch returns at once and the kernel runs a few programs at a
// time between turns of the event loop. Host arrays are copied into the memory when the launch is
// queued and back only when the kernel succeeded.
import type { Func } from '../ir/ops.js';
import { HostMemory, interpretPrograms, type ScalarArg } from '../interpret/index.js';
import {
  DeviceContext, DeviceError, type Device, type DeviceEvent, type DeviceMemory, type DeviceProperties, type LaunchArg, type LaunchOptions,
  type RawBuffer, type Stream,
} from './device.js';
import { DeviceArray, checkArray, holdUntil, type Storage } from './device_array.js';
import { Future, future, rejected } from './future.js';
import { InterpretQueue, type Task } from './interpret_queue.js';
import { refuseOtherDevice } from './capture_scope.js';

interface HostRaw extends RawBuffer {
  readonly address: number;
}

class InterpretStream implements Stream {
  readonly queue = new InterpretQueue();
  #destroyed = false;
  constructor(readonly device: InterpretDevice) {}

  /** @internal Queues `task` (E_FREED once destroyed). */
  run(task: Task): Future<void> {
    if (this.#destroyed) return rejected(new DeviceError('E_FREED', 'the stream was destroyed'));
    return this.queue.enqueue(task);
  }

  synchronize(): Future<void> {
    return this.run(() => undefined);
  }

  destroy(): void {
    this.#destroyed = true;
  }
}

class InterpretEvent implements DeviceEvent {
  #reached: Future<void> | undefined;
  #time: number | undefined;
  constructor(readonly device: InterpretDevice) {}

  record(stream?: Stream): void {
    this.#time = undefined;
    this.#reached = this.device.streamOf(stream).run(() => {
      this.#time = performance.now();
    });
  }

  synchronize(): Future<void> {
    return this.#reached ?? Future.resolved();
  }

  elapsedSince(start: DeviceEvent): number {
    if (!(start instanceof InterpretEvent) || start.device !== this.device) throw new DeviceError('E_ARG', 'elapsedSince: the start event is of another device');
    if (this.#time === undefined || start.#time === undefined) throw new DeviceError('E_NOT_READY', 'elapsedSince: both events must be recorded and reached');
    return this.#time - start.#time;
  }

  destroy(): void {
    this.#reached = undefined;
  }
}

export class InterpretDevice implements Device {
  readonly kind = 'interpret' as const;
  readonly name = 'interpret:0';
  readonly ordinal = 0;
  readonly description = 'interpret (tile IR executed in TypeScript on the CPU)';
  readonly properties: DeviceProperties = { name: 'tile IR interpreter', computeCapability: null, multiProcessorCount: 1 };
  readonly mem = new HostMemory();
  readonly #context = new DeviceContext('interpret', 0);
  readonly #streams = new Set<InterpretStream>();
  readonly defaultStream: InterpretStream;
  readonly memory: DeviceMemory;

  constructor() {
    this.defaultStream = this.createStream();
    this.memory = this.#makeMemory();
  }

  createStream(): InterpretStream {
    const s = new InterpretStream(this);
    this.#streams.add(s);
    return s;
  }

  createEvent(): DeviceEvent {
    return new InterpretEvent(this);
  }

  synchronize(): Future<void> {
    return future(Promise.all([...this.#streams].map((s) => s.synchronize())).then(() => undefined));
  }

  close(): void {
    this.#context.close();
  }

  /** @internal The stream to queue on: `s` (checked) or the default. */
  streamOf(s: Stream | undefined): InterpretStream {
    refuseOtherDevice(this, this.name); // a capture of a cuda/sim device in progress would not record it
    if (s === undefined) return this.defaultStream;
    if (!(s instanceof InterpretStream) || s.device !== this) {
      const other = (s as { device?: { kind?: unknown; name?: string } } | null)?.device;
      if (other && typeof other.kind === 'string') throw new DeviceError('E_DEVICE', `a stream of device '${other.name ?? other.kind}' cannot be used on the interpret device`);
      throw new DeviceError('E_ARG', `expected a stream of the interpret device, got ${s === null ? 'null' : (s as object)?.constructor?.name ?? typeof s}`);
    }
    return s;
  }

  launch(func: Func, args: readonly LaunchArg[], opts: LaunchOptions): Future<void> {
    try {
      this.#context.check(`kernel '${func.name}'`);
      if (opts.sanitize?.length) throw new DeviceError('E_UNSUPPORTED', `kernel '${func.name}': sanitize (${opts.sanitize.join(', ')}) needs the sim device; the interpreter has no sanitizers`);
      if (args.length !== func.params.length) {
        throw new DeviceError('E_PARAM', `kernel '${func.name}': expected ${func.params.length} arguments, got ${args.length}`);
      }
      const stream = this.streamOf(opts.stream);
      const storages: Storage[] = [];
      // Host arrays: copied now (the caller may change them once this returns), into buffers
      // freed when the kernel is done. The same array object passed twice is one buffer.
      const temps = new Map<ArrayBufferView, number>();
      const values: ScalarArg[] = args.map((a, i) => {
        if (a instanceof DeviceArray) {
          checkArray(a, this, func, i);
          storages.push(a.storage);
          return a.address as number;
        }
        if (!ArrayBuffer.isView(a)) return a;
        let addr = temps.get(a);
        if (addr === undefined) {
          addr = this.mem.upload(a);
          temps.set(a, addr);
        }
        return addr;
      });
      const print = opts.onPrint ? { onPrint: opts.onPrint } : {};
      const done = stream.run(() => interpretPrograms(func, values, this.mem, { grid: [...opts.grid], ...print, ...(opts.clusterDims ? { cluster: opts.clusterDims } : {}) }));
      holdUntil(storages, done);
      if (temps.size === 0) return done;
      return future(done.then(
        () => {
          for (const [a, addr] of temps) this.mem.download(addr, a);
        },
      ).finally(() => {
        for (const addr of temps.values()) this.mem.free(addr);
      }));
    } catch (e) {
      return rejected(e);
    }
  }

  #makeMemory(): DeviceMemory {
    const mem = this.mem;
    const ctx = this.#context;
    const bytesOf = (b: RawBuffer, offset: number, n: number) => mem.view((b as HostRaw).address).subarray(offset, offset + n);
    return {
      context: () => ctx,
      alloc: (bytes) => {
        ctx.check('alloc');
        return { context: ctx, bytes, address: mem.alloc(bytes) } satisfies HostRaw;
      },
      free: (b) => mem.free((b as HostRaw).address),
      write: (b, offset, src, stream) => {
        const copy = new Uint8Array(src.buffer, src.byteOffset, src.byteLength).slice();
        return this.streamOf(stream).run(() => {
          bytesOf(b, offset, copy.length).set(copy);
        });
      },
      read: (b, offset, dst, stream) => this.streamOf(stream).run(() => {
        dst.set(bytesOf(b, offset, dst.length));
      }),
      readSync: (b, offset, dst) => {
        for (const s of this.#streams) s.queue.drain();
        dst.set(bytesOf(b, offset, dst.length));
      },
      copy: (dst, dstOffset, src, srcOffset, n, stream) => this.streamOf(stream).run(() => {
        bytesOf(dst, dstOffset, n).set(bytesOf(src, srcOffset, n));
      }),
      fill: (b, offset, n, byte, stream) => this.streamOf(stream).run(() => {
        bytesOf(b, offset, n).fill(byte);
      }),
    };
  }
}
