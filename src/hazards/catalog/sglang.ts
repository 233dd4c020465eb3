/** The SGLang hazards (ids FL200 and up), registered in ../index.ts with the rest. */
import type { Hazard } from '../hazard.js';
import { FL200 } from './FL200-sgl-fi-swa-paged-prefill-no-window.js';

export const SGLANG_HAZARDS: readonly Hazard[] = [FL200];
