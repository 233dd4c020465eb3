/** The SGLang hazards (ids FL200 and up), registered in ../index.ts with the rest. */
import type { Hazard } from '../hazard.js';
import { FL200 } from './FL200-sgl-fi-swa-paged-prefill-no-window.js';
import { FL201 } from './FL201-sgl-gemma3-swa-window-unset.js';
import { FL202 } from './FL202-sgl-piecewise-cudagraph-gpt-oss.js';
import { FL203 } from './FL203-sgl-cutlass-mla-cudagraph-dpattn.js';
import { FL204 } from './FL204-sgl-breakable-cg-dcp-padded-positions.js';
import { FL205 } from './FL205-sgl-dpattn-moe-double-reduce.js';
import { FL206 } from './FL206-sgl-specv2-dpattn-acceptance-drop.js';
import { FL207 } from './FL207-sgl-trtllm-mla-bf16kv-kscale.js';
import { FL208 } from './FL208-sgl-trtllm-mha-fp8kv-scales.js';
import { FL209 } from './FL209-sgl-rocm-dpattn-persistent-mla-heads.js';
import { FL210 } from './FL210-sgl-hybrid-ngram-stale-recurrent-state.js';
import { FL211 } from './FL211-sgl-trtllm-mla-chunked-prefill-zero-length.js';
import { FL212 } from './FL212-sgl-radix-spec-hybrid-loop.js';
import { FL213 } from './FL213-sgl-eagle-grammar-finish.js';

export const SGLANG_HAZARDS: readonly Hazard[] = [FL200, FL201, FL202, FL203, FL204, FL205, FL206, FL207, FL208, FL209, FL210, FL211, FL212, FL213];
