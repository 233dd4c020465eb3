import { defineHazard } from '../hazard.js';
import { fullCudaGraphs } from '../conditions/cudagraphs.js';
import { mlaModel } from '../conditions/mla.js';
import { decodeContextParallel } from '../conditions/runtime-switches.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#45425: MTP + decode context parallelism + FULL CUDA graphs on sparse MLA. */
export const FL032 = defineHazard({
  id: 'FL032',
  alias: 'mtp-dcp-full-cudagraph-mla',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'MTP with decode context parallelism and the default FULL_AND_PIECEWISE CUDA graphs on an MLA model whose backend lacks varlen decode under DCP truncates or loops output with no error',
  mechanism:
    'Per the reporter: under DCP, AttentionMetadataBuilder._init_reorder_batch_threshold forces reorder_batch_threshold ' +
    'back to 1 for backends that do not declare varlen-decode support under DCP, so speculative verify batches are ' +
    'classified and captured as something the FULL graph does not replay correctly. Any one of PIECEWISE graphs, eager ' +
    'mode, no MTP or no DCP made the same setup correct. (For non-MLA models vLLM forces PIECEWISE under DCP itself.)',
  affected: { vllm: 'reported on 0.22.1 (and on main with a sparse-MLA DCP patch); open' },
  confidence: 'reproduced',
  confidenceReason:
    'vllm#45425 varies one factor at a time on the failing setup (GLM-5.1 NVFP4, DCP 4, MTP k=1, 4×H200): PIECEWISE graphs, eager mode, no MTP or no DCP each made it correct',
  conditions: [
    mlaModel(),
    speculativeDecoding({ methods: ['mtp'] }),
    decodeContextParallel(),
    fullCudaGraphs(),
    affectedVersion({ pkg: 'vllm', firstReported: '0.22.1', record: 'reported on 0.22.1; open' }),
  ],
  locateAt: 'decode-context-parallel',
  remedies: [
    {
      id: 'piecewise-cuda-graphs',
      change: { set: { 'compilation_config.cudagraph_mode': 'PIECEWISE' } },
      why: 'correct in the report, at about half the single-stream decode throughput of full graphs',
    },
    { id: 'enforce-eager', change: { add: '--enforce-eager' }, why: 'correct in the report (much slower)' },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'DCP without MTP is correct with full graphs',
    },
    {
      id: 'no-decode-context-parallel',
      change: { unset: 'decode_context_parallel_size' },
      why: 'MTP without DCP is correct with full graphs',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve /models/glm-5.1-nvfp4 --tensor-parallel-size 4 --decode-context-parallel-size 4 --kv-cache-dtype fp8_ds_mla --speculative-config '{"method": "mtp", "num_speculative_tokens": 1}'`,
      gpu: 'NVIDIA H200',
      model: 'glm-5.1-nvfp4',
      vllm: '0.22.1',
      points: '--decode-context-parallel-size',
    },
    clean: {
      command: `vllm serve /models/glm-5.1-nvfp4 --tensor-parallel-size 4 --decode-context-parallel-size 4 --kv-cache-dtype fp8_ds_mla --compilation-config '{"cudagraph_mode": "PIECEWISE"}' --speculative-config '{"method": "mtp", "num_speculative_tokens": 1}'`,
      gpu: 'NVIDIA H200',
      model: 'glm-5.1-nvfp4',
      vllm: '0.22.1',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#45425: Silent output corruption: MTP + DCP + FULL_AND_PIECEWISE cudagraphs when the attention backend lacks varlen-decode support under DCP',
      url: 'https://github.com/vllm-project/vllm/issues/45425',
    },
    {
      title:
        'vllm-project/vllm PR #45426: FlashMLA sparse: enable DCP … and MTP with full cudagraphs (closed)',
      url: 'https://github.com/vllm-project/vllm/pull/45426',
    },
  ],
  docs: {
    problem:
      'GLM-5.1 (sparse MLA, fp8_ds_mla KV) on 4×H200 with MTP and -dcp 4 answers with one or two characters, or loops; ' +
      'the server looks healthy and logs nothing.',
    exceptions:
      'Which MLA backends lack varlen decode under DCP is not in the record beyond the reported sparse-MLA one; every MLA ' +
      'model with this combination is reported as affected.',
  },
});
