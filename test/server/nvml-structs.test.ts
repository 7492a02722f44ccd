/** Decoding NVML's bit fields (server/nvml/structs.ts). */
import { describe, expect, test } from 'vitest';
import { decodeReasons } from '../../server/nvml/structs.ts';

describe('decodeReasons', () => {
  test('names each bit and keeps unknown bits visible', () => {
    expect(decodeReasons(0n)).toEqual([]);
    expect(decodeReasons(0x1n | 0x40n)).toEqual(['GpuIdle', 'HwThermalSlowdown']);
    expect(decodeReasons(0x10000n)).toEqual(['Unknown(0x10000)']);
  });
});
