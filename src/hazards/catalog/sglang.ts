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
import { FL220 } from './FL220-sgl-fi-spec-verify-swa-window.js';
import { FL221 } from './FL221-sgl-lora-cudagraph-moe.js';
import { FL222 } from './FL222-sgl-piecewise-cudagraph-grok-qwen.js';
import { FL223 } from './FL223-sgl-hicache-restore-corruption.js';
import { FL224 } from './FL224-sgl-mixed-chunk-mamba-extra-buffer.js';
import { FL225 } from './FL225-sgl-specdec-penalties-weakened.js';
import { FL226 } from './FL226-sgl-triton-swa-decode-off-by-one.js';
import { FL227 } from './FL227-sgl-amd-eagle-aiter-unified-radix.js';
import { FL228 } from './FL228-sgl-fp8kv-glm5-dsa-b300.js';
import { FL229 } from './FL229-sgl-modelopt-fp4-dpattn.js';
import { FL230 } from './FL230-sgl-fp8kv-scale-file-ignored.js';
import { FL231 } from './FL231-sgl-fi-fp8kv-prefix-hit-scales.js';
import { FL232 } from './FL232-sgl-radix-deterministic-block-boundary.js';
import { FL233 } from './FL233-sgl-dsv4-nvfp4-no-spec-nan.js';

// prettier-ignore
export const SGLANG_HAZARDS: readonly Hazard[] = [FL200, FL201, FL202, FL203, FL204, FL205, FL206, FL207, FL208, FL209, FL210, FL211, FL212, FL213, FL220, FL221, FL222, FL223, FL224, FL225, FL226, FL227, FL228, FL229, FL230, FL231, FL232, FL233];
