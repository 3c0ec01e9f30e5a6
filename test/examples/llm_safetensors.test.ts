// examples/llm/safetensors.ts: the format's checks on hand-made and hand-corrupted files (each
// corruption is a SafetensorsError with its own code, thrown at open), reading back what was written,
// and sharded checkpoints through model.safetensors.index.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Checkpoint, encodeSafetensors, SafetensorsError, SafetensorsFile } from '../../examples/llm/safetensors.js';

const dir = mkdtempSync(join(tmpdir(), 'tessera-st-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const f32 = (xs: number[]): Uint8Array => new Uint8Array(new Float32Array(xs).buffer);
let n = 0;
const write = (bytes: Uint8Array, name = `f${n++}.safetensors`): string => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};
/** A file with the given header object (JSON-encoded as is) and `data` bytes after it. */
const withHeader = (header: unknown, data: Uint8Array, nOverride?: bigint): string => {
  const head = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + head.length + data.length);
  new DataView(out.buffer).setBigUint64(0, nOverride ?? BigInt(head.length), true);
  out.set(head, 8);
  out.set(data, 8 + head.length);
  return write(out);
};
const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SafetensorsError);
    return (e as SafetensorsError).code;
  }
  return 'no error';
};

describe('safetensors reader', () => {
  it('reads back what was written, with metadata, 8-byte aligned data', () => {
    const p = write(encodeSafetensors({
      a: { dtype: 'F32', shape: [2, 3], bytes: f32([1, 2, 3, 4, 5, 6]) },
      b: { dtype: 'BF16', shape: [3], bytes: new Uint8Array([0x80, 0x3f, 0, 0x40, 0x40, 0x40]) },
      e: { dtype: 'F16', shape: [0, 4], bytes: new Uint8Array(0) },
    }, { format: 'pt' }));
    const f = SafetensorsFile.open(p);
    try {
      expect(f.metadata).toEqual({ format: 'pt' });
      expect([...f.tensors.keys()].sort()).toEqual(['a', 'b', 'e']);
      const a = f.read('a');
      expect(a.shape).toEqual([2, 3]);
      expect([...new Float32Array(a.bytes.slice().buffer)]).toEqual([1, 2, 3, 4, 5, 6]);
      expect([...f.read('b').bytes]).toEqual([0x80, 0x3f, 0, 0x40, 0x40, 0x40]);
      expect(f.read('e').bytes.length).toBe(0);
      expect(code(() => f.read('zz'))).toBe('E_SAFETENSORS_MISSING');
    } finally {
      f.close();
    }
  });

  it('rejects a file too short for the header length', () => {
    expect(code(() => SafetensorsFile.open(write(new Uint8Array(5))))).toBe('E_SAFETENSORS_TRUNCATED');
  });

  it('rejects header lengths out of bounds: past the file, absurdly large, too small', () => {
    const data = f32([1]);
    const hdr = { a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } };
    expect(code(() => SafetensorsFile.open(withHeader(hdr, data, 10_000n)))).toBe('E_SAFETENSORS_HEADER');
    expect(code(() => SafetensorsFile.open(withHeader(hdr, data, 1n << 62n)))).toBe('E_SAFETENSORS_HEADER');
    expect(code(() => SafetensorsFile.open(withHeader(hdr, data, 1n)))).toBe('E_SAFETENSORS_HEADER');
  });

  it('rejects a header that is not JSON, not UTF-8, or not an object', () => {
    const bad = new Uint8Array([...new Uint8Array(8), ...new TextEncoder().encode('{"a": ')]);
    new DataView(bad.buffer).setBigUint64(0, 6n, true);
    expect(code(() => SafetensorsFile.open(write(bad)))).toBe('E_SAFETENSORS_HEADER');
    const notUtf8 = new Uint8Array([4, 0, 0, 0, 0, 0, 0, 0, 0x22, 0xff, 0xfe, 0x22]);
    expect(code(() => SafetensorsFile.open(write(notUtf8)))).toBe('E_SAFETENSORS_HEADER');
    expect(code(() => SafetensorsFile.open(withHeader([1, 2], new Uint8Array(0))))).toBe('E_SAFETENSORS_HEADER');
    expect(code(() => SafetensorsFile.open(withHeader({ __metadata__: { a: 1 } }, new Uint8Array(0))))).toBe('E_SAFETENSORS_HEADER');
  });

  it('rejects an unknown dtype name', () => {
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'FLOAT32', shape: [1], data_offsets: [0, 4] } }, f32([1]))))).toBe('E_SAFETENSORS_DTYPE');
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'f32', shape: [1], data_offsets: [0, 4] } }, f32([1]))))).toBe('E_SAFETENSORS_DTYPE');
  });

  it('rejects shape x itemsize != byte span, and bad shapes', () => {
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 4] } }, f32([1]))))).toBe('E_SAFETENSORS_SHAPE');
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'F16', shape: [2], data_offsets: [0, 8] } }, f32([1, 2]))))).toBe('E_SAFETENSORS_SHAPE');
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'F32', shape: [-1], data_offsets: [0, 4] } }, f32([1]))))).toBe('E_SAFETENSORS_SHAPE');
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'F32', shape: [1.5], data_offsets: [0, 4] } }, f32([1]))))).toBe('E_SAFETENSORS_SHAPE');
  });

  it('rejects offsets past the data buffer, backwards, or malformed', () => {
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, f32([1]))))).toBe('E_SAFETENSORS_OFFSETS');
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'F32', shape: [0], data_offsets: [4, 0] } }, f32([1]))))).toBe('E_SAFETENSORS_OFFSETS');
    expect(code(() => SafetensorsFile.open(withHeader({ a: { dtype: 'F32', shape: [1], data_offsets: [0] } }, f32([1]))))).toBe('E_SAFETENSORS_OFFSETS');
  });

  it('rejects overlapping tensors and holes in the data buffer', () => {
    const two = { dtype: 'F32', shape: [2] };
    expect(code(() => SafetensorsFile.open(withHeader({ a: { ...two, data_offsets: [0, 8] }, b: { ...two, data_offsets: [4, 12] } }, f32([1, 2, 3]))))).toBe('E_SAFETENSORS_OVERLAP');
    expect(code(() => SafetensorsFile.open(withHeader({ a: { ...two, data_offsets: [0, 8] }, b: { ...two, data_offsets: [12, 20] } }, f32([1, 2, 3, 4, 5]))))).toBe('E_SAFETENSORS_HOLE');
    expect(code(() => SafetensorsFile.open(withHeader({ a: { ...two, data_offsets: [0, 8] } }, f32([1, 2, 3]))))).toBe('E_SAFETENSORS_HOLE');
  });

  it('opens a sharded checkpoint through its index, and checks the index against the shards', () => {
    const sd = mkdtempSync(join(dir, 'shards-'));
    writeFileSync(join(sd, 'model-00001-of-00002.safetensors'), encodeSafetensors({ x: { dtype: 'F32', shape: [1], bytes: f32([7]) } }));
    writeFileSync(join(sd, 'model-00002-of-00002.safetensors'), encodeSafetensors({ y: { dtype: 'F32', shape: [2], bytes: f32([8, 9]) } }));
    const index = (map: Record<string, string>) => writeFileSync(join(sd, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: map }));
    index({ x: 'model-00001-of-00002.safetensors', y: 'model-00002-of-00002.safetensors' });
    const c = Checkpoint.open(sd);
    expect(c.names.sort()).toEqual(['x', 'y']);
    expect([...new Float32Array(c.read('y').bytes.slice().buffer)]).toEqual([8, 9]);
    c.close();
    index({ x: 'model-00002-of-00002.safetensors', y: 'model-00002-of-00002.safetensors' });
    expect(code(() => Checkpoint.open(sd))).toBe('E_SAFETENSORS_INDEX');
    index({ x: 'model-00001-of-00002.safetensors' }); // y's shard is not listed: y is in no file the index names
    expect(Checkpoint.open(sd).names).toEqual(['x']);
    index({ x: 'model-00001-of-00002.safetensors', y: '../elsewhere.safetensors' });
    expect(code(() => Checkpoint.open(sd))).toBe('E_SAFETENSORS_INDEX');
    writeFileSync(join(sd, 'model.safetensors.index.json'), '{');
    expect(code(() => Checkpoint.open(sd))).toBe('E_SAFETENSORS_INDEX');
    expect(code(() => Checkpoint.open(mkdtempSync(join(dir, 'empty-'))))).toBe('E_SAFETENSORS_IO');
  });
});
