/**
 * The e2e site's port: $E2E_PORT, else one derived from this checkout's path (4329–12309, a step of 20), so two
 * checkouts on one machine (git worktrees, a clean clone beside the working tree) never test each other's build.
 * Tests that start a server of their own beside it use E2E_PORT + 1…19.
 */
const pathHash = [...process.cwd()].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 997, 7);
export const E2E_PORT = Number(process.env['E2E_PORT'] ?? 4329 + (pathHash % 400) * 20);
