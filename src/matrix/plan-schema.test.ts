import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { planJsonSchema, planJsonSchemaText } from './plan.js';

const committed = fileURLToPath(new URL('../../schema/matrix-plan.schema.json', import.meta.url));
const fixture = fileURLToPath(new URL('../../test/fixtures/matrix/seed-like.yaml', import.meta.url));

test('schema/matrix-plan.schema.json is generated from the zod schema and up to date', () => {
  assert.equal(
    readFileSync(committed, 'utf8'),
    planJsonSchemaText(),
    'run: node --import tsx scripts/gen-matrix-plan-schema.ts',
  );
});

test('the JSON Schema accepts the fixture plan and rejects an unknown key', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(planJsonSchema());
  const plan = parse(readFileSync(fixture, 'utf8')) as Record<string, unknown>;
  assert.equal(validate(plan), true, JSON.stringify(validate.errors));
  assert.equal(validate({ ...plan, strenght: 3 }), false);
});
