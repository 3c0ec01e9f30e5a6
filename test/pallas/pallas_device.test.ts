// pallasCall on device arrays (interpret and sim): outputs are new device arrays on the inputs'
// device, nothing goes through the host, an aliased input is updated in place (no copy), and
// mixing devices is an error before anything runs.
import { describe, expect, it } from 'vitest';
import { BlockSpec, ds, type Ref } from '../../src/lang/index.js';
import { DeviceArray, HostArray, array, pallasCall, setDeviceAnnouncer, type DeviceKind, type PallasCall } from '../../src/runtime/index.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { gate } from '../codegen/gate.js';

/** The ptxas gate (sm_80, sm_90) for what the sim ran: the call traced and specialized for `args`. */
function gateCall(call: PallasCall, inputs: DeviceArray[], outputs: DeviceArray[]): void {
  const f = call.trace(...inputs.map((a) => ({ shape: [...a.shape], dtype: a.dtype })));
  gate(f, { numWarps: 4, specialization: launchSpecialization(f, [...inputs, ...outputs]) });
}

setDeviceAnnouncer(() => {});
process.env['TESSERA_CACHE'] = '0';

describe.each(['interpret', 'sim'] as DeviceKind[])('pallasCall with device arrays on %s', (device) => {
  const spec = new BlockSpec([128], (i) => [i]);
  const addP = pallasCall((x: Ref, y: Ref, o: Ref) => o.store(x.load().add(y.load())), {
    outShape: { shape: [1000], dtype: 'f32' }, grid: 8, inSpecs: [spec, spec], outSpecs: spec, name: 'pd_add',
  });

  it('returns device arrays on the inputs device; a chain needs no host copy', async () => {
    const x = DeviceArray.from(Float32Array.from({ length: 1000 }, (_, i) => i), 'f32', { device });
    const y = DeviceArray.full([1000], 0.5, 'f32', { device });
    const z = (await addP(x, y)) as DeviceArray;
    expect(z).toBeInstanceOf(DeviceArray);
    expect(z.device).toBe(x.device);
    const w = (await addP(z, y)) as DeviceArray;
    expect(Array.from((await w.toArray()) as Float32Array)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    if (device === 'sim') gateCall(addP, [z, y], [w]);
    // A HostArray beside a device array is copied in; the output is still on the device.
    const h = (await addP(array(new Array(1000).fill(2), 'f32'), y)) as DeviceArray;
    expect(h).toBeInstanceOf(DeviceArray);
    expect(Array.from((await h.toArray()) as Float32Array)).toEqual(new Array(1000).fill(2.5));
    for (const a of [x, y, z, w, h]) a.free();
  });

  it('passes numStages to the device: a valid depth runs, an invalid one fails there (the interpreter ignores it)', async () => {
    const x = DeviceArray.full([1000], 1, 'f32', { device });
    const opts = { outShape: { shape: [1000], dtype: 'f32' as const }, grid: 8, inSpecs: [spec, spec], outSpecs: spec, name: 'pd_add_stages' };
    const body = (a: Ref, b: Ref, o: Ref): void => o.store(a.load().add(b.load()));
    const ok = (await pallasCall(body, { ...opts, numStages: 2 })(x, x)) as DeviceArray;
    expect(Array.from((await ok.toArray()) as Float32Array)).toEqual(new Array(1000).fill(2));
    const bad = pallasCall(body, { ...opts, numStages: 0 })(x, x);
    if (device === 'sim') await expect(bad).rejects.toThrow(/numStages' must be an integer in 1\.\.8, got 0/);
    else ((await bad) as DeviceArray).free();
    for (const a of [x, ok]) a.free();
  });

  it('an aliased device input is updated in place and returned as the output', async () => {
    const inc = pallasCall((x: Ref, _accIn: Ref, o: Ref) => o.store(o.load().add(x.load([ds(0, 4)]))), {
      outShape: { shape: [4], dtype: 'i32' }, inputOutputAliases: { 1: 0 }, name: 'pd_inc',
    });
    const x = DeviceArray.from([1, 2, 3, 4], 'i32', { device });
    const acc = DeviceArray.from([10, 20, 30, 40], 'i32', { device });
    const o = (await inc(x, acc)) as DeviceArray;
    expect(o).toBe(acc); // no copy: the output is the donated input
    expect(Array.from(await acc.toArray())).toEqual([11, 22, 33, 44]);
    await inc(x, acc);
    expect(Array.from(await acc.toArray())).toEqual([12, 24, 36, 48]);
    if (device === 'sim') gateCall(inc, [x, acc], [acc]);
    // HostArray inputs keep the copy semantics.
    const hacc = array([10, 20, 30, 40], 'i32');
    const ho = (await inc(array([1, 1, 1, 1], 'i32'), hacc)) as HostArray;
    expect(Array.from(ho.data as Int32Array)).toEqual([11, 21, 31, 41]);
    expect(Array.from(hacc.data as Int32Array)).toEqual([10, 20, 30, 40]);
    x.free();
    acc.free();
  });

  it('inputs on two devices, or freed inputs, are errors before anything runs', async () => {
    const other: DeviceKind = device === 'sim' ? 'interpret' : 'sim';
    const x = DeviceArray.zeros([1000], 'f32', { device });
    const y = DeviceArray.zeros([1000], 'f32', { device: other });
    await expect(addP(x, y)).rejects.toThrow(/input 1 is on device/);
    y.free();
    const f = DeviceArray.zeros([1000], 'f32', { device });
    f.free();
    await expect(addP(x, f)).rejects.toThrow(/input 1.*freed/);
    x.free();
  });
});
