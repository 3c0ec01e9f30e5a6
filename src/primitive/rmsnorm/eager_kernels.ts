// An EagerContext that serves the RMSNorm targets' contract (legacy symbols, RMSNormDescriptor
// opaque bytes, buffers in target order) with the Tessera-language kernels on a runtime device:
// eager RMSNorm from Node on sim, interpret or cuda, f32 only (the kernels' dtype). Host arrays
// run on `opts.device`; device arrays run where they live (outputs are device arrays there, and
// nothing is copied). Other symbols and dtypes are refused by name.
import { unpackRMSNorm } from '../../descriptor/rms_norm.js';
import { getDevice, type Device, type DeviceKind } from '../../runtime/device.js';
import { DeviceArray } from '../../runtime/device_array.js';
import type { ShapedArray } from '../aval.js';
import { describeValue, emptyLike, isDeviceArray, type EagerValue, type EagerContext } from '../eager.js';
import { PrimitiveError } from '../errors.js';
import { rmsNormBwdKernel, rmsNormFwdKernel, rmsNormGradWeightKernel } from './kernels.js';
import { RMS_TARGETS } from './primitives.js';

const pow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(n, 1)));

export function tesseraRmsNormContext(opts: { device?: DeviceKind | Device } = {}): EagerContext {
  return {
    async customCall(symbol, ins, outs, opaque) {
      const d = unpackRMSNorm(opaque);
      if (d.xType !== 'f32' || d.wType !== 'f32') throw new PrimitiveError('E_TYPE', symbol, `the Tessera RMSNorm kernels take f32 x and weight, got ${d.xType} and ${d.wType}`);
      if (symbol !== RMS_TARGETS.fwd.legacy.cuda && symbol !== RMS_TARGETS.bwd.legacy.cuda) {
        throw new PrimitiveError('E_UNAVAILABLE', symbol, `no Tessera kernel serves this target (only ${RMS_TARGETS.fwd.legacy.cuda}, ${RMS_TARGETS.bwd.legacy.cuda})`);
      }
      const onDev = ins.find(isDeviceArray);
      if (onDev && opts.device !== undefined && getDevice(opts.device) !== onDev.device) {
        throw new PrimitiveError('E_DEVICE', symbol, `${describeValue(onDev)} is not on this context's device '${getDevice(opts.device).kind}'`);
      }
      const other = onDev && ins.find((a) => isDeviceArray(a) && a.device !== onDev.device);
      if (other) throw new PrimitiveError('E_DEVICE', symbol, `inputs are on different devices: ${describeValue(onDev!)} and ${describeValue(other)}`);
      const device = onDev ? onDev.device : opts.device;
      const run = device !== undefined ? { device } : {};
      // Kernel arguments: device arrays as they are, host inputs through copies (never written).
      // (dtypes were checked by abstract eval: every array here is f32)
      const arg = (a: EagerValue) => (a instanceof DeviceArray ? a as DeviceArray<'f32'> : (a.data as Float32Array).slice());
      // Outputs start zeroed (part_grad is accumulated with atomic adds).
      const fresh = (o: ShapedArray) => (onDev ? DeviceArray.zeros(o.shape, o.dtype, { device: onDev.device }) : emptyLike(o));
      const results = outs.map(fresh);
      const out = (i: number) => { const r = results[i]!; return r instanceof DeviceArray ? r as DeviceArray<'f32'> : (r.data as Float32Array); };
      const BLOCK = pow2(d.n2);
      try {
        if (symbol === RMS_TARGETS.fwd.legacy.cuda) {
          if (d.n1 > 0) await rmsNormFwdKernel.run({ x: arg(ins[0]!), w: arg(ins[1]!), out: out(0), invvar: out(1), n2: d.n2, eps: d.eps, BLOCK }, { grid: d.n1, ...run });
        } else {
          const [g, iv, x, w] = ins.map(arg);
          const P = d.partGradSize;
          if (d.n1 > 0) await rmsNormBwdKernel.run({ g: g!, invvar: iv!, x: x!, w: w!, gradInput: out(0), partGrad: out(2), n2: d.n2, P, BLOCK }, { grid: d.n1, ...run });
          await rmsNormGradWeightKernel.run({ partGrad: out(2), gradWeight: out(1), n2: d.n2, P, BLOCK: Math.min(BLOCK, 64), PB: pow2(P) }, { grid: Math.ceil(d.n2 / Math.min(BLOCK, 64)), ...run });
        }
      } catch (e) {
        for (const r of results) if (r instanceof DeviceArray) r.free();
        throw e;
      }
      return results;
    },
  };
}
