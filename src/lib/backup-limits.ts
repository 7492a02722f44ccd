/**
 * The backup file's size limit, on its own so the progress page's first script can check a file's
 * size without loading the backup parser and zod (src/lib/backup.ts re-exports it).
 * A heavy learner's own export is ~11.4 MB at 50,000 answers (bench/progress.ts), so 32 MB leaves
 * room for ~140,000 answers and still refuses the 50 MB file that is not a backup.
 */
export const MAX_BACKUP_BYTES = 32 * 1024 * 1024;
