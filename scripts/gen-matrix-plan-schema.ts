/**
 * Writes schema/matrix-plan.schema.json from the zod plan schema (src/matrix/plan.ts).
 * Run: node --import tsx scripts/gen-matrix-plan-schema.ts
 * src/matrix/plan-schema.test.ts fails when the committed file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { planJsonSchemaText } from '../src/matrix/plan.js';

const target = fileURLToPath(new URL('../schema/matrix-plan.schema.json', import.meta.url));
writeFileSync(target, planJsonSchemaText());
console.log(`wrote ${target}`);
