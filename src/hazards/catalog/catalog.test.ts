/**
 * The catalog's table tests, generated from each hazard's data (test/helpers/hazards/rule-tester.ts):
 * its failing example fires at the word it names, its clean example does not, every remedy (by id)
 * applied to the failing example clears it, every non-remedy (by id) leaves it standing, and the
 * failing example without a stated fact is never clean.
 */
import { hazards } from '../index.js';
import { casesFromData, runHazardCases } from '../../../test/helpers/hazards/rule-tester.js';

for (const h of hazards) runHazardCases(h, casesFromData(h));
