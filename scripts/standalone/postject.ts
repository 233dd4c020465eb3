/** postject's programmatic API (the package ships no types): inject a resource into an executable. */
import { createRequire } from 'node:module';

export const { inject } = createRequire(import.meta.url)('postject') as {
  inject(
    filename: string,
    resourceName: string,
    resourceData: Buffer,
    options?: { sentinelFuse?: string; machoSegmentName?: string; overwrite?: boolean },
  ): Promise<void>;
};
