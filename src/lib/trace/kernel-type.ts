/**
 * HTA's kernel classes, by name, with its patterns (hta/common/types.py): communication first, then
 * memory, then computation (any name that matches none of the non-compute patterns), else other.
 * Python's `re.match` anchors at the start, so each pattern here starts with `^`.
 */

/** A kernel's class. */
export type KernelType = 'COMMUNICATION' | 'MEMORY' | 'COMPUTATION' | 'OTHER';

const COMM = /^(?:nccl|hip|hccl|.*ncclKernel)/;
const MEMORY = /^(?:(?:hip)?Memcpy|(?:hip)?Memset|dma)/;
const NOT_COMPUTE =
  /^(?:nccl|.*Memcpy|.*Memset|.*dma|.*Sync|Stream Wait Event|cuda.*LaunchKernel|runFunction|hip|job_exe|packet|pe_exe|cpum_exe_subgraph|hccl|collective_subgraph_execution)/;

/** The class HTA gives a GPU event of this name. */
export function kernelType(name: string): KernelType {
  if (COMM.test(name)) return 'COMMUNICATION';
  if (MEMORY.test(name)) return 'MEMORY';
  if (!NOT_COMPUTE.test(name)) return 'COMPUTATION';
  return 'OTHER';
}

/** HTA's `^ProfilerStep#(\d+)`: the step number, or null. */
export function profilerStepNumber(name: string): number | null {
  const m = /^ProfilerStep#(\d+)/.exec(name);
  return m ? Number(m[1]) : null;
}
