/** The pickers several figures share: a GPU from the spec table, and a precision. */
import { DTYPE_LABELS, GPU_IDS, GPU_SPECS, type Dtype, type GpuId } from '../gpu-specs.ts';
import type { SelectControl } from './types.ts';

/** A GPU picker over every GPU of the spec table. */
export function gpuPicker(value: GpuId = 'h100-sxm'): SelectControl {
  return {
    kind: 'select',
    id: 'gpu',
    label: 'GPU',
    options: GPU_IDS.map((id) => ({ value: id, label: GPU_SPECS[id].label })),
    value,
  };
}

/** A precision picker over `choices`. */
export function dtypePicker(label: string, choices: readonly Dtype[], value: Dtype = 'bf16'): SelectControl {
  return {
    kind: 'select',
    id: 'dtype',
    label,
    options: choices.map((d) => ({ value: d, label: DTYPE_LABELS[d] })),
    value,
  };
}
