/**
 * The directory of the faultline package this code runs from: the checkout when run from src/ (tsx),
 * the installed package when run from dist/ (both two levels below the root). Plans name the
 * package's own files (bin/faultline.js, models/tiny-swa) through it, so they work wherever the
 * package is installed, whatever the working directory.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageRoot = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
