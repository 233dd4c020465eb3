/** faultline's version, reported in --version, JSON output and report provenance. Keep equal to package.json. */
export const VERSION = '0.1.0';
